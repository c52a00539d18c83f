"""Routing kernels of the pruners: which branch rows take, and what reaches each node.

Both kernels read the prediction matrix (see :mod:`treelearn.tree._traverse`)
and the Tree's arrays as the two tuples of ``Tree._kernel_args``; the branch a
row takes at a node is decided by the prediction kernels' own ``_child`` (known
value, then surrogates, then ``missing_child``), so pruning and prediction
route rows the same way.
"""

import numpy as np
from numba import njit

from treelearn._dtypes import MISSING_BY_WEIGHT, NODE_LEAF
from treelearn.tree._traverse import _child


@njit(cache=True)
def branch_of_rows(X, rows, node, nodes, surrogates, out):
    """Child position (among ``node``'s children) each row of ``rows`` takes at ``node``;
    ``MISSING_BY_WEIGHT`` where a by-weight node meets a missing value."""
    for k in range(rows.shape[0]):
        out[k] = _child(node, X, rows[k], nodes, surrogates)


@njit(cache=True)
def accumulate_reaching(
    X, sample_weight, y_class, y_value, fitted, nodes, surrogates, class_out, sse_out
):
    """What reaches every node when each row of ``X`` is sent down from the root.

    A row reaching a by-weight node (``missing_child == MISSING_BY_WEIGHT``)
    with a missing value goes down every branch with its weight times the
    child's share of the children's ``weight`` (equal shares when they are all
    zero), as C4.5 classifies such a case.

    Classification (``class_out`` has one column per class, ``y_class`` holds
    each row's class index): ``class_out[node, k]`` += the weight of the rows
    of class ``k`` that reach ``node``. Regression (``class_out`` has no
    column): ``sse_out[node]`` += ``w * (y - fitted[node]) ** 2`` over the rows
    that reach ``node``, ``fitted`` being the nodes' values.
    """
    _, kind, _, child_ptr, children, _, _, _, weight = nodes
    n_nodes = kind.shape[0]
    n_classes = class_out.shape[1]
    stack_node = np.empty(n_nodes + 1, dtype=np.int64)
    stack_frac = np.empty(n_nodes + 1, dtype=np.float64)
    for i in range(X.shape[0]):
        top = 0
        stack_node[0] = 0
        stack_frac[0] = sample_weight[i]
        while top >= 0:
            node = stack_node[top]
            w = stack_frac[top]
            top -= 1
            if n_classes > 0:
                class_out[node, y_class[i]] += w
            else:
                r = y_value[i] - fitted[node]
                sse_out[node] += w * r * r
            if kind[node] == NODE_LEAF:
                continue
            c = _child(node, X, i, nodes, surrogates)
            first = child_ptr[node]
            if c != MISSING_BY_WEIGHT:
                top += 1
                stack_node[top] = children[first + c]
                stack_frac[top] = w
                continue
            n_kids = child_ptr[node + 1] - first
            total = 0.0
            for k in range(n_kids):
                total += weight[children[first + k]]
            for k in range(n_kids):
                share = weight[children[first + k]] / total if total > 0 else 1.0 / n_kids
                if share > 0:
                    top += 1
                    stack_node[top] = children[first + k]
                    stack_frac[top] = w * share


@njit(cache=True)
def weakest_link(
    r_node, child_ptr, children, parent, is_leaf, ccp_alpha, record, alphas, totals, cuts
):
    """Breiman et al.'s weakest-link pruning, as scikit-learn's ``_cost_complexity_prune``.

    ``r_node[t]`` is ``R(t)``, the node's weighted impurity. Repeatedly the
    internal node of smallest ``g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)``
    (the first in index order among equal values) is cut back to a leaf. With
    ``record``, every step's ``g`` and the tree's total leaf impurity are
    written to ``alphas`` and ``totals`` (the first entry is ``(0, R(T))``),
    and the node cut to ``cuts`` (the first entry is -1), until only the root
    is left; otherwise the loop stops before the first
    step whose ``g`` exceeds ``ccp_alpha``. Returns the number of entries
    written and the leaf mask of the final tree.
    """
    n = r_node.shape[0]
    r_branch = np.zeros(n)
    n_leaves = np.zeros(n, dtype=np.int64)
    for i in range(n - 1, -1, -1):  # children come after their parent
        if is_leaf[i]:
            r_branch[i] = r_node[i]
            n_leaves[i] = 1
        else:
            for k in range(child_ptr[i], child_ptr[i + 1]):
                r_branch[i] += r_branch[children[k]]
                n_leaves[i] += n_leaves[children[k]]
    candidate = ~is_leaf
    leaves = is_leaf.copy()
    alphas[0] = 0.0
    totals[0] = r_branch[0]
    cuts[0] = -1
    count = 1
    stack = np.empty(n, dtype=np.int64)
    while candidate[0]:
        best = np.inf
        cut = -1
        for i in range(n):
            if candidate[i]:
                g = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1)
                if g < best:
                    best = g
                    cut = i
        if cut < 0 or (not record and ccp_alpha < best):
            break
        top = 0
        stack[0] = cut
        while top >= 0:
            node = stack[top]
            top -= 1
            candidate[node] = False
            leaves[node] = False
            for k in range(child_ptr[node], child_ptr[node + 1]):
                top += 1
                stack[top] = children[k]
        leaves[cut] = True
        n_cut = n_leaves[cut] - 1
        n_leaves[cut] = 1
        r_diff = r_node[cut] - r_branch[cut]
        r_branch[cut] = r_node[cut]
        node = parent[cut]
        while node != -1:
            n_leaves[node] -= n_cut
            r_branch[node] += r_diff
            node = parent[node]
        if record:
            alphas[count] = best
            totals[count] = r_branch[0]
            cuts[count] = cut
            count += 1
    return count, leaves


@njit(cache=True)
def reaching_pairs(X, rows, nodes, surrogates, out_rows, out_nodes, fill):
    """Every ``(k, node)`` such that row ``rows[k]`` of ``X`` reaches ``node`` with
    some weight (down every branch of positive weight at a by-weight node where
    it misses the value). Returns the number of pairs; they are written to
    ``out_rows``/``out_nodes`` only with ``fill`` (size them with a first call)."""
    _, kind, _, child_ptr, children, _, _, _, weight = nodes
    stack = np.empty(kind.shape[0] + 1, dtype=np.int64)
    n = 0
    for k in range(rows.shape[0]):
        top = 0
        stack[0] = 0
        while top >= 0:
            node = stack[top]
            top -= 1
            if fill:
                out_rows[n] = k
                out_nodes[n] = node
            n += 1
            if kind[node] == NODE_LEAF:
                continue
            c = _child(node, X, rows[k], nodes, surrogates)
            first = child_ptr[node]
            if c != MISSING_BY_WEIGHT:
                top += 1
                stack[top] = children[first + c]
                continue
            total = 0.0
            for j in range(first, child_ptr[node + 1]):
                total += weight[children[j]]
            for j in range(first, child_ptr[node + 1]):
                if weight[children[j]] > 0 or total == 0:
                    top += 1
                    stack[top] = children[j]
    return n
