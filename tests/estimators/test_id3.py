"""ID3Classifier: the textbook trees, its stop rules and its refusals."""

import numpy as np
import pandas as pd
import pytest

from treelearn import ID3Classifier
from treelearn._dtypes import NODE_LEAF, NODE_MULTIWAY
from treelearn.exceptions import DataError, ParameterError
from treelearn.export import export_text


@pytest.fixture
def watermelon(data_dir):
    frame = pd.read_csv(data_dir / "watermelon2.csv")
    return frame.drop(columns=["编号", "好瓜"]), frame["好瓜"], frame["编号"]


@pytest.fixture
def tennis(data_dir):
    frame = pd.read_csv(data_dir / "play_tennis.csv")
    return frame.drop(columns=["play"]), frame["play"]


def branches(model, node=0):
    """{category: child node} of a multiway node."""
    tree = model.tree_
    feature = tree.feature[node]
    categories = model.feature_schema_.categories[feature]
    children = tree.children_of(node)
    cats = tree.category_child[tree.category_ptr[node] : tree.category_ptr[node + 1]]
    return {categories[code]: int(children[child]) for code, child in enumerate(cats)}


def feature_name(model, node):
    return model.feature_schema_.names[model.tree_.feature[node]]


def leaf_class(model, node):
    assert model.tree_.kind[node] == NODE_LEAF
    return model.classes_[np.argmax(model.tree_.value[node])]


def test_watermelon_tree_is_the_books(watermelon):
    """Zhou, Machine Learning (2016), figure 4.4: the ID3 tree of watermelon 2.0."""
    X, y, _ = watermelon
    model = ID3Classifier().fit(X, y)
    assert feature_name(model, 0) == "纹理"
    root = branches(model)
    assert leaf_class(model, root["模糊"]) == "否"
    clear = root["清晰"]
    assert feature_name(model, clear) == "根蒂"
    roots = branches(model, clear)
    assert leaf_class(model, roots["蜷缩"]) == "是"
    assert leaf_class(model, roots["硬挺"]) == "否"
    colour = roots["稍蜷"]
    assert feature_name(model, colour) == "色泽"
    colours = branches(model, colour)
    assert leaf_class(model, colours["青绿"]) == "是"
    touch = colours["乌黑"]
    assert feature_name(model, touch) == "触感"
    assert leaf_class(model, branches(model, touch)["硬滑"]) == "是"
    assert leaf_class(model, branches(model, touch)["软粘"]) == "否"
    # 浅白 has no training row under 稍蜷: a leaf with the parent's majority class.
    empty = colours["浅白"]
    assert model.tree_.n_samples[empty] == 0
    assert leaf_class(model, empty) == "是"
    empty_leaf = "|   |   |   |--- class: 是  (no training rows; parent's 否: 1, 是: 2)"
    assert f"|   |   |--- 色泽 = 浅白\n{empty_leaf}" in export_text(model)
    blurry = branches(model, root["稍糊"])
    assert feature_name(model, root["稍糊"]) == "触感"
    assert leaf_class(model, blurry["硬滑"]) == "否"
    assert leaf_class(model, blurry["软粘"]) == "是"
    assert model.score(X, y) == 1.0
    assert model.get_n_leaves() == 9
    assert set(model.tree_.kind[~model.tree_.is_leaf]) == {NODE_MULTIWAY}


def test_root_information_gain_is_the_books(watermelon):
    """Entropy 0.998 at the root and gain 0.381 for 纹理 (Zhou, section 4.2.1)."""
    X, y, _ = watermelon
    model = ID3Classifier().fit(X, y)
    tree = model.tree_
    children = tree.children_of(0)
    after = (tree.weight[children] * tree.impurity[children]).sum() / tree.weight[0]
    assert tree.impurity[0] == pytest.approx(0.998, abs=5e-4)
    assert tree.impurity[0] - after == pytest.approx(0.381, abs=5e-4)


def test_play_tennis_tree_is_quinlans(tennis):
    """Quinlan (1986), figure 2: outlook at the root; sunny -> humidity,
    overcast -> yes, rain -> windy."""
    X, y = tennis
    model = ID3Classifier().fit(X, y)
    assert feature_name(model, 0) == "outlook"
    root = branches(model)
    assert leaf_class(model, root["overcast"]) == "yes"
    assert feature_name(model, root["sunny"]) == "humidity"
    assert feature_name(model, root["rainy"]) == "windy"
    humidity = branches(model, root["sunny"])
    assert leaf_class(model, humidity["high"]) == "no"
    assert leaf_class(model, humidity["normal"]) == "yes"
    assert model.get_n_leaves() == 5


def test_information_gain_prefers_the_row_id(watermelon):
    """With 编号 as an attribute, information gain picks it (the bias C4.5's gain
    ratio corrects): one leaf per row."""
    X, y, row_id = watermelon
    X = X.assign(编号=row_id.astype(str))
    model = ID3Classifier().fit(X, y)
    assert feature_name(model, 0) == "编号"
    assert model.get_n_leaves() == 17
    assert model.get_depth() == 1


def test_attribute_used_once_per_path(tennis):
    X, y = tennis
    model = ID3Classifier().fit(X, y)
    tree = model.tree_
    parents = tree.parent()
    for node in np.flatnonzero(~tree.is_leaf):
        ancestor = parents[node]
        while ancestor >= 0:
            assert tree.feature[ancestor] != tree.feature[node]
            ancestor = parents[ancestor]


def test_min_gain_and_max_depth_prepruning(watermelon):
    X, y, _ = watermelon
    assert ID3Classifier(min_gain=0.5).fit(X, y).get_n_leaves() == 1  # best gain 0.381
    stump = ID3Classifier(max_depth=1).fit(X, y)
    assert stump.get_depth() == 1
    assert stump.get_n_leaves() == 3


def test_pure_node_and_constant_attributes_make_leaves():
    X = pd.DataFrame({"a": ["x", "x", "x", "x"], "b": ["u", "u", "v", "v"]})
    y = ["p", "q", "p", "q"]
    model = ID3Classifier().fit(X, y)
    # b has zero gain but is the only attribute that is not constant: ID3 splits on it,
    # then nothing is left to split and the leaves take the majority (first class on ties).
    assert feature_name(model, 0) == "b"
    assert model.get_n_leaves() == 2
    assert list(model.predict(X)) == ["p", "p", "p", "p"]


def test_unseen_category_follows_the_largest_branch_and_missing_is_refused(tennis):
    X, y = tennis
    model = ID3Classifier().fit(X, y)
    tree = model.tree_
    heaviest = tree.children_of(0)[int(tree.missing_child[0])]
    assert tree.n_samples[heaviest] == max(tree.n_samples[c] for c in tree.children_of(0))
    unseen = X.iloc[[0]].assign(outlook="foggy")
    rainy = X.iloc[[0]].assign(outlook="rainy")  # rainy holds 5 rows, as sunny does: first wins
    assert model.feature_schema_.categories[0][int(tree.missing_child[0])] == "rainy"
    assert model.predict(unseen)[0] == model.predict(rainy)[0]
    with pytest.raises(DataError, match=r"ID3 has no rule for missing values \(NaN\).*'outlook'"):
        model.predict(X.iloc[[0]].assign(outlook=None))


def test_discretize_makes_numeric_columns_intervals(data_dir):
    """Fayyad-Irani MDL on iris: the cut points Weka's supervised Discretize gives
    (petal length 2.45, 4.75; petal width 0.8, 1.75), learned and applied again
    at prediction (numpy or DataFrame input)."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True, as_frame=True)
    model = ID3Classifier(discretize="mdl").fit(X, y)
    cuts = dict(zip(X.columns, model.discretizer_.cut_points_, strict=True))
    np.testing.assert_allclose(cuts["petal length (cm)"], [2.45, 4.75])
    np.testing.assert_allclose(cuts["petal width (cm)"], [0.8, 1.75])
    assert model.feature_schema_.categories[3] == ("<= 0.800", "(0.800, 1.750]", "> 1.750")
    assert model.input_schema_.kinds == ("numeric",) * 4
    assert feature_name(model, 0) == "petal width (cm)"
    assert model.score(X, y) > 0.95
    shuffled = X[list(reversed(X.columns))]
    np.testing.assert_array_equal(model.predict(shuffled), model.predict(X))
    quantile = ID3Classifier(discretize="quantile", n_bins=3).fit(X.to_numpy(), y)
    assert all(len(c) <= 3 for c in quantile.feature_schema_.categories)
    # Nominal columns stay as they are beside discretized ones.
    mixed = X.assign(size=np.where(X["sepal length (cm)"] > 6, "big", "small"))
    model = ID3Classifier(discretize="mdl").fit(mixed, y)
    assert model.feature_schema_.kinds == ("nominal",) * 5


def test_numeric_columns_are_refused_by_name(data_dir):
    frame = pd.read_csv(data_dir / "watermelon3.csv")
    X, y = frame.drop(columns=["编号", "好瓜"]), frame["好瓜"]
    with pytest.raises(DataError, match=r"ID3 cannot split numeric columns \('密度', '含糖率'\)"):
        ID3Classifier().fit(X, y)
    with pytest.raises(DataError, match="pass discretize='mdl' or 'quantile'"):
        ID3Classifier().fit(X, y)
    # Declared nominal, the same columns are accepted.
    ID3Classifier(categorical_features=["密度", "含糖率"]).fit(X, y)


def test_missing_values_are_refused_by_column(tennis):
    X, y = tennis
    X = X.astype(object)
    X.loc[[1, 4], "humidity"] = None
    with pytest.raises(DataError, match=r"'humidity' \(2 rows\)"):
        ID3Classifier().fit(X, y)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"criterion": "gain_ratio"}, "criterion must be 'entropy'"),
        ({"max_depth": 0}, "max_depth must be an integer >= 1"),
        ({"min_gain": -1}, "min_gain must be a number"),
        ({"discretize": "kmeans"}, "discretize must be None, 'mdl' or 'quantile'"),
        ({"discretize": "quantile", "n_bins": 1}, "n_bins must be an integer >= 2"),
    ],
)
def test_bad_parameters(tennis, params, message):
    X, y = tennis
    with pytest.raises(ParameterError, match=message):
        ID3Classifier(**params).fit(X, y)


@pytest.mark.parametrize("data", ["watermelon", "tennis", "random"])
@pytest.mark.usefixtures("numba_loop_at_any_size")  # (the tables of 14-17 rows)
def test_numba_loop_records_the_python_loops_tables(data, watermelon, tennis, monkeypatch):
    """ID3 grows on the numba loop and makes its split records from the Tree
    afterwards: the same nodes, tables and features as the Python loop records."""
    from treelearn.growing import _loop_kernels as loop_kernels
    from treelearn.growing import settings as settings_module

    if data == "random":  # many empty branches, min_gain and max_depth stops, Gini
        rng = np.random.default_rng(0)
        X = pd.DataFrame({f"a{j}": rng.choice(list("pqrstuv"[: 2 + j]), 400) for j in range(6)})
        y = np.where(X["a5"].isin(["p", "q"]) ^ (X["a3"] == "r"), "yes", "no")
        y[rng.random(400) < 0.1] = "maybe"
        params = {"min_gain": 0.01, "max_depth": 5, "criterion": "gini"}
    else:
        X, y = (watermelon[0], watermelon[1]) if data == "watermelon" else tennis
        params = {}
    calls = []
    kernel = loop_kernels.grow_depth_first
    monkeypatch.setattr(
        loop_kernels, "grow_depth_first", lambda *args: calls.append(1) or kernel(*args)
    )
    fast = ID3Classifier(n_jobs=1, **params).fit(X, y)
    assert calls == [1]
    monkeypatch.setattr(settings_module, "FAST_LOOP", False)
    slow = ID3Classifier(n_jobs=1, **params).fit(X, y)
    assert calls == [1]
    assert export_text(fast) == export_text(slow)
    assert list(fast.split_records_) == list(slow.split_records_)
    for node, record in fast.split_records_.items():
        theirs = slow.split_records_[node]
        np.testing.assert_array_equal(record.table, theirs.table, strict=True)
        assert (record.feature, record.rule) == (theirs.feature, theirs.rule)
    assert len(fast.split_records_) >= (~fast.tree_.is_leaf).sum()
