"""Stitching a tree grown on several threads back together, in numba: where the
serial loop numbers every node of :func:`~treelearn.growing._loop_kernels.grow_top`'s
table and of the subtrees :func:`~treelearn.growing._loop_kernels.grow_subtrees`
grew (:func:`serial_layout`), and each of them written once at that number
(:func:`place_top_nodes`, :func:`place_subtrees`; the subtrees' calls run on
separate threads, their places never meet). Driven by
:mod:`~treelearn.growing.threaded`.
"""

import numpy as np
from numba import njit

from treelearn.growing._loop_kernels import S_NODE
from treelearn.growing._node_tables import (
    CATEGORY_LINKS,
    K_CAT_LEN,
    K_CAT_START,
    K_FIRST_CHILD,
    K_N_CHILDREN,
    copy_nodes,
)


@njit(cache=True)
def serial_layout(tables, frontier, items, n_nodes):
    """Where the serial loop numbers the nodes of
    :func:`~treelearn.growing._loop_kernels.grow_top`'s tables with each deferred node
    ``frontier[items[i]]`` split into its subtree of ``n_nodes[i]`` nodes (from
    :func:`~treelearn.growing._loop_kernels.grow_subtrees`).

    The serial loop splits nodes in pre-order, children in order, and numbers a
    node's children together when it splits it; depth-first, it splits a
    deferred node's whole subtree before anything else, so the subtree's nodes
    below its root get consecutive numbers in their local order. Returns
    ``(number, base, n_total)``: the number of each of the tables' nodes, the
    number of each item's local node 1 (local node ``j >= 1`` is ``base + j - 1``),
    and the number of nodes.
    """
    links, n_top = tables[0][-1], tables[1]
    front_node = frontier[0][:, S_NODE]
    item_of = np.full(n_top, -1, dtype=np.int64)
    for i in range(items.shape[0]):
        item_of[front_node[items[i]]] = i
    number = np.empty(n_top, dtype=np.int64)
    base = np.empty(items.shape[0], dtype=np.int64)
    number[0] = 0
    counter = np.int64(1)
    stack = np.empty(n_top, dtype=np.int64)
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        i = item_of[node]
        if i >= 0:
            base[i] = counter
            counter += n_nodes[i] - 1
            continue
        n_children = links[node, K_N_CHILDREN]
        first = links[node, K_FIRST_CHILD]
        for j in range(n_children):
            number[first + j] = counter + j
        counter += n_children
        for j in range(n_children - 1, -1, -1):
            stack[top] = first + j
            top += 1
    return number, base, counter


@njit(cache=True)
def place_top_nodes(tables, number, out_nodes):
    """Write :func:`~treelearn.growing._loop_kernels.grow_top`'s nodes into the stitched
    table ``out_nodes`` at their serial ``number`` (:func:`serial_layout`), children
    renumbered."""
    nodes, n_top = tables[0], tables[1]
    links, out_links = nodes[8], out_nodes[8]
    for node in range(n_top):
        target = number[node]
        copy_nodes(nodes, node, out_nodes, target, np.int64(1))
        if links[node, K_N_CHILDREN] > 0:
            out_links[target, K_FIRST_CHILD] = number[links[node, K_FIRST_CHILD]]


@njit(cache=True, nogil=True)
def place_subtrees(subtrees, root_number, base, category_offset, out_nodes):
    """Write one :func:`~treelearn.growing._loop_kernels.grow_subtrees` call's subtrees
    into the stitched table ``out_nodes``: item ``i``'s root (the deferred node, now
    split) at ``root_number[i]``, its local node ``j >= 1`` at ``base[i] + j - 1``
    (copied together, :func:`~treelearn.growing._node_tables.copy_nodes`); children
    renumbered, category maps moved to where the batch's pool starts in the stitched
    pool (``category_offset``)."""
    sub_nodes, _, first, n_nodes, first_cat = subtrees
    out_links = out_nodes[8]
    for i in range(n_nodes.shape[0]):
        copy_nodes(sub_nodes, first[i], out_nodes, root_number[i], np.int64(1))
        copy_nodes(sub_nodes, first[i] + 1, out_nodes, base[i], n_nodes[i] - 1)
        _renumber_links(out_links, root_number[i], root_number[i] + 1, base[i] - 1,
                        category_offset + first_cat[i])  # fmt: skip
        _renumber_links(out_links, base[i], base[i] + n_nodes[i] - 1, base[i] - 1,
                        category_offset + first_cat[i])  # fmt: skip


@njit(cache=True, _nrt=False)
def _renumber_links(links, start, stop, node_shift, category_shift):
    """Nodes ``start .. stop - 1`` of a stitched table, copied from a subtree's own
    table: their first child moved by ``node_shift``, their category map (where the
    table has them) by ``category_shift``."""
    with_categories = links.shape[1] >= CATEGORY_LINKS
    for t in range(start, stop):
        if links[t, K_N_CHILDREN] > 0:
            links[t, K_FIRST_CHILD] += node_shift
        if with_categories and links[t, K_CAT_LEN] > 0:
            links[t, K_CAT_START] += category_shift
