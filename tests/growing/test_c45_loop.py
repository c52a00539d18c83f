"""C4.5's numba growing loop grows, bit for bit, the Python loop's tree and split records.

Every configuration :meth:`Grower._c45_loop_applies` claims is grown by
:func:`treelearn.growing._c45_kernels.grow_c45` and by the Python loop
(``settings_module.C45_LOOP = False``, the reference): every array of the two Trees, and
every number of every split record, must be equal.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification

from treelearn import C45Classifier
from treelearn.data.dataset import build_dataset
from treelearn.growing import _c45_kernels as c45_kernels
from treelearn.growing import settings as settings_module

TREE_ARRAYS = (
    "feature", "kind", "threshold", "child_ptr", "children", "category_ptr", "category_child",
    "missing_child", "value", "n_samples", "weight", "impurity",
)  # fmt: skip


#: Every table here grows on the numba loop, however small (see tests/conftest.py).
pytestmark = pytest.mark.usefixtures("numba_loop_at_any_size")


def fit_both(X, y, sample_weight=None, **params):
    """C45Classifier (as grown) with the numba loop, which must run, and with the Python loop."""
    params = {"pruning": None, "collapse": False} | params
    calls = []
    kernel = c45_kernels.grow_c45

    def counted(*args):
        calls.append(1)
        return kernel(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(c45_kernels, "grow_c45", counted)
        fast = C45Classifier(**params).fit(X, y, sample_weight=sample_weight)
    assert calls == [1]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(settings_module, "C45_LOOP", False)
        slow = C45Classifier(**params).fit(X, y, sample_weight=sample_weight)
    assert_same(fast, slow)
    return fast


def assert_same(fast, slow):
    for name in TREE_ARRAYS:
        a, b = getattr(fast.tree_, name), getattr(slow.tree_, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        np.testing.assert_array_equal(a, b, err_msg=name, strict=True)
    fast_records = getattr(fast, "split_records_", {})
    slow_records = getattr(slow, "split_records_", {})
    assert list(fast_records) == list(slow_records)
    for node, mine in fast_records.items():
        theirs = slow_records[node]
        np.testing.assert_array_equal(mine.table, theirs.table, err_msg=f"node {node}")
        assert (mine.feature, mine.rule, mine.pruned) == (
            theirs.feature,
            theirs.rule,
            theirs.pruned,
        )
        assert mine.average_gain == theirs.average_gain
        np.testing.assert_array_equal(mine.in_average, theirs.in_average)
        np.testing.assert_array_equal(mine.above_average, theirs.above_average)


def mixed_frame(n, seed, missing=0.1):
    """Continuous columns (many distinct values: kept in code order by the loop), rounded
    ones (ties), nominal ones; NaN in every column."""
    rng = np.random.default_rng(seed)
    X, y = make_classification(n, 6, n_informative=4, n_classes=3, random_state=seed)
    frame = pd.DataFrame(X[:, :3], columns=["a", "b", "c"])
    frame["d"] = np.round(X[:, 3], 1)
    frame["e"] = pd.Categorical(np.array(list("pqrstu"))[(np.abs(X[:, 4]) * 3).astype(int) % 6])
    frame["f"] = pd.Categorical(np.where(X[:, 5] > 0, "yes", "no"))
    for column in frame.columns:
        frame.loc[rng.random(n) < missing, column] = np.nan
    return frame, y


@pytest.mark.parametrize("n", [40, 600])
def test_mixed_data_with_missing_values(n):
    X, y = mixed_frame(n, seed=n)
    fit_both(X, y)


def test_fractional_sample_weights_and_options():
    X, y = mixed_frame(500, seed=3, missing=0.2)
    w = np.random.default_rng(3).random(500) * 2
    fit_both(X, y, sample_weight=w)
    fit_both(X, y, sample_weight=w, threshold="midpoint", threshold_correction=False)
    fit_both(X, y, min_samples_leaf=7, max_depth=3)


def test_many_classes_and_many_features():
    # 26 classes and 150 features: numpy's pairwise sums (node weight, average gain)
    # go past their 8-term and 128-term blocks.
    X, y = make_classification(800, 150, n_informative=12, n_classes=26,
                               n_clusters_per_class=1, random_state=0)  # fmt: skip
    fit_both(pd.DataFrame(np.round(X, 2)), y)


def test_nominal_only_data_and_a_leaf_root():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.choice(list("ACGT"), size=(300, 20))).astype("category")
    y = np.where((X[3] == "G") & (X[4] == "T"), "EI", "N")
    fit_both(X, y)
    fit_both(X, np.zeros(300, dtype=int))  # one class: a single leaf, no record


def test_the_pruned_estimators_are_unchanged():
    X, y = mixed_frame(400, seed=5)
    for params in ({"pruning": None}, {}):
        fit_both(X, y, **params)


@settings(max_examples=15, deadline=None)
@given(
    n=st.integers(2, 120),
    seed=st.integers(0, 10_000),
    missing=st.sampled_from([0.0, 0.3]),
    weighted=st.booleans(),
)
def test_random_data(n, seed, missing, weighted):
    X, y = mixed_frame(max(n, 10), seed, missing)
    y = y % 2 if seed % 2 else y
    w = np.random.default_rng(seed).random(len(y)) + 0.1 if weighted else None
    fit_both(X, y, sample_weight=w)


def test_thresholds_are_the_datasets():
    values = np.array([0.0, 0.1, 0.3, 1e-7, 2.0, 2.0000001, 7.5])
    X = pd.DataFrame({"x": np.sort(np.concatenate([values, values + 1e-6]))})
    dataset = build_dataset(X)
    distinct = dataset.numeric_values[0]
    for left in range(distinct.shape[0] - 1):
        for right in range(left + 1, distinct.shape[0]):
            assert c45_kernels.threshold_between(distinct, left, right, False) == (
                dataset.threshold(0, left, right)
            )
            assert c45_kernels.threshold_between(distinct, left, right, True) == (
                dataset.data_threshold(0, left, right)
            )
