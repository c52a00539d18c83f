"""Pruning as estimator parameters: the same trees as the pruning functions."""

import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_regression

from treelearn import CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.exceptions import DataError, ParameterError
from treelearn.pruning import (
    prune_cost_complexity,
    prune_error_based,
    prune_pessimistic,
    prune_reduced_error,
    prune_validation,
)
from treelearn.pruning._estimator import validation_split

ARRAYS = ("feature", "threshold", "children", "category_child", "value", "n_samples", "weight")


def assert_same_tree(a, b):
    assert a.node_count == b.node_count
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(
        600, 6, n_informative=4, n_redundant=0, n_classes=3, flip_y=0.2, random_state=11
    )
    return X, y


def test_the_held_out_rows_are_drawn_per_class():
    y = np.array([0] * 40 + [1] * 20 + [2] * 3 + [3])
    grow, held = validation_split(y, y.shape[0], 0.25, 0, True, "X")
    assert np.bincount(y[held], minlength=4).tolist() == [10, 5, 1, 0]  # a lone row stays
    assert sorted(np.concatenate([grow, held]).tolist()) == list(range(64))
    again = validation_split(y, y.shape[0], 0.25, 0, True, "X")[1]
    np.testing.assert_array_equal(held, again)
    assert not np.array_equal(held, validation_split(y, y.shape[0], 0.25, 1, True, "X")[1])
    grow, held = validation_split(np.zeros(10), 10, 0.05, 0, False, "X")
    assert held.shape == (1,)  # at least one row
    with pytest.raises(DataError, match="holds out no row"):
        validation_split(np.array([0, 1, 2]), 3, 0.3, 0, True, "X")


@pytest.mark.parametrize("method", ["validation", "reduced_error"])
def test_validation_methods_hold_out_rows(data, method):
    X, y = data
    model = CARTClassifier(pruning=method, validation_fraction=0.3, random_state=4).fit(X, y)
    grow, held = validation_split(y, 600, 0.3, 4, True, "CARTClassifier")
    full = CARTClassifier(random_state=4).fit(X[grow], y[grow])
    prune = prune_validation if method == "validation" else prune_reduced_error
    assert_same_tree(model.tree_, prune(full, X[held], y[held]).tree_)
    assert model.get_n_leaves() < full.get_n_leaves()


def test_training_data_methods(data):
    X, y = data
    full = CARTClassifier(min_samples_leaf=2).fit(X, y)
    model = CARTClassifier(min_samples_leaf=2, pruning="pessimistic").fit(X, y)
    assert_same_tree(model.tree_, prune_pessimistic(full).tree_)
    model = CARTClassifier(min_samples_leaf=2, pruning="error_based", cf=0.1).fit(X, y)
    assert_same_tree(model.tree_, prune_error_based(full, X, y, cf=0.1).tree_)
    assert model.get_n_leaves() < prune_error_based(full, X, y).get_n_leaves()
    model = CARTClassifier(min_samples_leaf=2, ccp_alpha=0.002).fit(X, y)
    assert_same_tree(model.tree_, prune_cost_complexity(full, 0.002).tree_)


def test_class_weights_enter_error_based_pruning(data):
    X, y = data
    model = CARTClassifier(class_weight="balanced", pruning="error_based").fit(X, y)
    full = CARTClassifier(class_weight="balanced").fit(X, y)
    assert_same_tree(model.tree_, prune_error_based(full, X, y).tree_)
    # the recounted class weights are the tree's own
    np.testing.assert_allclose(model.tree_.value[0], full.tree_.value[0])


def test_id3_takes_the_pruning_parameters(data_dir):
    frame = pd.read_csv(data_dir / "watermelon2.csv")
    X, y = frame.drop(columns=["编号", "好瓜"]), frame["好瓜"]
    full = ID3Classifier().fit(X, y)
    ebp = ID3Classifier(pruning="error_based").fit(X, y)
    assert_same_tree(ebp.tree_, prune_error_based(full, X, y).tree_)
    rep = ID3Classifier(pruning="reduced_error", validation_fraction=0.4, random_state=0)
    rep.fit(pl.from_pandas(X), pl.Series(y.to_numpy()))  # polars input is split too
    assert rep.tree_.n_samples[0] == 17 - 7  # round(0.4 x 8) + round(0.4 x 9) held out
    assert rep.get_n_leaves() <= full.get_n_leaves()


def test_regressors_take_the_validation_methods():
    X, y = make_regression(500, 4, noise=25.0, random_state=0)
    model = CARTRegressor(pruning="reduced_error", random_state=0).fit(X, y)
    grow, held = validation_split(y, 500, 0.25, 0, False, "CARTRegressor")
    full = CARTRegressor(random_state=0).fit(X[grow], y[grow])
    assert_same_tree(model.tree_, prune_reduced_error(full, X[held], y[held]).tree_)
    with pytest.raises(ParameterError, match="needs a classifier"):
        CARTRegressor(pruning="error_based").fit(X, y)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"pruning": "cost_complexity"}, "pruning must be one of"),
        ({"pruning": "pessimistic", "ccp_alpha": 0.1}, "two pruning methods"),
        ({"pruning": "validation", "validation_fraction": 0.0}, "validation_fraction"),
        ({"pruning": "reduced_error", "validation_fraction": 1.0}, "validation_fraction"),
        ({"pruning": "error_based", "cf": 0.75}, "cf must be"),
        ({"ccp_alpha": -1.0}, "ccp_alpha must be"),
    ],
)
def test_bad_parameters(data, params, match):
    X, y = data
    with pytest.raises(ParameterError, match=match):
        CARTClassifier(**params).fit(X, y)


def test_parameters_are_estimator_parameters():
    for model in (CARTClassifier(), CARTRegressor(), ID3Classifier()):
        params = model.get_params()
        assert params["pruning"] is None and params["validation_fraction"] == 0.25
        assert clone(model.set_params(pruning="reduced_error")).pruning == "reduced_error"
    assert CARTClassifier().get_params()["ccp_alpha"] == 0.0
    assert ID3Classifier().get_params()["cf"] == 0.25
