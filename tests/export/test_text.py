"""export_text: exact text of small trees, read back against the Tree's arrays."""

from types import SimpleNamespace

import numpy as np
import pytest

from treelearn import CARTClassifier, CARTRegressor, Tree
from treelearn._dtypes import (
    MISSING_BY_WEIGHT,
    NO_CHILD,
    NODE_LEAF,
    NODE_MULTIWAY,
    NODE_SUBSET,
    NODE_THRESHOLD,
)
from treelearn.data.schema import FeatureSchema
from treelearn.datasets import load_dataset
from treelearn.exceptions import ParameterError
from treelearn.export import export_text
from treelearn.export.text import format_number
from treelearn.tree import TreeBuilder


def make_tree(nodes, n_features, n_classes):
    """A Tree from node dicts (kind, feature, threshold, children, cats, missing, value)."""
    child_ptr, children, category_ptr, category_child = [0], [], [0], []
    for node in nodes:
        children.extend(node.get("children", []))
        child_ptr.append(len(children))
        category_child.extend(node.get("cats", []))
        category_ptr.append(len(category_child))
    n = len(nodes)
    n_samples = np.zeros(n, dtype=np.int64)
    for i in reversed(range(n)):  # children come after parents
        kids = children[child_ptr[i] : child_ptr[i + 1]]
        n_samples[i] = nodes[i]["rows"] if not kids else n_samples[kids].sum()
    value = np.array([node["value"] for node in nodes], dtype=np.float64)
    return Tree(
        feature=[node.get("feature", -1) for node in nodes],
        kind=[node["kind"] for node in nodes],
        threshold=[node.get("threshold", np.nan) for node in nodes],
        child_ptr=child_ptr,
        children=children,
        category_ptr=category_ptr,
        category_child=category_child,
        missing_child=[node.get("missing", -1) for node in nodes],
        value=value,
        n_samples=n_samples,
        weight=n_samples.astype(np.float64),
        impurity=np.zeros(n),
        n_features=n_features,
        n_classes=n_classes,
    ).validate()


def leaf(value, rows=1):
    return {"kind": NODE_LEAF, "value": value, "rows": rows}


@pytest.fixture
def mixed_tree():
    """Threshold root; its right child a subset split with a category mapped to no child."""
    return make_tree(
        [
            {"kind": NODE_THRESHOLD, "feature": 0, "threshold": 2.5, "children": [1, 2],
             "missing": 1, "value": [4, 4.5]},
            leaf([3, 0], rows=3),
            {"kind": NODE_SUBSET, "feature": 1, "children": [3, 4], "cats": [0, 1, NO_CHILD],
             "missing": 0, "value": [1, 4.5]},
            leaf([0, 2.5], rows=3),
            leaf([1, 1], rows=2),
        ],
        n_features=2,
        n_classes=2,
    )  # fmt: skip


def as_model(tree, names, categories, classes=None):
    kinds = tuple("numeric" if c is None else "nominal" for c in categories)
    schema = FeatureSchema(tuple(names), kinds, tuple(categories), from_frame=True)
    return SimpleNamespace(tree_=tree, feature_schema_=schema, classes_=classes)


def test_threshold_and_subset_nodes(mixed_tree):
    model = as_model(
        mixed_tree, ["密度", "色泽"], [None, ("乌黑", "青绿", "浅白")], np.array(["否", "是"])
    )
    assert export_text(model) == (
        "|--- 密度 <= 2.5\n"
        "|   |--- class: 否  (否: 3, 是: 0)\n"
        "|--- 密度 > 2.5  (+ missing)\n"
        "|   |--- 色泽 in {乌黑}  (+ missing, 浅白)\n"
        "|   |   |--- class: 是  (否: 0, 是: 2.5)\n"
        "|   |--- 色泽 in {青绿}\n"
        "|   |   |--- class: 否  (否: 1, 是: 1)\n"  # a tie goes to the first class
    )


def test_a_bare_tree_prints_codes_and_class_indices(mixed_tree):
    text = export_text(mixed_tree)
    assert text.splitlines()[0] == "|--- x0 <= 2.5"
    assert "|   |--- x1 in {0}  (+ missing, 2)" in text
    assert "|   |--- class: 0  (0: 3, 1: 0)" in text


def test_feature_names_override(mixed_tree):
    text = export_text(mixed_tree, feature_names=["density", "colour"])
    assert text.splitlines()[0] == "|--- density <= 2.5"
    with pytest.raises(ParameterError, match="feature_names has 1 names but the tree has 2"):
        export_text(mixed_tree, feature_names=["density"])


def test_multiway_node_missing_by_weight_and_regression_leaves():
    tree = make_tree(
        [
            {"kind": NODE_MULTIWAY, "feature": 0, "children": [1, 2, 3],
             "cats": [0, 1, 2, 1], "missing": MISSING_BY_WEIGHT, "value": [2.0]},
            leaf([1.23456], rows=4),
            leaf([-0.0001], rows=2),
            leaf([10.0], rows=1),
        ],
        n_features=1,
        n_classes=0,
    )  # fmt: skip
    model = as_model(tree, ["outlook"], [("sunny", "overcast", "rainy", "fog")])
    assert export_text(model, decimals=2) == (
        "|--- outlook = sunny  (+ missing, by weight)\n"
        "|   |--- value: 1.23  (4 rows)\n"
        "|--- outlook in {overcast, fog}  (+ missing, by weight)\n"
        "|   |--- value: 0  (2 rows)\n"
        "|--- outlook = rainy  (+ missing, by weight)\n"
        "|   |--- value: 10  (1 rows)\n"
    )


def test_a_single_leaf():
    tree = make_tree([leaf([2, 5], rows=7)], n_features=3, n_classes=2)
    assert export_text(tree) == "|--- class: 1  (0: 2, 1: 5)\n"


def test_play_tennis_depth_two_exact_text():
    X, y = load_dataset("play_tennis")
    model = CARTClassifier(max_depth=2).fit(X, y)
    expected = (
        "|--- outlook in {rainy, sunny}  (+ missing)\n"
        "|   |--- humidity in {high}  (+ missing)\n"
        "|   |   |--- class: no  (no: 4, yes: 1)\n"
        "|   |--- humidity in {normal}\n"
        "|   |   |--- class: yes  (no: 1, yes: 4)\n"
        "|--- outlook in {overcast}\n"
        "|   |--- class: yes  (no: 0, yes: 4)\n"
    )
    assert export_text(model) == expected
    # ... which is what the arrays say:
    tree = model.tree_
    schema = model.feature_schema_
    root_left, root_right = tree.children_of(0)
    assert schema.names[tree.feature[0]] == "outlook"
    assert tree.kind[0] == NODE_SUBSET
    outlook = schema.categories[tree.feature[0]]
    root_map = tree.category_child[tree.category_ptr[0] : tree.category_ptr[1]]
    assert {outlook[c] for c in np.flatnonzero(root_map == 0)} == {"rainy", "sunny"}
    assert {outlook[c] for c in np.flatnonzero(root_map == 1)} == {"overcast"}
    assert tree.missing_child[0] == 0
    assert schema.names[tree.feature[root_left]] == "humidity"
    assert tree.kind[root_right] == NODE_LEAF
    assert tree.value[root_right].tolist() == [0.0, 4.0]
    leaves = [tree.value[n].tolist() for n in tree.children_of(root_left)]
    assert leaves == [[4.0, 1.0], [1.0, 4.0]]


def test_leaf_lines_follow_the_arrays_in_depth_first_order():
    X, y = load_dataset("iris")
    model = CARTClassifier(max_depth=3).fit(X, y)
    tree = model.tree_
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        if tree.kind[node] == NODE_LEAF:
            order.append(node)
        stack.extend(reversed(tree.children_of(node).tolist()))
    lines = [line for line in export_text(model).splitlines() if "class:" in line]
    assert len(lines) == tree.n_leaves == len(order)
    for line, node in zip(lines, order, strict=True):
        counts = ", ".join(
            f"{c}: {format_number(v, 3)}"
            for c, v in zip(model.classes_, tree.value[node], strict=True)
        )
        assert line.endswith(f"({counts})")
        assert line.startswith("|   " * tree.node_depth[node] + "|--- class: ")


def test_regression_tree_thresholds_round_to_decimals():
    X, _ = load_dataset("iris")
    model = CARTRegressor(max_depth=1).fit(X[["petal length (cm)"]], X["sepal length (cm)"])
    threshold = model.tree_.threshold[0]
    text = export_text(model, decimals=1)
    assert text.startswith(f"|--- petal length (cm) <= {format_number(threshold, 1)}")
    values = [float(line.split("value: ")[1].split()[0]) for line in text.splitlines()[1::2]]
    assert values == [round(v, 1) for v in model.tree_.value[model.tree_.children_of(0), 0]]


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [(4.0, 3, "4"), (0.38149, 3, "0.381"), (2.5, 0, "2"), (-0.0001, 3, "0"), (12.3456, 2, "12.35")],
)
def test_format_number(value, decimals, text):
    assert format_number(value, decimals) == text


def test_errors():
    with pytest.raises(ParameterError, match="not fitted; call fit first"):
        export_text(CARTClassifier())
    with pytest.raises(ParameterError, match="got str"):
        export_text("a tree")
    X, y = load_dataset("play_tennis")
    model = CARTClassifier(max_depth=1).fit(X, y)
    with pytest.raises(ParameterError, match="decimals must be an integer >= 0"):
        export_text(model, decimals=-1)


def test_surrogate_nodes_name_their_surrogates():
    b = TreeBuilder(n_features=3, n_classes=2)
    root = b.add_node([3, 3], 6, 6.0, 0.5)
    left = b.add_node([3, 0], 3, 3.0, 0.0)
    right = b.add_node([0, 3], 3, 3.0, 0.0)
    surrogates = [
        (2, NODE_THRESHOLD, 3.0, 1, (), 0.9, 0.8),
        (1, NODE_SUBSET, np.nan, 0, [0, 1], 0.7, 0.4),
    ]
    b.set_split(root, 0, NODE_THRESHOLD, [left, right], 1, threshold=1.0, surrogates=surrogates)
    assert export_text(b.build()) == (
        "|--- x0 <= 1\n"
        "|   |--- class: 0  (0: 3, 1: 0)\n"
        "|--- x0 > 1  (+ missing; surrogates first: x2, x1)\n"
        "|   |--- class: 1  (0: 0, 1: 3)\n"
    )


def test_labels_with_newlines_stay_on_one_line(mixed_tree):
    model = as_model(mixed_tree, ["a\nb", "c"], [None, ("x\ty", "z", "w")], np.array(["p", "q\n"]))
    text = export_text(model)
    assert text.count("\n") == (mixed_tree.node_count - 1) + mixed_tree.n_leaves
    assert "|--- a\\nb <= 2.5\n" in text
    assert "|   |--- c in {x\\ty}  (+ missing, w)\n" in text
    assert "|   |--- class: p  (p: 3, q\\n: 0)\n" in text
