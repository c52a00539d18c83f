"""The numba growing loop grows, array for array and bit for bit, the Python loop's tree.

Every configuration :meth:`Grower._fast_loop_applies` claims is grown twice, by
:func:`treelearn.growing._loop_kernels.grow_depth_first` and by the Python loop
(``settings_module.FAST_LOOP = False``, the reference), on fixed and random datasets;
every array of the two Trees must be equal, and so must the random generator's
state afterwards (the same features were drawn in the same order).
"""

import threading

import numba
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification, make_regression

from treelearn import CARTClassifier, CARTRegressor
from treelearn._dtypes import NODE_THRESHOLD
from treelearn.criteria._kernels import SQUARED_ERROR, weighted_impurity
from treelearn.data import dataset as dataset_module
from treelearn.data.dataset import build_dataset
from treelearn.estimators.base import _numba_threads as numba_threads
from treelearn.growing import CART, ID3, Grower, numba_growth
from treelearn.growing import _local_kernels as local_kernels
from treelearn.growing import _loop_kernels as loop_kernels
from treelearn.growing import _node_tables as node_tables
from treelearn.growing import _row_copy_kernels as row_copy_kernels
from treelearn.growing import _stitch_kernels as stitch_kernels
from treelearn.growing import grower as grower_module
from treelearn.growing import settings as settings_module
from treelearn.growing import threaded as threaded_module
from treelearn.growing.spec import C45
from treelearn.splitting import _kernels as split_kernels
from treelearn.splitting import _value_scan_kernels as value_scan_kernels

TREE_ARRAYS = (
    "feature", "kind", "threshold", "child_ptr", "children", "category_ptr", "category_child",
    "missing_child", "value", "n_samples", "weight", "impurity", "surrogate_ptr",
    "surrogate_feature", "surrogate_kind", "surrogate_threshold", "surrogate_reverse",
    "surrogate_category_ptr", "surrogate_category_child", "surrogate_agreement",
    "surrogate_adjusted",
)  # fmt: skip


#: Every table here grows on the numba loop, however small (see tests/conftest.py).
pytestmark = pytest.mark.usefixtures("numba_loop_at_any_size")


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def assert_same_tree(fast, slow):
    assert (fast.n_features, fast.n_classes) == (slow.n_features, slow.n_classes)
    for name in TREE_ARRAYS:
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype and a.shape == b.shape, name
        # Bit for bit: equal values (NaN where NaN) and equal signs of zero.
        np.testing.assert_array_equal(a, b, err_msg=name, strict=True)
        assert np.array_equal(np.signbit(a), np.signbit(b)), name


def grow_both(dataset, y, w, n_classes, spec, seed=0, n_threads=1):
    """Grow with the numba loop (which must apply) and with the Python loop."""
    rng_fast = np.random.default_rng(seed)
    grower = Grower(dataset, y, w, n_classes, spec, rng_fast, n_threads)
    assert grower._fast_loop_applies()
    calls = []

    def counted(name):
        kernel = getattr(loop_kernels, name)
        return lambda *args: calls.append(name) or kernel(*args)

    with pytest.MonkeyPatch.context() as patch:
        for name in ("grow_depth_first", "grow_top"):
            patch.setattr(loop_kernels, name, counted(name))
        fast = grower.grow()
    assert calls in (["grow_depth_first"], ["grow_top"])  # (grow_top: subtrees on threads)
    rng_slow = np.random.default_rng(seed)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(settings_module, "FAST_LOOP", False)
        slow_grower = Grower(dataset, y, w, n_classes, spec, rng_slow, n_threads)
        assert not slow_grower._fast_loop_applies()
        slow = slow_grower.grow()
    assert_same_tree(fast, slow)
    assert rng_fast.bit_generator.state == rng_slow.bit_generator.state
    assert_same_records(grower.split_records, slow_grower.split_records)
    return fast


def assert_same_records(fast, slow):
    """``record_splits``: the same nodes recorded, every number of every table equal."""
    assert list(fast) == list(slow)
    for node, mine in fast.items():
        theirs = slow[node]
        np.testing.assert_array_equal(mine.table, theirs.table, err_msg=f"node {node}", strict=True)
        assert (mine.feature, mine.rule) == (theirs.feature, theirs.rule), node


def make_frame(n, seed, nominal=True, missing=True, n_numeric=3, levels=5):
    """Numeric columns with ties and NaN, nominal columns (some with many levels)."""
    rng = np.random.default_rng(seed)
    columns = {
        "a": np.round(rng.normal(size=n), 1),
        "b": rng.integers(0, 6, n).astype(float),
        "c": rng.normal(size=n),
    }
    for j in range(3, n_numeric):
        columns[f"x{j}"] = rng.normal(size=n)
    if nominal:
        columns["d"] = rng.choice([f"v{k}" for k in range(levels)], n).astype(object)
        columns["e"] = rng.choice(["u", "v"], n).astype(object)
        columns["f"] = rng.choice([f"w{k}" for k in range(14)], n).astype(object)
    frame = pd.DataFrame(columns)
    if missing:
        for name in frame.columns:
            holes = rng.random(n) < 0.1
            frame.loc[holes, name] = None if frame[name].dtype == object else np.nan
    return frame


def make_target(frame, task, seed, n_classes=3):
    rng = np.random.default_rng(seed + 1)
    n = len(frame)
    signal = (frame["a"].fillna(0) > 0.2).astype(float) + 0.8 * (frame["b"].fillna(2) >= 3)
    if "d" in frame:
        signal = signal + frame["d"].isin(["v0", "v3"])
    if task == "regression":
        return (signal + rng.normal(0.0, 0.5, n)).to_numpy(), 0
    noisy = signal + rng.normal(0.0, 0.7, n)
    y = np.clip(np.floor(noisy * n_classes / 3.0), 0, n_classes - 1).astype(np.int64)
    return y.to_numpy(), n_classes


def weights_for(kind, y, n_classes, seed):
    rng = np.random.default_rng(seed + 2)
    n = y.shape[0]
    if kind == "ones":
        return np.ones(n)
    if kind == "integers":
        return rng.integers(1, 4, n).astype(float)
    if kind == "class":  # class weights, as the estimators apply them
        return np.array([0.3, 2.5, 1.1, 0.7])[y] if n_classes else np.ones(n)
    return rng.uniform(0.2, 2.0, n)


def spec_for(n_classes, **changes):
    criterion = changes.pop("criterion", "gini" if n_classes else "squared_error")
    return CART.replace(criterion=criterion, **changes)


# ---------------------------------------------------------------------------
# Fixed datasets
# ---------------------------------------------------------------------------

CONFIGS = {
    "default": {},
    "entropy": {"criterion": "entropy"},
    "multiway": {"nominal_split": "multiway"},
    "multiway entropy": {"nominal_split": "multiway", "criterion": "entropy"},
    "min_samples_leaf": {"min_samples_leaf": 4},
    "min_samples_split": {"min_samples_split": 9},
    "min_weight_leaf": {"min_weight_leaf": 3.5},
    "max_depth": {"max_depth": 4},
    "min_impurity_decrease": {"min_impurity_decrease": 0.002},
    "min_gain": {"min_gain": 0.01},
    "min_branch_weight": {"min_branch_weight": 2.0},
    "max_features": {"max_features": 2},
    "max_features multiway": {"max_features": 3, "nominal_split": "multiway"},
    "threshold_at data": {"threshold_at": "data"},
    "records (ID3)": {"criterion": "entropy", "nominal_split": "multiway", "record_splits": True},
    "records data": {"record_splits": True, "threshold_at": "data", "min_samples_leaf": 2},
}


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("task", ["binary", "multiclass", "regression"])
@pytest.mark.parametrize("weights", ["floats", "class"])
def test_fixed_datasets(config, task, weights):
    changes = dict(CONFIGS[config])
    if task == "regression" and changes.get("criterion") == "entropy":
        changes.pop("criterion")
    frame = make_frame(300, seed=len(config))
    y, n_classes = make_target(frame, task, seed=3, n_classes=2 if task == "binary" else 4)
    w = weights_for(weights, y, n_classes, seed=5)
    tree = grow_both(build_dataset(frame), y, w, n_classes, spec_for(n_classes, **changes))
    assert tree.node_count > 5


@pytest.mark.parametrize("loop_max", [None, 3])
@pytest.mark.parametrize("max_bins", [None, 255])
def test_kept_values_give_their_midpoints_in_the_loop(max_bins, loop_max, monkeypatch):
    """An exact feature whose values the dataset keeps (few of them; in histogram mode,
    a column of at most ``max_bins`` values) gets its thresholds in the loop, with the
    Python loop's arithmetic: two adjacent floats (the midpoint rounds to the right
    one: the left one is kept), values near the float64 limits, a negative zero. A
    feature whose values are not kept (many of them, exact mode), or are more than
    ``LOOP_THRESHOLD_MAX_VALUES`` (here 3, against 4), leaves its thresholds to after
    the loop: the same tree."""
    if loop_max is not None:
        monkeypatch.setattr(numba_growth, "LOOP_THRESHOLD_MAX_VALUES", loop_max)
    rng = np.random.default_rng(11)
    n = 600
    below_one = np.nextafter(1.0, 0.0)
    frame = pd.DataFrame(
        {
            "adjacent": rng.choice([0.5, below_one, 1.0, 3.0], n),
            "huge": rng.choice([-1.7e308, -0.0, 1e-300, 1.7e308], n),
            "many": rng.normal(size=n),
        }
    )
    y = (
        (frame["adjacent"] >= 1.0).astype(int)
        + (frame["huge"] > 1e-300)
        + (frame["many"] > 0.3) * (rng.random(n) < 0.7)
    ).to_numpy()
    dataset = build_dataset(frame, max_bins=max_bins)
    assert dataset.distinct_values[0] is not None and dataset.distinct_values[1] is not None
    assert dataset.distinct_values[2] is None  # (exact mode: the column; histogram mode: bins)
    put_in = []
    real = numba_growth.NumbaLoopGrowth._put_thresholds

    def recorded(self, feature, left_code, right_code, threshold):
        put_in.append(set(feature[np.isnan(threshold) & (right_code >= 0)].tolist()))
        return real(self, feature, left_code, right_code, threshold)

    monkeypatch.setattr(numba_growth.NumbaLoopGrowth, "_put_thresholds", recorded)
    tree = grow_both(dataset, y, np.ones(n), 4, spec_for(4))
    # (Between the adjacent floats: their midpoint rounds up to 1.0; the left one kept.)
    assert below_one in tree.threshold[tree.feature == 0].tolist()
    assert 8.5e307 in tree.threshold[tree.feature == 1].tolist()
    after_loop = {2} if max_bins is None else set()
    if loop_max is not None:
        after_loop |= {0, 1}
    # (Bins and values in the tables alone: no codes kept, nothing to put in.)
    assert put_in == ([after_loop] if after_loop else [])


@pytest.mark.parametrize("max_bins", [2, 7, 32, 255])
@pytest.mark.parametrize("task", ["multiclass", "regression"])
def test_binned_datasets(max_bins, task):
    frame = make_frame(500, seed=max_bins, n_numeric=5)
    y, n_classes = make_target(frame, task, seed=1)
    w = weights_for("integers", y, n_classes, seed=1)
    dataset = build_dataset(frame, max_bins=max_bins)
    grow_both(dataset, y, w, n_classes, spec_for(n_classes, min_samples_leaf=2))
    grow_both(dataset, y, w, n_classes, spec_for(n_classes, max_features=3), seed=4)


@pytest.mark.parametrize("task", ["binary", "regression"])
@pytest.mark.parametrize("max_bins", [None, 64])
def test_kept_histograms_and_subtraction(task, max_bins):
    """Nodes above STORE_MIN_ROWS keep histograms; children get theirs by subtraction."""
    frame = make_frame(5000, seed=8, n_numeric=6)
    y, n_classes = make_target(frame, task, seed=8)
    w = weights_for("floats", y, n_classes, seed=8)
    dataset = build_dataset(frame, max_bins=max_bins)
    assert dataset.n_samples >= settings_module.STORE_MIN_ROWS
    grow_both(dataset, y, w, n_classes, spec_for(n_classes, min_samples_leaf=3))
    grow_both(dataset, y, w, n_classes, spec_for(n_classes, nominal_split="multiway"))


#: Local mode (growing/_local_kernels.py) needs every feature numeric.
NUMERIC_CONFIGS = [name for name in CONFIGS if "multiway" not in name]


@pytest.mark.parametrize("config", NUMERIC_CONFIGS)
@pytest.mark.parametrize("task", ["binary", "multiclass", "regression"])
@pytest.mark.parametrize("max_bins", [None, 32])
def test_local_mode(config, task, max_bins):
    """Numeric data: nodes of up to LOCAL_MAX_ROWS rows grow their subtrees on local
    copies (presorted features renamed, the others counting-sorted), and the tree is
    the Python loop's."""
    changes = dict(CONFIGS[config])
    if task == "regression" and changes.get("criterion") == "entropy":
        changes.pop("criterion")
    frame = make_frame(1500, seed=len(config), nominal=False, n_numeric=5)
    y, n_classes = make_target(frame, task, seed=3, n_classes=2 if task == "binary" else 4)
    w = weights_for("floats", y, n_classes, seed=5)
    dataset = build_dataset(frame, max_bins=max_bins)
    tree = grow_both(dataset, y, w, n_classes, spec_for(n_classes, **changes))
    inner = tree.feature >= 0
    local = inner & (tree.n_samples <= local_kernels.LOCAL_MAX_ROWS) & (tree.n_samples > 32)
    assert local.any() or config in ("max_depth", "min_impurity_decrease", "min_gain")


def test_local_pair_nodes_keep_each_sides_gain():
    """A node of two rows is searched from their codes, one scan for each side of
    the cut (_search_few). The two sides' gains are equal in exact arithmetic but
    not always in floating point: here rows 0 and 1 (a node of two rows in local
    mode) gain 0.19900657453029670 with row 0 left (feature "p0_left") and
    0.19900657453029666 with row 1 left (feature "p1_left", searched first). The
    higher gain wins, as in the Python loop: one gain for both sides would keep
    "p1_left", the first of two equal gains."""
    frame = pd.DataFrame({
        "p1_left": [1.0, 0.0, 5.0, 5.0],
        "p0_left": [0.0, 1.0, 5.0, 5.0],
    })  # fmt: skip
    y = np.array([0.4116305363741328, 1.0425133694426776, 1000.0, 1002.0])
    gains = []
    for left_first in ([1, 0], [0, 1]):
        best = np.empty(4)
        total = np.array([2.0, 2.0, y[:2].sum(), (y[:2] ** 2).sum()])
        parent_cost = weighted_impurity(total, SQUARED_ERROR)
        value_scan_kernels._scan_sorted_values(
            np.array([0, 1], dtype=np.uint8), np.array(left_first, dtype=np.int32), 2, 2,
            np.ones(2), y, total, parent_cost, 1, 0.0, best,
        )  # fmt: skip
        gains.append(best[0])
    assert gains[0] < gains[1]  # (the data's premise: row 0 left gains more)
    tree = grow_both(build_dataset(frame), y, np.ones(4), 0, spec_for(0))
    pair = np.flatnonzero((tree.n_samples == 2) & (tree.value[:, 0] < 10.0))
    assert tree.feature[pair].tolist() == [1]


@pytest.mark.parametrize("task", ["binary", "multiclass", "regression"])
@pytest.mark.parametrize("weights", ["ones", "floats"])
@pytest.mark.parametrize("max_features", [None, 3])
def test_local_triple_nodes_share_scans_of_one_pattern(task, weights, max_features):
    """Nodes of three rows are searched from their codes, one scan per pattern of
    order and ties (_search_few). Few codes per feature make many features of a
    node order its rows alike (the gain taken from the first), tie two of them or
    all three, and missing values are scanned; every such node is the Python loop's."""
    rng = np.random.default_rng(7)
    names = ["a", "b"] + [f"x{j}" for j in range(10)]
    frame = pd.DataFrame({name: rng.integers(0, 4, 1500).astype(float) for name in names})
    for row, column in zip(rng.integers(0, 1500, 200), rng.integers(0, 12, 200), strict=True):
        frame.iloc[row, column] = np.nan
    y, n_classes = make_target(frame, task, seed=7, n_classes=2 if task == "binary" else 4)
    w = weights_for(weights, y, n_classes, seed=7)
    spec = spec_for(n_classes, max_features=max_features)
    tree = grow_both(build_dataset(frame, max_bins=255), y, w, n_classes, spec, seed=3)
    assert ((tree.n_samples == 3) & (tree.feature >= 0)).sum() > 10


@pytest.mark.parametrize("task", ["binary", "regression"])
@pytest.mark.parametrize("max_features", [None, 4])
def test_local_pair_nodes_settle_only_where_no_row_misses_a_value(task, max_features):
    """A node of two rows stops its search once both sides of its cut are scanned,
    where the features come in index order and no row of its subtree misses a value
    (_search_few). Here the rows whose "x0" is above 1 miss "c" (pairs in subtrees with
    and without a missing value), features are drawn or not, and every node of two rows
    is the Python loop's."""
    rng = np.random.default_rng(12)
    n = 1500
    frame = pd.DataFrame({f"x{j}": rng.normal(size=n) for j in range(8)})
    frame["c"] = np.where(frame["x0"] > 1.0, np.nan, rng.normal(size=n))
    y, n_classes = make_target(frame.assign(a=frame["x0"], b=frame["x1"] * 3), task, seed=12)
    spec = spec_for(n_classes, max_features=max_features)
    tree = grow_both(build_dataset(frame, max_bins=255), y, None, n_classes, spec, seed=2)
    # Each node's local subtree (its highest ancestor of at most LOCAL_MAX_ROWS rows;
    # a parent is numbered before its children), and those holding a missing value.
    parent = tree.parent()
    local_root = np.arange(tree.node_count)
    for node in range(1, tree.node_count):
        if tree.n_samples[parent[node]] <= local_kernels.LOCAL_MAX_ROWS:
            local_root[node] = local_root[parent[node]]
    leaf = tree.apply(frame.to_numpy())
    with_missing = np.isin(local_root, local_root[leaf[frame["c"].isna().to_numpy()]])
    pairs = (tree.n_samples == 2) & (tree.feature >= 0)
    assert (pairs & with_missing).sum() > 5
    if max_features is None:  # (drawn, the tree's first splits seldom part the two)
        assert (pairs & ~with_missing).sum() > 5


@pytest.mark.parametrize("max_features", [None, 1, 2, 4])
def test_local_squared_error_pairs_of_features_are_the_python_loops(max_features):
    """Local mode scans squared error's features two at a time where both take the
    three-pass scan (rows of weight 1): seven features (a pair's partner left over),
    two of them of three values (too few codes for the three-pass scan on larger
    nodes: the pair split up there), features drawn (the count of features visited
    may stop between the two of a pair); every node is the Python loop's."""
    rng = np.random.default_rng(11)
    n = 1500
    frame = pd.DataFrame({f"x{j}": rng.normal(size=n) for j in range(5)})
    frame["few_a"] = rng.integers(0, 3, n).astype(float)
    frame["few_b"] = rng.integers(0, 3, n).astype(float)
    y = frame["x0"] * 3.0 + frame["few_a"] + rng.normal(size=n)
    spec = spec_for(0, max_features=max_features)
    tree = grow_both(build_dataset(frame, max_bins=255), y.to_numpy(), None, 0, spec, seed=5)
    split = tree.feature >= 0
    assert (split & (tree.n_samples >= 4) & (tree.n_samples <= 64)).sum() > 100


@pytest.mark.parametrize("max_depth, depth, n_rows, pays", [
    (-1, 30, local_kernels.LOCAL_MAX_ROWS, True),
    (-1, 0, local_kernels.LOCAL_MAX_ROWS + 1, False),
    (5, 3, 100, True),
    (5, 4, 100, False),  # (its children are at the maximum depth: leaves)
])  # fmt: skip
def test_local_mode_pays(max_depth, depth, n_rows, pays):
    limits = np.zeros(node_tables.N_LIMITS)
    limits[node_tables.L_MAX_DEPTH] = max_depth
    local_rows = local_kernels.LOCAL_MAX_ROWS
    assert local_kernels.local_mode_pays(limits, depth, n_rows, local_rows) == pays


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
@pytest.mark.parametrize("task", ["multiclass", "regression"])
@pytest.mark.parametrize("max_bins", [None, 32])
def test_large_nodes_search_on_threads_in_both_loops(task, max_bins, monkeypatch):
    """With two threads both loops search nodes of PARALLEL_MIN_ROWS rows or more in
    parallel (here 64, so most nodes do); the trees are the same, and the same as
    with one thread."""
    monkeypatch.setattr(threaded_module, "PARALLEL_MIN_ROWS", 64)
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", 0)
    frame = make_frame(1500, seed=11, n_numeric=5)
    y, n_classes = make_target(frame, task, seed=11)
    w = weights_for("floats", y, n_classes, seed=11)
    dataset = build_dataset(frame, max_bins=max_bins)
    spec = spec_for(n_classes, min_samples_leaf=2)
    calls = []
    parallel = split_kernels.find_best_split_parallel
    with numba_threads(2):
        threaded = grow_both(dataset, y, w, n_classes, spec, n_threads=2)
        grower = Grower(dataset, y, w, n_classes, spec, np.random.default_rng(0), 2)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(settings_module, "FAST_LOOP", False)
            patch.setattr(split_kernels, "find_best_split_parallel",
                          lambda *a: calls.append(1) or parallel(*a))  # fmt: skip
            grower.grow()
    assert calls  # the Python loop's parallel search ran; the numba loop matched it
    single = grow_both(dataset, y, w, n_classes, spec, n_threads=1)
    assert_same_tree(threaded, single)


SUBTREE_SETTINGS = {
    # SUBTREES_PER_THREAD, SUBTREE_MIN_ROWS
    "many subtrees, of up to 20 rows": (30, 1),
    "a few subtrees, of up to 300 rows": (2, 1),
    "the root deferred: one subtree": (1, 10**9),
    "nothing deferred": (10**6, 1),
}


@pytest.mark.parametrize("setting", list(SUBTREE_SETTINGS))
@pytest.mark.parametrize(
    ("task", "max_bins", "nominal_split"),
    [
        ("multiclass", 32, "subset"),
        ("binary", None, "multiway"),
        ("regression", None, "subset"),
        ("regression", 16, "multiway"),
    ],
)
def test_subtrees_on_threads_grow_the_serial_tree(setting, task, max_bins, nominal_split,
                                                  monkeypatch):  # fmt: skip
    """With two threads the nodes below a size are deferred, their subtrees grown on
    separate threads and stitched back: the Tree is the one-thread Tree bit for bit
    (numbering, category maps, kept histograms handed over, presorted rows)."""
    per_thread, min_rows = SUBTREE_SETTINGS[setting]
    monkeypatch.setattr(threaded_module, "PARALLEL_MIN_ROWS", 64)
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", 0)
    monkeypatch.setattr(settings_module, "STORE_MIN_ROWS", 32)
    monkeypatch.setattr(threaded_module, "SUBTREES_PER_THREAD", per_thread)
    # (Batches of at most as many rows as a subtree: several subtrees to a batch.)
    monkeypatch.setattr(threaded_module, "MAX_BATCH_SHARE", per_thread)
    monkeypatch.setattr(threaded_module, "SUBTREE_MIN_ROWS", min_rows)
    monkeypatch.setattr(threaded_module, "TRIM_MIN_BATCH_ROWS", 1)
    monkeypatch.setattr(threaded_module, "STITCH_WAVES_MIN_BYTES", 0)
    frame = make_frame(1200, seed=5, n_numeric=4)
    y, n_classes = make_target(frame, task, seed=5)
    w = weights_for("floats", y, n_classes, seed=5)
    dataset = build_dataset(frame, max_bins=max_bins)
    spec = spec_for(n_classes, min_samples_leaf=2, nominal_split=nominal_split,
                    record_splits=True)  # fmt: skip
    single = grow_both(dataset, y, w, n_classes, spec, n_threads=1)
    items = []
    kernel = loop_kernels.grow_subtrees
    monkeypatch.setattr(
        loop_kernels, "grow_subtrees", lambda *a: items.append(len(a[-1])) or kernel(*a)
    )
    # Freed memory handed back after each batch of subtrees is grown (on its thread;
    # here every batch is large enough), then by the stitching once all are, and
    # after each wave of two batches placed (their tables let go of).
    events = []
    place = stitch_kernels.place_subtrees
    monkeypatch.setattr(
        stitch_kernels, "place_subtrees", lambda *a: events.append("place") or place(*a)
    )
    monkeypatch.setattr(threaded_module, "_return_freed_memory", lambda: events.append("trim"))
    with numba_threads(2):
        threaded = Grower(dataset, y, w, n_classes, spec, np.random.default_rng(0), 2).grow()
    assert_same_tree(threaded, single)
    if setting == "the root deferred: one subtree":
        assert items == [1]
    elif setting == "nothing deferred":
        assert items == []
    else:
        assert sum(items) > len(items) > 1  # (batches of several subtrees)
    expected = ["trim"] * (len(items) + 1)
    for first in range(0, len(items), 2):
        expected += ["place"] * min(2, len(items) - first) + ["trim"]
    assert events == expected


@settings(max_examples=200, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 10**6), min_size=0, max_size=60),
    max_depth=st.one_of(st.none(), st.integers(1, 30)),
    n_threads=st.integers(1, 8),
    data=st.data(),
)
def test_subtree_batches_are_guided_shares_of_the_work_left(sizes, max_depth, n_threads, data):
    """Every deferred node in one batch, costliest first (rows x the levels it can
    still grow); each batch closes at the node that brings it to its share of the
    work left (``1 / (GUIDED_SHARE * n_threads)``, at most ``1 / (MAX_BATCH_SHARE
    * n_threads)`` and at least ``1 / (MIN_BATCH_SHARE * n_threads)`` of the whole),
    the last one with the last node."""
    sizes = np.array(sizes, dtype=np.int64)
    top = 30 if max_depth is None else max_depth
    depths = np.array(
        data.draw(st.lists(st.integers(0, top), min_size=sizes.shape[0], max_size=sizes.shape[0])),
        dtype=np.int64,
    )
    batches = threaded_module.subtree_batches(sizes, depths, max_depth, n_threads)
    levels = np.log2(np.maximum(sizes, 2))
    if max_depth is not None:
        levels = np.minimum(levels, np.maximum(max_depth - depths, 1))
    cost = sizes * levels
    items = np.concatenate(batches) if batches else np.empty(0, dtype=np.int64)
    assert sorted(items.tolist()) == list(range(sizes.shape[0]))
    assert np.all(np.diff(cost[items]) <= 0)
    left = cost.sum()
    least = left / (threaded_module.MIN_BATCH_SHARE * n_threads)
    most = left / (threaded_module.MAX_BATCH_SHARE * n_threads)
    for k, batch in enumerate(batches):
        # (Summed one node at a time, as the batching does: the same roundings.)
        before_last = 0.0
        for item in batch[:-1]:
            before_last += cost[item]
            share = min(max(left / (threaded_module.GUIDED_SHARE * n_threads), least), most)
            assert before_last < share  # (the batch did not close before its last node)
        taken = before_last + cost[batch[-1]]
        share = min(max(left / (threaded_module.GUIDED_SHARE * n_threads), least), most)
        if k < len(batches) - 1:
            assert taken >= share
        left -= taken


def test_subtree_batches_weigh_the_levels_max_depth_leaves():
    """A large node one level above ``max_depth`` costs less than a smaller one with
    all its levels to grow; without ``max_depth``, it costs more."""
    sizes = np.array([1000, 600])
    depths = np.array([9, 0])
    assert threaded_module.subtree_batches(sizes, depths, 10, 2)[0][0] == 1
    assert threaded_module.subtree_batches(sizes, depths, None, 2)[0][0] == 0


@pytest.mark.parametrize("min_batch_rows", [100, 301])
def test_batches_of_subtrees_hand_freed_memory_back_from_a_size(min_batch_rows, monkeypatch):
    """A batch of subtrees hands its freed memory back when it holds at least
    ``TRIM_MIN_BATCH_ROWS`` rows; the stitching does once all are grown."""
    monkeypatch.setattr(threaded_module, "PARALLEL_MIN_ROWS", 64)
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", 0)
    monkeypatch.setattr(threaded_module, "SUBTREES_PER_THREAD", 2)
    monkeypatch.setattr(threaded_module, "MAX_BATCH_SHARE", 2)  # (batches of 300+ rows)
    monkeypatch.setattr(threaded_module, "SUBTREE_MIN_ROWS", 1)
    monkeypatch.setattr(threaded_module, "TRIM_MIN_BATCH_ROWS", min_batch_rows)
    monkeypatch.setattr(threaded_module, "STITCH_WAVES_MIN_BYTES", 0)
    frame = make_frame(1200, seed=5, n_numeric=4)
    y, n_classes = make_target(frame, "multiclass", seed=5)
    dataset = build_dataset(frame, max_bins=16)
    batch_rows = []
    kernel = loop_kernels.grow_subtrees

    def grow_subtrees(*args):
        front_int, items = args[-2][0], args[-1]
        ends, starts = front_int[items, loop_kernels.S_END], front_int[items, loop_kernels.S_START]
        batch_rows.append(int(np.sum(ends - starts)))
        return kernel(*args)

    monkeypatch.setattr(loop_kernels, "grow_subtrees", grow_subtrees)
    trims = []
    monkeypatch.setattr(threaded_module, "_return_freed_memory", lambda: trims.append(1))
    with numba_threads(2):
        Grower(dataset, y, None, n_classes, spec_for(n_classes), np.random.default_rng(0), 2).grow()
    assert min(batch_rows) < 301 <= max(batch_rows) and min(batch_rows) >= 100
    large = sum(rows >= min_batch_rows for rows in batch_rows)
    n_waves = -(-len(batch_rows) // 2)
    assert len(trims) == large + 1 + n_waves


@pytest.mark.parametrize(
    ("max_depth", "max_bins", "per_thread"),
    [(10, 16, 2), (3, 16, 2), (11, 16, 4), (None, 16, 4), (10, None, 4)],
)
def test_shallow_trees_grown_from_copies_defer_fewer_subtrees(max_depth, max_bins, per_thread,
                                                              monkeypatch):  # fmt: skip
    """A tree of at most SHALLOW_MAX_DEPTH levels without presorted rows defers its
    nodes below n / (SHALLOW_SUBTREES_PER_THREAD x threads) rows; deeper trees and
    exact mode's (presorted rows) below n / (SUBTREES_PER_THREAD x threads). The
    Tree is the one-thread Tree either way."""
    monkeypatch.setattr(threaded_module, "PARALLEL_MIN_ROWS", 64)
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", 0)
    monkeypatch.setattr(threaded_module, "SUBTREE_MIN_ROWS", 1)
    frame = make_frame(1200, seed=5, nominal=False, n_numeric=4)
    y, n_classes = make_target(frame, "multiclass", seed=5)
    dataset = build_dataset(frame, max_bins=max_bins)
    spec = spec_for(n_classes, max_depth=max_depth)
    single = grow_both(dataset, y, None, n_classes, spec, n_threads=1)
    defer_rows, kernel = [], loop_kernels.grow_top
    monkeypatch.setattr(
        loop_kernels, "grow_top", lambda *args: defer_rows.append(args[-1]) or kernel(*args)
    )
    with numba_threads(2):
        grower = Grower(dataset, y, None, n_classes, spec, np.random.default_rng(0), 2)
        presorted = grower.sorted_rows.shape[0] > 0
        threaded = grower.grow()
    assert_same_tree(threaded, single)
    assert presorted == (max_bins is None)
    assert defer_rows == [1200 // (per_thread * 2)]


def _set_growing_constant(monkeypatch, name, value):
    """Set the growing constant ``name`` on the one module that defines it, the
    grower's or the threads' (each is read through its own module)."""
    (module,) = [m for m in (settings_module, threaded_module) if hasattr(m, name)]
    monkeypatch.setattr(module, name, value)


def _serial_tree_for_threads(monkeypatch, task, frame, settings, seed=5, max_bins=16):
    """Set ``settings`` (name: value) on the module that holds each, the grower's or
    the threads' (:func:`_set_growing_constant`), encode ``frame`` with ``max_bins``
    and grow its tree on one thread: ``(dataset, y, n_classes, spec, tree)``, for a
    test to grow the same on two threads."""
    for name, value in settings.items():
        _set_growing_constant(monkeypatch, name, value)
    y, n_classes = make_target(frame, task, seed=seed)
    dataset = build_dataset(frame, max_bins=max_bins)
    spec = spec_for(n_classes)
    return dataset, y, n_classes, spec, grow_both(dataset, y, None, n_classes, spec, n_threads=1)


@pytest.mark.parametrize("wave_min_bytes", [0, 10**12])
def test_a_small_stitched_tree_is_placed_in_one_go(wave_min_bytes, monkeypatch):
    """Below STITCH_WAVES_MIN_BYTES of nodes the subtrees are placed one after the
    other on the calling thread, no memory handed back after them (only the batches'
    own hand-backs); from it on, in waves on the pool's threads, each followed by a
    hand-back. The Tree is the serial one either way."""
    settings = {
        "PARALLEL_MIN_ROWS": 64, "THREADS_MIN_WORK": 0, "SUBTREES_PER_THREAD": 4,
        "SUBTREE_MIN_ROWS": 1, "TRIM_MIN_BATCH_ROWS": 1, "STITCH_WAVES_MIN_BYTES": wave_min_bytes,
    }  # fmt: skip
    frame = make_frame(1200, seed=5, n_numeric=4)
    dataset, y, n_classes, spec, single = _serial_tree_for_threads(
        monkeypatch, "regression", frame, settings
    )
    events, place = [], stitch_kernels.place_subtrees

    def placed(*args):
        events.append(("place", threading.get_ident()))
        return place(*args)

    monkeypatch.setattr(stitch_kernels, "place_subtrees", placed)
    monkeypatch.setattr(threaded_module, "_return_freed_memory", lambda: events.append(("trim",)))
    kernel, n_batches = loop_kernels.grow_subtrees, []
    monkeypatch.setattr(loop_kernels, "grow_subtrees", lambda *a: n_batches.append(1) or kernel(*a))
    with numba_threads(2):
        threaded = Grower(dataset, y, None, n_classes, spec, np.random.default_rng(0), 2).grow()
    assert_same_tree(threaded, single)
    n = len(n_batches)
    assert n > 2
    assert events[:n] == [("trim",)] * n  # (each batch's own)
    stitching = [event[0] for event in events[n:]]
    if wave_min_bytes:
        assert stitching == ["place"] * n
        assert {event[1] for event in events[n:]} == {threading.get_ident()}
    else:
        expected = ["trim"]
        for first in range(0, n, 2):
            expected += ["place"] * min(2, n - first) + ["trim"]
        assert stitching == expected


def test_each_thread_reuses_its_work_space_and_scratch_for_its_subtrees(monkeypatch):
    """The subtrees grown on a thread keep their histograms in one pool, are written
    to one node table and split with one set of scratch buffers, made by the
    thread's first batch and handed to its next ones (not made afresh per subtree or
    batch: fresh pages, faulted in again each time); the Tree is the serial one."""
    settings = {
        "PARALLEL_MIN_ROWS": 64, "THREADS_MIN_WORK": 0, "STORE_MIN_ROWS": 32,
        "SUBTREES_PER_THREAD": 8, "SUBTREE_MIN_ROWS": 1,
    }  # fmt: skip
    frame = make_frame(1200, seed=5, n_numeric=4)
    dataset, y, n_classes, spec, single = _serial_tree_for_threads(
        monkeypatch, "multiclass", frame, settings
    )
    calls, kernel = [], loop_kernels.grow_subtrees
    scratch_made, make_scratch = [], loop_kernels.subtree_scratch

    def grow_subtrees(*args):
        search, buffers, work_space = args[1], args[7], args[8]
        call = (
            threading.get_ident(),
            work_space[0].shape[0],  # (work_space: pool, siblings, copy room, nodes, ...)
            work_space[3][0].shape[0],
            work_space[3][0].ctypes.data,
            search[8].ctypes.data,  # (the thread's scratch codes and partition buffer)
            buffers[2].ctypes.data,
        )
        calls.append(call)
        subtrees, work_space = kernel(*args)
        assert work_space[0].shape[0] >= max(call[1], 4)
        assert work_space[3][0].shape[0] >= call[2]
        return subtrees, work_space

    def subtree_scratch(*args):
        scratch_made.append(threading.get_ident())
        return make_scratch(*args)

    monkeypatch.setattr(loop_kernels, "grow_subtrees", grow_subtrees)
    monkeypatch.setattr(loop_kernels, "subtree_scratch", subtree_scratch)
    with numba_threads(2):
        threaded = Grower(dataset, y, None, n_classes, spec, np.random.default_rng(0), 2).grow()
    assert_same_tree(threaded, single)
    threads = {call[0] for call in calls}
    assert len(calls) > 2
    assert sorted(scratch_made) == sorted(threads)  # (once a thread)
    # Threads take batches as they come free: one may take a single batch, but with
    # more batches than threads some thread takes several (the reuse checked here).
    assert max(sum(call[0] == thread for call in calls) for thread in threads) > 1
    for thread in threads:
        own = [call for call in calls if call[0] == thread]
        assert [call[1] for call in own].count(0) == 1  # (one new pool per thread)
        # One node table per thread (its first subtree's has room for the others').
        assert own[0][2] == 0 and all(call[2] > 0 for call in own[1:])
        assert len({call[3] for call in own[1:]}) <= 1
        assert len({call[4] for call in own}) == len({call[5] for call in own}) == 1


@pytest.mark.parametrize("task", ["multiclass", "regression"])
def test_deferred_nodes_hand_their_histograms_over_when_large_or_inexact(task, monkeypatch):
    """A deferred node hands its kept histogram to its subtree when its rows times the
    kept features reach DEFER_HIST_MIN_RATIO times the histogram's entries, or when
    its sums are not exact (regression: built again, they could differ in the last
    bits); otherwise its subtree builds it again. The Tree is the serial one."""
    settings = {
        "PARALLEL_MIN_ROWS": 64, "THREADS_MIN_WORK": 0, "STORE_MIN_ROWS": 32,
        "SUBTREES_PER_THREAD": 2, "SUBTREE_MIN_ROWS": 1,
    }  # fmt: skip
    frame = make_frame(2400, seed=3, nominal=False, n_numeric=4)
    dataset, y, n_classes, spec, single = _serial_tree_for_threads(
        monkeypatch, task, frame, settings, seed=3, max_bins=8
    )
    fronts, kernel = [], loop_kernels.grow_top
    monkeypatch.setattr(
        loop_kernels, "grow_top", lambda *a: (lambda r: fronts.append(r[1]) or r)(kernel(*a))
    )
    with numba_threads(2):
        grower = Grower(dataset, y, None, n_classes, spec, np.random.default_rng(0), 2)
        threaded = grower.grow()
    assert_same_tree(threaded, single)
    (front_int, *_, n_front, _) = fronts[0]
    n_rows = front_int[:n_front, loop_kernels.S_END] - front_int[:n_front, loop_kernels.S_START]
    handed = front_int[:n_front, loop_kernels.S_SLOT] >= 0
    n_channels = 1 + n_classes if task == "multiclass" else 4
    entries = int(grower.stored_rows[-1]) * n_channels
    large = n_rows * grower.stored_features.shape[0] >= loop_kernels.DEFER_HIST_MIN_RATIO * entries
    kept = n_rows >= 32
    if task == "regression":
        np.testing.assert_array_equal(handed, kept)
    else:
        np.testing.assert_array_equal(handed, kept & large)
        assert handed.any() and (kept & ~handed).any()


# ---------------------------------------------------------------------------
# Subtrees grown from copies of their rows
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("weights", [None, "floats"])
@pytest.mark.parametrize("task", ["binary", "multiclass", "regression"])
def test_copied_rows_are_the_nodes_rows_in_their_order(task, weights):
    """A copy holds the codes, targets and weights of ``rows[start:end]`` in that order,
    renumbered 0..n-1, in arrays of the types of the training ones; a placeholder
    target (the other task's) and absent weights stay as they are."""
    rng = np.random.default_rng(7)
    n, n_features, start, end = 60, 5, 11, 48
    codes = np.asfortranarray(rng.integers(0, 200, (n, n_features)).astype(np.uint8))
    rows = rng.permutation(n).astype(np.int32)
    if task == "regression":
        y_class, y_value = np.zeros(1, dtype=np.int32), rng.normal(size=n)
    else:
        y_class, y_value = rng.integers(0, 3, n).astype(np.int32), np.zeros(1)
    weight = rng.uniform(0.5, 2.0, n) if weights else np.empty(0)
    data = (codes.T, rows, y_class, y_value, weight, task != "regression", np.int64(0),
            np.int64(3))  # fmt: skip
    space = row_copy_kernels.new_copy_space(data, 50)
    copy = row_copy_kernels.copied_rows(data, start, end, space)
    assert numba.typeof(copy) == numba.typeof(data)
    taken = rows[start:end]
    np.testing.assert_array_equal(copy[0], codes[taken].T, strict=True)
    np.testing.assert_array_equal(copy[1], np.arange(end - start, dtype=np.int32), strict=True)
    for k, target in ((2, y_class), (3, y_value), (4, weight)):
        expected = target[taken] if target.shape[0] == n else target
        np.testing.assert_array_equal(copy[k], expected, strict=True)
    assert copy[5:] == data[5:]
    row_bytes = n_features + 4 + (8 if task == "regression" else 4) + (8 if weights else 0)
    assert row_copy_kernels.copy_row_bytes(data) == row_bytes


@pytest.mark.parametrize("n_threads", [1, 2])
@pytest.mark.parametrize("weights", [None, "floats"])
@pytest.mark.parametrize(
    ("task", "max_bins", "nominal_split"),
    [
        ("binary", 64, "subset"),
        ("multiclass", 64, "multiway"),
        ("regression", 64, "subset"),
        ("regression", None, "subset"),
    ],
)
def test_subtrees_grown_from_copies_of_their_rows_are_the_python_loops(
    task, max_bins, nominal_split, weights, n_threads, monkeypatch
):
    """Nodes of more than LOCAL_MAX_ROWS rows and at most half the training rows have
    their subtrees grown from copies of their rows (COPY_MAX_BYTES), on one thread
    and in the subtrees of two: the Python loop's Tree, bit for bit (missing values,
    nominal features, weights or none; exact codes with presorted rows copy nothing)."""
    # Two threads: subtrees of up to half the rows deferred (1,500-3,000 rows).
    monkeypatch.setattr(threaded_module, "PARALLEL_MIN_ROWS", 64)
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", 0)
    monkeypatch.setattr(threaded_module, "SUBTREES_PER_THREAD", 1)
    frame = make_frame(6000, seed=21, n_numeric=6)
    y, n_classes = make_target(frame, task, seed=21, n_classes=2 if task == "binary" else 4)
    w = weights_for(weights, y, n_classes, seed=21) if weights else None
    dataset = build_dataset(frame, max_bins=max_bins)
    spec = spec_for(n_classes, min_samples_leaf=3, nominal_split=nominal_split)
    spaces, kernel = [], loop_kernels.grow_subtrees
    monkeypatch.setattr(
        loop_kernels, "grow_subtrees", lambda *a: (lambda r: spaces.append(r[1]) or r)(kernel(*a))
    )
    with numba_threads(n_threads):
        tree = grow_both(dataset, y, w, n_classes, spec, n_threads=n_threads)
    inner = tree.feature >= 0
    copied = (tree.n_samples > local_kernels.LOCAL_MAX_ROWS) & (tree.n_samples <= 3000)
    assert (inner & copied).sum() >= 2
    # (One thread's loop returns no work space to look into: that copies are made is
    # checked on two threads, whose subtrees take the same branch of _grow.)
    if n_threads == 2:
        # A copy of m rows renumbers them 0..m-1 at the front of the thread's room for
        # copies, whose splits then reorder them there: once copied into, the room
        # begins with a permutation of 0..m-1, m > LOCAL_MAX_ROWS, whichever batches the
        # thread took (what lies beyond is an earlier, larger copy's or unwritten). No
        # room is made with presorted rows, which are never copied.
        assert spaces
        made = [_begins_with_a_copy(space[2][1]) for space in spaces]
        assert any(made) == (max_bins is not None)


def _begins_with_a_copy(room_rows):
    """Whether the first m entries of a room for copies' rows are a permutation of
    0..m-1 for some m > LOCAL_MAX_ROWS."""
    n = room_rows.shape[0]
    if n <= local_kernels.LOCAL_MAX_ROWS:
        return False
    _, first_seen = np.unique(room_rows, return_index=True)
    repeat = np.ones(n, dtype=bool)
    repeat[first_seen] = False
    # Prefixes up to the first repeated entry hold distinct numbers: a permutation of
    # 0..m-1 where the least is 0 and the largest m - 1.
    distinct_until = int(np.argmax(repeat)) if repeat.any() else n
    lengths = np.arange(1, n + 1)
    permutation = (np.maximum.accumulate(room_rows) == lengths - 1) & (
        np.minimum.accumulate(room_rows) == 0
    )
    permutation[distinct_until:] = False
    return bool(permutation[local_kernels.LOCAL_MAX_ROWS :].any())


PATHS = {
    "kept histograms, subtraction everywhere": {"STORE_MIN_ROWS": 1},
    "no kept histograms, sort every node": {"STORE_MIN_ROWS": 10**9, "HIST_RATIO": 0.0},
    "no kept histograms, histogram every node": {"STORE_MIN_ROWS": 10**9, "HIST_RATIO": 1e18},
    "pre-sorted rows for numeric features": {"STORE_MAX_BINS": 0, "HIST_RATIO": 0.0},
    "kept histograms for every feature": {"STORE_MAX_BINS": 10**6, "STORE_MIN_ROWS": 1},
}


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("nominal_split", ["subset", "multiway"])
def test_statistics_paths(path, nominal_split, monkeypatch):
    """The grower's constants, read when a tree is grown, steer both loops alike."""
    for constant, value in PATHS[path].items():
        monkeypatch.setattr(settings_module, constant, value)
    frame = make_frame(400, seed=13)
    for task in ("multiclass", "regression"):
        y, n_classes = make_target(frame, task, seed=13)
        w = weights_for("floats", y, n_classes, seed=13)
        spec = spec_for(n_classes, nominal_split=nominal_split, min_samples_leaf=2)
        grow_both(build_dataset(frame), y, w, n_classes, spec)


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("max_bins", [None, 16])
@pytest.mark.parametrize("nominal", [True, False])
def test_whole_weights_grow_the_same_tree(path, max_bins, nominal, monkeypatch):
    """Gini with whole weights (running sums of squares, every sum exact) grows
    the Tree the channel-row scans grow, bit for bit, on every statistics path
    and in local mode (all features numeric); missing values, nominal features
    and leaf constraints included."""
    for constant, value in PATHS[path].items():
        monkeypatch.setattr(settings_module, constant, value)
    frame = make_frame(1500, seed=21, nominal=nominal)
    dataset = build_dataset(frame, max_bins=max_bins)
    y, n_classes = make_target(frame, "multiclass", seed=21, n_classes=4)
    for kind in ("ones", "integers"):
        w = weights_for(kind, y, n_classes, seed=21)
        for changes in ({}, {"min_samples_leaf": 3, "min_weight_leaf": 4.0}):
            spec = spec_for(n_classes, **changes)
            whole = Grower(dataset, y, w, n_classes, spec, np.random.default_rng(0))
            assert whole.whole_weights
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(grower_module, "_are_whole", lambda weight, n_rows: False)
                channel_rows = Grower(dataset, y, w, n_classes, spec, np.random.default_rng(0))
            assert not channel_rows.whole_weights
            assert_same_tree(whole.grow(), channel_rows.grow())
    fractional = weights_for("floats", y, n_classes, seed=21)
    grower = Grower(dataset, y, fractional, n_classes, spec, np.random.default_rng(0))
    assert not grower.whole_weights


def _memory_owner(array):
    """The object that owns ``array``'s memory (an ndarray, or numba's MemInfo)."""
    while isinstance(array, np.ndarray) and array.base is not None:
        array = array.base
    return array


@pytest.mark.parametrize("max_depth", [2, None])
def test_the_numba_loop_lets_go_of_its_row_buffers_and_a_small_trees_table(max_depth):
    """Once grown, the grower holds none of the loop's arrays of a row each, and a tree
    filling less than half of its node table keeps copies of its columns (the table
    let go of), a larger one the table's columns themselves."""
    rng = np.random.default_rng(31)
    X = rng.normal(size=(1000, 3))
    y = X[:, 0] + rng.normal(size=1000)
    spec = spec_for(0, max_depth=max_depth)
    grower = Grower(build_dataset(X), y, None, 0, spec, np.random.default_rng(0))
    tree = grower.grow()
    for name in ("rows", "partition_buffer", "child_of_row", "sorted_rows", "sorted_scan"):
        assert getattr(grower, name) is None, name
    capacity = 2 * 1000 - 1  # (node_tables.initial_capacity: a binary tree's most nodes)
    copied = 2 * tree.feature.shape[0] < capacity
    assert copied == (max_depth is not None)
    for name in node_tables.NODE_COLUMNS[:-1]:
        owner = _memory_owner(getattr(tree, name))
        assert isinstance(owner, np.ndarray) == copied, name


NO_WEIGHTS_SETTINGS = {
    "one thread": ({}, 1),
    "features drawn": ({"max_features": 3}, 1),
    "min_weight_leaf": ({"min_weight_leaf": 3.5, "min_samples_leaf": 2}, 1),
    "subtrees on two threads": ({"min_samples_leaf": 2}, 2),
}


@pytest.mark.parametrize("path", list(PATHS))
@pytest.mark.parametrize("setting", list(NO_WEIGHTS_SETTINGS))
@pytest.mark.parametrize("max_bins", [None, 16])
def test_no_sample_weights_store_none_and_grow_the_tree_of_ones(path, setting, max_bins,
                                                                monkeypatch):  # fmt: skip
    """``sample_weight=None``: the numba loop stores no weights (an empty array, read
    as every row weighing 1) and grows the Tree of an array of ones, bit for bit, on
    every statistics path, in local mode, on threads and with features drawn."""
    for constant, value in PATHS[path].items():
        monkeypatch.setattr(settings_module, constant, value)
    monkeypatch.setattr(threaded_module, "PARALLEL_MIN_ROWS", 64)
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", 0)
    monkeypatch.setattr(threaded_module, "SUBTREE_MIN_ROWS", 8)
    changes, n_threads = NO_WEIGHTS_SETTINGS[setting]
    frame = make_frame(1500, seed=23, n_numeric=4)
    dataset = build_dataset(frame, max_bins=max_bins)
    for task in ("binary", "multiclass", "regression"):
        y, n_classes = make_target(frame, task, seed=23)
        spec = spec_for(n_classes, **changes)
        with numba_threads(n_threads):
            unstored = Grower(dataset, y, None, n_classes, spec, np.random.default_rng(0),
                              n_threads)  # fmt: skip
            assert unstored.weight.shape == (0,) and unstored.whole_weights
            ones = Grower(dataset, y, np.ones(len(frame)), n_classes, spec,
                          np.random.default_rng(0), n_threads)  # fmt: skip
            assert_same_tree(unstored.grow(), ones.grow())


@pytest.mark.parametrize(
    "changes",
    [
        {"missing": "surrogate"},
        "C4.5",
        {"record_splits": True},
        {"max_leaf_nodes": 9},
    ],
)
def test_no_sample_weights_are_ones_where_the_numba_loop_does_not_grow(changes):
    """Where the Python loop grows the tree (or split records are made after the
    numba loop), ``sample_weight=None`` stores ones: the same Tree as given ones."""
    frame = make_frame(300, seed=29)
    dataset = build_dataset(frame)
    y, n_classes = make_target(frame, "multiclass", seed=29)
    spec = C45 if changes == "C4.5" else spec_for(n_classes, **changes)
    ones = np.ones(len(frame))
    stored = Grower(dataset, y, None, n_classes, spec, np.random.default_rng(0))
    np.testing.assert_array_equal(stored.weight, ones)
    given_ones = Grower(dataset, y, ones, n_classes, spec, np.random.default_rng(0))
    assert_same_tree(stored.grow(), given_ones.grow())
    # The numba loop turned off after the grower stored no weights: ones then.
    unstored = Grower(dataset, y, None, n_classes, spec_for(n_classes), np.random.default_rng(0))
    assert unstored.weight.shape == (0,)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(settings_module, "FAST_LOOP", False)
        tree = unstored.grow()
    given_ones = Grower(dataset, y, ones, n_classes, spec_for(n_classes), np.random.default_rng(0))
    assert_same_tree(tree, given_ones.grow())


@pytest.mark.parametrize("n_classes", [9, 40, 150])
def test_many_classes(n_classes):
    """Node weights are the classes' weights summed as NumPy sums them (pairwise)."""
    rng = np.random.default_rng(n_classes)
    n = 600
    frame = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 9, n).astype(float)})
    y = (rng.integers(0, n_classes, n) + (frame["a"] > 0) * 3) % n_classes
    w = rng.uniform(0.01, 3.0, n) * 10.0 ** rng.integers(-3, 3, n)
    grow_both(build_dataset(frame), y.to_numpy(), w, n_classes, spec_for(n_classes))


def test_multiway_branches_without_rows():
    """A category absent at a node gives an empty branch predicting its parent's value;
    rows missing the feature go to the most frequent category's branch."""
    rng = np.random.default_rng(2)
    n = 200
    colour = rng.choice(["r", "g", "b", "k"], n).astype(object)
    colour[:20] = None
    size = np.where(colour == "r", rng.choice(["s", "m"], n), rng.choice(["l", "xl"], n))
    frame = pd.DataFrame({"colour": colour, "size": size.astype(object)})
    y = (rng.random(n) < np.where(colour == "g", 0.8, 0.3)).astype(np.int64)
    for task, target, k in (("binary", y, 2), ("regression", y + rng.normal(0, 0.1, n), 0)):
        tree = grow_both(
            build_dataset(frame), target, np.ones(n), k, spec_for(k, nominal_split="multiway")
        )
        assert (tree.n_samples == 0).any(), task


@pytest.mark.parametrize("n", [1, 2, 3])
def test_tiny_and_pure_data(n):
    frame = pd.DataFrame({"a": np.arange(n, dtype=float), "d": ["p", "q", "p"][:n]})
    for y, k in ((np.zeros(n, dtype=np.int64), 2), (np.arange(n) % 2, 2), (np.ones(n), 0)):
        grow_both(build_dataset(frame), y, np.ones(n), k, spec_for(k))


def test_constant_features_and_float_extremes():
    """No split on constant features; thresholds between adjacent floats and huge values."""
    n = 60
    a = np.where(np.arange(n) % 2, 1.0, np.nextafter(1.0, 2.0))
    b = np.where(np.arange(n) % 3, 1e308, -1e308)
    frame = pd.DataFrame({"a": a, "b": b, "c": np.full(n, 3.0)})
    y = (np.arange(n) % 2 + np.arange(n) % 3 > 1).astype(np.int64)
    tree = grow_both(build_dataset(frame), y, np.ones(n), 2, spec_for(2))
    assert (tree.feature != 2).all()


# ---------------------------------------------------------------------------
# Random datasets
# ---------------------------------------------------------------------------


@st.composite
def random_problem(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(1, 150))
    columns = {}
    for j in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            n_values = draw(st.integers(1, 12))
            columns[f"x{j}"] = rng.integers(0, n_values, n).astype(float) * 0.37
        else:
            levels = draw(st.integers(1, 6))
            columns[f"x{j}"] = rng.choice([f"c{k}" for k in range(levels)], n).astype(object)
    frame = pd.DataFrame(columns)
    missing = draw(st.sampled_from([0.0, 0.15, 0.5]))
    for name in frame.columns:
        holes = rng.random(n) < missing
        if holes.all():
            holes[0] = False
        frame.loc[holes, name] = None if frame[name].dtype == object else np.nan
    n_classes = draw(st.sampled_from([0, 2, 3, 5]))
    # A target that depends on the columns (their codes), so that trees grow.
    signal = sum(
        pd.factorize(frame[name], use_na_sentinel=False)[0] * rng.normal() for name in frame
    )
    signal = signal + rng.normal(0.0, draw(st.sampled_from([0.1, 1.0])), n)
    if n_classes:
        y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1]))
    else:
        y = signal
    w = draw(
        st.sampled_from([np.ones(n), rng.integers(1, 4, n).astype(float), rng.uniform(0.1, 3.0, n)])
    )
    max_bins = draw(st.sampled_from([None, None, 2, 5]))
    criteria = ["gini", "entropy"] if n_classes else ["squared_error"]
    spec = CART.replace(
        criterion=draw(st.sampled_from(criteria)),
        nominal_split=draw(st.sampled_from(["subset", "multiway"])),
        max_depth=draw(st.sampled_from([None, None, 1, 3])),
        min_samples_split=draw(st.sampled_from([2, 2, 5])),
        min_samples_leaf=draw(st.sampled_from([1, 1, 3])),
        min_weight_leaf=draw(st.sampled_from([0.0, 0.0, 1.5])),
        min_impurity_decrease=draw(st.sampled_from([0.0, 0.0, 0.01])),
        min_gain=draw(st.sampled_from([0.0, 0.0, 0.05])),
        max_features=draw(st.sampled_from([None, 1, 2])),
        threshold_at=draw(st.sampled_from(["midpoint", "data"])),
        record_splits=draw(st.booleans()),
    )
    return frame, y, w, n_classes, max_bins, spec, seed


@settings(max_examples=150, deadline=None)
@given(problem=random_problem())
def test_random_problems(problem):
    frame, y, w, n_classes, max_bins, spec, seed = problem
    if spec.max_features is not None and spec.max_features > frame.shape[1]:
        spec = spec.replace(max_features=None)
    grow_both(build_dataset(frame, max_bins=max_bins), y, w, n_classes, spec, seed=seed)


@pytest.mark.parametrize("seed", range(30))
def test_random_configurations(seed):
    """Larger datasets, each with a configuration drawn at random."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(150, 700))
    frame = make_frame(
        n,
        seed,
        nominal=bool(rng.random() < 0.7),
        missing=bool(rng.random() < 0.7),
        n_numeric=int(rng.integers(3, 6)),
        levels=int(rng.integers(2, 20)),
    )
    task = rng.choice(["binary", "multiclass", "regression"])
    y, n_classes = make_target(frame, task, seed, n_classes=2 if task == "binary" else 5)
    w = weights_for(rng.choice(["ones", "integers", "class", "floats"]), y, n_classes, seed)
    pick = lambda *options: options[int(rng.integers(len(options)))]  # noqa: E731
    spec = spec_for(
        n_classes,
        criterion=pick("gini", "entropy") if n_classes else "squared_error",
        nominal_split=pick("subset", "multiway"),
        max_depth=pick(None, None, 2, 5),
        min_samples_split=pick(2, 2, 7),
        min_samples_leaf=pick(1, 1, 2, 5),
        min_weight_leaf=pick(0.0, 0.0, 2.5),
        min_impurity_decrease=pick(0.0, 0.0, 1e-3),
        min_gain=pick(0.0, 0.0, 0.02),
        max_features=pick(None, None, 1, 3),
        threshold_at=pick("midpoint", "midpoint", "data"),
        record_splits=pick(False, True),
    )
    max_bins = pick(None, None, 4, 30)
    grow_both(build_dataset(frame, max_bins=max_bins), y, w, n_classes, spec, seed=seed)


# ---------------------------------------------------------------------------
# Which configurations the fast loop takes
# ---------------------------------------------------------------------------


def _grower(spec, n_classes=2, n_threads=1, rng="generator", max_bins=None):
    rng = np.random.default_rng(0) if rng == "generator" else rng
    frame = make_frame(80, seed=0)
    y, _ = make_target(frame, "binary" if n_classes else "regression", seed=0, n_classes=2)
    dataset = build_dataset(frame, max_bins=max_bins)
    return Grower(dataset, y, np.ones(80), n_classes, spec, rng, n_threads)


@pytest.mark.parametrize(
    "spec, n_classes, n_threads",
    [
        (CART, 2, 1),
        (CART.replace(criterion="entropy", nominal_split="multiway"), 2, 1),
        (CART.replace(criterion="squared_error"), 0, 1),
        (CART.replace(criterion="squared_error", record_splits=True), 0, 1),  # regression
        (CART.replace(max_features=3), 2, 4),  # max_features never searches in parallel
        (ID3.replace(record_splits=False), 2, 1),
        (CART.replace(record_splits=True), 2, 1),  # records made from the grown Tree
        (ID3, 2, 1),
        (ID3, 2, 4),
    ],
)
def test_fast_loop_applies(spec, n_classes, n_threads):
    assert _grower(spec, n_classes, n_threads)._fast_loop_applies()


@pytest.mark.parametrize(
    "spec, n_classes, n_threads, rng",
    [
        (CART.replace(criterion="absolute_error"), 0, 1, "generator"),
        (CART.replace(criterion="huber"), 0, 1, "generator"),
        (CART.replace(missing="surrogate"), 2, 1, "generator"),
        (C45, 2, 1, "generator"),
        (CART.replace(max_leaf_nodes=10), 2, 1, "generator"),
        (CART.replace(max_features=2), 2, 1, np.random.RandomState(0)),
    ],
)
def test_python_loop_keeps_the_rest(spec, n_classes, n_threads, rng, monkeypatch):
    grower = _grower(spec, n_classes, n_threads, rng)
    assert not grower._fast_loop_applies()

    def fail(*args):
        raise AssertionError("the numba loop ran")

    monkeypatch.setattr(loop_kernels, "grow_depth_first", fail)
    grower.grow().validate()


def test_fast_loop_flag(monkeypatch):
    monkeypatch.setattr(settings_module, "FAST_LOOP", False)
    assert not _grower(CART)._fast_loop_applies()


def test_trees_beyond_the_node_table_keep_the_python_loop(monkeypatch):
    """The loop's int32 node table holds node numbers, row counts and category-map
    offsets below n * (the widest nominal feature's codes + 1, at least 2)."""
    grower = _grower(CART)
    # 80 rows; the widest nominal feature, "f", has 14 categories: 15 codes with missing.
    assert grower.n_codes[grower.dataset.is_nominal].max() == 14
    monkeypatch.setattr(numba_growth, "NODE_TABLE_MAX", 80 * 15)
    assert grower._fast_loop_applies()
    monkeypatch.setattr(numba_growth, "NODE_TABLE_MAX", 80 * 15 - 1)
    assert not grower._fast_loop_applies()
    slow = grower.grow()
    monkeypatch.setattr(numba_growth, "NODE_TABLE_MAX", 80 * 15)
    assert_same_tree(_grower(CART).grow(), slow)


def test_the_fast_loop_reads_exact_values_once_a_feature_for_its_thresholds(monkeypatch):
    """The numba loop needs no feature's distinct values: they are read back from the
    columns after it (one read per split feature) and never all kept; the thresholds are
    the Python loop's, which keeps them all."""
    X, y = make_regression(3000, 6, random_state=0)
    spec = CART.replace(criterion="squared_error")
    reads = []
    read = dataset_module.read_code_values

    def counted(values, codes, n_distinct):
        reads.append(n_distinct)
        return read(values, codes, n_distinct)

    monkeypatch.setattr(dataset_module, "read_code_values", counted)
    dataset = build_dataset(X)
    assert all(column is not None for column in dataset.exact_columns)  # 3000 distinct
    fast = Grower(dataset, y, np.ones(3000), 0, spec, np.random.default_rng(0), 1).grow()
    used = np.unique(fast.feature[fast.kind == NODE_THRESHOLD])
    assert sorted(reads) == [3000] * used.shape[0]
    assert "numeric_values" not in dataset.__dict__
    monkeypatch.setattr(settings_module, "FAST_LOOP", False)
    dataset = build_dataset(X)
    slow = Grower(dataset, y, np.ones(3000), 0, spec, np.random.default_rng(0), 1).grow()
    assert "numeric_values" in dataset.__dict__
    assert_same_tree(fast, slow)


@pytest.mark.parametrize("make", [CARTClassifier, CARTRegressor])
def test_estimators_take_the_fast_loop(make, monkeypatch):
    if make is CARTClassifier:
        X, y = make_classification(3000, 6, n_informative=4, n_classes=3, random_state=0)
    else:
        X, y = make_regression(3000, 6, random_state=0)
    calls = []
    kernel = loop_kernels.grow_depth_first

    def counted(*args):
        calls.append(1)
        return kernel(*args)

    monkeypatch.setattr(loop_kernels, "grow_depth_first", counted)
    fast = make(n_jobs=1, max_features=4, random_state=3).fit(X, y)
    assert calls == [1]
    monkeypatch.setattr(settings_module, "FAST_LOOP", False)
    slow = make(n_jobs=1, max_features=4, random_state=3).fit(X, y)
    assert calls == [1]
    assert_same_tree(fast.tree_, slow.tree_)


def test_multiway_splits_of_many_categories_keep_every_child_of_a_row():
    """More children than a byte can number: ``child_of_row`` (which splits the
    presorted runs by child) is then int32, and both loops grow the same tree."""
    rng = np.random.default_rng(5)
    n = 3000
    frame = pd.DataFrame(
        {
            "many": rng.choice([f"c{k}" for k in range(300)], n).astype(object),
            "a": rng.normal(size=n),
            "b": rng.normal(size=n).round(2),
        }
    )
    y = ((frame["a"] > 0).to_numpy() + rng.integers(0, 2, n)) % 2
    dataset = build_dataset(frame)
    spec = spec_for(2, nominal_split="multiway", criterion="entropy")
    grower = Grower(dataset, y, np.ones(n), 2, spec, np.random.default_rng(0), 1)
    assert grower.child_of_row.dtype == np.int32 and grower.sorted_features.size == 2
    tree = grow_both(dataset, y, np.ones(n), 2, spec)
    assert (np.diff(tree.child_ptr) > 256).any()  # a split of more than 256 children
    usual = Grower(dataset, y, np.ones(n), 2, spec_for(2), np.random.default_rng(0), 1)
    assert usual.child_of_row.dtype == np.uint8


@pytest.mark.parametrize(
    ("is_nominal", "skip_missing", "local_mode"),
    [([False, False], False, True), ([False, True], False, False), ([False, False], True, False)],
)
def test_local_mode_arrays_only_where_local_mode_can_run(is_nominal, skip_missing, local_mode):
    """``local_space``: local mode's arrays for up to LOCAL_MAX_ROWS rows (fewer with fewer
    training rows) where every feature is numeric and the search is not the surrogate one;
    None otherwise, which leaves local mode out of the loop's compilation."""
    n = 3000
    feature_codes = np.zeros((2, n), dtype=np.uint8)
    data = (feature_codes, np.arange(n), np.zeros(n, dtype=np.int32), np.zeros(1), np.zeros(0),
            True, 0, 3)  # fmt: skip
    search = [None] * 16
    search[0] = np.array([5, 9], dtype=np.int64)  # n_codes
    search[1] = np.array(is_nominal)
    search[12] = skip_missing
    local = loop_kernels.local_space(data, tuple(search))
    if not local_mode:
        assert local is None
        return
    assert local[3].shape == (local_kernels.LOCAL_MAX_ROWS,)  # node_rows
    assert local[7].shape == (11,)  # counts of the counting sort: the codes, missing, one more
    assert local[13].shape[1] == 4  # statistics rows: count and three classes
    small = loop_kernels.local_space(
        (feature_codes[:, :10], np.arange(10), *data[2:]), tuple(search)
    )
    assert small[3].shape == (10,)
