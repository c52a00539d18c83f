"""The flat Tree: shape queries on a hand-built tree, prediction walks, and ``validate``."""

import re

import numpy as np
import pytest
from _trees import hand_built_tree

from treelearn._dtypes import (
    MISSING_BY_WEIGHT,
    NO_CHILD,
    NODE_INDEX_DTYPE,
    NODE_LEAF,
    NODE_MULTIWAY,
    NODE_SUBSET,
    NODE_THRESHOLD,
)
from treelearn.exceptions import ModelFormatError
from treelearn.tree import Tree, TreeBuilder

ARRAYS = (
    "feature",
    "kind",
    "threshold",
    "child_ptr",
    "children",
    "category_ptr",
    "category_child",
    "missing_child",
    "value",
    "n_samples",
    "weight",
    "impurity",
)


def test_builder_and_shape_queries():
    tree = hand_built_tree()
    assert tree.node_count == 7
    assert tree.n_leaves == 4
    assert tree.max_depth == 3
    np.testing.assert_array_equal(tree.node_depth, [0, 1, 1, 2, 2, 3, 3])
    np.testing.assert_array_equal(tree.parent(), [-1, 0, 0, 2, 2, 4, 4])
    np.testing.assert_array_equal(tree.is_leaf, [False, True, False, True, False, True, True])
    np.testing.assert_array_equal(tree.feature, [1, -1, 0, -1, 2, -1, -1])
    np.testing.assert_array_equal(tree.children_of(0), [1, 2])
    np.testing.assert_array_equal(tree.children_of(4), [5, 6])
    assert tree.children_of(3).shape == (0,)
    np.testing.assert_array_equal(tree.category_ptr, [0, 0, 0, 3, 3, 3, 3, 3])
    np.testing.assert_array_equal(tree.category_child, [0, 1, NO_CHILD])
    np.testing.assert_array_equal(tree.value[6], [1, 2])
    # Arrays are frozen.
    with pytest.raises(ValueError):
        tree.feature[0] = 2


def test_a_lone_leaf():
    b = TreeBuilder(n_features=2, n_classes=0)
    b.add_node([3.5], 5, 5.0, 1.25)
    tree = b.build()
    assert (tree.node_count, tree.n_leaves, tree.max_depth) == (1, 1, 0)
    np.testing.assert_array_equal(tree.parent(), [-1])
    np.testing.assert_array_equal(tree.apply(np.zeros((3, 2))), [0, 0, 0])
    np.testing.assert_array_equal(tree.feature_importances(), [0.0, 0.0])


def test_apply_and_decision_path_follow_the_splits():
    tree = hand_built_tree()
    nan = np.nan
    X = np.array(
        [
            [0.0, 0.5, 9.0],  # x1 <= 0.5 -> leaf 1
            [0.0, 0.6, 9.0],  # right; category 0 -> leaf 3
            [1.0, 0.6, 2.0],  # right; category 1 -> node 4; x2 <= 2 -> leaf 5
            [1.0, 0.6, 2.1],  # ... x2 > 2 -> leaf 6
            [2.0, 0.6, 9.0],  # category 2 unseen at the node -> as missing -> node 4 -> 6
            [nan, 0.6, nan],  # missing -> node 4; missing x2 -> left -> 5
            [7.0, 0.6, 0.0],  # code out of range -> as missing -> node 4 -> 5
            [nan, nan, 0.0],  # missing x1 -> child 1 (node 2) -> missing -> 4 -> 5
        ]
    )
    np.testing.assert_array_equal(tree.apply(X), [1, 3, 5, 6, 6, 5, 5, 5])
    rows, nodes = tree.decision_path(X)
    paths = [nodes[rows == i].tolist() for i in range(X.shape[0])]
    assert paths == [
        [0, 1],
        [0, 2, 3],
        [0, 2, 4, 5],
        [0, 2, 4, 6],
        [0, 2, 4, 6],
        [0, 2, 4, 5],
        [0, 2, 4, 5],
        [0, 2, 4, 5],
    ]


def test_missing_by_weight_follows_the_heaviest_child_in_apply():
    b = TreeBuilder(n_features=1, n_classes=2)
    root = b.add_node([3, 5], 8, 8.0, 0.47)
    left = b.add_node([3, 0], 3, 3.0, 0.0)
    right = b.add_node([0, 5], 5, 5.0, 0.0)
    b.set_split(root, 0, NODE_THRESHOLD, [left, right], MISSING_BY_WEIGHT, threshold=1.0)
    tree = b.build()
    np.testing.assert_array_equal(tree.apply(np.array([[0.0], [2.0], [np.nan]])), [1, 2, 2])


def test_impurity_decrease_and_importances():
    tree = hand_built_tree()
    decrease = tree.impurity_decrease()
    # node 0: 10*0.48 - 4*0 - 6*4/9 = 2.1333; node 2: 6*4/9 - 0 - 4*0.5 = 0.6667;
    # node 4: 4*0.5 - 0 - 3*4/9 = 0.6667.
    np.testing.assert_allclose(decrease, [4.8 - 8 / 3, 0, 8 / 3 - 2, 0, 2 - 4 / 3, 0, 0])
    total = 4.8 - 8 / 3 + 2 * (2 / 3)
    np.testing.assert_allclose(
        tree.feature_importances(), [(2 / 3) / total, (4.8 - 8 / 3) / total, (2 / 3) / total]
    )


# ---------------------------------------------------------------------------
# validate() rejects every broken invariant
# ---------------------------------------------------------------------------


def fields_of(tree):
    fields = {name: np.array(getattr(tree, name)) for name in ARRAYS}
    fields["n_features"] = tree.n_features
    fields["n_classes"] = tree.n_classes
    return fields


def _multiway_tree():
    b = TreeBuilder(n_features=1, n_classes=2)
    root = b.add_node([2, 2], 4, 4.0, 0.5)
    kids = [b.add_node([1, 0], 1, 1.0, 0.0) for _ in range(2)] + [b.add_node([1, 2], 2, 2.0, 0.5)]
    b.set_split(root, 0, NODE_MULTIWAY, kids, 2, category_child=[0, 1, 2])
    return b.build()


def test_valid_trees_pass():
    hand_built_tree().validate()
    _multiway_tree().validate()
    fields = fields_of(hand_built_tree())
    fields["threshold"][0] = np.inf  # "every known value left" is a valid threshold
    fields["missing_child"][0] = MISSING_BY_WEIGHT
    Tree(**fields).validate()


def test_node_indices_are_int32_and_an_index_past_it_is_refused():
    """The Tree keeps its node indices as ``NODE_INDEX_DTYPE`` (int32), converting
    int64 arrays whose values fit; one that does not fit is refused, not wrapped."""
    fields = fields_of(hand_built_tree())
    for name in ("feature", "child_ptr", "children", "category_child", "missing_child"):
        fields[name] = np.asarray(fields[name], dtype=np.int64)
    tree = Tree(**fields)
    for name in ("feature", "child_ptr", "children", "category_child", "missing_child"):
        assert getattr(tree, name).dtype == NODE_INDEX_DTYPE, name
        np.testing.assert_array_equal(getattr(tree, name), fields[name])
    assert tree.n_samples.dtype == tree.category_ptr.dtype == np.int64
    for value in (2**31, -(2**31) - 1):
        fields["feature"][0] = value
        with pytest.raises(ModelFormatError, match=f"Tree.feature holds {value}, outside"):
            Tree(**fields)


def _set(name, index, value):
    def corrupt(fields):
        fields[name][index] = value

    return corrupt


def _replace(name, value):
    def corrupt(fields):
        fields[name] = np.asarray(value)

    return corrupt


def _leaf_with_children(fields):
    fields["kind"][4] = NODE_LEAF
    fields["feature"][4] = -1


def _internal_without_children(fields):
    fields["kind"][1] = NODE_THRESHOLD
    fields["feature"][1] = 0
    fields["threshold"][1] = 0.0


def _orphan(fields):
    # Node 6 is also listed as a child of node 4 twice; node 5 becomes nobody's child.
    fields["children"][-2] = 6
    fields["n_samples"][4] = 6


def _category_map_on_threshold_node(fields):
    fields["category_ptr"] = np.array([0, 1, 1, 4, 4, 4, 4, 4])
    fields["category_child"] = np.array([0, 0, 1, NO_CHILD])


def _by_weight(n_samples, weight):
    """Node 4 (children of 1 and 3 rows, weights 1.0 and 3.0) splits missing values by
    weight, with ``n_samples`` rows and ``weight`` (its ancestors' rows add up)."""

    def corrupt(fields):
        fields["missing_child"][4] = MISSING_BY_WEIGHT
        fields["n_samples"][4] = n_samples
        fields["weight"][4] = weight
        fields["n_samples"][2] = 2 + n_samples
        fields["n_samples"][0] = 4 + 2 + n_samples

    return corrupt


CORRUPTIONS = {
    "no nodes": (
        lambda f: f.update(
            {name: np.zeros((0, 2) if name == "value" else 0) for name in ARRAYS}
            | {"child_ptr": np.zeros(1), "category_ptr": np.zeros(1)}
        ),
        "no nodes",
    ),
    "kind length": (_replace("kind", np.zeros(6)), "kind has shape"),
    "impurity length": (_replace("impurity", np.zeros(8)), "impurity has shape"),
    "child_ptr too short": (_replace("child_ptr", [0, 2, 2, 4, 4, 6, 6]), "one entry per node"),
    "child out of range": (_set("children", 5, 7), "be a node of the tree"),
    "category_ptr length": (_replace("category_ptr", [0, 0, 0, 3, 3, 3, 3]), "one entry per node"),
    "value rows": (_replace("value", np.zeros((6, 2))), "value has shape"),
    "value 1-d": (_replace("value", np.zeros(7)), "value has shape"),
    "child_ptr start": (_set("child_ptr", 0, 1), "child_ptr must start at 0"),
    "child_ptr decreasing": (_set("child_ptr", 1, 5), "never decrease"),
    "child_ptr end": (_replace("children", [1, 2, 3, 4, 5, 6, 6]), "child_ptr does not end"),
    "category_ptr decreasing": (_set("category_ptr", 4, 1), "category_ptr must start at 0"),
    "category_ptr end": (_replace("category_child", [0, 1]), "category_ptr does not end"),
    "unknown kind": (_set("kind", 1, 9), "unknown node kinds [9]"),
    "leaf with feature": (_set("feature", 1, 0), "a leaf has children or a feature"),
    "leaf with children": (_leaf_with_children, "a leaf has children or a feature"),
    "internal without children": (_internal_without_children, "fewer than two children"),
    "feature out of range": (_set("feature", 0, 3), "feature out of range"),
    "negative feature": (_set("feature", 4, -1), "feature out of range"),
    "NaN threshold": (_set("threshold", 4, np.nan), "threshold is NaN or -inf"),
    "-inf threshold": (_set("threshold", 0, -np.inf), "threshold is NaN or -inf"),
    "child before parent": (_set("children", 5, 3), "every child must come after its parent"),
    "negative child": (_set("children", 0, -1), "every child must come after its parent"),
    "child of two parents": (_orphan, "exactly one node"),
    "category map on threshold node": (_category_map_on_threshold_node, "not nominal"),
    "category map outside children": (_set("category_child", 1, 2), "category map points"),
    "negative category": (_set("category_child", 0, -3), "category map points"),
    "missing child outside": (_set("missing_child", 0, 2), "missing_child points outside"),
    "negative missing child": (_set("missing_child", 2, -1), "missing_child points outside"),
    "negative n_samples": (_set("n_samples", 3, -1), "negative n_samples or weight"),
    "negative weight": (_set("weight", 5, -1.0), "negative n_samples or weight"),
    "n_samples not the sum": (_set("n_samples", 4, 5), "not the sum of its children"),
    "by weight, more rows than its children": (_by_weight(5, 4.0), "more rows than its children"),
    "by weight, lighter children": (_by_weight(4, 4.5), "not as heavy as its children"),
}


def test_validate_accepts_rows_counted_in_every_child_below_a_split_by_weight():
    """Rows missing the feature of a split by weight are counted in every child: the
    children may hold more rows than their node (never fewer), and weigh as much."""
    fields = fields_of(hand_built_tree())
    _by_weight(3, 4.0)(fields)
    assert Tree(**fields).validate().missing_child[4] == MISSING_BY_WEIGHT


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_validate_rejects(name):
    corrupt, message = CORRUPTIONS[name]
    fields = fields_of(hand_built_tree())
    corrupt(fields)
    with pytest.raises(ModelFormatError, match="Invalid tree: .*" + re.escape(message)):
        Tree(**fields).validate()


def test_validate_rejects_binary_node_with_three_children():
    fields = fields_of(_multiway_tree())
    fields["kind"][0] = NODE_SUBSET
    with pytest.raises(ModelFormatError, match="does not have exactly two children"):
        Tree(**fields).validate()
    fields = fields_of(_multiway_tree())  # Tree froze the arrays it was given
    fields["kind"][0] = NODE_THRESHOLD
    fields["threshold"][0] = 0.0
    fields["category_ptr"][1:] = 0
    fields["category_child"] = np.zeros(0, dtype=np.int64)
    with pytest.raises(ModelFormatError, match="exactly two children"):
        Tree(**fields).validate()


@pytest.mark.parametrize(
    "first, second",
    [
        ("NaN threshold", "negative weight"),
        ("missing child outside", "n_samples not the sum"),
        ("leaf with feature", "child of two parents"),
        ("unknown kind", "category map outside children"),
        ("child before parent", "n_samples not the sum"),
    ],
)
def test_validate_reports_the_first_broken_invariant(first, second):
    """With two invariants broken (on different nodes), the one checked first is
    reported, whichever node comes first."""
    fields = fields_of(hand_built_tree())
    CORRUPTIONS[second][0](fields)
    CORRUPTIONS[first][0](fields)
    with pytest.raises(ModelFormatError, match=re.escape(CORRUPTIONS[first][1])):
        Tree(**fields).validate()
