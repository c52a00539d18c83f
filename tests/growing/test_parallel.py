"""Searching a node's features on several threads changes nothing in the tree."""

import numba
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification, make_regression

from treelearn import CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.exceptions import ParameterError
from treelearn.growing import _loop_kernels as loop_kernels
from treelearn.growing import numba_growth
from treelearn.growing import settings as settings_module
from treelearn.growing import threaded as threaded_module
from treelearn.splitting import _kernels as split_kernels


def _same_tree(a, b):
    for name in ("feature", "kind", "children", "category_child", "missing_child", "n_samples"):
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(a.tree_.value, b.tree_.value)


def _mixed_frame(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X, y = make_classification(n, 6, n_informative=4, n_classes=3, random_state=seed)
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(6)])
    frame["colour"] = rng.choice(["red", "green", "blue", "grey"], n)
    frame["size"] = np.where(X[:, 0] > 0, "big", "small")
    frame.loc[rng.random(n) < 0.1, "x1"] = np.nan
    return frame, y


@pytest.fixture(autouse=True)
def small_parallel_nodes(monkeypatch):
    """Send every node with 64 rows or more down the parallel search, and put the
    exact thresholds of trees of 64 rows or more in on threads, whatever the tree's
    expected work."""
    monkeypatch.setattr(threaded_module, "PARALLEL_MIN_ROWS", 64)
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", 0)
    monkeypatch.setattr(settings_module, "THRESHOLD_THREADS_MIN_ROWS", 64)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_exact_thresholds_go_on_threads_from_their_row_count_on(monkeypatch):
    """A tree of fewer than THRESHOLD_THREADS_MIN_ROWS rows puts its exact thresholds in
    on one thread (handing features to the pool costs more there), a larger one on
    the fit's threads; the same thresholds either way."""
    X, y = _mixed_frame()
    thread_counts = []
    real = numba_growth.map_on_threads

    def counted(function, items, n_threads):
        if function.__name__ == "thresholds_of":  # (Grower._put_thresholds')
            thread_counts.append(n_threads)
        return real(function, items, n_threads)

    monkeypatch.setattr(numba_growth, "map_on_threads", counted)
    trees = []
    for least in (len(X), len(X) + 1):
        monkeypatch.setattr(settings_module, "THRESHOLD_THREADS_MIN_ROWS", least)
        trees.append(CARTClassifier(max_bins=None, n_jobs=2).fit(X, y))
    assert thread_counts == [2, 1]
    _same_tree(*trees)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
@pytest.mark.parametrize(
    "make",
    [
        lambda: CARTClassifier(),
        lambda: CARTClassifier(criterion="entropy", max_bins=32),
        lambda: CARTClassifier(missing="surrogate", max_depth=6),
        lambda: CARTRegressor(min_samples_leaf=3),
        # Exact codes: thresholds read back from the columns, a feature on each thread.
        lambda: CARTClassifier(max_bins=None),
        lambda: CARTRegressor(max_bins=None),
    ],
)
def test_threads_do_not_change_the_tree(make, monkeypatch):
    X, y = _mixed_frame()
    if isinstance(make(), CARTRegressor):
        y = make_regression(len(X), 6, random_state=0)[1]
    one = make().set_params(n_jobs=1).fit(X, y)
    # The numba loop grows with two threads too (the same tree, checked below).
    fast = make().set_params(n_jobs=2).fit(X, y)
    _same_tree(one, fast)
    # The Python loop's calls to the parallel search are counted here.
    monkeypatch.setattr(settings_module, "FAST_LOOP", False)
    calls = []
    parallel = split_kernels.find_best_split_parallel

    def counted(*args):
        calls.append(args[3] - args[2])
        return parallel(*args)

    monkeypatch.setattr(split_kernels, "find_best_split_parallel", counted)
    two = make().set_params(n_jobs=2).fit(X, y)
    assert calls and min(calls) >= 64  # the parallel search ran, on large nodes only
    _same_tree(one, two)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_threads_do_not_change_id3_or_max_features(data_dir, monkeypatch):
    frame = pd.read_csv(data_dir / "watermelon2.csv")
    X, y = frame.drop(columns=["编号", "好瓜"]), frame["好瓜"]
    monkeypatch.setattr(threaded_module, "PARALLEL_MIN_ROWS", 2)
    _same_tree(ID3Classifier(n_jobs=1).fit(X, y), ID3Classifier(n_jobs=2).fit(X, y))
    assert ID3Classifier(n_jobs=2).fit(X, y).get_n_leaves() == 9
    Xc, yc = make_classification(2000, 8, random_state=1)
    a = CARTClassifier(max_features=3, random_state=0, n_jobs=1).fit(Xc, yc)
    b = CARTClassifier(max_features=3, random_state=0, n_jobs=2).fit(Xc, yc)
    _same_tree(a, b)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_fits_that_draw_no_features_never_draw_from_the_shared_generator(monkeypatch):
    """Every numba-loop fit that searches all features gets the one module-level
    Generator (so the loop compiles once for drawn and undrawn fits): drawing
    from it would make trees depend on the fits before them."""
    calls = []
    top = loop_kernels.grow_top
    monkeypatch.setattr(loop_kernels, "grow_top", lambda *a: calls.append(1) or top(*a))
    state = numba_growth._UNDRAWN_RNG.bit_generator.state
    X, y = make_classification(3000, 6, random_state=0)
    one = CARTClassifier(n_jobs=1).fit(X, y)
    two = CARTClassifier(n_jobs=2).fit(X, y)
    assert calls  # (the two-thread fit grew its subtrees on threads)
    assert numba_growth._UNDRAWN_RNG.bit_generator.state == state
    _same_tree(one, two)
    _same_tree(one, CARTClassifier(n_jobs=1).fit(X, y))


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_subtrees_run_the_loop_compiled_for_the_top(monkeypatch):
    """The subtrees' ``parallel_min_rows`` has the type the top's has (None, as a serial
    fit passes, would compile the whole loop a second time into a threaded fit) and
    more rows than any subtree, so that none of their nodes uses threads."""
    top_args, subtree_args = [], []
    top, subtrees = loop_kernels.grow_top, loop_kernels.grow_subtrees
    monkeypatch.setattr(loop_kernels, "grow_top", lambda *a: top_args.append(a) or top(*a))
    monkeypatch.setattr(
        loop_kernels, "grow_subtrees", lambda *a: subtree_args.append(a) or subtrees(*a)
    )
    X, y = make_classification(3000, 6, random_state=0)
    two = CARTClassifier(n_jobs=2).fit(X, y)
    assert len(top_args) == 1 and subtree_args
    top_threads = top_args[0][5]
    assert top_threads == 64  # (small_parallel_nodes)
    frontier = subtree_args[0][12]  # (the deferred nodes, as grow_top left them)
    front_int, n_front = frontier[0][: frontier[5]], frontier[5]
    assert n_front
    rows = front_int[:, loop_kernels.S_END] - front_int[:, loop_kernels.S_START]
    for args in subtree_args:
        assert numba.typeof(args[5]) == numba.typeof(top_threads)
        assert args[5] > rows.max()
    _same_tree(CARTClassifier(n_jobs=1).fit(X, y), two)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
def test_a_serial_fit_defers_nothing_by_type_and_drawn_features_run_the_tops_loop(monkeypatch):
    """The loop's ``defer_rows`` (its last argument): None from a serial fit, so that numba
    leaves the deferral out of that compilation; 0 from a fit that draws features on
    threads (``grow_depth_first`` with threaded nodes), the type ``grow_top`` passes, so
    that fit runs the loop compiled for the top, not a third compilation of it. The
    subtrees of a threaded fit (``grow_subtrees``, a Python function) call the loop with
    every argument of the type ``grow_top`` passes, so one compilation serves them all."""
    calls = []
    grow = loop_kernels._grow
    monkeypatch.setattr(loop_kernels, "_grow", lambda *a: calls.append(a) or grow(*a))
    X, y = make_classification(3000, 6, random_state=0)
    serial = CARTClassifier(n_jobs=1).fit(X, y)
    assert [(a[5], a[-1]) for a in calls] == [(None, None)]  # (parallel_min_rows, defer_rows)
    calls.clear()
    CARTClassifier(n_jobs=2, max_features=3, random_state=0).fit(X, y)
    (drawn,) = calls
    calls.clear()
    threaded = CARTClassifier(n_jobs=2).fit(X, y)
    top, *subtrees = calls  # (grow_top's, then one a deferred node's subtree)
    assert drawn[5] == top[5] == 64 and drawn[-1] == 0 and top[-1] > 0
    assert subtrees
    # Every argument of the same type in all these calls: one compilation of the loop.
    top_types = [numba.typeof(arg) for arg in top]
    for call in [drawn, *subtrees]:
        assert [numba.typeof(arg) for arg in call] == top_types
    _same_tree(serial, threaded)


def test_fit_restores_numba_thread_count():
    X, y = make_classification(300, 4, random_state=0)
    before = numba.get_num_threads()
    CARTClassifier(n_jobs=1).fit(X, y)
    assert numba.get_num_threads() == before


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_reading_x_runs_on_n_jobs_threads(n_jobs, monkeypatch):
    """The scan of a large matrix for NaN and infinities, the first thing a fit does
    with X, runs on ``n_jobs`` threads like the rest of the fit (it ran on all cores
    once, before the fit set numba's thread count)."""
    from treelearn.data import _kernels as data_kernels

    seen = []
    scan = data_kernels.scan_nan_inf_parallel

    def counted(*args):
        seen.append(numba.get_num_threads())
        return scan(*args)

    monkeypatch.setattr(data_kernels, "scan_nan_inf_parallel", counted)
    rng = np.random.default_rng(0)
    X = rng.random((data_kernels.PARALLEL_MIN_ROWS, 2), dtype=np.float32)
    y = (X[:, 0] > 0.5).astype(int)
    CARTClassifier(n_jobs=n_jobs, max_depth=1).fit(X, y)
    assert seen == [min(n_jobs, numba.config.NUMBA_NUM_THREADS)]


@pytest.mark.parametrize("n_jobs", [0, 1.5, "all"])
def test_bad_n_jobs(n_jobs):
    X, y = make_classification(100, 4, random_state=0)
    with pytest.raises(ParameterError, match="n_jobs must be None"):
        CARTClassifier(n_jobs=n_jobs).fit(X, y)
