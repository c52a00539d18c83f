"""C4.5's steps of :class:`~treelearn.growing.grower.Grower` (``selection="gain_ratio"``,
``missing="fractional"``): the Python loop's search by gain ratio, value groups
(``-s``) and fractional rows, and the numba loop that grows the same tree
(:mod:`~treelearn.growing._c45_kernels`), from which the Tree and its split records
are made. A part of the grower, mixed into it: the methods read the arrays
``Grower.__init__`` sets up and call its node steps (``_make_node``, ``_threshold``).
"""

import numpy as np

from treelearn._dtypes import MISSING_BY_WEIGHT, NODE_MULTIWAY, NODE_THRESHOLD
from treelearn.criteria.measures import conditional_entropy, conditional_gini
from treelearn.growing import _c45_kernels as c45_kernels
from treelearn.growing import settings
from treelearn.splitting import _cut_kernels as cut_kernels
from treelearn.splitting import _gain_ratio_kernels as gain_ratio_kernels
from treelearn.splitting.fractional import class_statistics, split_fractional_rows
from treelearn.splitting.gain_ratio import EPSILON as GAIN_RATIO_EPSILON
from treelearn.splitting.gain_ratio import SplitRecord, choose_gain_ratio
from treelearn.splitting.subsets import c45_value_groups
from treelearn.tree.structure import Tree


class C45Growth:
    """C4.5's part of :class:`~treelearn.growing.grower.Grower` (see the module)."""

    def _c45_loop_applies(self):
        """Whether :meth:`grow` runs C4.5's numba loop (:mod:`treelearn.growing._c45_kernels`),
        which grows the Python loop's tree and split records: ``missing="fractional"``
        (C4.5), depth-first, no value groups (``-s``), classification, exact numeric
        values (no bins), a table of
        :data:`~treelearn.growing.settings.NUMBA_LOOP_MIN_ROWS` rows or more."""
        spec = self.spec
        return bool(
            settings.C45_LOOP
            and self._numba_loop_pays()
            and self.fractional
            and self.gain_ratio
            and self.is_classification
            and not spec.value_groups
            and spec.max_leaf_nodes is None
            and not any(e is not None for e in self.dataset.bin_edges)
        )

    def _grow_c45(self):
        """:meth:`grow` by :func:`~treelearn.growing._c45_kernels.grow_c45`."""
        spec = self.spec
        limits = np.array(
            [
                -1 if spec.max_depth is None else spec.max_depth, spec.min_samples_split,
                spec.min_samples_leaf, spec.min_weight_leaf, spec.min_branch_weight,
                settings.EPSILON,
            ],
            dtype=np.float64,
        )  # fmt: skip
        (
            feature, kind, threshold, first_child, n_children, value, n_samples, weight,
            impurity, rec_node, rec_table, rec_feature, rec_average,
        ) = c45_kernels.grow_c45(
            self.feature_codes, self.y_class, self.weight, self.n_classes, self.n_codes,
            self.dataset.is_nominal, self.code_values, self.code_value_ptr,
            self.excluded_from_average, limits, bool(spec.threshold_cost),
            spec.threshold_at == "data", self.hist_ratio, self.scratch_hist, self.scratch_codes,
            np.flatnonzero(
                ~self.dataset.is_nominal & (self.n_codes + 1 > settings.STORE_MAX_BINS)
            ).astype(np.int64),
        )  # fmt: skip
        internal = n_children > 0
        # Children: each split's are numbered consecutively from first_child.
        child_ptr = np.concatenate([[0], np.cumsum(n_children)])
        children = np.arange(child_ptr[-1], dtype=np.int64) + np.repeat(
            first_child - child_ptr[:-1], n_children
        )
        # A nominal split: category v goes to its v-th child.
        n_categories = np.where(kind == NODE_MULTIWAY, self.n_codes[np.maximum(feature, 0)], 0)
        category_ptr = np.concatenate([[0], np.cumsum(n_categories)])
        category_child = np.arange(category_ptr[-1], dtype=np.int64) - np.repeat(
            category_ptr[:-1], n_categories
        )
        tree = Tree(
            feature=feature,
            kind=kind,
            threshold=threshold,
            child_ptr=child_ptr.astype(np.int64),
            children=children,
            category_ptr=category_ptr.astype(np.int64),
            category_child=category_child,
            missing_child=np.where(internal, MISSING_BY_WEIGHT, -1).astype(np.int64),
            value=value,
            n_samples=n_samples,
            weight=weight,
            impurity=impurity,
            n_features=self.n_features,
            n_classes=self.n_classes,
        ).validate()
        # Split records, as choose_gain_ratio makes them.
        possible = (
            rec_table[:, :, gain_ratio_kernels.CAND_STATUS] == gain_ratio_kernels.STATUS_SPLIT
        )
        in_average = possible & ~self.excluded_from_average
        with np.errstate(invalid="ignore"):
            gain = np.where(possible, rec_table[:, :, gain_ratio_kernels.CAND_GAIN], np.nan)
            above = possible & (gain >= rec_average[:, None] - GAIN_RATIO_EPSILON)
        self.split_records = {
            int(node): SplitRecord(
                rec_table[k],
                int(rec_feature[k]),
                "gain_ratio",
                float(rec_average[k]),
                in_average[k],
                above[k],
            )
            for k, node in enumerate(rec_node)
        }
        return tree

    def _search_gain_ratio(self, node):
        """C4.5's choice at ``node`` (``selection="gain_ratio"``)."""
        rows = node.rows
        self.weight[rows] = node.row_weight
        table = self.candidate_table(rows, 0, rows.shape[0], textbook=False, used=node.used)
        groups = self._value_groups(node, table) if self.spec.value_groups else {}
        choice = choose_gain_ratio(table, self.excluded_from_average)
        self.split_records[node.index] = choice
        if choice.feature < 0:
            return
        f = choice.feature
        row = table[f]
        out = np.zeros(cut_kernels.N_OUT)
        node_weight = self._weight_of(node.stats)
        # The gain kept for importances: the weighted entropy decrease, C4.5's gain x N.
        out[cut_kernels.OUT_GAIN] = row[gain_ratio_kernels.CAND_RAW_GAIN] * node_weight
        out[cut_kernels.OUT_FEATURE] = f
        out[cut_kernels.OUT_LEFT_CODE] = row[gain_ratio_kernels.CAND_LEFT_CODE]
        out[cut_kernels.OUT_RIGHT_CODE] = row[gain_ratio_kernels.CAND_RIGHT_CODE]
        out[cut_kernels.OUT_IS_SUBSET] = 1.0 if self.dataset.is_nominal[f] else 0.0
        node.gain = out[cut_kernels.OUT_GAIN]
        node.split = (out, groups.get(f))

    def candidate_table(self, rows, start, end, textbook, used=None):
        """Every feature's row of the candidate table at the node ``rows[start:end]``.

        ``textbook``: information gain, intrinsic value and Gini index after a
        multiway split of every nominal feature and the best binary cut of
        every numeric one (the numbers a textbook prints); else C4.5's own
        (its ``m``, ``MinSplit`` and threshold cost; features in ``used`` skipped).
        """
        table = self.candidate_scratch
        usable = np.ones(self.n_features, dtype=np.uint8) if used is None else ~used
        spec = self.spec
        gain_ratio_kernels.evaluate_candidates(
            self.feature_codes, rows, start, end, self.y_class, self.weight, self.n_classes,
            self.n_codes, self.dataset.is_nominal, usable.astype(np.uint8), self.code_values,
            self.code_value_ptr, 0.0 if textbook else float(spec.min_branch_weight), not textbook,
            False if textbook else spec.threshold_cost, self.hist_ratio, self.scratch_hist,
            self.scratch_codes, table, np.empty((0, 0), dtype=np.int64),
            np.full(self.n_features, -1, dtype=np.int64),
        )  # fmt: skip
        # Every numeric feature with a best cut, admissible or not (explain shows them all).
        scored = ~np.isnan(table[:, gain_ratio_kernels.CAND_LEFT_CODE])
        for f in np.flatnonzero(scored & ~self.dataset.is_nominal):
            table[f, gain_ratio_kernels.CAND_THRESHOLD] = self._threshold_between(
                f,
                int(table[f, gain_ratio_kernels.CAND_LEFT_CODE]),
                int(table[f, gain_ratio_kernels.CAND_RIGHT_CODE]),
            )
        return table.copy()

    def _value_groups(self, node, table):
        """C4.5's ``-s``: group the values of every nominal feature with more than two
        (:mod:`treelearn.splitting.subsets`), rewriting their rows of ``table``.
        Returns {feature: the group of each value} for the groups that may split."""
        groups = {}
        rows, weight = node.rows, node.row_weight
        y = self.y_class[rows]
        k = self.n_classes
        for f in np.flatnonzero(self.dataset.is_nominal & (self.n_codes > 2)):
            n_values = int(self.n_codes[f])
            codes_f = self.feature_codes[f, rows].astype(np.int64)
            freq = np.bincount(codes_f * k + y, weights=weight, minlength=(n_values + 1) * k)
            freq = freq.reshape(n_values + 1, k)
            branch, gain, info = c45_value_groups(
                freq[:n_values], float(freq[n_values].sum()), self.spec.min_branch_weight
            )
            row = table[f]
            row[gain_ratio_kernels.CAND_STATUS] = (
                gain_ratio_kernels.STATUS_SPLIT if branch is not None
                else gain_ratio_kernels.STATUS_NO_SPLIT
            )  # fmt: skip
            row[gain_ratio_kernels.CAND_GAIN] = row[gain_ratio_kernels.CAND_RAW_GAIN] = gain
            row[gain_ratio_kernels.CAND_SPLIT_INFO] = info
            if branch is not None:
                groups[int(f)] = branch
                group_freq = np.zeros((int(branch.max()) + 1, k))
                np.add.at(group_freq, branch, freq[:n_values])
                row[gain_ratio_kernels.CAND_GINI_AFTER] = conditional_gini(table=group_freq)
                row[gain_ratio_kernels.CAND_ENTROPY_AFTER] = conditional_entropy(table=group_freq)
        return groups

    def _split_fractional(self, node):
        """Send the node's rows to its children, rows missing the feature to all
        of them with a share of their weight (C4.5), and record the children."""
        out, groups = node.split
        feature = int(out[cut_kernels.OUT_FEATURE])
        missing_code = int(self.n_codes[feature])
        codes_f = self.feature_codes[feature, node.rows].astype(np.int64)
        missing = codes_f == missing_code
        nominal = bool(self.dataset.is_nominal[feature])
        if groups is not None:
            # Grouped values (C4.5's -s); the feature may be tested again below.
            category_child = groups
            branch, n_branches = (
                groups[np.minimum(codes_f, missing_code - 1)],
                int(groups.max()) + 1,
            )
        elif nominal:
            category_child = np.arange(missing_code)
            branch, n_branches = codes_f, missing_code
        else:
            branch = (codes_f > int(out[cut_kernels.OUT_LEFT_CODE])).astype(np.int64)
            n_branches = 2
        parts, _ = split_fractional_rows(
            node.rows, node.row_weight, np.where(missing, 0, branch), missing, n_branches
        )
        used = node.used
        if nominal and groups is None:
            used = used.copy()
            used[feature] = True
        children = []
        for rows, row_weight in parts:
            stats = class_statistics(rows, row_weight, self.y_class, self.n_classes)
            child = self._make_node(
                0, rows.shape[0], node.depth + 1, stats, None, parent=node, rows=rows,
                row_weight=row_weight, used=used,
            )  # fmt: skip
            children.append(child)
        node.rows = node.row_weight = None
        indices = [c.index for c in children]
        if nominal:
            self.builder.set_split(
                node.index, feature, NODE_MULTIWAY, indices, MISSING_BY_WEIGHT,
                category_child=category_child,
            )  # fmt: skip
        else:
            self.builder.set_split(
                node.index, feature, NODE_THRESHOLD, indices, MISSING_BY_WEIGHT,
                threshold=self._threshold(feature, out),
            )  # fmt: skip
        return children
