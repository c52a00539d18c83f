"""Writing a pruned :class:`~treelearn.tree.Tree`, and recognising a pruned tree.

Every pruner decides which nodes become leaves (and, for C4.5's subtree
raising, which nodes are replaced by one of their branches), then calls
:func:`prune_tree`, which writes a new, validated Tree and never touches the
original. Nodes are renumbered the way the grower numbers them (depth first,
the children of a node numbered together right after it is split), so every
child still comes after its parent.
"""

import dataclasses

import numpy as np

from treelearn._dtypes import NODE_LEAF
from treelearn.exceptions import ParameterError
from treelearn.pruning._kernels import match_nodes, new_order
from treelearn.tree.structure import Tree

#: Per-node statistics a pruner may overwrite (all four together).
STAT_NAMES = ("value", "n_samples", "weight", "impurity")


def node_mask(tree, nodes, name="nodes"):
    """``nodes`` (a boolean mask or node indices) as a boolean mask over ``tree``'s nodes."""
    n = tree.node_count
    array = np.asarray(nodes if nodes is not None else np.zeros(n, dtype=bool))
    if array.dtype == bool:
        if array.shape != (n,):
            raise ParameterError(
                f"{name} as a boolean mask needs one entry per node ({n}), got shape {array.shape}."
            )
        return array.copy()
    if array.size and (
        array.dtype.kind not in "iu" or array.ndim != 1 or array.min() < 0 or array.max() >= n
    ):
        raise ParameterError(f"{name} must be node indices in [0, {n}) or a boolean mask.")
    mask = np.zeros(n, dtype=bool)
    mask[array.astype(np.int64)] = True
    return mask


def _new_order(tree, leaf, raised):
    """Original index of every node of the pruned tree, in its new order, whether
    each is internal, and the new index of its first child (see
    :func:`~treelearn.pruning._kernels.new_order`)."""
    n = tree.node_count
    replacement = np.full(n, -1, dtype=np.int64)
    for node, by in raised.items():
        replacement[node] = by
    old = np.empty(n, dtype=np.int64)
    first = np.zeros(n, dtype=np.int64)
    internal = np.zeros(n, dtype=bool)
    count = new_order(
        tree.kind, tree.child_ptr, tree.children, leaf, replacement, old, first, internal
    )
    if count < 0:
        raise ParameterError("raised nodes form a cycle.")
    return old[:count], first[:count], internal[:count]


def _gather_csr(ptr, data, rows):
    """CSR slices ``data[ptr[r]:ptr[r + 1]]`` of ``rows``, concatenated, with their new ptr."""
    counts = ptr[rows + 1] - ptr[rows]
    new_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    index = np.repeat(ptr[rows] - new_ptr[:-1], counts) + np.arange(new_ptr[-1])
    return new_ptr, data[index], index


def prune_tree(tree, leaves=None, *, raised=None, stats=None):
    """A new Tree in which the nodes ``leaves`` are leaves (their descendants dropped).

    Parameters
    ----------
    tree : Tree
        The original; it is not modified.
    leaves : boolean mask or array of node indices, optional
        Nodes to turn into leaves. A pruned node keeps its own ``value``,
        ``n_samples``, ``weight`` and ``impurity`` (from ``stats`` if given),
        and loses its split, category map and surrogates.
    raised : dict {node: replacement}, optional
        Subtree raising: ``node`` is replaced by the subtree of
        ``replacement`` (one of its descendants), which takes its place.
    stats : dict of arrays, optional
        New ``value``, ``n_samples``, ``weight`` and ``impurity`` per original
        node (all four), e.g. after class distributions were recounted.

    Returns
    -------
    Tree
        Validated; nodes renumbered as the grower numbers them.
    """
    leaf = node_mask(tree, leaves, "leaves")
    old, first, internal = _new_order(tree, leaf, dict(raised or {}))
    stats = {name: getattr(tree, name) for name in STAT_NAMES} | dict(stats or {})
    n_children = np.where(internal, np.diff(tree.child_ptr)[old], 0)
    # a node's children are numbered together: first, first + 1, ...
    offsets = np.cumsum(n_children) - n_children
    children = np.repeat(first - offsets, n_children) + np.arange(n_children.sum())
    split_nodes = np.where(internal, old, -1)
    keep = old[internal]
    # Category maps and surrogates of the nodes that stay internal; empty for new leaves.
    cat_rows = np.where(internal, old, 0)
    cat_counts = np.where(internal, np.diff(tree.category_ptr)[cat_rows], 0)
    category_ptr = np.concatenate([[0], np.cumsum(cat_counts)]).astype(np.int64)
    _, category_child, _ = _gather_csr(tree.category_ptr, tree.category_child, keep)
    sur_counts = np.where(internal, np.diff(tree.surrogate_ptr)[cat_rows], 0)
    surrogate_ptr = np.concatenate([[0], np.cumsum(sur_counts)]).astype(np.int64)
    _, _, entries = _gather_csr(tree.surrogate_ptr, np.arange(tree.surrogate_ptr[-1]), keep)
    sur_cat_ptr, sur_cat_child, _ = _gather_csr(
        tree.surrogate_category_ptr, tree.surrogate_category_child, entries
    )
    feature = np.where(internal, tree.feature[old], -1)
    new = Tree(
        feature=feature,
        kind=np.where(internal, tree.kind[old], NODE_LEAF),
        threshold=np.where(internal, tree.threshold[old], np.nan),
        child_ptr=np.concatenate([[0], np.cumsum(n_children)]),
        children=children,
        category_ptr=category_ptr,
        category_child=category_child,
        missing_child=np.where(internal, tree.missing_child[split_nodes], -1),
        value=np.asarray(stats["value"])[old],
        n_samples=np.asarray(stats["n_samples"])[old],
        weight=np.asarray(stats["weight"])[old],
        impurity=np.asarray(stats["impurity"])[old],
        n_features=tree.n_features,
        n_classes=tree.n_classes,
        surrogate_ptr=surrogate_ptr,
        surrogate_feature=tree.surrogate_feature[entries],
        surrogate_kind=tree.surrogate_kind[entries],
        surrogate_threshold=tree.surrogate_threshold[entries],
        surrogate_reverse=tree.surrogate_reverse[entries],
        surrogate_category_ptr=sur_cat_ptr,
        surrogate_category_child=sur_cat_child,
        surrogate_agreement=tree.surrogate_agreement[entries],
        surrogate_adjusted=tree.surrogate_adjusted[entries],
    )
    return new.validate()


def _match_arrays(tree):
    """The arrays :func:`~treelearn.pruning._kernels.match_nodes` compares."""
    return (
        tree.n_samples,
        np.ascontiguousarray(tree.value, dtype=np.float64),
        tree.weight,
        tree.kind,
        tree.feature,
        tree.threshold,
        tree.missing_child,
        tree.category_ptr,
        tree.category_child,
        tree.surrogate_ptr,
        tree.surrogate_feature,
        tree.child_ptr,
        tree.children,
    )


def _walk_both(a, b, rtol, strict):
    n = a.node_count
    out_a = np.empty(n, dtype=np.int64)
    out_b = np.empty(n, dtype=np.int64)
    count = match_nodes(_match_arrays(a), _match_arrays(b), float(rtol), strict, out_a, out_b)
    return (None, None) if count < 0 else (out_a[:count], out_b[:count])


def subtree_node_map(a, b, rtol=1e-9):
    """Where each node of ``a`` sits in ``b`` if ``a`` is a rooted subtree of ``b``, else None.

    ``a`` is a rooted subtree of ``b`` when walking both from the root, every
    internal node of ``a`` makes the same test as the node of ``b`` in its
    place (feature, kind, threshold, category map, missing-value rule,
    surrogate features, number of children) and every node of ``a`` (internal
    or leaf) carries the same ``value``, ``n_samples`` and ``weight`` (up to
    ``rtol``): ``a`` is ``b`` with some subtrees cut back to their root.
    """
    if a.n_features != b.n_features or a.n_classes != b.n_classes:
        return None
    nodes_a, nodes_b = _walk_both(a, b, rtol, True)
    if nodes_a is None:
        return None
    where = np.full(a.node_count, -1, dtype=np.int64)
    where[nodes_a] = nodes_b
    return where


def is_subtree(a, b, rtol=1e-9):
    """True when Tree ``a`` is a rooted subtree of Tree ``b`` (see :func:`subtree_node_map`)."""
    return subtree_node_map(a, b, rtol) is not None


def matching_nodes(pruned, original, rtol=1e-9):
    """{node of ``pruned``: node of ``original`` in its place} for the nodes that are
    unchanged there: reached from the root through the same tests, with the same
    ``value``, ``n_samples`` and ``weight``. Below a node that differs (a raised
    subtree, recounted statistics) nothing is matched."""
    nodes_pruned, nodes_original = _walk_both(pruned, original, rtol, False)
    return dict(zip(nodes_pruned.tolist(), nodes_original.tolist(), strict=True))


def carry_split_records(records, original, pruned):
    """The split records (``split_records_``) of ``original``'s nodes, renumbered for
    ``pruned``: a node keeps its record where it is unchanged (:func:`matching_nodes`);
    a node that was split and is now a leaf keeps it marked ``pruned``."""
    carried = {}
    for i, j in matching_nodes(pruned, original).items():
        record = records.get(j)
        if record is None:
            continue
        if pruned.kind[i] == NODE_LEAF and original.kind[j] != NODE_LEAF:
            record = dataclasses.replace(record, pruned=True)
        carried[i] = record
    return carried
