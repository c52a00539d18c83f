"""Prediction kernels over the flat Tree arrays.

They read the prediction matrix of :func:`treelearn.data.encoding.prediction_matrix`:
numeric values as they are, nominal values as category codes, NaN for missing.

The Tree's arrays reach the kernels as two tuples (see ``Tree._kernel_args``):
``nodes = (feature, kind, threshold, child_ptr, children, category_ptr,
category_child, missing_child, weight)`` and ``surrogates = (surrogate_ptr,
surrogate_feature, surrogate_kind, surrogate_threshold, surrogate_reverse,
surrogate_category_ptr, surrogate_category_child)``.

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
def _surrogate_child(node, X, i, surrogates):
    """Child given by the first of ``node``'s surrogates that row ``i`` knows, or -1."""
    ptr, feature, kind, threshold, reverse, category_ptr, category_child = surrogates
    for s in range(ptr[node], ptr[node + 1]):
        x = X[i, feature[s]]
        if np.isnan(x):
            continue
        if kind[s] == NODE_THRESHOLD:
            lower = x <= threshold[s]
            return 0 if lower != (reverse[s] == 1) else 1
        code = int(x)
        first = category_ptr[s]
        if 0 <= code < category_ptr[s + 1] - first:
            child = category_child[first + code]
            if child != NO_CHILD:
                return child
    return -1


@njit(cache=True)
def _child(node, X, i, nodes, surrogates):
    """Child index (among the node's children) row ``i`` takes at ``node``.

    A missing value (or a category the node's map sends nowhere) tries the
    node's surrogates, then ``missing_child``; the result may be ``MISSING_BY_WEIGHT``.
    """
    feature, kind, threshold, _, _, category_ptr, category_child, missing_child, _ = nodes
    x = X[i, feature[node]]
    if not np.isnan(x):
        if kind[node] == NODE_THRESHOLD:
            return 0 if x <= threshold[node] else 1
        code = int(x)
        if 0 <= code < category_ptr[node + 1] - category_ptr[node]:
            child = category_child[category_ptr[node] + code]
            if child != NO_CHILD:
                return child
    surrogate_ptr = surrogates[0]
    if surrogate_ptr[node + 1] > surrogate_ptr[node]:
        c = _surrogate_child(node, X, i, surrogates)
        if c >= 0:
            return c
    return missing_child[node]


@njit(cache=True, inline="always")
def _next_node(node, X, i, nodes, surrogates):
    """The child node row ``i`` moves to; by-weight nodes send it down the heaviest branch."""
    child_ptr = nodes[3]
    children = nodes[4]
    c = _child(node, X, i, nodes, surrogates)
    if c == MISSING_BY_WEIGHT:
        c = _heaviest_child(node, child_ptr, children, nodes[8])
    return children[child_ptr[node] + c]


#: ``hot`` step codes: how the prediction loop treats a node.
STEP_LEAF = 0
STEP_THRESHOLD = 1
STEP_GENERAL = 2


@njit(cache=True, parallel=True, boundscheck=False)
def apply_rows(X, hot, nodes, surrogates, out):
    """Leaf reached by each row of ``X``.

    ``hot = (step, feature, threshold, left, right)`` holds what the common
    case reads, with unsigned indices (no negative-index handling in the loop):
    a known value at a threshold node moves to ``left``/``right`` here; every
    other case (a missing value, a nominal node) takes the general path. At a
    node that splits missing values by weight, a row with a missing value
    follows the heaviest branch (the weighted combination is computed by the
    probability kernels).
    """
    step, feature, threshold, left, right = hot
    for i in prange(X.shape[0]):
        node = np.uint64(0)
        while step[node] != STEP_LEAF:
            if step[node] == STEP_THRESHOLD:
                x = X[i, feature[node]]
                if x <= threshold[node]:
                    node = left[node]
                    continue
                if x > threshold[node]:
                    node = right[node]
                    continue
            node = np.uint64(_next_node(np.int64(node), X, i, nodes, surrogates))
        out[i] = node


@njit(cache=True)
def path_nodes(X, nodes, surrogates, out_rows, out_nodes):
    """Every (row, node) pair on each row's root-to-leaf path; returns the pair count."""
    kind = nodes[1]
    n = 0
    for i in range(X.shape[0]):
        node = 0
        while True:
            out_rows[n] = i
            out_nodes[n] = node
            n += 1
            if kind[node] == NODE_LEAF:
                break
            node = _next_node(node, X, i, nodes, surrogates)
    return n


@njit(cache=True)
def weighted_leaf_values(X, rows, nodes, surrogates, leaf_value, out):
    """C4.5's classification of rows that reach nodes splitting missing values by weight.

    For each ``rows[k]``: ``out[k] = sum over the leaves it reaches of share x
    leaf_value[leaf]``. A row starts at the root with share 1; at a node whose
    ``missing_child`` is ``MISSING_BY_WEIGHT`` a row missing the feature goes
    on down every child, its share multiplied by the child's weight over the
    children's total (children of weight 0 are passed over); elsewhere it
    follows its one child (Quinlan 1993, section 3.1).
    """
    kind = nodes[1]
    child_ptr = nodes[3]
    children = nodes[4]
    weight = nodes[8]
    n_nodes = kind.shape[0]
    stack_node = np.empty(n_nodes, dtype=np.int64)
    stack_share = np.empty(n_nodes)
    for k in range(rows.shape[0]):
        i = rows[k]
        out[k, :] = 0.0
        stack_node[0] = 0
        stack_share[0] = 1.0
        top = 1
        while top > 0:
            top -= 1
            node = stack_node[top]
            share = stack_share[top]
            if kind[node] == NODE_LEAF:
                for c in range(out.shape[1]):
                    out[k, c] += share * leaf_value[node, c]
                continue
            c = _child(node, X, i, nodes, surrogates)
            if c != MISSING_BY_WEIGHT:
                stack_node[top] = children[child_ptr[node] + c]
                stack_share[top] = share
                top += 1
                continue
            total = 0.0
            for j in range(child_ptr[node], child_ptr[node + 1]):
                total += weight[children[j]]
            for j in range(child_ptr[node], child_ptr[node + 1]):
                child = children[j]
                if weight[child] > 0.0:
                    stack_node[top] = child
                    stack_share[top] = share * weight[child] / total
                    top += 1
