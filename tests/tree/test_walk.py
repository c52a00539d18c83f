"""The compact walk of predict and apply (``treelearn.tree._traverse._walk_block``)
against the Python walk of the Tree's arrays (``_oracles.apply_oracle``).

Random trees mix every kind of node (thresholds with missing values left, right
or by weight, nominal subsets and multiway maps with unseen categories,
surrogates), on float64 and float32 input, on one thread and on several; fitted
estimators of every algorithm check ``apply``/``predict`` end to end, on numpy
arrays and DataFrames.
"""

import dataclasses
import pickle

import numba
import numpy as np
import pandas as pd
import pytest
from _oracles import apply_oracle

from treelearn import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from treelearn._dtypes import MISSING_BY_WEIGHT, NO_CHILD, NODE_MULTIWAY, NODE_SUBSET
from treelearn._dtypes import NODE_THRESHOLD as THRESHOLD
from treelearn.exceptions import DataError
from treelearn.tree import TreeBuilder, _traverse
from treelearn.tree._traverse import BLOCK_ROWS
from treelearn.tree.structure import float32_floor

N_NUMERIC = 4
N_CATEGORIES = (3, 5)  # the nominal features, after the numeric ones
#: Numeric values the random trees cut between (and their float32 neighbours).
GRID = np.array([-2.5, -1.0, -0.1, 0.0, 0.1, 0.3, 1.0, 1.7, 2.5, 1e6])


def _threshold(rng):
    """A float64 threshold: mostly midpoints that float32 cannot hold, some exact
    grid values, some just off a float32 value, and the occasional +inf."""
    a = float(rng.choice(GRID))
    pick = rng.integers(6)
    if pick == 0:
        return np.inf
    if pick == 1:
        return a
    f32 = np.float32(a)
    if pick == 2:  # a hair above or below a float32 value
        return float(np.nextafter(np.float64(f32), np.inf if rng.random() < 0.5 else -np.inf))
    neighbour = np.nextafter(f32, np.float32(np.inf if rng.random() < 0.5 else -np.inf))
    return float(f32) / 2.0 + float(neighbour) / 2.0


def _surrogates(rng, feature):
    """Zero to two surrogate splits on other features."""
    out = []
    for _ in range(rng.integers(3)):
        f = int(rng.integers(N_NUMERIC + len(N_CATEGORIES)))
        if f == feature:
            continue
        if f < N_NUMERIC:
            t = float(rng.choice(GRID))
            out.append((f, THRESHOLD, t, int(rng.integers(2)), (), 0.6, 0.5))
        else:
            cats = rng.choice([0, 1, NO_CHILD], N_CATEGORIES[f - N_NUMERIC])
            out.append((f, NODE_SUBSET, np.nan, 0, cats, 0.6, 0.5))
    return out


def random_tree(seed, max_nodes=80, surrogates=True):
    """A random valid Tree over 4 numeric and 2 nominal features (3 classes)."""
    rng = np.random.default_rng(seed)
    b = TreeBuilder(n_features=N_NUMERIC + len(N_CATEGORIES), n_classes=3)
    root = b.add_node(rng.integers(0, 5, 3), 1000, 1000.0, 0.5)
    frontier = [(root, 1000, 0)]
    while frontier and b.node_count < max_nodes:
        node, n, depth = frontier.pop(int(rng.integers(len(frontier))))
        if n < 4 or depth > 12 or rng.random() < 0.15:
            continue
        feature = int(rng.integers(N_NUMERIC + len(N_CATEGORIES)))
        if feature < N_NUMERIC:
            kind, k = THRESHOLD, 2
        else:
            n_cats = N_CATEGORIES[feature - N_NUMERIC]
            kind = NODE_SUBSET if rng.random() < 0.5 else NODE_MULTIWAY
            k = 2 if kind == NODE_SUBSET else int(rng.integers(2, n_cats + 1))
        cuts = np.sort(rng.integers(0, n + 1, k - 1))
        sizes = np.diff(np.concatenate([[0], cuts, [n]]))
        kids = [b.add_node(rng.integers(0, 5, 3), s, float(s), 0.3) for s in sizes]
        missing = int(rng.integers(k)) if rng.random() < 0.8 else MISSING_BY_WEIGHT
        extra = {}
        if kind == THRESHOLD:
            extra["threshold"] = _threshold(rng)
        else:
            cats = rng.integers(0, k, n_cats)
            cats[rng.random(n_cats) < 0.2] = NO_CHILD
            extra["category_child"] = cats
        binary = kind != NODE_MULTIWAY
        if surrogates and binary and missing != MISSING_BY_WEIGHT and rng.random() < 0.3:
            extra["surrogates"] = _surrogates(rng, feature)
        b.set_split(node, feature, kind, kids, missing, **extra)
        frontier.extend((kid, s, depth + 1) for kid, s in zip(kids, sizes, strict=True))
    return b.build()


def random_matrix(seed, n_rows):
    """Prediction matrices: numeric values on and around the grid (and NaN, +-inf),
    category codes in range, out of range, fractional and missing."""
    rng = np.random.default_rng(seed)
    base = rng.choice(GRID, (n_rows, N_NUMERIC))
    wiggle = rng.integers(-1, 2, base.shape)
    towards = np.where(wiggle > 0, np.float32(np.inf), np.float32(-np.inf))
    nudged = np.nextafter(base.astype(np.float32), towards).astype(np.float64)
    numeric = np.where(wiggle == 0, base, nudged)
    numeric[rng.random(numeric.shape) < 0.1] = np.nan
    numeric[rng.random(numeric.shape) < 0.02] = np.inf
    numeric[rng.random(numeric.shape) < 0.02] = -np.inf
    columns = [numeric]
    for n_cats in N_CATEGORIES:
        codes = rng.integers(-1, n_cats + 2, n_rows).astype(np.float64)
        codes[rng.random(n_rows) < 0.1] = np.nan
        codes[rng.random(n_rows) < 0.05] += 0.5
        columns.append(codes[:, None])
    return np.hstack(columns)


@pytest.fixture
def two_threads():
    """numba on two threads (or as many as it has), restored afterwards."""
    previous = numba.get_num_threads()
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    yield
    numba.set_num_threads(previous)


@pytest.mark.parametrize("seed", range(30))
def test_random_trees_walk_as_the_oracle(seed):
    tree = random_tree(seed)
    X = random_matrix(seed, 301)  # not a multiple of 8: the last group repeats a row
    expected = apply_oracle(tree, X)
    np.testing.assert_array_equal(tree.apply(X), expected)
    # float32 input compares with float32 thresholds rounded down: the same leaves
    # as the float64 thresholds give to the same (exactly widened) values.
    X32 = X.astype(np.float32)
    np.testing.assert_array_equal(tree.apply(X32), apply_oracle(tree, X32.astype(np.float64)))
    # Non-contiguous input is copied, not misread.
    np.testing.assert_array_equal(tree.apply(np.asfortranarray(X)), expected)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_parallel_walk_is_the_serial_walk(seed, two_threads):
    tree = random_tree(seed, max_nodes=200)
    X = random_matrix(seed, 3 * BLOCK_ROWS + 5)  # several blocks
    parallel = tree.apply(X)
    numba.set_num_threads(1)
    np.testing.assert_array_equal(parallel, tree.apply(X))
    np.testing.assert_array_equal(parallel[:500], apply_oracle(tree, X[:500]))


def test_payloads_and_infinite_check():
    tree = random_tree(7, surrogates=False)
    X = random_matrix(7, 101)
    leaves = apply_oracle(tree, X)
    classes, bad = tree._walk(X, tree._payload("class"))
    assert bad == -1
    np.testing.assert_array_equal(classes, np.argmax(tree.value, axis=1)[leaves])
    values, _ = tree._walk(X, tree._payload("value"))
    np.testing.assert_array_equal(values, tree.value[leaves, 0])
    finite = np.nan_to_num(X, nan=np.nan, posinf=0.5, neginf=-0.5)
    assert tree._walk(finite, tree._payload("node"), check_finite=True)[1] == -1
    finite[37, 2] = -np.inf
    assert tree._walk(finite, tree._payload("node"), check_finite=True)[1] == 37
    # The first of several, wherever the groups of eight rows walked together fall.
    finite[90, 0] = np.inf
    assert tree._walk(finite, tree._payload("node"), check_finite=True)[1] == 37
    finite[37, 2] = 0.0
    assert tree._walk(finite, tree._payload("node"), check_finite=True)[1] == 90
    finite[90, 0] = 0.0
    finite[100, 3] = np.inf  # (the last group holds one row)
    assert tree._walk(finite, tree._payload("node"), check_finite=True)[1] == 100


def test_infinite_check_on_threads_finds_the_first_row(two_threads):
    tree = random_tree(7, surrogates=False)
    X = np.nan_to_num(random_matrix(7, 3 * BLOCK_ROWS + 5), nan=np.nan, posinf=0.5, neginf=-0.5)
    X[2 * BLOCK_ROWS + 3, 1] = np.inf
    X[3 * BLOCK_ROWS + 4, 0] = -np.inf  # (the last block)
    X[BLOCK_ROWS + 9, 2] = np.inf
    assert tree._walk(X, tree._payload("node"), check_finite=True)[1] == BLOCK_ROWS + 9
    numba.set_num_threads(1)
    assert tree._walk(X, tree._payload("node"), check_finite=True)[1] == BLOCK_ROWS + 9


def test_lone_leaf_and_tiny_inputs():
    b = TreeBuilder(n_features=2, n_classes=0)
    b.add_node([3.5], 5, 5.0, 1.25)
    tree = b.build()
    for n in (0, 1, 7, 9):
        np.testing.assert_array_equal(tree.apply(np.zeros((n, 2), np.float32)), np.zeros(n))
    X = np.ones((5, 2))
    X[3, 1] = np.inf
    assert tree._walk(X, tree._payload("value"), check_finite=True)[1] == 3
    with pytest.raises(ValueError, match="2D rows of 2 features"):
        tree.apply(np.zeros((3, 1)))
    tree = random_tree(3)
    X = random_matrix(3, 9)
    for n in range(1, 10):
        np.testing.assert_array_equal(tree.apply(X[:n]), apply_oracle(tree, X[:n]))


def test_float32_floor_keeps_every_comparison():
    rng = np.random.default_rng(0)
    f32 = np.finfo(np.float32)
    t = np.concatenate(
        [
            rng.normal(size=2000) * 10.0 ** rng.integers(-40, 40, 2000),
            [0.0, -0.0, np.inf, -np.inf, 1e39, -1e39, f32.max, f32.smallest_subnormal],
            [float(f32.max) * (1 + 2**-30), 1.5e-45, 0.7e-45, -0.7e-45, 0.1, 1 / 3],
        ]
    )
    floor = float32_floor(t)
    assert floor.dtype == np.float32
    assert np.all(floor.astype(np.float64) <= t)
    # The neighbours of each threshold in float32, and the special values.
    with np.errstate(over="ignore"):
        near = t.astype(np.float32)
        candidates = np.concatenate(
            [
                near,
                np.nextafter(near, np.float32(np.inf)),
                np.nextafter(near, np.float32(-np.inf)),
                floor,
                np.nextafter(floor, np.float32(np.inf)),
                np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32),
            ]
        )
    with np.errstate(invalid="ignore"):
        for x in np.unique(candidates):
            assert np.array_equal(x <= t, x <= floor)
            assert np.array_equal(x > t, x > floor)
    assert np.isnan(float32_floor(np.array([np.nan]))[0])


def test_pickle_leaves_the_caches_behind():
    tree = random_tree(5)
    X = random_matrix(5, 50)
    leaves = tree.apply(X)
    tree.apply(X.astype(np.float32))
    copy = pickle.loads(pickle.dumps(tree))
    assert not {"_layout", "_records32", "_records64", "_payloads"} & set(copy.__dict__)
    np.testing.assert_array_equal(copy.apply(X), leaves)


# ---------------------------------------------------------------------------
# Fitted estimators, end to end
# ---------------------------------------------------------------------------


def _numeric_data(n=600, seed=0, holes=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(np.int64) + (X[:, 3] > 1)
    X[rng.random(X.shape) < holes] = np.nan
    return X, y


def _mixed_frame(n=500, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "colour": pd.Categorical(rng.choice(["red", "green", "blue", "grey"], n)),
            "b": rng.integers(0, 20, n).astype(np.float32),
            "shape": rng.choice(["round", "long", "flat"], n).astype(object),
        }
    )
    y = np.where((frame.a > 0) ^ (frame.colour == "red") | (frame.b > 15), "yes", "no")
    frame = frame.mask(rng.random(frame.shape) < 0.1)
    return frame, y


def _check_walks(model, X):
    matrix = model._prediction_matrix(X)
    leaves = apply_oracle(model.tree_, matrix)
    np.testing.assert_array_equal(model.apply(X), leaves)
    if hasattr(model, "classes_"):
        if not model.tree_.splits_missing_by_weight:
            expected = model.classes_[np.argmax(model.tree_.value, axis=1)[leaves]]
            np.testing.assert_array_equal(model.predict(X), expected)
        np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)
    else:
        np.testing.assert_array_equal(model.predict(X), model.tree_.value[leaves, 0])


@pytest.mark.parametrize("max_bins", [255, 7, None])
@pytest.mark.parametrize("missing", ["learn", "surrogate"])
def test_cart_on_numbers_with_missing_values(max_bins, missing):
    X, y = _numeric_data()
    for model in (
        CARTClassifier(max_bins=max_bins, missing=missing).fit(X, y),
        CARTRegressor(max_bins=max_bins, missing=missing).fit(X, y + np.nan_to_num(X[:, 0])),
    ):
        probe, _ = _numeric_data(seed=1, holes=0.2)
        for data in (probe, probe.astype(np.float64), pd.DataFrame(probe)):
            _check_walks(model, data)


@pytest.mark.parametrize("missing", ["learn", "surrogate"])
def test_cart_on_categories(missing):
    frame, y = _mixed_frame()
    model = CARTClassifier(missing=missing, min_samples_leaf=3).fit(frame, y)
    assert (model.tree_.kind == NODE_SUBSET).any()
    probe, _ = _mixed_frame(seed=1)
    _check_walks(model, probe)
    regressor = CARTRegressor(missing=missing).fit(frame, np.arange(len(y)) % 7)
    _check_walks(regressor, probe)


def test_id3_multiway_and_c45_by_weight():
    frame, y = _mixed_frame()
    nominal = frame[["colour", "shape"]].astype(object).fillna("none")
    id3 = ID3Classifier().fit(nominal, y)
    assert (id3.tree_.kind == NODE_MULTIWAY).any()
    _check_walks(id3, nominal.iloc[::-1])
    c45 = C45Classifier(min_samples_leaf=1).fit(frame, y)
    assert c45.tree_.splits_missing_by_weight
    probe, _ = _mixed_frame(seed=2)
    _check_walks(c45, probe)  # apply: the heaviest branch at by-weight nodes
    proba = c45.predict_proba(probe)
    np.testing.assert_array_equal(c45.predict(probe), c45.classes_[proba.argmax(axis=1)])


def test_class_labels_of_any_dtype():
    X, y = _numeric_data(holes=0.0)
    strings = np.array(["a", "b", "c"])[y]
    for labels in (y, y + 5, y.astype(np.int32), y.astype(np.float64), y > 0, strings):
        model = CARTClassifier(max_depth=4).fit(X, labels)
        predicted = model.predict(X)
        assert predicted.dtype == model.classes_.dtype
        leaves = apply_oracle(model.tree_, X)
        np.testing.assert_array_equal(
            predicted, model.classes_[np.argmax(model.tree_.value, axis=1)[leaves]]
        )


def test_float_frames_are_read_as_they_are():
    X, y = _numeric_data(holes=0.1)
    names = [f"f{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=names)
    model = CARTClassifier().fit(frame, y)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        expected = model.predict(X.astype(np.float64))  # by position
    shuffled = frame[names[::-1]]
    np.testing.assert_array_equal(model.predict(shuffled), expected)
    mixed = frame.astype({"f1": np.float64})
    np.testing.assert_array_equal(model.predict(mixed), expected)
    integers = frame.fillna(0).astype({"f2": np.int64})
    np.testing.assert_array_equal(
        model.predict(integers), model.predict(integers.astype(np.float64))
    )
    nullable = frame.astype({"f3": "Float64"})
    np.testing.assert_array_equal(model.predict(nullable), expected)
    np.testing.assert_array_equal(model.apply(shuffled), apply_oracle(model.tree_, X))


def test_writable_and_read_only_inputs_share_the_walks_compilation():
    """numba compiles a kernel apart for a read-only array, and prediction meets both
    (a float DataFrame's ``to_numpy()`` is read-only under copy-on-write): the walks
    read every matrix as a read-only view, so each is compiled once for both, and the
    caller's array keeps its flags."""
    X, y = _numeric_data(holes=0.1)
    model = CARTClassifier(n_jobs=1).fit(X, y)
    read_only = X.copy()
    read_only.flags.writeable = False
    expected = model.predict(X)
    np.testing.assert_array_equal(model.predict(read_only), expected)
    np.testing.assert_array_equal(model.predict(pd.DataFrame(X)), expected)
    assert (model.decision_path(X) != model.decision_path(read_only)).nnz == 0
    assert X.flags.writeable and not read_only.flags.writeable
    for kernel in (_traverse.walk_rows, _traverse.walk_rows_parallel, _traverse.path_nodes):
        for signature in kernel.signatures:
            assert not signature[0].mutable, (kernel, signature)


def test_a_loaded_tree_shares_the_walks_compilation(tmp_path):
    """A grown Tree's arrays are read-only; unpickled ones are writable (or read-only
    where joblib maps them from a file, and then only the large ones), and numba
    compiles the walks apart for each. A loaded Tree makes its arrays read-only again:
    it predicts as the grown one through the same compilation of every walk."""
    joblib = pytest.importorskip("joblib")
    X, y = _numeric_data(n=3000, holes=0.1)
    models = [C45Classifier().fit(X, y), CARTClassifier(missing="surrogate").fit(X, y)]
    walks = (
        _traverse.walk_rows,
        _traverse.walk_rows_parallel,
        _traverse.path_nodes,
        _traverse.weighted_leaf_values,
        _traverse.depth_first_layout,
    )
    for model in models:
        model.predict(X)
        model.predict_proba(X)
        model.decision_path(X)
    grown = {kernel: set(kernel.signatures) for kernel in walks}
    for model in models:
        joblib.dump(model, tmp_path / "model.joblib")
        mapped = joblib.load(tmp_path / "model.joblib", mmap_mode="r")
        assert isinstance(mapped.tree_.threshold, np.memmap)  # (a real memory map)
        for loaded in (pickle.loads(pickle.dumps(model)), mapped):
            for field in dataclasses.fields(loaded.tree_):  # (its arrays, not its caches)
                value = getattr(loaded.tree_, field.name)
                assert not isinstance(value, np.ndarray) or not value.flags.writeable, field.name
            np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
            np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
            assert (loaded.decision_path(X) != model.decision_path(X)).nnz == 0
    # (Compared with the grown models' signatures, not all of the process's: another
    # test may call a walk with arrays of its own.)
    assert {kernel: set(kernel.signatures) for kernel in walks} == grown


@pytest.mark.parametrize("method", ["predict", "apply", "predict_proba"])
def test_infinite_values_name_the_column(method):
    X, y = _numeric_data(holes=0.0, n=200)
    model = CARTClassifier().fit(X, y)
    leaf = CARTRegressor().fit(X, np.ones(len(y)))  # a lone leaf
    X[150, 3] = np.inf
    with pytest.raises(DataError, match=r"Column 'x3' has infinite values at rows \[150\]"):
        getattr(model, method)(X)
    if method != "predict_proba":
        with pytest.raises(DataError, match=r"Column 'x3' has infinite values"):
            getattr(leaf, method)(X)
    frame = pd.DataFrame(X, columns=list("abcde"))
    named = CARTClassifier().fit(frame.iloc[:100], y[:100])
    with pytest.raises(DataError, match=r"Column 'd' has infinite values at rows \[150\]"):
        getattr(named, method)(frame)


def test_n_jobs_sets_the_threads_of_prediction_only_for_the_call(two_threads):
    X, y = _numeric_data(n=3 * BLOCK_ROWS, holes=0.05)
    model = CARTRegressor(max_depth=12).fit(X, np.nan_to_num(X[:, 0]) + y)
    before = numba.get_num_threads()
    predictions = {}
    for n_jobs in (None, 1, 2, -1):
        predictions[n_jobs] = model.set_params(n_jobs=n_jobs).predict(X)
        assert numba.get_num_threads() == before
    for n_jobs in (1, 2, -1):
        np.testing.assert_array_equal(predictions[n_jobs], predictions[None])
