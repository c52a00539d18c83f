"""Textbook numbers from the engine's own statistics.

Play tennis (Quinlan 1986) and watermelon 2.0 (Zhou 2016, table 4.1): the Gini
index and the information gain after a multiway split by each attribute, from
per-feature histograms built by the stats kernel and scored by the criterion
kernel; the root impurity of fitted trees; and CART's binary subset split at
the root against every possible subset.
"""

import numpy as np
import pandas as pd
import pytest
from _oracles import brute_force_best_split, naive_split_gain

from treelearn import CARTClassifier
from treelearn.criteria._kernels import ENTROPY, GINI, weighted_impurity
from treelearn.data.dataset import build_dataset
from treelearn.stats._kernels import build_histogram

# attribute: (Gini index after the split, information gain), as printed (3 decimals).
PLAY_TENNIS = {
    "outlook": (0.343, 0.247),
    "temperature": (0.440, 0.029),
    "humidity": (0.367, 0.152),
    "windy": (0.429, 0.048),
}
WATERMELON = {
    "色泽": (0.427, 0.108),
    "根蒂": (0.422, 0.143),
    "敲声": (0.424, 0.141),
    "纹理": (0.277, 0.381),
    "脐部": (0.345, 0.289),
    "触感": (0.494, 0.006),
    "编号": (0.000, 0.998),
}


def _load(data_dir, name):
    frame = pd.read_csv(data_dir / name)
    target = frame.columns[-1]
    return frame.drop(columns=[target]), frame[target]


def _feature_histograms(X, y):
    """Per feature, the histogram over codes (rows: codes, missing last) of class weights."""
    dataset = build_dataset(X)
    classes, y_index = np.unique(np.asarray(y), return_inverse=True)
    y_class = y_index.astype(np.int64)
    rows = np.arange(dataset.n_samples, dtype=np.intp)
    weight = np.ones(dataset.n_samples)
    hists = {}
    for f, name in enumerate(dataset.schema.names):
        hist = np.empty((dataset.n_codes[f] + 1, 1 + classes.shape[0]))
        build_histogram(
            dataset.codes[:, f], rows, 0, rows.shape[0], y_class, np.zeros(1), weight, True, hist
        )
        hists[name] = hist
    return dataset, hists


def _after_split(hist, criterion):
    """Weighted impurity of the children of a multiway split by every code."""
    total = hist[:, 1:].sum()
    return sum(weighted_impurity(hist[code], criterion) for code in range(hist.shape[0])) / total


def _root(hist, criterion):
    return weighted_impurity(hist.sum(axis=0), criterion) / hist[:, 1:].sum()


@pytest.mark.parametrize(
    ("filename", "table"),
    [("play_tennis.csv", PLAY_TENNIS), ("watermelon2.csv", WATERMELON)],
)
def test_gini_and_information_gain_of_each_attribute(data_dir, filename, table):
    X, y = _load(data_dir, filename)
    dataset, hists = _feature_histograms(X, y)
    for name, (gini, gain) in table.items():
        hist = hists[name]
        assert hist[-1, 0] == 0  # no missing value in these tables
        assert round(_after_split(hist, GINI), 3) == gini, name
        info_gain = _root(hist, ENTROPY) - _after_split(hist, ENTROPY)
        assert round(info_gain, 3) == gain, name
    nominal = [n for n, k in zip(dataset.schema.names, dataset.is_nominal, strict=True) if k]
    assert "编号" not in nominal and len(nominal) == len(table) - ("编号" in table)


def test_play_tennis_windy_counts(data_dir):
    X, y = _load(data_dir, "play_tennis.csv")
    _, hists = _feature_histograms(X, y)
    # Classes sorted: no, yes. windy is read as bool: codes False, True, missing.
    hist = hists["windy"]
    np.testing.assert_array_equal(hist[:, 1:], [[2, 6], [3, 3], [0, 0]])
    assert weighted_impurity(hist[1], ENTROPY) / 6 == pytest.approx(1.0)
    assert weighted_impurity(hist[0], ENTROPY) / 8 == pytest.approx(0.811, abs=5e-4)
    assert _after_split(hist, ENTROPY) == pytest.approx(0.892, abs=5e-4)


@pytest.mark.parametrize(
    ("filename", "criterion", "expected"),
    [
        ("play_tennis.csv", "gini", 0.459),
        ("play_tennis.csv", "entropy", 0.940),
        ("watermelon2.csv", "entropy", 0.998),
        ("watermelon2.csv", "gini", 0.498),
    ],
)
def test_root_impurity_of_a_fitted_tree(data_dir, filename, criterion, expected):
    X, y = _load(data_dir, filename)
    tree = CARTClassifier(criterion=criterion).fit(X, y).tree_
    assert round(tree.impurity[0], 3) == expected
    assert tree.n_samples[0] == X.shape[0]
    # The fitted tree is a full CART tree: every leaf of these tables is pure.
    assert np.all(tree.impurity[tree.is_leaf] == 0.0)


def test_depth_one_tree_chooses_the_best_subset(data_dir):
    X, y = _load(data_dir, "play_tennis.csv")
    model = CARTClassifier(max_depth=1).fit(X, y)
    tree = model.tree_
    dataset = build_dataset(X)
    y_index = np.searchsorted(model.classes_, np.asarray(y))
    rows = np.arange(X.shape[0])
    best, candidates = brute_force_best_split(
        dataset.codes,
        dataset.n_codes,
        dataset.is_nominal,
        y_index,
        np.ones(14),
        rows,
        "gini",
        2,
    )
    # 7 subsets of outlook (3 levels: 3), temperature (3), humidity (1), windy (1).
    assert len(candidates) == 3 + 3 + 1 + 1
    feature = int(tree.feature[0])
    categories = tree.category_child[tree.category_ptr[0] : tree.category_ptr[1]]
    left = categories[dataset.codes[:, feature].astype(np.int64)] == 0
    gain = naive_split_gain(y_index, np.ones(14), left, "gini", 2)
    assert gain == pytest.approx(best, rel=1e-12)
    # The Gini index after the chosen split (weighted over the two children).
    gini_after = (tree.weight[1:] * tree.impurity[1:]).sum() / 14
    assert gini_after == pytest.approx(tree.impurity[0] - best / 14, rel=1e-12)
    # outlook: {overcast} (4 yes) against {sunny, rainy} (5 yes, 5 no): 10/14 * 0.5.
    assert X.columns[feature] == "outlook"
    assert round(gini_after, 3) == 0.357
    chosen = {
        c
        for c, k in zip(dataset.schema.categories[feature], categories, strict=True)
        if k == categories[dataset.schema.categories[feature].index("overcast")]
    }
    assert chosen == {"overcast"}
