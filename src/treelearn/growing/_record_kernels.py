"""Split records of a tree grown by the numba loop (``record_splits``, ``selection="gain"``).

The Python loop records, at every node it searches, the textbook candidate
table of its rows (:func:`~treelearn.splitting._gain_ratio_kernels.evaluate_candidates`:
information gain, intrinsic value and Gini after every feature's split). The
numba loop of :mod:`~treelearn.growing._loop_kernels` grows the same Tree
without them; :func:`searched_node_tables` makes them afterwards from the Tree:

- a node was searched when it was split, or when it is a leaf the stop rules
  let split (:func:`~treelearn.growing._node_tables.may_split` of its depth,
  rows, weight and impurity, as the loop asked it);
- its rows are found again by sending the training rows down the Tree's splits
  (the codes and left codes the loop split on), each node's rows kept in the
  order of the training rows, the order every stable partition of the loop
  leaves them in;

so every table is the Python loop's, to the bit.
"""

import numpy as np
from numba import njit

from treelearn._dtypes import NODE_LEAF, NODE_THRESHOLD
from treelearn.growing._node_tables import may_split
from treelearn.splitting._gain_ratio_kernels import N_CAND, evaluate_candidates


@njit(cache=True)
def _searched_nodes(limits, kind, child_ptr, children, n_samples, weight, impurity):
    """Whether each node of the Tree was searched (split, or allowed to split)."""
    n_nodes = kind.shape[0]
    depth = np.zeros(n_nodes, dtype=np.int64)
    searched = np.zeros(n_nodes, dtype=np.bool_)
    for node in range(n_nodes):  # a parent is numbered before its children
        for k in range(child_ptr[node], child_ptr[node + 1]):
            depth[children[k]] = depth[node] + 1
        searched[node] = kind[node] != NODE_LEAF or may_split(
            limits, depth[node], n_samples[node], weight[node], impurity[node]
        )
    return searched


@njit(cache=True)
def _send_to_children(feature_codes, n_codes, rows, a, b, node, feature, kind, child_ptr, children,
                      category_ptr, category_child, missing_child, left_code, start, end,
                      child_of, buffer, counts):  # fmt: skip
    """Stable partition of the node's rows ``rows[a:b]`` among its children, as the
    loop partitioned them; writes each child's ``start`` and ``end``."""
    f = feature[node]
    missing_code = n_codes[f]
    n_children = child_ptr[node + 1] - child_ptr[node]
    counts[:n_children] = 0
    for i in range(a, b):
        code = np.int64(feature_codes[f, rows[i]])
        if code == missing_code:
            k = missing_child[node]
        elif kind[node] == NODE_THRESHOLD:
            k = 0 if code <= left_code[node] else 1
        else:
            k = category_child[category_ptr[node] + code]
            if k < 0:
                k = missing_child[node]
        child_of[i] = k
        counts[k] += 1
    position = a
    for k in range(n_children):
        child = children[child_ptr[node] + k]
        start[child] = position
        position += counts[k]
        end[child] = position
        counts[k] = start[child]
    for i in range(a, b):
        k = child_of[i]
        buffer[counts[k]] = rows[i]
        counts[k] += 1
    rows[a:b] = buffer[a:b]


@njit(cache=True)
def searched_node_tables(feature_codes, y_class, weight, n_classes, n_codes, is_nominal,
                         code_values, code_value_ptr, hist_ratio, scratch_hist, scratch_codes,
                         limits, feature, kind, child_ptr, children, category_ptr, category_child,
                         missing_child, left_code, n_samples, node_weight,
                         impurity):  # fmt: skip
    """The searched nodes of a Tree grown by the numba loop, and the textbook
    candidate table of each (``tables[j]`` of node ``nodes[j]``; thresholds
    left NaN: the grower puts them in).

    ``feature_codes``, ``y_class``, ``weight``: the training data the loop grew from;
    ``limits``: its stop rules (``L_*`` slots); ``feature`` to ``missing_child``,
    ``n_samples``, ``node_weight``, ``impurity``: the Tree's arrays;
    ``left_code``: each split node's left code (numeric splits).
    """
    n_features, n_rows = feature_codes.shape
    searched = _searched_nodes(limits, kind, child_ptr, children, n_samples, node_weight,
                               impurity)  # fmt: skip
    nodes = np.flatnonzero(searched)
    tables = np.empty((nodes.shape[0], n_features, N_CAND))
    n_nodes = kind.shape[0]
    start = np.zeros(n_nodes, dtype=np.int64)
    end = np.zeros(n_nodes, dtype=np.int64)
    end[0] = n_rows
    rows = np.arange(n_rows)
    child_of = np.empty(n_rows, dtype=np.int64)
    buffer = np.empty(n_rows, dtype=np.int64)
    counts = np.empty(max(np.max(np.diff(child_ptr)), 1), dtype=np.int64)
    usable = np.ones(n_features, dtype=np.uint8)
    no_sorted_rows = np.empty((0, 0), dtype=np.int64)
    no_sorted_slot = np.full(n_features, -1, dtype=np.int64)
    # The textbook's table: no C4.5 rules (as bools, not the literal False, which
    # would compile evaluate_candidates and its callees once more).
    no_c45_rule = np.bool_(False)
    j = 0
    for node in range(n_nodes):
        if searched[node]:
            evaluate_candidates(
                feature_codes, rows, start[node], end[node], y_class, weight, n_classes, n_codes,
                is_nominal, usable, code_values, code_value_ptr, 0.0, no_c45_rule, no_c45_rule,
                hist_ratio, scratch_hist, scratch_codes, tables[j], no_sorted_rows,
                no_sorted_slot,
            )  # fmt: skip
            j += 1
        if kind[node] != NODE_LEAF:
            _send_to_children(
                feature_codes, n_codes, rows, start[node], end[node], node, feature, kind,
                child_ptr, children, category_ptr, category_child, missing_child, left_code, start,
                end, child_of, buffer, counts,
            )  # fmt: skip
    return nodes, tables
