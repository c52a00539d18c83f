"""Prediction kernels over the flat Tree arrays.

They read the prediction matrix of :func:`treelearn.data.encoding.prediction_matrix`:
numeric values as they are, nominal values as category codes, NaN for missing.

A row that misses a node's feature (or holds a category the node's map sends
nowhere) tries the node's surrogate splits in order, the first one whose
feature it knows deciding, and failing all (or at a node without surrogates)
takes ``missing_child``: rpart's ``usesurrogate = 2``. A row that knows the
node's feature never looks at the surrogate arrays.
"""

import numpy as np
from numba import njit, prange

from treelearn._dtypes import MISSING_BY_WEIGHT, NO_CHILD, NODE_LEAF, NODE_THRESHOLD


@njit(cache=True, inline="always")
def _heaviest_child(node, child_ptr, children, weight):
    best = 0
    for c in range(1, child_ptr[node + 1] - child_ptr[node]):
        if weight[children[child_ptr[node] + c]] > weight[children[child_ptr[node] + best]]:
            best = c
    return best


@njit(cache=True)
def _surrogate_child(
    node,
    X,
    i,
    surrogate_ptr,
    surrogate_feature,
    surrogate_kind,
    surrogate_threshold,
    surrogate_reverse,
    surrogate_category_ptr,
    surrogate_category_child,
):
    """Child given by the first of ``node``'s surrogates that row ``i`` knows, or -1."""
    for s in range(surrogate_ptr[node], surrogate_ptr[node + 1]):
        x = X[i, surrogate_feature[s]]
        if np.isnan(x):
            continue
        if surrogate_kind[s] == NODE_THRESHOLD:
            lower = x <= surrogate_threshold[s]
            return 0 if lower != (surrogate_reverse[s] == 1) else 1
        code = int(x)
        first = surrogate_category_ptr[s]
        if 0 <= code < surrogate_category_ptr[s + 1] - first:
            child = surrogate_category_child[first + code]
            if child != NO_CHILD:
                return child
    return -1


@njit(cache=True, inline="always")
def _missing_child(
    node,
    X,
    i,
    missing_child,
    surrogate_ptr,
    surrogate_feature,
    surrogate_kind,
    surrogate_threshold,
    surrogate_reverse,
    surrogate_category_ptr,
    surrogate_category_child,
):
    """Child of a row routed as missing at ``node``: its surrogates, then ``missing_child``."""
    if surrogate_ptr[node + 1] > surrogate_ptr[node]:
        c = _surrogate_child(
            node,
            X,
            i,
            surrogate_ptr,
            surrogate_feature,
            surrogate_kind,
            surrogate_threshold,
            surrogate_reverse,
            surrogate_category_ptr,
            surrogate_category_child,
        )
        if c >= 0:
            return c
    return missing_child[node]


@njit(cache=True, inline="always")
def _child(
    node,
    X,
    i,
    feature,
    kind,
    threshold,
    category_ptr,
    category_child,
    missing_child,
    surrogate_ptr,
    surrogate_feature,
    surrogate_kind,
    surrogate_threshold,
    surrogate_reverse,
    surrogate_category_ptr,
    surrogate_category_child,
):
    """:func:`child_for_value` of row ``i``, trying the node's surrogates for a missing value."""
    x = X[i, feature[node]]
    if not np.isnan(x):
        if kind[node] == NODE_THRESHOLD:
            return 0 if x <= threshold[node] else 1
        code = int(x)
        if 0 <= code < category_ptr[node + 1] - category_ptr[node]:
            child = category_child[category_ptr[node] + code]
            if child != NO_CHILD:
                return child
    return _missing_child(
        node,
        X,
        i,
        missing_child,
        surrogate_ptr,
        surrogate_feature,
        surrogate_kind,
        surrogate_threshold,
        surrogate_reverse,
        surrogate_category_ptr,
        surrogate_category_child,
    )


@njit(cache=True, inline="always")
def child_for_value(node, x, kind, threshold, category_ptr, category_child, missing_child):
    """Index (0-based, among the node's children) of the child a value goes to.

    Returns ``MISSING_BY_WEIGHT`` for a missing value at a node that splits
    missing rows by weight.
    """
    if np.isnan(x):
        return missing_child[node]
    if kind[node] == NODE_THRESHOLD:
        return 0 if x <= threshold[node] else 1
    code = int(x)
    n_categories = category_ptr[node + 1] - category_ptr[node]
    child = category_child[category_ptr[node] + code] if 0 <= code < n_categories else NO_CHILD
    return missing_child[node] if child == NO_CHILD else child


@njit(cache=True, parallel=True)
def apply_rows(
    X,
    feature,
    kind,
    threshold,
    child_ptr,
    children,
    category_ptr,
    category_child,
    missing_child,
    weight,
    surrogate_ptr,
    surrogate_feature,
    surrogate_kind,
    surrogate_threshold,
    surrogate_reverse,
    surrogate_category_ptr,
    surrogate_category_child,
    out,
):
    """Leaf reached by each row of ``X``.

    At a node that splits missing values by weight, a row with a missing value
    follows the heaviest branch (the weighted combination is computed by the
    probability kernels).
    """
    for i in prange(X.shape[0]):
        node = 0
        while kind[node] != NODE_LEAF:
            c = _child(
                node,
                X,
                i,
                feature,
                kind,
                threshold,
                category_ptr,
                category_child,
                missing_child,
                surrogate_ptr,
                surrogate_feature,
                surrogate_kind,
                surrogate_threshold,
                surrogate_reverse,
                surrogate_category_ptr,
                surrogate_category_child,
            )
            if c == MISSING_BY_WEIGHT:
                c = _heaviest_child(node, child_ptr, children, weight)
            node = children[child_ptr[node] + c]
        out[i] = node


@njit(cache=True)
def path_nodes(
    X,
    feature,
    kind,
    threshold,
    child_ptr,
    children,
    category_ptr,
    category_child,
    missing_child,
    weight,
    surrogate_ptr,
    surrogate_feature,
    surrogate_kind,
    surrogate_threshold,
    surrogate_reverse,
    surrogate_category_ptr,
    surrogate_category_child,
    max_depth,
    out_rows,
    out_nodes,
):
    """Every (row, node) pair on each row's root-to-leaf path; returns the pair count."""
    n = 0
    for i in range(X.shape[0]):
        node = 0
        while True:
            out_rows[n] = i
            out_nodes[n] = node
            n += 1
            if kind[node] == NODE_LEAF:
                break
            c = _child(
                node,
                X,
                i,
                feature,
                kind,
                threshold,
                category_ptr,
                category_child,
                missing_child,
                surrogate_ptr,
                surrogate_feature,
                surrogate_kind,
                surrogate_threshold,
                surrogate_reverse,
                surrogate_category_ptr,
                surrogate_category_child,
            )
            if c == MISSING_BY_WEIGHT:
                c = _heaviest_child(node, child_ptr, children, weight)
            node = children[child_ptr[node] + c]
    return n
