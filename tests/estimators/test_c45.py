"""C45Classifier: Quinlan's worked examples, the textbook numbers, its rules and refusals."""

import warnings

import numpy as np
import pandas as pd
import pytest

from treelearn import C45Classifier, ID3Classifier, explain
from treelearn._dtypes import MISSING_BY_WEIGHT, NODE_LEAF, NODE_MULTIWAY, NODE_THRESHOLD
from treelearn.exceptions import ParameterError
from treelearn.pruning import prune_collapse, prune_error_based


@pytest.fixture
def golf(data_dir):
    """Quinlan (1993), table 1-1, with the outlook of case 6 unknown (section 3.1)."""
    frame = pd.read_csv(data_dir / "golf_missing.csv", dtype={"windy": str})
    return frame.drop(columns=["play"]), frame["play"]


@pytest.fixture
def watermelon(data_dir):
    frame = pd.read_csv(data_dir / "watermelon2.csv")
    return frame.drop(columns=["好瓜"]), frame["好瓜"]


def grown(**params):
    """C4.5's tree as grown: no collapse, no pruning (the estimator's defaults do both)."""
    return C45Classifier(pruning=None, collapse=False, **params)


def child(model, node, label):
    """The child of a multiway node for category ``label``, or of a threshold node
    for ``"<="`` / ``">"``."""
    tree = model.tree_
    kids = tree.children_of(node)
    if tree.kind[node] == NODE_THRESHOLD:
        return int(kids[0 if label == "<=" else 1])
    categories = list(model.feature_schema_.categories[tree.feature[node]])
    return int(kids[tree.category_child[tree.category_ptr[node] + categories.index(label)]])


def distribution(model, node):
    return dict(zip(model.classes_, model.tree_.value[node].round(3), strict=True))


def test_golf_with_an_unknown_outlook_is_quinlans_example(golf):
    """C4.5 book, section 3.1: gain 0.199, split information 1.809, and the tree of
    fractional cases: overcast Play (3.2), sunny humidity <= 75 Play (2.0) /
    > 75 Don't Play (3.4/0.4), rain windy = true Don't Play (2.4/0.4), false Play (3.0)."""
    X, y = golf
    model = grown().fit(X, y)
    table = explain(model, 0)
    assert table.attrs["chosen"] == "outlook"
    assert table.loc["outlook", "information_gain"] == pytest.approx(0.199, abs=5e-4)
    assert table.loc["outlook", "split_information"] == pytest.approx(1.809, abs=5e-4)
    assert table.loc["outlook", "gain_ratio"] == pytest.approx(0.110, abs=5e-4)
    overcast, sunny, rain = (child(model, 0, v) for v in ("overcast", "sunny", "rain"))
    assert distribution(model, overcast) == {"Don't Play": 0, "Play": round(3 + 3 / 13, 3)}
    assert model.tree_.feature[sunny] == list(X.columns).index("humidity")
    assert model.tree_.threshold[sunny] == 75.0
    assert distribution(model, child(model, sunny, "<=")) == {"Don't Play": 0, "Play": 2.0}
    assert distribution(model, child(model, sunny, ">")) == {
        "Don't Play": 3.0,
        "Play": round(5 / 13, 3),
    }
    assert model.tree_.feature[rain] == list(X.columns).index("windy")
    assert distribution(model, child(model, rain, "true")) == {
        "Don't Play": 2.0,
        "Play": round(5 / 13, 3),
    }
    assert distribution(model, child(model, rain, "false")) == {"Don't Play": 0, "Play": 3.0}
    assert model.get_n_leaves() == 5
    assert (model.tree_.missing_child[~model.tree_.is_leaf] == MISSING_BY_WEIGHT).all()


def test_an_unknown_value_is_classified_by_the_weighted_branches(golf):
    """Section 3.1's example: outlook sunny, temperature 70, humidity unknown, windy
    false: Play with 2.0/5.4 + 0.4/5.4 = 44%, Don't Play 3.0/5.4 = 56%."""
    X, y = golf
    model = grown().fit(X, y)
    row = pd.DataFrame(
        {"outlook": ["sunny"], "temperature": [70.0], "humidity": [np.nan], "windy": ["false"]}
    )
    proba = model.predict_proba(row)[0]
    sunny_weight = 5 + 5 / 13
    assert proba[1] == pytest.approx((2 + 5 / 13) / sunny_weight)
    assert proba[0] == pytest.approx(3 / sunny_weight)
    assert round(proba[1], 2) == 0.44
    assert model.predict(row)[0] == "Don't Play"
    # A category never seen in training is a missing value too: every outlook branch,
    # weighted 5.4 : 3.2 : 5.4 of 14, with windy = true and humidity 70 below.
    unseen = row.assign(outlook=["foggy"], humidity=[70.0], windy=["true"])
    expected = (
        sunny_weight / 14 * np.array([0.0, 1.0])
        + (3 + 3 / 13) / 14 * np.array([0.0, 1.0])
        + sunny_weight / 14 * np.array([2.0, 5 / 13]) / (2 + 5 / 13)
    )
    np.testing.assert_allclose(model.predict_proba(unseen)[0], expected)
    # Rows without a missing value get their leaf's distribution.
    np.testing.assert_allclose(model.predict_proba(X.iloc[[0]])[0], [0.0, 1.0])


def test_thresholds_at_a_training_value_or_at_the_midpoint(golf):
    X, y = golf
    sunny_humidity = grown(threshold="midpoint").fit(X, y)
    sunny = child(sunny_humidity, 0, "sunny")
    assert sunny_humidity.tree_.threshold[sunny] == 77.5  # between 70 and 85
    data = grown().fit(X, y)
    # The largest training value not above 77.5 is 75 (a rain/sunny row elsewhere).
    assert data.tree_.threshold[child(data, 0, "sunny")] == 75.0
    np.testing.assert_array_equal(data.predict(X), sunny_humidity.predict(X))


@pytest.mark.parametrize(
    ("attribute", "gain", "split_info", "ratio", "gini_index"),
    [
        ("色泽", 0.108, 1.580, 0.068, 0.427),
        ("根蒂", 0.143, 1.402, 0.102, 0.422),
        ("敲声", 0.141, 1.333, 0.106, 0.424),
        ("纹理", 0.381, 1.447, 0.263, 0.277),
        ("脐部", 0.289, 1.549, 0.187, 0.345),
        ("触感", 0.006, 0.874, 0.007, 0.494),
        ("编号", 0.998, 4.088, 0.244, 0.000),
    ],
)
def test_watermelon_numbers_are_the_books(
    watermelon, attribute, gain, split_info, ratio, gini_index
):
    X, y = watermelon
    model = grown(min_samples_leaf=1, categorical_features=["编号"]).fit(X, y)
    row = explain(model, 0).loc[attribute]
    assert round(row["information_gain"], 3) == gain
    # 编号's intrinsic value is log2(17) = 4.08746, printed 4.088 in the book.
    assert row["split_information"] == pytest.approx(split_info, abs=6e-4)
    assert round(row["gain_ratio"], 3) == ratio
    assert round(row["gini_index"], 3) == gini_index


def test_gain_ratio_and_the_average_rule_pass_over_the_row_number(watermelon):
    """With 编号 as an attribute, information gain picks it (ID3) and C4.5 picks 纹理:
    编号 has 17 values (>= 0.3 * 17), so it is left out of the average gain, and
    its gain ratio 0.244 is below 纹理's 0.263."""
    X, y = watermelon
    X = X.assign(编号=X["编号"].astype(str))
    id3 = ID3Classifier().fit(X, y)
    assert id3.feature_names_in_[id3.tree_.feature[0]] == "编号"
    c45 = grown(min_samples_leaf=1).fit(X, y)
    table = explain(c45, 0)
    assert table.attrs["chosen"] == "纹理"
    assert table.attrs["average_gain"] == pytest.approx(
        table.drop(index="编号")["information_gain"].mean()
    )
    assert table["above_average"].tolist() == [True, False, False, False, True, True, False]
    # With C4.5's default m = 2 no branch of 编号 holds two rows: it cannot split at all.
    default = explain(grown().fit(X, y), 0)
    assert default.loc["编号", "status"] == "fewer than two branches of m rows"
    assert default.attrs["chosen"] == "纹理"


def test_play_tennis_numbers_are_quinlans(data_dir):
    frame = pd.read_csv(data_dir / "play_tennis.csv")
    model = grown().fit(frame.drop(columns=["play"]), frame["play"])
    table = explain(model, 0).round(3)
    expected = {
        "outlook": (0.247, 1.577, 0.156, 0.343),
        "temperature": (0.029, 1.557, 0.019, 0.440),
        "humidity": (0.152, 1.000, 0.152, 0.367),
        "windy": (0.048, 0.985, 0.049, 0.429),
    }
    for attribute, numbers in expected.items():
        row = table.loc[attribute]
        actual = (row.information_gain, row.split_information, row.gain_ratio, row.gini_index)
        assert actual == pytest.approx(numbers, abs=1e-9), attribute
    # Average gain 0.119: outlook and humidity pass, outlook has the larger ratio.
    assert table["above_average"].tolist() == [True, False, True, False]
    assert table.attrs["chosen"] == "outlook"


def test_watermelon3_thresholds_and_gains_are_the_books(data_dir):
    frame = pd.read_csv(data_dir / "watermelon3.csv")
    X, y = frame.drop(columns=["编号", "好瓜"]), frame["好瓜"]
    textbook = grown(threshold="midpoint", threshold_correction=False).fit(X, y)
    table = explain(textbook, 0)
    assert table.loc["密度", "threshold"] == pytest.approx(0.3815)
    assert round(table.loc["密度", "information_gain"], 3) == 0.262
    assert table.loc["含糖率", "threshold"] == pytest.approx(0.126)
    assert round(table.loc["含糖率", "information_gain"], 3) == 0.349
    # Gain ratio prefers 含糖率 (0.349 / 0.874) to 纹理 (0.381 / 1.447) ...
    assert table.attrs["chosen"] == "含糖率"
    # ... until Release 8's threshold cost lowers the numeric gains: then 纹理.
    table = explain(grown().fit(X, y), 0)
    assert table.loc["含糖率", "threshold"] == 0.103  # the training value below 0.126
    tries = 14  # 17 distinct values, 16 cuts; the first and last leave one row on a side
    assert table.loc["含糖率", "corrected_gain"] == pytest.approx(
        table.loc["含糖率", "information_gain"] - np.log2(tries) / 17
    )
    assert table.attrs["chosen"] == "纹理"


def test_a_nominal_attribute_is_tested_once_and_a_numeric_one_again():
    x = np.repeat(np.arange(12.0), 4)
    colour = np.tile(["red", "blue"], 24)
    y = np.where((x >= 4) & (x < 8), "in", "out")
    y = np.where((colour == "red") & (x >= 8), "in", y)
    X = pd.DataFrame({"x": x, "colour": colour})
    model = grown(threshold_correction=False).fit(X, y)
    tree = model.tree_
    internal = np.flatnonzero(tree.kind != NODE_LEAF)
    parents = tree.parent()
    for node in internal:
        ancestor = parents[node]
        while ancestor >= 0:
            if tree.kind[ancestor] == NODE_MULTIWAY:
                assert tree.feature[ancestor] != tree.feature[node]
            ancestor = parents[ancestor]
    assert (tree.feature[internal] == 0).sum() >= 2
    np.testing.assert_array_equal(model.predict(X), y)


def test_stop_rules():
    # A node weighing less than 2 m is a leaf; a pure node is a leaf.
    X = pd.DataFrame({"a": ["p", "q", "p"]})
    assert grown().fit(X, ["x", "y", "x"]).get_n_leaves() == 1
    assert grown(min_samples_leaf=1).fit(X, ["x", "y", "x"]).get_n_leaves() == 2
    assert grown().fit(X.iloc[[0, 2]], ["x", "x"]).get_n_leaves() == 1
    # m also applies to weights: two heavy rows make a node worth splitting.
    weights = [2.0, 2.0, 2.0]
    assert grown().fit(X, ["x", "y", "x"], sample_weight=weights).get_n_leaves() == 2
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"v": rng.normal(size=200), "w": rng.normal(size=200)})
    y = (X.v + X.w > 0).astype(int)
    assert grown(max_depth=2).fit(X, y).get_depth() == 2


def test_one_class_target_is_a_single_leaf():
    X = pd.DataFrame({"a": ["p", "q", "r", "p"]})
    model = grown().fit(X, ["yes"] * 4)
    assert model.get_n_leaves() == 1
    assert model.predict(X).tolist() == ["yes"] * 4


@pytest.mark.parametrize("estimator", [C45Classifier(), ID3Classifier()])
def test_an_identifier_like_column_gets_a_warning(estimator):
    n = 10_000
    X = pd.DataFrame({"id": [f"r{i}" for i in range(n)], "a": np.tile(["p", "q"], n // 2)})
    y = np.tile(["x", "y"], n // 2)
    with pytest.warns(UserWarning, match=r"nominal column 'id' has 10000 distinct values"):
        estimator.fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        estimator.fit(X.iloc[:9_999], y[:9_999])


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"threshold": "mean"}, r"threshold must be 'data' \(C4.5 Release 8\) or 'midpoint'"),
        ({"threshold_correction": 1}, "threshold_correction must be True or False"),
        ({"min_samples_leaf": -1}, r"min_samples_leaf must be a number in \[0.0, inf\]"),
        ({"max_depth": 0}, "max_depth must be an integer >= 1"),
    ],
)
def test_bad_parameters(golf, params, message):
    X, y = golf
    with pytest.raises(ParameterError, match=message):
        C45Classifier(**params).fit(X, y)


def test_weights_below_split_nodes_add_up_and_rows_are_counted_in_each_branch(golf):
    X, y = golf
    tree = grown().fit(X, y).tree_
    # The row with the unknown outlook reaches all three outlook branches.
    assert tree.n_samples[tree.children_of(0)].sum() == 14 + 2
    assert tree.weight[tree.children_of(0)].sum() == pytest.approx(14.0)


def test_subset_splits_group_values_and_may_test_them_again(data_dir):
    frame = pd.read_csv(data_dir / "play_tennis.csv")
    X, y = frame.drop(columns=["play"]), frame["play"]
    model = grown(subset_splits=True, min_samples_leaf=1).fit(X, y)
    tree = model.tree_
    categories = list(model.feature_schema_.categories[0])  # outlook
    root_map = tree.category_child[tree.category_ptr[0] : tree.category_ptr[1]].tolist()
    assert tree.feature[0] == 0 and tree.kind[0] == NODE_MULTIWAY
    # overcast alone (4 yes), rainy and sunny together.
    assert root_map[categories.index("rainy")] == root_map[categories.index("sunny")]
    assert root_map[categories.index("overcast")] != root_map[categories.index("rainy")]
    assert (tree.feature[1:][tree.kind[1:] != NODE_LEAF] == 0).any()  # outlook again below
    np.testing.assert_array_equal(model.predict(X), y)
    plain = grown(min_samples_leaf=1).fit(X, y)
    assert explain(plain, 0).loc["outlook", "split_information"] == pytest.approx(1.577, abs=1e-3)
    # Grouped, outlook's split information is that of 4 : 10 rows.
    grouped = explain(model, 0).loc["outlook"]
    assert grouped["split_information"] == pytest.approx(0.863, abs=1e-3)
    assert grouped["information_gain"] == pytest.approx(0.940 - 10 / 14 * 1.0, abs=1e-3)


def test_defaults_collapse_then_prune_as_c45_and_j48_do(golf):
    X, y = golf
    tree = grown().fit(X, y)
    expected = prune_error_based(prune_collapse(tree), X, y)
    default = C45Classifier().fit(X, y)
    for name in ("feature", "threshold", "children", "value", "category_child"):
        np.testing.assert_array_equal(getattr(default.tree_, name), getattr(expected.tree_, name))
    # Explain still reads the root's numbers; nodes pruned away lose their records.
    assert explain(default, 0).loc["outlook", "gain_ratio"] == pytest.approx(0.110, abs=5e-4)
    assert set(default.split_records_) <= set(range(default.tree_.node_count))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"pruning": "harsh"}, "pruning must be one of"),
        ({"cf": 0.9}, "cf must be"),
        ({"collapse": "yes"}, "collapse must be True or False"),
        ({"subtree_raising": 1}, "subtree_raising must be True or False"),
    ],
)
def test_bad_pruning_parameters(golf, params, message):
    X, y = golf
    with pytest.raises(ParameterError, match=message):
        C45Classifier(**params).fit(X, y)
