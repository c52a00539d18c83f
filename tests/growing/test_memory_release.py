"""A fit gives back every array its numba kernels allocated.

numba counts the arrays its runtime allocates and frees (``rtsys.get_allocation_stats``,
counting switched on for these tests). A kernel compiled without reference counting
(``_nrt=False``) that receives an array view from one compiled with it never releases
that view, and so never the array under it: every such call kept a scratch histogram or
the histogram pool alive, megabytes per fit. Here each configuration is fitted and
predicted once more after a first fit (compilation, cache load), the model deleted,
and the numbers of arrays allocated and freed must match.
"""

import gc
import platform

import numba
import numpy as np
import pandas as pd
import pytest
from numba.core.runtime import _nrt_python, rtsys
from sklearn.datasets import make_classification, make_regression

from treelearn import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.growing import threaded as threaded_module


@pytest.fixture(autouse=True)
def allocation_counting():
    was_on = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    yield
    if not was_on:
        _nrt_python.memsys_disable_stats()


def _arrays_kept(fit_and_predict):
    """Arrays numba allocated and did not free during ``fit_and_predict()``, whose
    results are dropped before counting."""
    fit_and_predict()  # compiles or loads the kernels (their arrays may live on)
    gc.collect()
    before = rtsys.get_allocation_stats()
    fit_and_predict()
    gc.collect()
    after = rtsys.get_allocation_stats()
    return (after.mi_alloc - before.mi_alloc) - (after.mi_free - before.mi_free)


def _numeric(task, n=3000, seed=0):
    if task == "regression":
        return make_regression(n, 8, noise=1.0, random_state=seed)
    return make_classification(n, 8, n_informative=5, n_classes=3, random_state=seed)


def _mixed(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    X, y = make_classification(n, 5, n_informative=3, n_classes=3, random_state=seed)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(5)])
    frame["colour"] = rng.choice(["red", "green", "blue", "grey"], n)
    frame.loc[rng.random(n) < 0.1, "x1"] = np.nan
    return frame, y


CONFIGURATIONS = {
    "classification, 255 bins (kept histograms)": (lambda: CARTClassifier(), "classification"),
    "classification, exact (presorted rows)": (
        lambda: CARTClassifier(max_bins=None),
        "classification",
    ),
    "regression, 255 bins": (lambda: CARTRegressor(), "regression"),
    "regression, exact, depth 6": (
        lambda: CARTRegressor(max_bins=None, max_depth=6),
        "regression",
    ),
    "absolute error": (
        lambda: CARTRegressor(criterion="absolute_error", max_depth=5),
        "regression",
    ),
    "features drawn": (
        lambda: CARTClassifier(max_features=3, random_state=0),
        "classification",
    ),
    "nominal and missing, learned direction": (lambda: CARTClassifier(), "mixed"),
    "nominal and missing, surrogates": (
        lambda: CARTClassifier(missing="surrogate", max_depth=5),
        "mixed",
    ),
    "C4.5, fractional missing values": (lambda: C45Classifier(), "mixed"),
    "ID3, quantile bins": (
        lambda: ID3Classifier(discretize="quantile", max_depth=4),
        "classification",
    ),
}


@pytest.mark.parametrize("name", list(CONFIGURATIONS))
def test_a_fit_frees_what_its_kernels_allocated(name):
    make, data = CONFIGURATIONS[name]
    X, y = _mixed() if data == "mixed" else _numeric(data)

    def fit_and_predict():
        make().fit(X, y).predict(X)

    assert _arrays_kept(fit_and_predict) == 0


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
@pytest.mark.parametrize("max_bins", [255, None])
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_a_fit_on_two_threads_frees_what_its_kernels_allocated(task, max_bins, monkeypatch):
    """Large nodes searched on threads, subtrees grown on threads and stitched."""
    monkeypatch.setattr(threaded_module, "PARALLEL_MIN_ROWS", 256)
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", 0)
    monkeypatch.setattr(threaded_module, "SUBTREE_MIN_ROWS", 1)
    X, y = _numeric(task)
    estimator = CARTRegressor if task == "regression" else CARTClassifier

    def fit_and_predict():
        estimator(max_bins=max_bins, n_jobs=2).fit(X, y).predict(X)

    assert _arrays_kept(fit_and_predict) == 0


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_the_threaded_stitching_finds_glibcs_malloc_trim():
    """Where the C library is glibc, the memory the subtrees' tables freed on the
    pool's threads is handed back (``malloc_trim``) before the stitched tables fill."""
    assert threaded_module._malloc_trim() is not None
    assert threaded_module._return_freed_memory() is None
