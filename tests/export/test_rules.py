"""export_rules: merged conditions, missing routes, and one rule per row on random data."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treelearn import CARTClassifier, CARTRegressor
from treelearn._dtypes import (
    MISSING_BY_WEIGHT,
    NO_CHILD,
    NODE_MULTIWAY,
    NODE_SUBSET,
    NODE_THRESHOLD,
)
from treelearn.data.schema import FeatureSchema
from treelearn.datasets import load_dataset
from treelearn.exceptions import ParameterError
from treelearn.export import export_rules
from treelearn.export.rules import Rule, Term
from treelearn.tree import TreeBuilder, TreeView


def as_model(tree, names, categories):
    """A stand-in for a fitted estimator: the tree with its feature schema."""
    kinds = tuple("numeric" if c is None else "nominal" for c in categories)
    schema = FeatureSchema(tuple(names), kinds, tuple(categories), from_frame=True)
    classes = None if tree.n_classes == 0 else np.arange(tree.n_classes)
    return SimpleNamespace(tree_=tree, feature_schema_=schema, classes_=classes)


def _leaf(b, value, n):
    return b.add_node(value, n, float(n), 0.0)


def numeric_chain_tree():
    """
    node 0: x0 <= 2 ? (missing -> right)
      node 1: leaf [3, 0]
      node 2: x1 <= 0 ? (missing -> left)
        node 3: x0 <= 5 ? (missing -> left)
          node 5: x0 <= 7 ? (missing -> right; below x0 <= 5, so only missing values go right)
            node 7: leaf [0, 2]
            node 8: leaf [1, 0]
          node 6: leaf [2, 1]
        node 4: leaf [0, 1]
    """
    b = TreeBuilder(n_features=2, n_classes=2)
    root = b.add_node([6, 4], 10, 10.0, 0.48)
    n1 = _leaf(b, [3, 0], 3)
    n2 = b.add_node([3, 4], 7, 7.0, 0.49)
    b.set_split(root, 0, NODE_THRESHOLD, [n1, n2], 1, threshold=2.0)
    n3 = b.add_node([3, 3], 6, 6.0, 0.5)
    n8 = _leaf(b, [0, 1], 1)
    b.set_split(n2, 1, NODE_THRESHOLD, [n3, n8], 0, threshold=0.0)
    n4 = b.add_node([1, 2], 3, 3.0, 0.44)
    n7 = _leaf(b, [2, 1], 3)
    b.set_split(n3, 0, NODE_THRESHOLD, [n4, n7], 0, threshold=5.0)
    n5 = _leaf(b, [0, 2], 2)
    n6 = _leaf(b, [1, 0], 1)
    b.set_split(n4, 0, NODE_THRESHOLD, [n5, n6], 1, threshold=7.0)
    return b.build()


LEAVES = (1, 7, 8, 6, 4)


def test_numeric_conditions_are_merged():
    model = numeric_chain_tree()
    rules = {rule.leaf: rule for rule in export_rules(model, sort_by=None)}
    assert [str(rules[leaf]) for leaf in LEAVES] == [
        "if x0 <= 2 then class = 0  (confidence: 1, support: 3)",
        "if 2 < x0 <= 5 and (x1 <= 0 or x1 is missing) then class = 1  (confidence: 1, support: 2)",
        # x0 <= 5 or missing, then x0 > 7 or missing: only a missing x0 gets here.
        "if x0 is missing and (x1 <= 0 or x1 is missing) then class = 0  "
        "(confidence: 1, support: 1)",
        "if x0 > 5 and (x1 <= 0 or x1 is missing) then class = 0  (confidence: 0.667, support: 3)",
        "if (x0 > 2 or x0 is missing) and x1 > 0 then class = 1  (confidence: 1, support: 1)",
    ]
    terms = rules[7].terms
    assert terms[0] == Term(feature=0, feature_name="x0", nominal=False, low=2.0, high=5.0)
    assert terms[1].missing == "yes" and terms[1].high == 0.0
    X = np.array([[3.0, -1.0], [np.nan, np.nan], [6.0, np.nan], [1.0, 5.0], [np.nan, 1.0]])
    covered = np.array([[rules[leaf].covers(X)[i] for leaf in LEAVES] for i in range(5)])
    np.testing.assert_array_equal(covered.argmax(axis=1), [1, 2, 3, 0, 4])
    assert covered.sum(axis=1).tolist() == [1] * 5


def nominal_tree():
    """Multiway colour = {a, b, c} | {d} (code 4, "e", unseen; missing -> first child),
    then a subset split {a, b} | {c} with missing -> right."""
    b = TreeBuilder(n_features=1, n_classes=2)
    root = b.add_node([4, 4], 8, 8.0, 0.5)
    n1 = b.add_node([2, 3], 5, 5.0, 0.48)
    n2 = _leaf(b, [2, 1], 3)
    b.set_split(root, 0, NODE_MULTIWAY, [n1, n2], 0, category_child=[0, 0, 0, 1, NO_CHILD])
    n3 = _leaf(b, [0, 3], 3)
    n4 = _leaf(b, [2, 0], 2)
    b.set_split(n1, 0, NODE_SUBSET, [n3, n4], 1, category_child=[0, 0, 1, NO_CHILD, NO_CHILD])
    return b.build()


def test_nominal_conditions_are_intersected():
    model = as_model(nominal_tree(), ["colour"], [("a", "b", "c", "d", "e")])
    rules = {rule.leaf: rule for rule in export_rules(model)}
    assert str(rules[3]) == "if colour in {a, b} then class = 1  (confidence: 1, support: 3)"
    # {a, b, c, e} or missing (e unseen at the root), then {c, d, e} or missing at node 1
    # (d, e unseen there).
    assert rules[4].conditions_text() == "colour in {c, e} or colour is missing"
    assert rules[2].conditions_text() == "colour = d"
    X = pd.DataFrame({"colour": ["a", "b", "c", "d", "e", None, "zz"]})
    covers = np.array([rules[leaf].covers(X) for leaf in (2, 3, 4)])
    assert covers.sum(axis=0).tolist() == [1] * 7
    assert covers.argmax(axis=0).tolist() == [1, 1, 2, 0, 2, 2, 2]


def test_missing_by_weight_and_regression_rules():
    b = TreeBuilder(n_features=1, n_classes=0)
    root = b.add_node([2.0], 7, 7.0, 1.0)
    kids = [b.add_node([v], n, float(n), 0.0) for v, n in ((1.5, 4), (-1.0, 2), (10.0, 1))]
    b.set_split(
        root, 0, NODE_MULTIWAY, kids, MISSING_BY_WEIGHT, category_child=[0, 1, 2, 1, NO_CHILD]
    )
    model = as_model(b.build(), ["outlook"], [("sunny", "overcast", "rainy", "fog", "snow")])
    rules = export_rules(model, decimals=2)
    assert [str(r) for r in rules] == [
        "if outlook = sunny or (outlook is missing or outlook in {snow}) (by weight: 0.57) "
        "then value = 1.5  (support: 4)",
        "if outlook in {overcast, fog} or (outlook is missing or outlook in {snow}) "
        "(by weight: 0.29) then value = -1  (support: 2)",
        "if outlook = rainy or (outlook is missing or outlook in {snow}) (by weight: 0.14) "
        "then value = 10  (support: 1)",
    ]
    assert rules[0].confidence is None and rules[0].distribution == ()
    frame = export_rules(model, as_frame=True, sort_by=None)
    assert list(frame.columns) == ["leaf", "conditions", "value", "support", "weight"]
    assert frame["value"].tolist() == [1.5, -1.0, 10.0]
    # A missing value reaches every leaf (with a share of its weight).
    X = pd.DataFrame({"outlook": ["fog", None, "snow"]})
    assert np.array([r.covers(X) for r in rules]).sum(axis=0).tolist() == [1, 3, 3]


def test_surrogate_routes_are_spelled_out():
    b = TreeBuilder(n_features=3, n_classes=2)
    root = b.add_node([3, 3], 6, 6.0, 0.5)
    left, right = _leaf(b, [3, 0], 3), _leaf(b, [0, 3], 3)
    b.set_split(
        root,
        0,
        NODE_THRESHOLD,
        [left, right],
        1,
        threshold=1.0,
        surrogates=[
            (1, NODE_THRESHOLD, 3.0, 1, (), 0.9, 0.8),
            (2, NODE_SUBSET, np.nan, 0, [0, 1, NO_CHILD], 0.7, 0.4),
        ],
    )
    tree = b.build()
    rules = export_rules(tree, sort_by=None)
    assert [r.conditions_text() for r in rules] == [
        "x0 <= 1 or (x0 is missing and (x1 > 3 or (x1 is missing and x2 = 0)))",
        "x0 > 1 or (x0 is missing and (x1 <= 3 or (x1 is missing and "
        "(x2 = 1 or (x2 is missing or x2 in {2})))))",
    ]
    nan = np.nan
    X = np.array(
        [[0.0, 9, 9], [2.0, 9, 9], [nan, 2.0, 1], [nan, 4.0, 1], [nan, nan, 0], [nan, nan, 2]]
    )
    covers = np.array([r.covers(X) for r in rules])
    assert covers.sum(axis=0).tolist() == [1] * 6
    np.testing.assert_array_equal(np.array([1, 2])[covers.argmax(axis=0)], tree.apply(X))


WATERMELON_RULES = """\
if 纹理 in {模糊, 稍糊} and (色泽 in {浅白, 青绿} or 色泽 is missing) then class = 否  (confidence: 1, support: 6)
if (纹理 = 清晰 or 纹理 is missing) and (触感 = 硬滑 or 触感 is missing) then class = 是  (confidence: 1, support: 6)
if 纹理 in {模糊, 稍糊} and 色泽 = 乌黑 and (敲声 in {沉闷, 清脆} or 敲声 is missing) then class = 否  (confidence: 1, support: 1)
if 纹理 in {模糊, 稍糊} and 色泽 = 乌黑 and 敲声 = 浊响 then class = 是  (confidence: 1, support: 1)
if (纹理 = 清晰 or 纹理 is missing) and 触感 = 软粘 and 色泽 = 乌黑 then class = 否  (confidence: 1, support: 1)
if (纹理 = 清晰 or 纹理 is missing) and 触感 = 软粘 and (色泽 in {浅白, 青绿} or 色泽 is missing) and (根蒂 in {硬挺, 蜷缩} or 根蒂 is missing) then class = 否  (confidence: 1, support: 1)
if (纹理 = 清晰 or 纹理 is missing) and 触感 = 软粘 and (色泽 in {浅白, 青绿} or 色泽 is missing) and 根蒂 = 稍蜷 then class = 是  (confidence: 1, support: 1)
"""  # noqa: E501


def test_watermelon_rules(data_dir):
    data = pd.read_csv(data_dir / "watermelon2.csv").drop(columns="编号")
    X, y = data.drop(columns="好瓜"), data["好瓜"]
    model = CARTClassifier().fit(X, y)
    rules = export_rules(model)
    assert "".join(f"{rule}\n" for rule in rules) == WATERMELON_RULES
    covers = np.array([rule.covers(X) for rule in rules])
    assert covers.sum(axis=0).tolist() == [1] * len(X)
    assert [rules[k].prediction for k in covers.argmax(axis=0)] == y.tolist()


def test_sorting_frames_and_errors():
    X, y = load_dataset("iris")
    model = CARTClassifier(max_depth=3, random_state=0).fit(X, y)
    by_support = export_rules(model)
    assert [r.support for r in by_support] == sorted((r.support for r in by_support), reverse=True)
    by_confidence = export_rules(model, sort_by="confidence")
    keys = [(-r.confidence, -r.support) for r in by_confidence]
    assert keys == sorted(keys)
    in_order = export_rules(model, sort_by=None)
    view = TreeView(model)
    assert [r.leaf for r in in_order] == [leaf.index for leaf in view.leaves()]
    assert all(isinstance(r, Rule) for r in in_order)
    frame = export_rules(model, as_frame=True, decimals=2)
    assert list(frame.columns) == ["leaf", "conditions", "class", "confidence", "support", "weight"]
    assert frame["conditions"].tolist() == [r.conditions_text(2) for r in by_support]
    assert frame["support"].sum() == len(X)
    with pytest.raises(ParameterError, match="sort_by must be"):
        export_rules(model, sort_by="gain")
    with pytest.raises(ParameterError, match="decimals must be an integer"):
        export_rules(model, decimals=1.5)
    with pytest.raises(ParameterError, match="as_frame must be True or False"):
        export_rules(model, as_frame="yes")
    with pytest.raises(ParameterError, match="export_rules needs a fitted"):
        export_rules(object())
    regression = CARTRegressor(max_depth=2).fit(X.iloc[:, 1:], X.iloc[:, 0])
    with pytest.raises(ParameterError, match="needs a classification tree"):
        export_rules(regression, sort_by="confidence")
    assert str(export_rules(regression)[0]).startswith("if ")


def test_a_single_leaf_and_weights():
    b = TreeBuilder(n_features=1, n_classes=2)
    b.add_node([1.5, 4.0], 3, 5.5, 0.4)
    rules = export_rules(b.build(), decimals=2)
    assert str(rules[0]) == "if true then class = 1  (confidence: 0.73, support: 3, weight: 5.5)"
    assert rules[0].covers(np.zeros((4, 1))).all()


# -- every row satisfies exactly one rule, and it predicts what the model does ----------


def _random_frame(rng, n, nominal_levels, declared_extra):
    frame = {}
    for j in range(2):
        values = rng.normal(size=n).round(1) * (j + 1)
        values[rng.random(n) < 0.15] = np.nan
        frame[f"num{j}"] = values
    for j, levels in enumerate(nominal_levels):
        labels = [f"c{k}" for k in range(levels)]
        values = rng.choice(labels, size=n).astype(object)
        values[rng.random(n) < 0.15] = None
        if j == 0:
            categories = [*labels, *[f"extra{k}" for k in range(declared_extra)]]
            frame[f"nom{j}"] = pd.Categorical(values, categories=categories)
        else:
            frame[f"nom{j}"] = values
    return pd.DataFrame(frame)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(8, 120),
    depth=st.integers(1, 7),
    n_classes=st.integers(2, 4),
    nominal_levels=st.lists(st.integers(2, 6), min_size=1, max_size=2),
    declared_extra=st.integers(0, 2),
    missing=st.sampled_from(["learn", "learn", "surrogate"]),
)
def test_rules_are_exclusive_exhaustive_and_agree_with_predict(
    seed, n, depth, n_classes, nominal_levels, declared_extra, missing
):
    rng = np.random.default_rng(seed)
    X = _random_frame(rng, n, nominal_levels, declared_extra)
    signal = np.nan_to_num(X["num0"].to_numpy()) + (X["nom0"] == "c1").to_numpy()
    y = np.where(rng.random(n) < 0.7, (signal > 0).astype(int), rng.integers(0, n_classes, n))
    y = np.array([f"class{k}" for k in y])
    model = CARTClassifier(max_depth=depth, missing=missing).fit(X, y)
    rules = export_rules(model, sort_by=None)
    assert len(rules) == model.get_n_leaves()
    # Training rows, and new rows (unseen categories included) from the same source.
    X_new = _random_frame(rng, 60, [m + 1 for m in nominal_levels], declared_extra)
    X_new["nom0"] = X_new["nom0"].astype(object).where(X_new["nom0"].notna(), None)
    for data in (X, X_new):
        covers = np.array([rule.covers(data) for rule in rules])
        assert covers.sum(axis=0).tolist() == [1] * len(data)
        matched = covers.argmax(axis=0)
        assert [rules[k].leaf for k in matched] == model.apply(data).tolist()
        assert [rules[k].prediction for k in matched] == model.predict(data).tolist()


def test_the_merges_named_in_the_issue():
    """x > 2 and x > 5 gives x > 5; x <= 7 and x > 2 gives 2 < x <= 7; rules sort by support."""
    b = TreeBuilder(n_features=1, n_classes=2)
    root = b.add_node([5, 5], 10, 10.0, 0.5)
    low, mid = _leaf(b, [3, 0], 3), b.add_node([2, 5], 7, 7.0, 0.41)
    b.set_split(root, 0, NODE_THRESHOLD, [low, mid], 0, threshold=2.0)
    middle, high = _leaf(b, [2, 1], 3), _leaf(b, [0, 4], 4)
    b.set_split(mid, 0, NODE_THRESHOLD, [middle, high], 0, threshold=5.0)
    rules = export_rules(b.build(), sort_by=None)
    assert [r.conditions_text() for r in rules] == [
        "x0 <= 2 or x0 is missing",
        "2 < x0 <= 5",
        "x0 > 5",
    ]

    b = TreeBuilder(n_features=1, n_classes=2)
    root = b.add_node([5, 5], 10, 10.0, 0.5)
    inner, top = b.add_node([4, 2], 6, 6.0, 0.44), _leaf(b, [1, 3], 4)
    b.set_split(root, 0, NODE_THRESHOLD, [inner, top], 1, threshold=7.0)
    bottom, between = _leaf(b, [4, 0], 4), _leaf(b, [0, 2], 2)
    b.set_split(inner, 0, NODE_THRESHOLD, [bottom, between], 1, threshold=2.0)
    rules = export_rules(b.build())
    assert [(r.conditions_text(), r.support, r.confidence) for r in rules] == [
        ("x0 <= 2", 4, 1.0),
        ("x0 > 7 or x0 is missing", 4, 0.75),
        ("2 < x0 <= 7", 2, 1.0),
    ]
    assert rules[2].terms == (Term(feature=0, feature_name="x0", nominal=False, low=2.0, high=7.0),)
    by_confidence = export_rules(b.build(), sort_by="confidence", as_frame=True)
    assert by_confidence["conditions"].tolist() == [
        "x0 <= 2",
        "2 < x0 <= 7",
        "x0 > 7 or x0 is missing",
    ]
    assert by_confidence["confidence"].tolist() == [1.0, 1.0, 0.75]
