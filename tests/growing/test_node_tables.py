"""The numba loops' node table: its columns become the Tree's arrays without a copy."""

import numpy as np
import pytest

from treelearn._dtypes import NODE_INDEX_DTYPE
from treelearn.criteria._kernels import SQUARED_ERROR
from treelearn.growing import _node_tables as node_tables
from treelearn.growing._node_tables import (
    CATEGORY_LINKS,
    CHILD_LINKS,
    CODE_LINKS,
    K_CAT_LEN,
    K_CAT_START,
    K_FIRST_CHILD,
    K_LEFT_CODE,
    K_N_CHILDREN,
    K_RIGHT_CODE,
    NODE_COLUMNS,
    TREE_ARRAY_NAMES,
)
from treelearn.tree import Tree


def _table(capacity):
    """A table of room for ``capacity`` nodes holding five: node 0 split by a
    threshold on feature 1 (codes 3 | 4) into nodes 1 and 2, node 2 split on the
    nominal feature 0 into nodes 3 and 4 (its categories 0, 1, 2 to its children
    1, 0, 1: entries 1 to 3 of the category pool)."""
    nodes = node_tables.new_nodes(capacity, 2, CATEGORY_LINKS)
    feature, kind, missing, n_samples, threshold, weight, impurity, value, links = nodes
    for i in range(5):
        feature[i], kind[i], missing[i], n_samples[i] = -1, 0, -1, 10 - i
        threshold[i], weight[i], impurity[i] = np.nan, 1.5 * i, 0.25 * i
        value[i] = (i, 2 * i)
        links[i] = 0
        links[i, [K_LEFT_CODE, K_RIGHT_CODE]] = -1
    feature[0], kind[0], missing[0], threshold[0] = 1, 1, 0, 0.5
    links[0, [K_FIRST_CHILD, K_N_CHILDREN, K_LEFT_CODE, K_RIGHT_CODE]] = (1, 2, 3, 4)
    feature[2], kind[2], missing[2] = 0, 2, 1
    links[2, [K_FIRST_CHILD, K_N_CHILDREN, K_CAT_START, K_CAT_LEN]] = (3, 2, 1, 3)
    category_pool = np.array([7, 1, 0, 1, 7], dtype=np.int64)  # (its map is 1:4)
    return nodes, category_pool


@pytest.mark.parametrize("capacity", [5, 10, 11])
def test_tree_arrays_are_the_tables_columns(capacity):
    """Children and category maps in CSR form, the columns the table's first nodes:
    views of the table, which ``trim_columns`` keeps where they fill half the table
    or more and copies otherwise."""
    nodes, category_pool = _table(capacity)
    arrays = dict(
        zip(TREE_ARRAY_NAMES, node_tables.tree_arrays(nodes, 5, category_pool, True), strict=True)
    )
    for name, column in zip(NODE_COLUMNS[:-1], nodes[:-1], strict=True):
        assert np.shares_memory(arrays[name], column), name
    arrays = node_tables.trim_columns(arrays, 5, capacity)
    np.testing.assert_array_equal(arrays["child_ptr"], [0, 2, 2, 4, 4, 4])
    np.testing.assert_array_equal(arrays["children"], [1, 2, 3, 4])
    np.testing.assert_array_equal(arrays["category_ptr"], [0, 0, 0, 3, 3, 3])
    np.testing.assert_array_equal(arrays["category_child"], [1, 0, 1])
    np.testing.assert_array_equal(arrays["left_code"], [3, -1, -1, -1, -1])
    np.testing.assert_array_equal(arrays["right_code"], [4, -1, -1, -1, -1])
    np.testing.assert_array_equal(arrays["value"], [[i, 2 * i] for i in range(5)])
    np.testing.assert_array_equal(arrays["feature"], [1, -1, 0, -1, -1])
    view = capacity <= 2 * 5  # (5 nodes fill half the table or more)
    for name, column in zip(NODE_COLUMNS[:-1], nodes[:-1], strict=True):
        assert arrays[name].shape[0] == 5
        np.testing.assert_array_equal(arrays[name], column[:5])
        assert np.shares_memory(arrays[name], column) == view, name
    tree = Tree(
        **{k: v for k, v in arrays.items() if k not in ("left_code", "right_code")},
        n_features=2,
        n_classes=2,
    )
    assert tree.feature.dtype == NODE_INDEX_DTYPE and tree.kind.dtype == np.int8
    if view:  # (the Tree keeps the columns as they are: they are of its dtypes)
        assert np.shares_memory(tree.feature, nodes[0])


def test_a_tree_without_category_maps_leaves_category_ptr_to_the_caller():
    """No node has a category map: ``category_ptr`` comes back empty (all zeros,
    made by the grower where they take no memory)."""
    nodes, category_pool = _table(5)
    nodes[1][2] = 1  # node 2 a threshold split
    nodes[8][2, K_CAT_LEN] = 0
    arrays = dict(
        zip(TREE_ARRAY_NAMES, node_tables.tree_arrays(nodes, 5, category_pool, True), strict=True)
    )
    assert arrays["category_ptr"].shape == (0,)
    assert arrays["category_child"].shape == (0,)
    without_codes = node_tables.tree_arrays(nodes, 5, category_pool, False)
    assert without_codes[-2].shape == without_codes[-1].shape == (0,)  # (left, right codes)
    np.testing.assert_array_equal(arrays["children"], [1, 2, 3, 4])


def test_room_for_doubles_every_column_and_keeps_the_nodes():
    nodes, _ = _table(5)
    bigger = node_tables.room_for(nodes, 5, 1)
    assert all(c.shape[0] == 10 for c in bigger)
    for old, new in zip(nodes, bigger, strict=True):
        np.testing.assert_array_equal(new[:5], old[:5])
    assert node_tables.room_for(bigger, 5, 5)[0].shape[0] == 10  # room enough: as it was


@pytest.mark.parametrize(
    ("n_rows", "n_values", "max_bytes", "expected"),
    [(1, 1, 1 << 20, 1), (2, 1, 1 << 20, 3), (1000, 1, 1 << 20, 1999), (1000, 1, 73 * 64, 64),
     (1000, 10, 145 * 64, 64), (1000, 1, 1, 1)],
)  # fmt: skip
def test_initial_capacity_is_a_binary_trees_most_nodes_in_at_most_a_cap(
    n_rows, n_values, max_bytes, expected
):
    assert node_tables.initial_capacity(n_rows, n_values, CATEGORY_LINKS, max_bytes) == expected


@pytest.mark.parametrize("n_values", [1, 3, 10])
@pytest.mark.parametrize("n_links", [CHILD_LINKS, CODE_LINKS, CATEGORY_LINKS])
def test_node_bytes_are_the_bytes_of_a_node_in_the_table(n_values, n_links):
    nodes = node_tables.new_nodes(10, n_values, n_links)
    assert node_tables.node_bytes(n_values, n_links) * 10 == sum(c.nbytes for c in nodes)


@pytest.mark.parametrize(
    ("keep_codes", "has_categories", "expected"),
    [(False, False, CHILD_LINKS), (True, False, CODE_LINKS), (False, True, CATEGORY_LINKS),
     (True, True, CATEGORY_LINKS)],
)  # fmt: skip
def test_a_table_has_the_link_columns_its_tree_needs(keep_codes, has_categories, expected):
    assert node_tables.links_width(keep_codes, has_categories) == expected
    assert expected < CATEGORY_LINKS or max(K_CAT_START, K_CAT_LEN) < expected
    assert not keep_codes or max(K_LEFT_CODE, K_RIGHT_CODE) < expected
    assert max(K_FIRST_CHILD, K_N_CHILDREN) < CHILD_LINKS


@pytest.mark.parametrize("n_links", [CHILD_LINKS, CODE_LINKS])
def test_a_narrow_table_is_written_within_its_columns(n_links):
    """A leaf and a threshold split written into a table without the columns of
    split codes (or of category maps) leave every other entry as it was (a write
    past a row's last column would land in the next row); its Tree is the same."""
    nodes = node_tables.new_nodes(3, 1, n_links)
    links = nodes[8]
    links[:] = 99
    stats = np.array([[2.0, 2.0, 3.0, 5.0]])  # (count, sum w, sum wy, sum wy^2)
    for node in range(3):
        node_tables.write_node(nodes, node, stats, 0, 2.0, 2, -1, False, SQUARED_ERROR)
        assert (links[node] == [0, 0, -1, -1][:n_links]).all()
        assert (links[node + 1 :] == 99).all()
    split = np.array([[1.0, 0.0, 3.0, 4.0, 0.0, 0.0]])  # (OUT_* slots: feature 0, codes 3 | 4)
    thresholds = (np.array([2]), np.array([0, 5]), np.arange(5.0))  # (bin edges 0 .. 4)
    node_tables.record_threshold_split(nodes, 0, split, 0, 1, 2, 0, thresholds)
    assert (links[0] == [1, 2, 3, 4][:n_links]).all()
    assert (links[1] == [0, 0, -1, -1][:n_links]).all()
    arrays = dict(
        zip(
            TREE_ARRAY_NAMES,
            node_tables.tree_arrays(nodes, 3, np.empty(0, np.int64), n_links >= CODE_LINKS),
            strict=True,
        )
    )
    np.testing.assert_array_equal(arrays["children"], [1, 2])
    np.testing.assert_array_equal(arrays["threshold"], [3.0, np.nan, np.nan])
    assert arrays["category_ptr"].shape == (0,)
    if n_links >= CODE_LINKS:
        np.testing.assert_array_equal(arrays["left_code"], [3, -1, -1])
