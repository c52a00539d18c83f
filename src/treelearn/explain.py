"""Why a tree looks the way it does: the textbook table of a split, and a row's path.

:func:`explain` returns, for one node, the table a textbook prints when it
chooses a split: every attribute with its best threshold (numeric), its
information gain, split information (intrinsic value), gain ratio, Gini index
after the split, whether it passed C4.5's above-average-gain rule, and which
one the tree chose by which rule. :func:`explain_prediction` follows one row
from the root to its leaves.

Where the numbers come from
    ID3 and C4.5 trees keep every searched node's numbers when they are grown
    (``split_records_``). For C4.5 they are C4.5's own (gain over the rows
    that know the attribute, scaled by their share; split information with the
    unknown rows as one more branch; the threshold cost of Release 8 in
    ``corrected_gain``). For other trees (CART), pass the training data and
    they are computed for the node's training rows: a nominal attribute is
    scored by its multiway split (the textbook's numbers), a numeric one by
    its best binary cut, whatever kind of split the tree itself makes.

Units: bits (log base 2) for gains, split information and entropies.
"""

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from treelearn._dtypes import NODE_LEAF
from treelearn.criteria.measures import entropy, gini
from treelearn.exceptions import ParameterError
from treelearn.export._labels import condition_text
from treelearn.splitting import _gain_ratio_kernels as kernels
from treelearn.tree.view import MISSING_WEIGHTED, TreeView

__all__ = ["explain", "explain_prediction"]

_STATUS = {
    kernels.STATUS_SPLIT: "candidate",
    kernels.STATUS_NO_SPLIT: "cannot split",
    kernels.STATUS_SKIPPED: "tested above",
    kernels.STATUS_TOO_FEW: "fewer than two branches of m rows",
    kernels.STATUS_NO_NET_GAIN: "no gain after threshold cost",
}
_RULES = {
    "gain_ratio": "gain ratio among attributes of at least average gain (C4.5)",
    "entropy": "largest information gain",
    "gini": "largest Gini decrease",
}


def explain(model, node=0, X=None, y=None, sample_weight=None):
    """The textbook table of the split at ``node``.

    Parameters
    ----------
    model : fitted treelearn classifier
    node : int, default=0
        The node (0 is the root; see ``export_text(model, show_node_ids=True)``
        or :class:`~treelearn.tree.view.TreeView` for the others).
    X, y, sample_weight : optional
        The training data, needed for trees that keep no split records
        (CART); ignored by ID3 and C4.5 trees, which keep their own.

    Returns
    -------
    pandas.DataFrame
        One row per attribute (index: attribute names) with columns ``kind``,
        ``threshold`` (numeric attributes: the best cut), ``information_gain``,
        ``corrected_gain`` (C4.5: after Release 8's threshold cost; else equal
        to the gain), ``split_information``, ``gain_ratio``, ``gini_index``
        (weighted Gini of the branches), ``conditional_entropy``,
        ``above_average`` (C4.5's rule; missing for other trees), ``status``
        and ``chosen``. ``DataFrame.attrs`` holds the node's ``class_counts``
        (weighted, by class), ``n_samples``, ``weight``, ``entropy``, ``gini``,
        the ``rule`` the split was chosen by, C4.5's ``average_gain``, the
        ``chosen`` attribute (None where no split was chosen) and ``pruned``
        (the node was split when grown, and pruning made it a leaf).

    Raises
    ------
    ParameterError
        If ``node`` is not a node of the tree, the tree is a regression tree,
        or it keeps no record of the node and no training data was given.
    """
    check_is_fitted(model, "tree_")
    tree = model.tree_
    if tree.n_classes == 0:
        raise ParameterError(
            "explain() shows information gain and Gini, which are defined for classification "
            "trees; for a regression tree use explain_prediction() or export_text()."
        )
    node = _check_node(tree, node)
    records = getattr(model, "split_records_", None) or {}
    if node in records:
        record = records[node]
    elif X is not None and y is not None:
        record = _record_from_data(model, node, X, y, sample_weight)
    elif tree.kind[node] == NODE_LEAF:
        return _leaf_without_record(model, node)
    else:
        raise ParameterError(
            f"{type(model).__name__} keeps no split records; pass its training data: "
            f"explain(model, node={node}, X=X_train, y=y_train)."
        )
    return _table(model, node, record)


def _check_node(tree, node):
    if isinstance(node, bool) or not isinstance(node, (int, np.integer)):
        raise ParameterError(f"node must be an integer node index, got {node!r}.")
    if not 0 <= node < tree.node_count:
        raise ParameterError(
            f"node {node} is not in the tree; it has nodes 0 to {tree.node_count - 1}."
        )
    return int(node)


def _node_attrs(model, node):
    tree = model.tree_
    counts = tree.value[node]
    classes = [_python(c) for c in model.classes_]
    return {
        "node": node,
        "n_samples": int(tree.n_samples[node]),
        "weight": float(tree.weight[node]),
        "class_counts": dict(zip(classes, counts.tolist(), strict=True)),
        "entropy": float(entropy(counts=counts)) if counts.sum() > 0 else 0.0,
        "gini": float(gini(counts=counts)) if counts.sum() > 0 else 0.0,
    }


def _table(model, node, record):
    table = record.table
    names = list(model.feature_schema_.names)
    nominal = model.feature_schema_.is_nominal
    status = table[:, kernels.CAND_STATUS]
    # Rows of attributes that cannot split may still hold the numbers of their best split.
    scored = (status != kernels.STATUS_SKIPPED) & ~np.isnan(table[:, kernels.CAND_RAW_GAIN])
    gain = np.where(scored, table[:, kernels.CAND_RAW_GAIN], np.nan)
    corrected = np.where(scored, table[:, kernels.CAND_GAIN], np.nan)
    info = np.where(scored, table[:, kernels.CAND_SPLIT_INFO], np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(scored & (info > 0), corrected / info, np.nan)
    above = (
        pd.array(record.above_average.tolist(), dtype="boolean")
        if record.above_average is not None
        else pd.array([pd.NA] * len(names), dtype="boolean")
    )
    frame = pd.DataFrame(
        {
            "kind": np.where(nominal, "nominal", "numeric"),
            "threshold": np.where(scored & ~nominal, table[:, kernels.CAND_THRESHOLD], np.nan),
            "information_gain": gain,
            "corrected_gain": corrected,
            "split_information": info,
            "gain_ratio": ratio,
            "gini_index": np.where(scored, table[:, kernels.CAND_GINI_AFTER], np.nan),
            "conditional_entropy": np.where(scored, table[:, kernels.CAND_ENTROPY_AFTER], np.nan),
            "above_average": above,
            "status": [_status_text(s, record.rule) for s in status],
            "chosen": np.arange(len(names)) == record.feature,
        },
        index=pd.Index(names, name="attribute"),
    )
    frame.attrs.update(_node_attrs(model, node))
    frame.attrs["rule"] = _RULES.get(record.rule, record.rule) + (
        "; the split was pruned afterwards, the node is a leaf" if record.pruned else ""
    )
    frame.attrs["pruned"] = record.pruned
    frame.attrs["average_gain"] = (
        None if np.isnan(record.average_gain) else float(record.average_gain)
    )
    frame.attrs["chosen"] = names[record.feature] if record.feature >= 0 else None
    return frame


def _status_text(status, rule):
    if status == kernels.STATUS_TOO_FEW and rule != "gain_ratio":
        return "a single value here"  # textbook numbers ask only for two non-empty branches
    return _STATUS[status]


def _leaf_without_record(model, node):
    frame = pd.DataFrame(
        columns=["kind", "threshold", "information_gain", "corrected_gain", "split_information",
                 "gain_ratio", "gini_index", "conditional_entropy", "above_average", "status",
                 "chosen"],
        index=pd.Index([], name="attribute"),
    )  # fmt: skip
    frame.attrs.update(_node_attrs(model, node))
    frame.attrs.update(
        rule="not searched: the node is pure, too small, or at the depth limit",
        average_gain=None,
        chosen=None,
        pruned=False,
    )
    return frame


def _record_from_data(model, node, X, y, sample_weight):
    """The textbook numbers at ``node`` for the rows of (X, y) that reach it."""
    from treelearn.data.dataset import encode_table
    from treelearn.data.schema import read_table
    from treelearn.data.target import validate_sample_weight
    from treelearn.growing import Grower
    from treelearn.growing.spec import GrowthSpec
    from treelearn.splitting.gain_ratio import SplitRecord

    matrix = model._prediction_matrix(X)
    path_rows, path_nodes = model.tree_.decision_path(matrix)
    rows = np.sort(path_rows[path_nodes == node]).astype(np.intp)
    table = read_table(X, getattr(model, "categorical_features", None))
    classes = pd.Index(model.classes_)
    y_index = classes.get_indexer(np.asarray(y, dtype=model.classes_.dtype))
    if (y_index < 0).any():
        bad = np.asarray(y)[y_index < 0][0]
        raise ParameterError(
            f"y holds the label {bad!r}, which is not a class of the model "
            f"({model.classes_.tolist()!r}); pass the training data the model was fitted on."
        )
    weight = validate_sample_weight(sample_weight, table.n_rows)
    dataset = encode_table(table)
    spec = GrowthSpec(criterion="entropy", record_splits=True)
    grower = Grower(dataset, y_index, weight, len(classes), spec, np.random.default_rng(0))
    candidates = grower.candidate_table(rows, 0, rows.shape[0], textbook=True)
    feature = -1 if model.tree_.kind[node] == NODE_LEAF else int(model.tree_.feature[node])
    return SplitRecord(candidates, feature, getattr(model, "criterion", "entropy"))


def explain_prediction(model, X):
    """The path of one row from the root to its leaf (or leaves), step by step.

    Parameters
    ----------
    model : fitted treelearn estimator
    X : array-like or DataFrame with one row

    Returns
    -------
    pandas.DataFrame
        One row per node the input visits, in visiting order: ``node``,
        ``depth``, ``test`` (the branch condition that led there, empty at the
        root), ``share`` (the part of the row that reached it: 1 everywhere
        unless a missing value was sent down every branch by weight, as C4.5
        does), ``n_samples``, ``weight``, the node's training class
        distribution (one column per class, as fractions) or ``value``,
        ``prediction`` and ``is_leaf``. ``attrs["prediction"]`` holds the
        model's prediction for the row.
    """
    check_is_fitted(model, "tree_")
    matrix = model._prediction_matrix(X)
    if matrix.shape[0] != 1:
        raise ParameterError(
            f"explain_prediction() explains one row; X has {matrix.shape[0]} rows."
        )
    view = TreeView(model, caller="explain_prediction")
    tree = model.tree_
    row = np.asarray(matrix[0], dtype=float)
    steps = []
    stack = [(0, "", 1.0)]
    while stack:
        index, test, share = stack.pop()
        info = view.node(index)
        steps.append(_step(view, info, test, share))
        if info.is_leaf:
            continue
        branches = view.branches(index)
        taken = _branch_taken(tree, index, row, matrix)
        if taken is None:
            targets = [b for b in branches if b.missing == MISSING_WEIGHTED and b.fraction > 0]
            for branch in reversed(targets):
                text = condition_text(branch.condition, 3) + " (value missing, by weight)"
                stack.append((branch.child, text, share * branch.fraction))
        else:
            branch = branches[taken]
            stack.append((branch.child, condition_text(branch.condition, 3), share))
    frame = pd.DataFrame(steps)
    frame.attrs["prediction"] = _python(model.predict(X)[0])
    return frame


def _branch_taken(tree, node, row, matrix):
    """Index of the branch the row takes at ``node``; None when it goes down by weight."""
    from treelearn.tree._traverse import _child
    from treelearn.tree.structure import _kernel_matrix

    nodes, surrogates = tree._kernel_args()
    # (read-only, as prediction hands the kernels every matrix: one compilation of _child)
    X = _kernel_matrix(np.asarray(matrix[:1], dtype=np.float64))
    c = int(_child(node, X, 0, nodes, surrogates))
    return None if c < 0 else c


def _step(view, info, test, share):
    step = {
        "node": info.index,
        "depth": info.depth,
        "test": test,
        "share": share,
        "n_samples": info.n_samples,
        "weight": info.weight,
    }
    if view.n_classes:
        total = sum(info.value)
        for label, count in zip(view.classes, info.value, strict=True):
            step[str(label)] = count / total if total > 0 else 1.0 / view.n_classes
    else:
        step["value"] = info.value[0]
    step["prediction"] = info.prediction
    step["is_leaf"] = info.is_leaf
    return step


def _python(value):
    return value.item() if isinstance(value, np.generic) else value
