"""The numba loop's part of :class:`~treelearn.growing.grower.Grower`: when the
depth-first loop of :mod:`~treelearn.growing._loop_kernels` grows the tree (the same
tree as the Python loop), the arguments the grower hands it, on one thread or several
(:mod:`~treelearn.growing.threaded`), and what is made of its node table: the Tree,
the thresholds between exact values, and the split records
(:mod:`~treelearn.growing._record_kernels`). A part of the grower, mixed into it: the
methods read the arrays ``Grower.__init__`` sets up.
"""

import numpy as np

from treelearn._dtypes import NODE_TABLE_MAX
from treelearn._threads import map_on_threads
from treelearn.growing import _loop_kernels as loop_kernels
from treelearn.growing import _node_tables as node_tables
from treelearn.growing import _record_kernels as record_kernels
from treelearn.growing import settings, threaded
from treelearn.splitting import _gain_ratio_kernels as gain_ratio_kernels
from treelearn.splitting.gain_ratio import SplitRecord
from treelearn.tree.structure import Tree

#: The ``rng`` of the numba loop's fits that draw no features: a Generator like
#: the drawn ones, so that the loop compiles once for both; never drawn from.
_UNDRAWN_RNG = np.random.default_rng(0)
#: An exact feature whose kept values are at most this many has them copied into the
#: loop's threshold tables (512 KB at most), and its thresholds put in by the loop;
#: exact mode keeps the values of any column they take fewer bytes than, and a copy
#: of hundreds of thousands of them per feature would add to the fit's peak memory.
LOOP_THRESHOLD_MAX_VALUES = 1 << 16


class NumbaLoopGrowth:
    """The numba loop's part of :class:`~treelearn.growing.grower.Grower` (see the
    module)."""

    def _fast_loop_applies(self):
        """Whether :meth:`grow` runs the numba loop (:mod:`treelearn.growing._loop_kernels`),
        which grows the same tree: a histogram criterion, ``missing="learn"``,
        ``selection="gain"`` (split records made afterwards), depth-first, features drawn (if any)
        from a numpy Generator, a table of
        :data:`~treelearn.growing.settings.NUMBA_LOOP_MIN_ROWS` rows or more, and a
        tree whose node table fits its int32 entries. With several threads it searches
        large nodes in parallel, as :meth:`_search` does."""
        spec = self.spec
        drawn = self.max_features < self.n_features
        # Each split of a node of m >= 2 rows adds at most `widest` nodes and
        # category-map entries, so no node number, row count, code or map offset
        # reaches n * widest.
        widest = int(self.n_codes[self.dataset.is_nominal].max(initial=1)) + 1
        return bool(
            settings.FAST_LOOP
            and self._numba_loop_pays()
            and self.dataset.n_samples * widest <= NODE_TABLE_MAX
            and not self.robust
            and spec.missing == "learn"
            and spec.selection == "gain"
            and spec.max_leaf_nodes is None
            and not self.gain_ratio
            and (not drawn or isinstance(self.rng, np.random.Generator))
        )

    def _grow_fast(self):
        """:meth:`grow` by :func:`~treelearn.growing._loop_kernels.grow_depth_first`."""
        spec = self.spec
        drawn = self.max_features < self.n_features
        # Passed even when not drawn from: a None would compile the loop once more.
        rng = self.rng if drawn else _UNDRAWN_RNG
        data = (
            self.feature_codes, self.rows, self.y_class, self.y_value, self.weight,
            self.is_classification, self.criterion, self.n_classes,
        )  # fmt: skip
        search = (
            self.n_codes, self.dataset.is_nominal, self.all_features, self.max_features,
            spec.min_samples_leaf, spec.min_weight_leaf, self.hist_ratio, self.scratch_hist,
            self.scratch_codes, self.scratch_mask, self.sorted_rows, self.sorted_slot,
            self.surrogate_mode, self.multiway, self.whole_weights, self.sorted_scan,
        )  # fmt: skip
        kept = (
            self.stored_features, self.stored_rows, self.stored_offsets,
            int(settings.STORE_MIN_ROWS),
        )  # fmt: skip
        limits = np.array(
            [
                -1 if spec.max_depth is None else spec.max_depth, spec.min_samples_split,
                spec.min_samples_leaf, spec.min_weight_leaf, spec.min_branch_weight,
                spec.min_impurity_decrease, spec.min_gain, self.total_weight, settings.EPSILON,
            ],
            dtype=np.float64,
        )  # fmt: skip
        # None when no node can use threads: the loop is then compiled without the
        # threaded kernels (they take most of its compile time).
        parallel_min_rows = threaded.PARALLEL_MIN_ROWS if self.large_nodes_threaded else None
        thresholds = self._threshold_tables()
        buffers = (self.child_of_row, self.sorted_buffer, self.partition_buffer, self.local_of_row)
        # The split codes only where thresholds are put in below (or splits recorded).
        keep_codes = (
            self.record_splits
            or spec.threshold_at == "data"
            or bool(np.any(thresholds[0] == node_tables.THRESHOLD_VALUES))
        )
        n_links = node_tables.links_width(keep_codes, bool(self.dataset.is_nominal.any()))
        if parallel_min_rows is not None and not drawn:
            nodes, n_nodes, category_pool = threaded.grow_on_threads(
                data, search, rng, kept, limits, thresholds, buffers, max(self.n_classes, 1),
                n_links, self.n_threads, spec.max_depth,
            )  # fmt: skip
        else:
            nodes, n_nodes, category_pool = loop_kernels.grow_depth_first(
                data, search, rng, kept, limits, parallel_min_rows, thresholds, buffers,
                max(self.n_classes, 1), n_links,
            )  # fmt: skip
        del data, search, buffers
        self._let_go_of_row_buffers()
        capacity = nodes[0].shape[0]
        arrays = node_tables.tree_arrays(nodes, n_nodes, category_pool, keep_codes)
        del nodes  # (the table's links: what the Tree does not keep)
        arrays = dict(zip(node_tables.TREE_ARRAY_NAMES, arrays, strict=True))
        node_tables.trim_columns(arrays, n_nodes, capacity)
        if not arrays["category_ptr"].shape[0]:  # (no category maps: see tree_arrays)
            arrays["category_ptr"] = np.zeros(arrays["child_ptr"].shape[0], dtype=np.int64)
        left_code, right_code = arrays.pop("left_code"), arrays.pop("right_code")
        if keep_codes:
            self._put_thresholds(arrays["feature"], left_code, right_code, arrays["threshold"])
        tree = Tree(**arrays, n_features=self.n_features, n_classes=self.n_classes).validate()
        if self.record_splits:
            self._record_searched_nodes(tree, left_code, limits)
        return tree

    def _let_go_of_row_buffers(self):
        """Drop the loop's arrays of a row each (the rows in node order, the
        partition's, the presorted runs and their scan buffers) before the Tree's
        arrays are made, so the two are never held at once (at 800,000 rows, 13.6 MB):
        ``grow`` is then done."""
        self.rows = self.partition_buffer = self.child_of_row = None
        self.sorted_buffer = self.local_of_row = None
        self.sorted_rows = self.sorted_codes = self.sorted_scan = None

    def _record_searched_nodes(self, tree, left_code, limits):
        """``split_records`` of a Tree the numba loop grew, as the Python loop
        records them (:func:`~treelearn.growing._record_kernels.searched_node_tables`)."""
        nodes, tables = record_kernels.searched_node_tables(
            self.feature_codes, self.y_class, self.weight, self.n_classes, self.n_codes,
            self.dataset.is_nominal, self.code_values, self.code_value_ptr, self.hist_ratio,
            self.scratch_hist, self.scratch_codes, limits, tree.feature, tree.kind,
            tree.child_ptr, tree.children, tree.category_ptr, tree.category_child,
            tree.missing_child, left_code, tree.n_samples, tree.weight, tree.impurity,
        )  # fmt: skip
        for f in np.flatnonzero(~self.dataset.is_nominal):
            column = tables[:, f]
            scored = np.flatnonzero(~np.isnan(column[:, gain_ratio_kernels.CAND_LEFT_CODE]))
            column[scored, gain_ratio_kernels.CAND_THRESHOLD] = self.dataset.thresholds(
                int(f),
                column[scored, gain_ratio_kernels.CAND_LEFT_CODE].astype(np.int64),
                column[scored, gain_ratio_kernels.CAND_RIGHT_CODE].astype(np.int64),
                at_data=self.spec.threshold_at == "data",
            )
        criterion = self.spec.criterion
        self.split_records = {
            int(node): SplitRecord(table, int(tree.feature[node]), criterion)
            for node, table in zip(nodes, tables, strict=True)
        }

    def _threshold_tables(self):
        """Per feature what the numba loop needs of :meth:`Dataset.threshold`: kind
        (``THRESHOLD_*``) and, concatenated, the bin edges of binned features and the
        values of exact features whose values the dataset keeps, if at most
        :data:`LOOP_THRESHOLD_MAX_VALUES` (the midpoints between other exact values are
        put in after the loop, :meth:`_put_thresholds`)."""
        dataset = self.dataset
        kind = np.full(self.n_features, node_tables.THRESHOLD_NONE, dtype=np.int64)
        parts = []
        for f in range(self.n_features):
            edges = dataset.bin_edges[f] if dataset.bin_edges else None
            part = np.empty(0)
            if edges is not None:
                kind[f], part = node_tables.THRESHOLD_EDGES, edges
            elif _few_kept_values(dataset.distinct_values[f]):
                kind[f], part = node_tables.THRESHOLD_MIDPOINTS, dataset.distinct_values[f]
            elif not dataset.is_nominal[f]:  # exact codes, values not in the tables
                kind[f] = node_tables.THRESHOLD_VALUES
            parts.append(np.asarray(part, dtype=np.float64))
        ptr = np.concatenate([[0], np.cumsum([p.shape[0] for p in parts])]).astype(np.int64)
        return kind, ptr, np.concatenate(parts)

    def _put_thresholds(self, feature, left_code, right_code, threshold):
        """Thresholds of the numba loop's splits between two known codes, placed as
        ``spec.threshold_at`` says (the loop leaves those between exact values
        NaN), for all nodes of a feature at once, a feature on each of the fit's
        threads from :data:`~treelearn.growing.settings.THRESHOLD_THREADS_MIN_ROWS`
        rows on (a feature's exact values are read back from its column in a pass over the rows,
        :meth:`Dataset.code_values`: 20 features of 800,000 rows,
        full-depth regression, 105 -> 60-80 ms on two threads, 100 -> 78 on one,
        where each pass had gathered every split node's feature again)."""
        at_data = self.spec.threshold_at == "data"
        pending = np.flatnonzero((right_code >= 0) & (at_data | np.isnan(threshold)))
        pending_feature = feature[pending]
        features = np.flatnonzero(np.bincount(pending_feature, minlength=self.n_features))
        node_groups = [pending[pending_feature == f] for f in features]

        def thresholds_of(group):
            f, nodes = group
            return self.dataset.thresholds(int(f), left_code[nodes], right_code[nodes], at_data)

        on_threads = self.dataset.n_samples >= settings.THRESHOLD_THREADS_MIN_ROWS
        n_threads = self.n_threads if on_threads else 1
        placed = map_on_threads(thresholds_of, zip(features, node_groups, strict=True), n_threads)
        for nodes, values in zip(node_groups, placed, strict=True):
            threshold[nodes] = values


def _few_kept_values(values):
    """Whether a feature's kept values (or None) go into the loop's threshold tables."""
    return values is not None and values.shape[0] <= LOOP_THRESHOLD_MAX_VALUES
