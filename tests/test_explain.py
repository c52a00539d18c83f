"""explain() and explain_prediction(): the textbook table of a split and the path of a row."""

import numpy as np
import pandas as pd
import pytest

from treelearn import (
    C45Classifier,
    CARTClassifier,
    CARTRegressor,
    ID3Classifier,
    explain,
    explain_prediction,
)
from treelearn.criteria import conditional_gini, information_gain
from treelearn.exceptions import ParameterError

#: shared/data/README.md, watermelon 2.0: information gain, IV, gain ratio, Gini index.
WATERMELON = {
    "色泽": (0.108, 1.580, 0.068, 0.427),
    "根蒂": (0.143, 1.402, 0.102, 0.422),
    "敲声": (0.141, 1.333, 0.106, 0.424),
    "纹理": (0.381, 1.447, 0.263, 0.277),
    "脐部": (0.289, 1.549, 0.187, 0.345),
    "触感": (0.006, 0.874, 0.007, 0.494),
}


@pytest.fixture
def watermelon(data_dir):
    frame = pd.read_csv(data_dir / "watermelon2.csv")
    return frame.drop(columns=["编号", "好瓜"]), frame["好瓜"]


@pytest.fixture
def tennis(data_dir):
    frame = pd.read_csv(data_dir / "play_tennis.csv")
    return frame.drop(columns=["play"]), frame["play"]


def numbers(table):
    columns = ["information_gain", "split_information", "gain_ratio", "gini_index"]
    return {name: tuple(row) for name, row in table[columns].round(3).iterrows()}


def test_id3_root_table_is_the_books(watermelon):
    X, y = watermelon
    model = ID3Classifier().fit(X, y)
    table = model.explain(0)
    assert numbers(table) == WATERMELON
    assert table.attrs["chosen"] == "纹理"
    assert table.attrs["rule"] == "largest information gain"
    assert table["chosen"].sum() == 1 and table.loc["纹理", "chosen"]
    assert table["above_average"].isna().all()
    assert table.attrs["class_counts"] == {"否": 9.0, "是": 8.0}
    assert round(table.attrs["entropy"], 3) == 0.998
    assert table.attrs["n_samples"] == 17
    pd.testing.assert_frame_equal(table, explain(model, 0))


def test_id3_deeper_node_marks_nothing_tested_above_but_scores_only_its_rows(watermelon):
    X, y = watermelon
    model = ID3Classifier().fit(X, y)
    # 纹理 = 清晰 (9 rows: 7 是, 2 否): the book's second level picks 根蒂 (gain 0.458).
    kids = model.tree_.children_of(0)
    categories = list(model.feature_schema_.categories[X.columns.get_loc("纹理")])
    node = int(kids[categories.index("清晰")])
    table = explain(model, node)
    assert table.attrs["n_samples"] == 9
    assert round(table.loc["根蒂", "information_gain"], 3) == 0.458
    # 纹理 is constant below its own split: no gain, and a status that says why.
    assert table.loc["纹理", "status"] == "a single value here"
    assert table.loc["纹理", "information_gain"] == 0.0
    assert not table.loc["纹理", "chosen"]


def test_cart_needs_its_training_data_and_then_matches_the_book(watermelon):
    X, y = watermelon
    model = CARTClassifier().fit(X, y)
    with pytest.raises(ParameterError, match=r"keeps no split records; pass its training data"):
        explain(model, 0)
    table = explain(model, 0, X, y)
    assert numbers(table) == WATERMELON
    assert table.attrs["chosen"] == X.columns[model.tree_.feature[0]]
    assert table.attrs["rule"] == "largest Gini decrease"


def test_cart_table_of_an_inner_node_uses_the_rows_that_reach_it(watermelon):
    X, y = watermelon
    model = CARTClassifier(max_depth=2).fit(X, y)
    left = int(model.tree_.children_of(0)[0])
    table = explain(model, left, X, y)
    # The rows whose path passes through the node, scored independently.
    rows, nodes = model.tree_.decision_path(model._prediction_matrix(X))
    here = np.sort(rows[nodes == left])
    assert here.size == model.tree_.n_samples[left]
    for attribute in X.columns:
        expected = information_gain(X[attribute].iloc[here], y.iloc[here])
        assert table.loc[attribute, "information_gain"] == pytest.approx(expected, abs=1e-12)
        expected = conditional_gini(X[attribute].iloc[here], y.iloc[here])
        assert table.loc[attribute, "gini_index"] == pytest.approx(expected, abs=1e-12)
    assert table.attrs["gini"] == pytest.approx(model.tree_.impurity[left])


def test_bad_calls(watermelon):
    X, y = watermelon
    model = ID3Classifier().fit(X, y)
    with pytest.raises(ParameterError, match=r"node 99 is not in the tree; it has nodes 0 to"):
        explain(model, 99)
    with pytest.raises(ParameterError, match="node must be an integer"):
        explain(model, "root")
    regressor = CARTRegressor().fit(np.arange(10.0)[:, None], np.arange(10.0))
    with pytest.raises(ParameterError, match="defined for classification trees"):
        explain(regressor, 0)
    cart = CARTClassifier().fit(X, y)
    with pytest.raises(ParameterError, match=r"holds the label 'maybe'"):
        explain(cart, 0, X, y.replace("是", "maybe"))
    with pytest.raises(ParameterError, match="explains one row; X has 17 rows"):
        explain_prediction(model, X)


def test_a_leaf_that_was_never_searched_says_why(tennis):
    X, y = tennis
    model = ID3Classifier().fit(X, y)
    overcast = next(n for n in range(model.tree_.node_count) if model.tree_.impurity[n] == 0)
    table = explain(model, overcast)
    assert table.empty
    assert table.attrs["rule"].startswith("not searched: the node is pure")
    assert table.attrs["chosen"] is None


def test_prediction_path_of_a_row(tennis):
    X, y = tennis
    model = ID3Classifier().fit(X, y)
    row = pd.DataFrame({"outlook": ["sunny"], "temperature": ["cool"], "humidity": ["high"],
                        "windy": [False]})  # fmt: skip
    row = row.astype(X.dtypes.to_dict())
    path = explain_prediction(model, row)
    assert path["test"].tolist() == ["", "outlook = sunny", "humidity = high"]
    assert path["share"].tolist() == [1.0, 1.0, 1.0]
    assert path["depth"].tolist() == [0, 1, 2]
    assert path["is_leaf"].tolist() == [False, False, True]
    assert path["no"].iloc[-1] == 1.0
    assert path.attrs["prediction"] == "no"
    np.testing.assert_allclose(path[["no", "yes"]].iloc[0], [5 / 14, 9 / 14])


def test_prediction_path_splits_a_missing_value_by_weight(data_dir):
    frame = pd.read_csv(data_dir / "golf_missing.csv", dtype={"windy": str})
    X, y = frame.drop(columns=["play"]), frame["play"]
    model = C45Classifier().fit(X, y)
    row = pd.DataFrame({"outlook": ["sunny"], "temperature": [70.0], "humidity": [np.nan],
                        "windy": ["false"]})  # fmt: skip
    path = explain_prediction(model, row)
    leaves = path[path["is_leaf"]]
    assert len(leaves) == 2
    assert leaves["share"].sum() == pytest.approx(1.0)
    assert leaves["test"].str.endswith("(value missing, by weight)").all()
    # The leaves' distributions weighted by their shares are predict_proba.
    combined = (leaves[["Don't Play", "Play"]].to_numpy() * leaves[["share"]].to_numpy()).sum(0)
    np.testing.assert_allclose(combined, model.predict_proba(row)[0])
    assert path.attrs["prediction"] == model.predict(row)[0]
