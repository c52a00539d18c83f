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

``apply`` and ``predict`` walk a compact copy of the tree instead
(:func:`depth_first_layout`, built once per Tree): one record per node
(threshold, feature and missing direction, position of the first child),
siblings side by side, in depth-first order, and eight rows walked together
(:func:`_walk_block`). Threshold nodes whose missing values go to one child
(no surrogates) are decided from the record alone; every other node (nominal,
multiway, surrogates, missing values by weight) takes the general path above,
so both walks reach the same leaf. For float32 input the records hold float32
thresholds rounded down (towards -inf), which compare as the float64 ones do
(see ``Tree._records``).
"""

import numpy as np
from numba import njit, prange

from treelearn._dtypes import MISSING_BY_WEIGHT, NO_CHILD, NODE_LEAF, NODE_THRESHOLD
from treelearn._parallel_options import PRANGE_ONLY


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


# ---------------------------------------------------------------------------
# The compact layout that predict and apply walk
# ---------------------------------------------------------------------------

#: Rows per block of the parallel walk (blocks are spread over the threads).
BLOCK_ROWS = 4096


def record_dtype(threshold_dtype):
    """The dtype of a compact node record (see :func:`_step`): ``threshold``
    (float32 or float64), ``code`` (uint32) and ``first`` (int32)."""
    return np.dtype(
        [("threshold", threshold_dtype), ("code", np.uint32), ("first", np.int32)], align=True
    )


@njit(cache=True)
def depth_first_layout(child_ptr, children, original, first):
    """Number the nodes for the walk: siblings next to each other, depth first.

    Position 0 is the root; a node's children take consecutive positions, in
    branch order, starting at ``first[k]`` (child ``c`` of the node at
    position ``k`` is at ``first[k] + c``); the children of child 0 come
    next, then its subtree, then those of child 1, and so on (a row going
    down the tree mostly moves to a nearby record). A leaf's ``first`` is its
    own position. ``original[k]`` is the Tree's index of the node at
    position ``k``. Every node must be reachable from the root once (a
    validated Tree).
    """
    stack = np.empty(original.shape[0], dtype=np.int64)
    original[0] = 0
    size = 1
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        k = stack[top]
        node = original[k]
        begin = child_ptr[node]
        n_children = child_ptr[node + 1] - begin
        if n_children == 0:
            first[k] = k
            continue
        first[k] = size
        for c in range(n_children):
            original[size + c] = children[begin + c]
        for c in range(n_children - 1, -1, -1):  # child 0's subtree is placed first
            stack[top] = size + c
            top += 1
        size += n_children


@njit(cache=True)
def _general_child(node, X, i, nodes, surrogates):
    """Child index row ``i`` takes at ``node`` on the general path (missing values
    by the node's rule, nominal maps, surrogates); a row missing the feature at a
    node that splits missing values by weight takes the heaviest child."""
    c = _child(node, X, i, nodes, surrogates)
    if c == MISSING_BY_WEIGHT:
        c = _heaviest_child(node, nodes[3], nodes[4], nodes[8])
    return c


@njit(cache=True, inline="always")
def _step(X, i, records, k):
    """Position of the record row ``i`` moves to from position ``k``, without a branch.

    A record's feature is ``code >> 1``; a missing value goes to child 1 when
    the lowest bit of ``code`` is set, else to child 0 (``x > threshold`` is
    false for NaN). A leaf (``code`` 0, threshold NaN, ``first`` its own
    position) stays where it is. A node of the general path has ``first``
    negative (``~first``), and so does the result (see :func:`_resolve`).
    """
    record = records[np.uint64(k)]  # unsigned indices: no negative-index handling
    code = record.code
    x = X[np.uint64(i), code >> 1]
    return np.int64(record.first) + ((x > record.threshold) | ((code & 1) & (x != x)))


@njit(cache=True)
def _resolve(position, k, X, i, original, nodes, surrogates):
    """``position`` as :func:`_step` gave it from position ``k``: itself when it is a
    position, else the child of the general path (:func:`_general_child`)."""
    if position >= 0:
        return position
    return ~position + _general_child(original[k], X, i, nodes, surrogates)


@njit(cache=True, inline="always")
def _infinite_row(X, start, stop):
    """First row in ``start:stop`` holding an infinite value, or -1 (``X`` C-ordered)."""
    values = X[start:stop].ravel()  # a view
    found = 0
    for j in range(values.shape[0]):
        found |= np.int32(np.abs(values[j]) == np.inf)
    if found == 0:
        return -1
    for i in range(start, stop):
        for f in range(X.shape[1]):
            if np.abs(X[i, f]) == np.inf:
                return i
    return -1


@njit(cache=True, boundscheck=False)
def _walk_block(X, start, stop, records, original, nodes, surrogates, payload, out, check):
    """``out[i] = payload[leaf position of row i]`` for rows ``start:stop``.

    Eight rows go down the tree together, one step each per round, until all
    eight stand on leaves (a leaf's step stays on it): their steps do not
    depend on one another, so the processor overlaps their memory reads
    (the last group repeats its last row). A round in which a row reaches a
    node of the general path finishes its step there (:func:`_resolve`). With
    ``check``, returns the first row that holds an infinite value (``out`` is
    then incomplete), else -1: each group's rows are checked before they are
    walked, read in sequence, so that the walk finds them in the cache (checked
    after the walk, the rows' lines it had not read were fetched then: 1M x 50
    float32 at depth 10, 49 -> 41 ms on one thread; full depth at 1M x 20, 14%).
    """
    last = stop - 1
    for s in range(start, stop, 8):
        i0 = s
        i1 = min(s + 1, last)
        i2 = min(s + 2, last)
        i3 = min(s + 3, last)
        i4 = min(s + 4, last)
        i5 = min(s + 5, last)
        i6 = min(s + 6, last)
        i7 = min(s + 7, last)
        if check:  # (read in sequence first: the walk then finds the rows in the cache)
            bad = _infinite_row(X, s, min(s + 8, stop))
            if bad >= 0:
                return bad
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = np.int64(0)
        while True:
            b0 = _step(X, i0, records, a0)
            b1 = _step(X, i1, records, a1)
            b2 = _step(X, i2, records, a2)
            b3 = _step(X, i3, records, a3)
            b4 = _step(X, i4, records, a4)
            b5 = _step(X, i5, records, a5)
            b6 = _step(X, i6, records, a6)
            b7 = _step(X, i7, records, a7)
            if (b0 | b1 | b2 | b3 | b4 | b5 | b6 | b7) < 0:
                b0 = _resolve(b0, a0, X, i0, original, nodes, surrogates)
                b1 = _resolve(b1, a1, X, i1, original, nodes, surrogates)
                b2 = _resolve(b2, a2, X, i2, original, nodes, surrogates)
                b3 = _resolve(b3, a3, X, i3, original, nodes, surrogates)
                b4 = _resolve(b4, a4, X, i4, original, nodes, surrogates)
                b5 = _resolve(b5, a5, X, i5, original, nodes, surrogates)
                b6 = _resolve(b6, a6, X, i6, original, nodes, surrogates)
                b7 = _resolve(b7, a7, X, i7, original, nodes, surrogates)
            moved = (b0 ^ a0) | (b1 ^ a1) | (b2 ^ a2) | (b3 ^ a3)
            moved |= (b4 ^ a4) | (b5 ^ a5) | (b6 ^ a6) | (b7 ^ a7)
            a0, a1, a2, a3, a4, a5, a6, a7 = b0, b1, b2, b3, b4, b5, b6, b7
            if moved == 0:
                break
        out[i0] = payload[a0]
        out[i1] = payload[a1]
        out[i2] = payload[a2]
        out[i3] = payload[a3]
        out[i4] = payload[a4]
        out[i5] = payload[a5]
        out[i6] = payload[a6]
        out[i7] = payload[a7]
    return -1


@njit(cache=True)
def walk_rows(X, records, original, nodes, surrogates, payload, out, check):
    """One thread: ``out[i] = payload[leaf position of row i]``; see :func:`_walk_block`."""
    # (np.int64: a literal 0 would compile _walk_block once more than the parallel walk's.)
    return _walk_block(
        X, np.int64(0), X.shape[0], records, original, nodes, surrogates, payload, out, check
    )


@njit(cache=True, parallel=PRANGE_ONLY)
def walk_rows_parallel(X, records, original, nodes, surrogates, payload, out, check):
    """:func:`walk_rows` on numba's threads, blocks of ``BLOCK_ROWS`` rows each (every
    row's result is its own, so the output does not depend on the thread count)."""
    n_blocks = (X.shape[0] + BLOCK_ROWS - 1) // BLOCK_ROWS
    bad = np.empty(n_blocks, dtype=np.int64)
    for b in prange(n_blocks):
        start = b * BLOCK_ROWS
        stop = min(start + BLOCK_ROWS, X.shape[0])
        bad[b] = _walk_block(
            X, start, stop, records, original, nodes, surrogates, payload, out, check
        )
    for b in range(n_blocks):
        if bad[b] >= 0:
            return bad[b]
    return -1


@njit(cache=True)
def path_nodes(X, nodes, surrogates, out_rows, out_nodes):
    """Every (row, node) pair on each row's root-to-leaf path; returns the pair count."""
    kind = nodes[1]
    n = 0
    for i in range(X.shape[0]):
        node = np.int64(0)  # (a literal 0 would compile _child for it too, while typing)
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
