"""The grower: every split is the brute-force best of its node, every stop rule holds,
every statistics path grows the same tree, and growth is deterministic.

The training rows are routed down the grown Tree by their codes, so each node's
rows are known; then each node's recorded statistics are recomputed from its
rows, each split is compared with :func:`_oracles.brute_force_best_split` on
those rows, and each leaf that the stop rules allowed to split is shown to
have no admissible split.
"""

import inspect

import numpy as np
import pandas as pd
import pytest
from _oracles import brute_force_best_split, naive_cost, naive_split_gain

import treelearn
from treelearn._dtypes import NO_CHILD, NODE_SUBSET, NODE_THRESHOLD
from treelearn.data import dataset as dataset_module
from treelearn.data.dataset import build_dataset
from treelearn.estimators.base import _numba_threads as numba_threads
from treelearn.growing import CART, Grower
from treelearn.growing import settings as settings_module
from treelearn.growing import threaded as threaded_module
from treelearn.splitting import _partition_kernels as partition_kernels

EPS = np.finfo(np.float64).eps


# ---------------------------------------------------------------------------
# Data and helpers
# ---------------------------------------------------------------------------


def make_data(task, n=160, seed=0, nominal=True, missing=True, weights="floats"):
    """Mixed data: numeric columns with ties and NaN, nominal columns with None."""
    rng = np.random.default_rng(seed)
    columns = {
        "a": np.round(rng.normal(size=n), 1),  # about 40 distinct values: ties
        "b": rng.integers(0, 6, n).astype(float),  # 6 values: many ties
        "c": rng.normal(size=n),  # distinct values
    }
    if nominal:
        columns["d"] = rng.choice(["p", "q", "r", "s", "t"], n).astype(object)
        columns["e"] = rng.choice(["u", "v"], n).astype(object)
    frame = pd.DataFrame(columns)
    if missing:
        for name in frame.columns:
            holes = rng.random(n) < 0.1
            frame.loc[holes, name] = None if frame[name].dtype == object else np.nan
    signal = (
        (frame["a"].fillna(0) > 0.2).astype(float)
        + 0.8 * (frame["b"].fillna(2) >= 3)
        + (frame["d"].isin(["p", "s"]) if nominal else 0)
    )
    if task == "regression":
        y = signal + rng.normal(0.0, 0.5, n)
        n_classes = 0
    else:
        n_classes = 2 if task == "binary" else 3
        noisy = signal + rng.normal(0.0, 0.7, n)
        y = np.clip(np.floor(noisy * n_classes / 3.0), 0, n_classes - 1).astype(np.int64)
    if weights == "ones":
        w = np.ones(n)
    elif weights == "integers":
        w = rng.integers(1, 4, n).astype(float)
    else:
        w = rng.uniform(0.2, 2.0, n)
    return frame, y, w, n_classes


def grow(frame, y, w, n_classes, seed=0, **spec):
    dataset = build_dataset(frame)
    criterion = spec.pop("criterion", "gini" if n_classes else "squared_error")
    spec = CART.replace(criterion=criterion, **spec)
    tree = Grower(dataset, y, w, n_classes, spec, np.random.default_rng(seed)).grow()
    return dataset, tree, spec


def route_rows(tree, dataset):
    """The training rows of every node, by sending each row down by its codes."""
    rows_of = [None] * tree.node_count
    rows_of[0] = np.arange(dataset.n_samples)
    for node in range(tree.node_count):
        if tree.kind[node] not in (NODE_THRESHOLD, NODE_SUBSET):
            continue
        rows = rows_of[node]
        f = tree.feature[node]
        codes = dataset.codes[rows, f].astype(np.int64)
        missing = codes == dataset.n_codes[f]
        child = np.full(rows.shape[0], tree.missing_child[node])
        known = ~missing
        if tree.kind[node] == NODE_THRESHOLD:
            values = dataset.numeric_values[f][codes[known]]
            child[known] = np.where(values <= tree.threshold[node], 0, 1)
        else:
            cats = tree.category_child[tree.category_ptr[node] : tree.category_ptr[node + 1]]
            mapped = cats[codes[known]]
            assert np.all(mapped != NO_CHILD), "a training row reached an unseen category"
            child[known] = mapped
        for k, c in enumerate(tree.children_of(node)):
            rows_of[c] = rows[child == k]
    return rows_of


def criterion_name(spec):
    return spec.criterion


def check_tree(dataset, tree, spec, y, w, n_classes, check_leaves=True):
    """Statistics, optimal splits and stop rules of every node (see the module docstring)."""
    rows_of = route_rows(tree, dataset)
    crit = criterion_name(spec)
    total_weight = w.sum()
    n_split = 0
    for node, rows in enumerate(rows_of):
        y_node, w_node = y[rows], w[rows]
        weight = w_node.sum()
        # Recorded statistics are those of the node's rows.
        assert tree.n_samples[node] == rows.shape[0]
        assert tree.weight[node] == pytest.approx(weight, rel=1e-12)
        impurity = naive_cost(y_node, w_node, crit, n_classes) / weight
        assert tree.impurity[node] == pytest.approx(impurity, rel=1e-9, abs=1e-12)
        if n_classes:
            expected = np.bincount(y_node, weights=w_node, minlength=n_classes)
            np.testing.assert_allclose(tree.value[node], expected, rtol=1e-12)
        else:
            assert tree.value[node, 0] == pytest.approx((w_node * y_node).sum() / weight)
        depth = tree.node_depth[node]
        allowed = not (
            (spec.max_depth is not None and depth >= spec.max_depth)
            or rows.shape[0] < spec.min_samples_split
            or rows.shape[0] < 2 * spec.min_samples_leaf
            or weight < 2 * spec.min_weight_leaf
            or tree.impurity[node] <= EPS
        )
        best, _ = (
            brute_force_best_split(
                dataset.codes,
                dataset.n_codes,
                dataset.is_nominal,
                y,
                w,
                rows,
                crit,
                n_classes,
                min_count=spec.min_samples_leaf,
                min_weight=spec.min_weight_leaf,
            )
            if allowed
            else (-np.inf, None)
        )
        scale = max(1.0, naive_cost(y_node, w_node, crit, n_classes))
        if tree.is_leaf[node]:
            if check_leaves and allowed:
                # Nothing admissible was left unsplit.
                assert best == -np.inf or best / total_weight + EPS < spec.min_impurity_decrease, (
                    node,
                    best,
                )
            continue
        n_split += 1
        assert allowed, f"node {node} was split although a stop rule forbids it"
        kids = tree.children_of(node)
        left = np.isin(rows, rows_of[kids[0]])
        for k in kids:
            assert rows_of[k].shape[0] >= spec.min_samples_leaf
            assert w[rows_of[k]].sum() >= spec.min_weight_leaf
        gain = naive_split_gain(y_node, w_node, left, crit, n_classes)
        assert gain == pytest.approx(best, rel=1e-9, abs=1e-9 * scale), (node, gain, best)
        assert gain / total_weight + EPS >= spec.min_impurity_decrease
    return n_split


# ---------------------------------------------------------------------------
# Every split is the best; statistics are right; stop rules hold
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "criterion", "weights", "seed"),
    [
        ("binary", "gini", "ones", 0),
        ("binary", "entropy", "floats", 1),
        ("multiclass", "gini", "floats", 2),
        ("multiclass", "entropy", "integers", 3),
        ("regression", "squared_error", "ones", 4),
        ("regression", "squared_error", "floats", 5),
    ],
)
def test_every_split_is_the_brute_force_best(task, criterion, weights, seed):
    frame, y, w, n_classes = make_data(task, seed=seed, weights=weights)
    dataset, tree, spec = grow(frame, y, w, n_classes, criterion=criterion, max_depth=4)
    assert check_tree(dataset, tree, spec, y, w, n_classes) >= 5
    assert tree.max_depth <= 4


@pytest.mark.parametrize("task", ["binary", "multiclass", "regression"])
@pytest.mark.parametrize(
    "rules",
    [
        {"min_samples_leaf": 7},
        {"min_samples_split": 30},
        {"min_weight_leaf": 9.0},
        {"min_impurity_decrease": 0.01},
        {"max_depth": 2, "min_samples_leaf": 3},
    ],
    ids=[
        "min_samples_leaf",
        "min_samples_split",
        "min_weight_leaf",
        "min_impurity_decrease",
        "max_depth",
    ],
)
def test_stop_rules(task, rules):
    frame, y, w, n_classes = make_data(task, seed=11)
    dataset, tree, spec = grow(frame, y, w, n_classes, **rules)
    assert check_tree(dataset, tree, spec, y, w, n_classes) >= 2
    leaves = tree.is_leaf
    assert np.all(tree.n_samples[leaves] >= spec.min_samples_leaf)
    assert np.all(tree.weight[leaves] >= spec.min_weight_leaf)
    assert np.all(tree.n_samples[~leaves] >= spec.min_samples_split)
    if spec.max_depth is not None:
        assert tree.max_depth == spec.max_depth


def test_full_tree_without_duplicates_has_pure_or_single_row_leaves():
    frame, y, w, n_classes = make_data("multiclass", seed=6, missing=True)
    dataset, tree, spec = grow(frame, y, w, n_classes)
    check_tree(dataset, tree, spec, y, w, n_classes)
    leaves = tree.is_leaf
    # Every impure leaf holds rows no split can separate (identical codes).
    rows_of = route_rows(tree, dataset)
    for node in np.flatnonzero(leaves & (tree.impurity > EPS)):  # pure up to rounding
        codes = dataset.codes[rows_of[node]]
        assert np.all(codes == codes[0])


# ---------------------------------------------------------------------------
# max_leaf_nodes: best-first growth
# ---------------------------------------------------------------------------


def _internal_row_sets(tree, dataset):
    rows_of = route_rows(tree, dataset)
    return {tuple(rows_of[i]) for i in np.flatnonzero(~tree.is_leaf)}, rows_of


@pytest.mark.parametrize("task", ["binary", "regression"])
def test_max_leaf_nodes_grows_best_first(task):
    frame, y, w, n_classes = make_data(task, seed=21, nominal=False)
    crit = "gini" if n_classes else "squared_error"
    previous = set()
    small_tree = small_rows = None
    for k in range(2, 12):
        dataset, tree, spec = grow(frame, y, w, n_classes, max_leaf_nodes=k)
        assert tree.n_leaves == k
        check_tree(dataset, tree, spec, y, w, n_classes, check_leaves=False)
        internal, rows_of = _internal_row_sets(tree, dataset)
        # Growth is nested: the tree with k leaves is the one with k-1 plus one split...
        assert previous <= internal and len(internal) == len(previous) + 1
        added = (internal - previous).pop()
        if previous:
            # ...and that split has the largest gain among the leaves of the smaller tree.
            gains = {}
            for node in np.flatnonzero(small_tree.is_leaf):
                rows = small_rows[node]
                best, _ = brute_force_best_split(
                    dataset.codes,
                    dataset.n_codes,
                    dataset.is_nominal,
                    y,
                    w,
                    rows,
                    crit,
                    n_classes,
                )
                gains[tuple(rows)] = best
            assert gains[added] == pytest.approx(max(gains.values()), rel=1e-12)
        previous = internal
        small_tree, small_rows = tree, rows_of


def test_max_leaf_nodes_large_equals_unlimited_tree():
    frame, y, w, n_classes = make_data("binary", seed=8)
    _, full, _ = grow(frame, y, w, n_classes)
    _, capped, _ = grow(frame, y, w, n_classes, max_leaf_nodes=10_000)
    dataset = build_dataset(frame)
    assert full.n_leaves == capped.n_leaves
    assert _internal_row_sets(full, dataset)[0] == _internal_row_sets(capped, dataset)[0]


# ---------------------------------------------------------------------------
# Statistics paths (kept histograms with subtraction, built, sorted) give one tree
# ---------------------------------------------------------------------------

PATHS = {
    "default": {},
    "kept histograms, subtraction everywhere": {"STORE_MIN_ROWS": 1},
    "no kept histograms, sort every node": {"STORE_MIN_ROWS": 10**9, "HIST_RATIO": 0.0},
    "no kept histograms, histogram every node": {"STORE_MIN_ROWS": 10**9, "HIST_RATIO": 1e18},
    "pre-sorted rows for numeric features": {"STORE_MAX_BINS": 0, "HIST_RATIO": 0.0},
    "kept histograms for every feature": {"STORE_MAX_BINS": 10**6, "STORE_MIN_ROWS": 1},
}


def _tree_arrays(tree):
    names = (
        "feature",
        "kind",
        "threshold",
        "children",
        "category_child",
        "missing_child",
        "value",
        "n_samples",
        "weight",
        "impurity",
    )
    return {name: getattr(tree, name) for name in names}


@pytest.mark.parametrize("task", ["binary", "multiclass", "regression"])
def test_statistics_paths_grow_the_same_tree(task, monkeypatch):
    frame, y, w, n_classes = make_data(task, n=400, seed=13, weights="integers")
    if task == "regression":
        y = np.round(y * 4)  # integer targets: every sum is exact whatever the order
    reference = None
    for name, constants in PATHS.items():
        with monkeypatch.context() as patch:
            for constant, value in constants.items():
                patch.setattr(settings_module, constant, value)
            _, tree, _ = grow(frame, y, w, n_classes, min_samples_leaf=2)
        arrays = _tree_arrays(tree)
        if reference is None:
            reference = arrays
            assert tree.node_count > 30
            continue
        for key, array in arrays.items():
            np.testing.assert_array_equal(array, reference[key], err_msg=f"{name}: {key}")


def test_subtraction_path_is_optimal_on_a_large_node(monkeypatch):
    """Above STORE_MIN_ROWS the root keeps histograms and children get them by
    subtraction; the splits stay the brute-force best."""
    frame, y, w, n_classes = make_data("binary", n=1500, seed=3, weights="floats")
    dataset, tree, spec = grow(frame, y, w, n_classes, max_depth=2)
    assert dataset.n_samples >= settings_module.STORE_MIN_ROWS
    check_tree(dataset, tree, spec, y, w, n_classes)


# ---------------------------------------------------------------------------
# Determinism and max_features
# ---------------------------------------------------------------------------


def test_growth_is_deterministic():
    frame, y, w, n_classes = make_data("multiclass", seed=9)
    first = _tree_arrays(grow(frame, y, w, n_classes)[1])
    second = _tree_arrays(grow(frame, y, w, n_classes)[1])
    for key in first:
        np.testing.assert_array_equal(first[key], second[key])


def test_max_features_draws_depend_only_on_the_seed():
    frame, y, w, n_classes = make_data("binary", seed=10)
    a = _tree_arrays(grow(frame, y, w, n_classes, seed=1, max_features=2)[1])
    b = _tree_arrays(grow(frame, y, w, n_classes, seed=1, max_features=2)[1])
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    others = [grow(frame, y, w, n_classes, seed=s, max_features=2)[1] for s in range(2, 6)]
    assert any(
        t.node_count != len(a["feature"]) or not np.array_equal(t.feature, a["feature"])
        for t in others
    )


def test_max_features_split_is_best_among_drawn_features():
    """With max_features=1 each split is the best split of *some* single feature."""
    frame, y, w, n_classes = make_data("binary", seed=12, nominal=False)
    dataset, tree, _ = grow(frame, y, w, n_classes, seed=3, max_features=1, max_depth=3)
    rows_of = route_rows(tree, dataset)
    for node in np.flatnonzero(~tree.is_leaf):
        rows = rows_of[node]
        f = int(tree.feature[node])
        best, _ = brute_force_best_split(
            dataset.codes,
            dataset.n_codes,
            dataset.is_nominal,
            y,
            w,
            rows,
            "gini",
            2,
            features=[f],
        )
        left = np.isin(rows, rows_of[tree.children_of(node)[0]])
        gain = naive_split_gain(y[rows], w[rows], left, "gini", 2)
        assert gain == pytest.approx(best, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("n_classes", [0, 3])
def test_unit_weights_gather_only_targets_and_grow_the_weighted_tree(n_classes):
    """Rows all of weight 1 take the presorted scan that gathers only their targets
    (``sorted_scan``'s fourth entry); other weights gather theirs. With every
    weight 2 (each gain exactly twice) the tree splits the same nodes the same way."""
    rng = np.random.default_rng(8)
    n = 3000  # nodes above local mode's 1,024 rows, features with more codes than kept bins
    X = rng.normal(size=(n, 3))
    y = rng.integers(0, 3, n) if n_classes else X[:, 0] + rng.normal(scale=0.5, size=n)
    dataset = build_dataset(X)
    assert (dataset.n_codes + 1 > settings_module.STORE_MAX_BINS).all()
    spec = CART.replace(criterion="gini" if n_classes else "squared_error", max_depth=4)
    trees = []
    for weight, unit in ((np.ones(n), True), (np.full(n, 2.0), False)):
        grower = Grower(dataset, y, weight, n_classes, spec, np.random.default_rng(0))
        assert grower.sorted_scan[3] is unit
        trees.append(grower.grow())
    ones, twos = trees
    for name in ("feature", "threshold", "children", "n_samples"):
        np.testing.assert_array_equal(getattr(ones, name), getattr(twos, name), err_msg=name)
    np.testing.assert_array_equal(ones.weight * 2, twos.weight)


@pytest.mark.parametrize("n_threads", [1, 2])
def test_presorted_rows_are_the_encodings_sort(n_threads, monkeypatch):
    """Exact features of many codes take their rows in code order and their codes
    from the sort that made their codes (no counting sort, no copy; the dataset keeps
    none after the Grower took them): the rows and codes a counting sort gives, and
    the same tree."""
    # The encoding keeps orders for exactly the features the Grower presorts (more
    # codes than STORE_MAX_BINS - 1): one number, spelled in two layers.
    assert dataset_module.ROW_ORDER_MIN_CODES == settings_module.STORE_MAX_BINS
    rng = np.random.default_rng(6)
    n = 3000
    X = rng.normal(size=(n, 4))
    X[:, 1] = np.round(X[:, 1] * 100)  # (ties)
    X[rng.random(n) < 0.1, 2] = np.nan
    X[:, 3] = rng.integers(0, 4, n)  # (few codes: not presorted)
    y = (X[:, 0] + rng.normal(size=n) > 0).astype(np.int64)
    spec = CART.replace(criterion="gini", max_depth=6)

    def grower(dataset):
        return Grower(dataset, y, None, 2, spec, np.random.default_rng(0), n_threads)

    def counting_sorted(dataset):
        dataset.take_presorted()  # (none kept: the counting sort)
        made = grower(dataset)
        assert not made.presorted_by_encoding
        return made

    reference = counting_sorted(build_dataset(X))
    reference._sort_presorted_features()
    with numba_threads(n_threads):
        reference_tree = counting_sorted(build_dataset(X)).grow()

    def no_counting_sort(*args):
        raise AssertionError("counting sort")

    monkeypatch.setattr(partition_kernels, "counting_sort_columns", no_counting_sort)
    dataset = build_dataset(X)
    (presorted,) = dataset.presorted
    taken = grower(dataset)
    assert dataset.presorted == [] and taken.presorted_by_encoding
    np.testing.assert_array_equal(taken.sorted_features, [0, 1, 2])
    assert taken.sorted_rows is presorted.rows and taken.sorted_codes is presorted.codes
    taken._sort_presorted_features()
    np.testing.assert_array_equal(taken.sorted_rows, reference.sorted_rows)
    np.testing.assert_array_equal(taken.sorted_codes, reference.sorted_codes)
    with numba_threads(n_threads):
        tree = grower(build_dataset(X)).grow()
    for name in ("feature", "threshold", "children", "n_samples", "value"):
        np.testing.assert_array_equal(getattr(tree, name), getattr(reference_tree, name))


def test_no_counting_sort_without_presorted_features(monkeypatch):
    """Binned features are never presorted: the counting sort (a parallel kernel,
    which wakes numba's threads even with nothing to do) is not called."""

    def no_counting_sort(*args):
        raise AssertionError("counting sort")

    monkeypatch.setattr(partition_kernels, "counting_sort_columns", no_counting_sort)
    rng = np.random.default_rng(8)
    X = rng.normal(size=(500, 3))
    y = (X[:, 0] > 0).astype(np.int64)
    spec = CART.replace(criterion="gini", max_depth=4)
    grower = Grower(build_dataset(X, max_bins=32), y, None, 2, spec, np.random.default_rng(0), 2)
    assert grower.sorted_features.size == 0
    assert grower.grow().n_leaves > 1


def test_presorted_rows_of_other_features_are_not_taken():
    """A Grower that presorts other features than the encoding kept in code order (here
    none: absolute error sorts its nodes in its own kernel) lets them go and sorts
    its own; the dataset keeps none either way."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(600, 3))
    y = X[:, 0] + rng.normal(size=600)
    dataset = build_dataset(X)
    assert dataset.presorted != []
    spec = CART.replace(criterion="absolute_error", max_depth=3)
    grower = Grower(dataset, y, None, 0, spec, np.random.default_rng(0), 1)
    assert not grower.presorted_by_encoding and grower.sorted_rows.shape == (0, 600)
    assert dataset.presorted == []


def test_expected_work_counts_rows_features_and_levels_below_the_root():
    """Rows x searched features (a presorted one as PRESORTED_ROW_WORK binned ones) x
    levels less the root's, down to max_depth or a balanced tree's depth; a
    classification tree's times CLASSIFICATION_WORK_SHARE."""
    work = threaded_module.expected_work
    presorted = threaded_module.PRESORTED_ROW_WORK
    share = threaded_module.CLASSIFICATION_WORK_SHARE
    assert work(100_000, 4, 0, 10, 1, False) == 100_000 * 4 * 9
    assert work(100_000, 4, 0, 10, 1, True) == pytest.approx(100_000 * 4 * 9 * share)
    assert work(100_000, 1, 3, 10, 1, False) == 100_000 * (1 + 3 * presorted) * 9
    # Full depth: log2(rows / min_samples_leaf) levels; max_depth beyond it changes nothing.
    assert work(2**16, 2, 0, None, 1, False) == 2**16 * 2 * 15
    assert work(2**16, 2, 0, None, 2**4, False) == 2**16 * 2 * 11
    assert work(2**16, 2, 0, 40, 1, False) == work(2**16, 2, 0, None, 1, False)
    # A stump's one level still counts half.
    assert work(1000, 2, 0, 1, 1, False) == 1000 * 2 * 0.5


def _classification_grower(n_threads, max_depth, criterion="gini", n=30_000, **spec_changes):
    rng = np.random.default_rng(11)
    X = rng.normal(size=(n, 3)).astype(np.float32)
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(np.int64)
    if criterion != "gini":
        y = y.astype(np.float64)
    spec = CART.replace(criterion=criterion, max_depth=max_depth, **spec_changes)
    n_classes = 2 if criterion == "gini" else 0
    dataset = build_dataset(X, max_bins=255)
    return Grower(dataset, y, None, n_classes, spec, np.random.default_rng(0), n_threads)


def test_a_tree_grows_on_threads_only_when_its_expected_work_pays(monkeypatch):
    """From THREADS_MIN_WORK of expected work on, a Grower given two threads keeps them
    (large nodes searched on threads, subtrees grown on threads); below it it grows on
    one (no thread hand-off at all); the same tree either way."""
    calls = []
    original = threaded_module.map_on_threads

    def counted(work, items, n_threads):
        calls.append(n_threads)
        return original(work, items, n_threads)

    monkeypatch.setattr(threaded_module, "map_on_threads", counted)
    serial = _classification_grower(1, 6)
    work = threaded_module.expected_work(30_000, 3, 0, 6, 1, True)
    assert work < threaded_module.THREADS_MIN_WORK  # (30,000 x 3, depth 6: one thread)
    assert _classification_grower(2, 6).n_threads == 1
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", work)
    on_threads = _classification_grower(2, 6)
    assert on_threads.n_threads == 2
    with numba_threads(2):
        threaded_tree = on_threads.grow()
    assert calls and max(calls) == 2
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", np.nextafter(work, np.inf))
    calls.clear()
    on_one = _classification_grower(2, 6)
    assert on_one.n_threads == 1
    with numba_threads(2):
        one_tree = on_one.grow()
    assert calls == []
    serial_tree = serial.grow()
    for tree in (threaded_tree, one_tree):
        for name in ("feature", "threshold", "children", "n_samples", "value"):
            np.testing.assert_array_equal(getattr(tree, name), getattr(serial_tree, name))


def test_absolute_error_keeps_its_threads_whatever_the_expected_work(monkeypatch):
    """Absolute error sorts every node's rows: not measured against the bound."""
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", np.inf)
    assert _classification_grower(2, 2, criterion="absolute_error", n=2000).n_threads == 2
    assert _classification_grower(2, 2, n=2000).n_threads == 1


def test_drawn_features_count_as_searched_ones_in_the_expected_work(monkeypatch):
    """With max_features drawn at each node, only that many features count."""
    work = threaded_module.expected_work(30_000, 1, 0, 6, 1, True)
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", work)
    assert _classification_grower(2, 6, max_features=1).n_threads == 2
    monkeypatch.setattr(threaded_module, "THREADS_MIN_WORK", np.nextafter(work, np.inf))
    assert _classification_grower(2, 6, max_features=1).n_threads == 1
    assert _classification_grower(2, 6).n_threads == 2  # (all three features searched)


@pytest.mark.parametrize("algorithm", ["cart", "c4.5"])
def test_tables_under_numba_loop_min_rows_grow_by_the_python_loop(algorithm, monkeypatch):
    """A table of fewer than NUMBA_LOOP_MIN_ROWS rows grows by the Python loop (no
    numba loop runs, so none is compiled or loaded), one of that many by the numba
    loop; the small table's tree is the one the numba loop grows."""
    from treelearn import C45Classifier, CARTClassifier
    from treelearn.growing import _c45_kernels as c45_kernels
    from treelearn.growing import _loop_kernels as loop_kernels

    module, name = (
        (loop_kernels, "grow_depth_first") if algorithm == "cart" else (c45_kernels, "grow_c45")
    )
    kernel = getattr(module, name)
    calls = []
    monkeypatch.setattr(module, name, lambda *args: calls.append(1) or kernel(*args))

    def fit(n):
        X, y, _, _ = make_data("binary", n=n, seed=3)
        if algorithm == "cart":
            return CARTClassifier(n_jobs=1).fit(X, y)
        return C45Classifier(pruning=None, collapse=False).fit(X, y)

    bound = settings_module.NUMBA_LOOP_MIN_ROWS
    assert bound == 32
    python_loop = fit(bound - 1)
    assert calls == []
    fit(bound)
    assert calls == [1]
    monkeypatch.setattr(settings_module, "NUMBA_LOOP_MIN_ROWS", 0)
    numba_loop = fit(bound - 1)
    assert calls == [1, 1]
    assert python_loop.tree_.n_leaves > 2
    for array in ("feature", "threshold", "children", "missing_child", "value", "weight"):
        np.testing.assert_array_equal(
            getattr(python_loop.tree_, array), getattr(numba_loop.tree_, array), strict=True
        )


def _kernels_reading_codes():
    """Every numba kernel of treelearn that takes the code matrix: a ``feature_codes``
    parameter, or ``data`` (the growing loop's tuple, codes first); with the position."""
    from _package import treelearn_modules

    found = {}
    for module in treelearn_modules():
        for kernel in vars(module).values():
            py_func = getattr(kernel, "py_func", None)
            if py_func is None or not hasattr(kernel, "signatures"):
                continue
            parameters = list(inspect.signature(py_func).parameters)
            for name in ("feature_codes", "data"):
                if name in parameters:
                    found[kernel] = (name, parameters.index(name))
    assert len(found) > 20  # (the search must see them: the histograms, splits, loops)
    return found


def _codes_type(signature, name, position):
    argument = signature[position]
    return argument if name == "feature_codes" else argument[0]


@pytest.mark.parametrize(
    ("estimator", "params"),
    [
        ("CARTClassifier", {}),
        ("CARTClassifier", {"max_bins": None}),
        ("CARTRegressor", {"missing": "surrogate"}),
        ("CARTRegressor", {"criterion": "absolute_error"}),
        ("C45Classifier", {}),
    ],
)
def test_one_feature_tables_take_the_wider_tables_compilations(estimator, params):
    """The kernels read the codes feature by feature (the code matrix transposed:
    C-contiguous whatever its width). An (n, 1) matrix is both C- and F-contiguous and
    numba would type it apart from wider (Fortran) ones, compiling the growing loop and
    the split search once more for a user's first one-feature table (a minute and
    more): a one-feature fit compiles no kernel that reads codes which a wider fit of
    the same types did not."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 3))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.normal(scale=0.5, size=400) > 0).astype(np.int64)
    if estimator.endswith("Regressor"):
        y = y + rng.normal(size=400)
    make = getattr(treelearn, estimator)
    kernels = _kernels_reading_codes()
    # (Only the signatures this test's fits compile: another test may call a kernel with
    # a matrix of its own.)
    earlier = {kernel: set(kernel.signatures) for kernel in kernels}
    for rows in (400, 20):  # the numba loop and the Python loop
        make(**params).fit(X[:rows], y[:rows])
        before = {kernel: len(kernel.signatures) for kernel in kernels}
        make(**params).fit(X[:rows, :1], y[:rows])
        after = {kernel: len(kernel.signatures) for kernel in kernels}
        added = [kernel.py_func.__name__ for kernel in kernels if after[kernel] != before[kernel]]
        assert added == []
    for kernel, (name, position) in kernels.items():
        for signature in set(kernel.signatures) - earlier[kernel]:
            codes = _codes_type(signature, name, position)
            assert (codes.ndim, codes.layout) == (2, "C"), (kernel.py_func.__name__, signature)
