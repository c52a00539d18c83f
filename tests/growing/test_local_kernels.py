"""Local mode's partitions, each against a numpy reference.

The whole-tree tests of ``test_loop_kernels.py`` cannot see every fault of
these kernels: rows of one code summed in another order change a gain in its
last bit at most, which rarely changes a tree. So each partition is checked
here directly: stable, every row moved with its key into the other copy, the
node's copy and the other copy's rows outside the node untouched, and (for the
one-sided partitions) the kept child's run exact. So is the search of a node of
two rows, which stops early where the features come in index order.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treelearn.criteria._kernels import SQUARED_ERROR, weighted_impurity
from treelearn.growing import _local_kernels as local_kernels
from treelearn.splitting._cut_kernels import N_CUT_ROWS, N_OUT, OUT_FEATURE, OUT_GAIN

SETTINGS = settings(max_examples=100, deadline=None)


@st.composite
def local_runs(draw):
    """Code-ordered runs of ``n_features`` features over ``m`` local rows: the node's
    rows at ``[a, b)`` of every feature's run (in that feature's code order, ties by
    row), the other rows around them; and each row's side."""
    m = draw(st.integers(1, 80))
    n_features = draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    codes = rng.integers(0, draw(st.integers(1, 20)), (n_features, m)).astype(np.uint8)
    a = draw(st.integers(0, m - 1))
    b = draw(st.integers(a + 1, m))
    shuffled = rng.permutation(m)
    node, others = np.sort(shuffled[: b - a]), shuffled[b - a :]
    order = np.empty((n_features, m), dtype=np.int32)
    for f in range(n_features):
        order[f, :a] = others[:a]
        order[f, a:b] = node[np.argsort(codes[f, node], kind="stable")]
        order[f, b:] = others[a:]
    keys = np.take_along_axis(codes, order, axis=1)
    goes_left = rng.random(m) < draw(st.floats(0.0, 1.0))
    return order, keys, a, b, goes_left


def _expected_runs(order, keys, a, b, goes_left):
    """Each feature's node run split stably: the left rows, then the right ones."""
    run_order = order[:, a:b]
    run_keys = keys[:, a:b]
    left = goes_left[run_order]
    n_left = int(left[0].sum())
    lefts = [(o[s], k[s]) for o, k, s in zip(run_order, run_keys, left, strict=True)]
    rights = [(o[~s], k[~s]) for o, k, s in zip(run_order, run_keys, left, strict=True)]
    return n_left, lefts, rights


def _two_copies(order, keys, source):
    """``(local_order, local_keys)`` of two copies: ``order`` and ``keys`` in copy
    ``source``, other numbers in the other copy (which the kernels write into)."""
    rng = np.random.default_rng(order.size)
    two_orders = rng.integers(0, 1000, (2, *order.shape)).astype(np.int32)
    two_keys = rng.integers(0, 255, (2, *keys.shape)).astype(np.uint8)
    two_orders[source] = order
    two_keys[source] = keys
    return two_orders, two_keys


def _assert_only_the_node_written(new, old, source, a, b):
    """Copy ``source`` as it was; the other copy as it was outside ``[a, b)``."""
    np.testing.assert_array_equal(new[source], old[source])
    np.testing.assert_array_equal(new[1 - source, :, :a], old[1 - source, :, :a])
    np.testing.assert_array_equal(new[1 - source, :, b:], old[1 - source, :, b:])


@SETTINGS
@given(runs=local_runs(), source=st.integers(0, 1))
def test_partition_orders_is_a_stable_split_of_every_run(runs, source):
    order, keys, a, b, goes_left = runs
    n_left, lefts, rights = _expected_runs(order, keys, a, b, goes_left)
    two_orders, two_keys = _two_copies(order, keys, source)
    new_orders, new_keys = two_orders.copy(), two_keys.copy()
    local_kernels._partition_orders(new_orders, new_keys, source, a, a + n_left, b, goes_left)
    target = 1 - source
    for f in range(order.shape[0]):
        np.testing.assert_array_equal(new_orders[target, f, a : a + n_left], lefts[f][0])
        np.testing.assert_array_equal(new_keys[target, f, a : a + n_left], lefts[f][1])
        np.testing.assert_array_equal(new_orders[target, f, a + n_left : b], rights[f][0])
        np.testing.assert_array_equal(new_keys[target, f, a + n_left : b], rights[f][1])
    _assert_only_the_node_written(new_orders, two_orders, source, a, b)
    _assert_only_the_node_written(new_keys, two_keys, source, a, b)


@SETTINGS
@given(runs=local_runs(), source=st.integers(0, 1))
def test_one_sided_partitions_keep_their_childs_run(runs, source):
    order, keys, a, b, goes_left = runs
    n_left, lefts, rights = _expected_runs(order, keys, a, b, goes_left)
    two_orders, two_keys = _two_copies(order, keys, source)
    left_orders, left_keys = two_orders.copy(), two_keys.copy()
    local_kernels._keep_left_orders(left_orders, left_keys, source, a, b, goes_left)
    right_orders, right_keys = two_orders.copy(), two_keys.copy()
    local_kernels._keep_right_orders(right_orders, right_keys, source, a, b, goes_left)
    target = 1 - source
    for f in range(order.shape[0]):
        np.testing.assert_array_equal(left_orders[target, f, a : a + n_left], lefts[f][0])
        np.testing.assert_array_equal(left_keys[target, f, a : a + n_left], lefts[f][1])
        np.testing.assert_array_equal(right_orders[target, f, a + n_left : b], rights[f][0])
        np.testing.assert_array_equal(right_keys[target, f, a + n_left : b], rights[f][1])
    for new in (left_orders, right_orders):
        _assert_only_the_node_written(new, two_orders, source, a, b)
    for new in (left_keys, right_keys):
        _assert_only_the_node_written(new, two_keys, source, a, b)


@SETTINGS
@given(runs=local_runs(), missing_left=st.booleans(), left_code=st.integers(-1, 20))
def test_partition_node_splits_rows_and_sums_each_child(runs, missing_left, left_code):
    order, _, a, b, _ = runs
    m = order.shape[1]
    rng = np.random.default_rng(m + a + b)
    missing_code = 15
    local_codes = rng.integers(0, missing_code + 1, (1, m)).astype(np.uint8)
    node_rows = rng.permutation(m).astype(np.int32)
    # Whole weights and targets: every sum is exact, whatever its order.
    targets = np.vstack([rng.integers(1, 4, m), rng.integers(-5, 6, m)]).astype(np.float64)
    original = node_rows.copy()
    goes_left = np.zeros(m, dtype=np.bool_)
    child_stats = np.full((2, 4), np.nan)
    middle, n_missing = local_kernels._partition_node(
        local_codes, 0, node_rows, a, b, left_code, missing_code, missing_left, goes_left,
        targets, False, child_stats, np.empty(m, np.int32),
    )  # fmt: skip
    node = original[a:b]
    node_codes = local_codes[0, node].astype(np.int64)
    left = np.where(node_codes == missing_code, missing_left, node_codes <= left_code)
    assert middle == a + int(left.sum())
    assert n_missing == int((node_codes == missing_code).sum())
    np.testing.assert_array_equal(node_rows[a:middle], node[left])
    np.testing.assert_array_equal(node_rows[middle:b], node[~left])
    np.testing.assert_array_equal(node_rows[:a], original[:a])
    np.testing.assert_array_equal(node_rows[b:], original[b:])
    np.testing.assert_array_equal(goes_left[node], left)
    weight, y = targets[0], targets[1]
    for k, rows in enumerate((node[left], node[~left])):
        w, v = weight[rows], y[rows]
        expected = [rows.shape[0], w.sum(), (w * v).sum(), (w * v * v).sum()]
        np.testing.assert_array_equal(child_stats[k], expected)


def _search_pair(order, pairs_settle):
    """:func:`_search_few` of a node of two rows (0 and 1) over three features: 0 and
    2 put row 0 left of the cut, 1 puts row 1 left; returns the feature kept. The
    targets are those of ``test_local_pair_nodes_keep_each_sides_gain``, where row 0
    left gains more, in its last bit, than row 1 left."""
    local_codes = np.array([[0, 1], [1, 0], [0, 1]], dtype=np.uint8)
    y = np.array([0.4116305363741328, 1.0425133694426776])
    targets = np.vstack([np.ones(2), y])
    stats = np.array([2.0, 2.0, y.sum(), (y * y).sum()])
    few_ws = (
        local_codes, np.empty(3, np.int32), np.empty(3, np.uint8),
        np.empty((3, local_kernels.N_FEW_PATTERNS)),
    )  # fmt: skip
    n_codes = np.full(3, 2, dtype=np.int64)  # (code 2: missing, in no row)
    search_settings = (n_codes, 3, 1, 0.0, True, True, pairs_settle)
    out = np.empty(N_OUT)
    out[OUT_GAIN] = -np.inf
    out[OUT_FEATURE] = -1.0
    local_kernels._search_few(
        few_ws, np.array([0, 1], dtype=np.int32), targets, np.empty((N_CUT_ROWS, 2)),
        search_settings, np.array(order, dtype=np.int64), SQUARED_ERROR, False, 0, 2, stats,
        weighted_impurity(stats, SQUARED_ERROR), targets[1],
        tuple(np.empty(4) for _ in range(5)), np.empty(4), out,
    )  # fmt: skip
    return int(out[OUT_FEATURE])


@pytest.mark.parametrize("pairs_settle", [False, True])
def test_pair_nodes_settle_once_both_sides_are_scanned(pairs_settle):
    """In index order the search may stop once both patterns of two rows are
    scanned: feature 2 would only tie feature 0. Out of index order it may not, and
    the grower does not let it (``pairs_settle`` is False where features are drawn):
    a tie goes to the lower index, so feature 0, searched last, wins over feature 2,
    searched before it with the same gain, but only if it is reached."""
    assert _search_pair([0, 1, 2], pairs_settle) == 0
    assert _search_pair([1, 2, 0], pairs_settle) == (2 if pairs_settle else 0)


@pytest.mark.parametrize("presorted", [False, True])
@pytest.mark.parametrize("missing_at", [None, (0, 3), (2, 0), (1, 6)])
def test_load_tells_whether_a_row_misses_a_value(missing_at, presorted):
    """``_load`` returns True when no row of the node misses a value of any feature
    (rows outside the node do not count): :func:`_search_few` may stop early only then.
    It reads that from each feature's keys in code order (the missing code last), sorted
    here or, for a presorted feature (feature 0), read beside its presorted rows."""
    rng = np.random.default_rng(0)
    n_rows, n_features = 10, 3
    n_codes = np.array([5, 7, 9], dtype=np.int64)  # each feature's missing code
    codes = np.asfortranarray(rng.integers(0, 5, (n_rows, n_features)).astype(np.uint8))
    codes[9, 1] = n_codes[1]  # (row 9: outside the node)
    if missing_at is not None:
        feature, row = missing_at
        codes[row, feature] = n_codes[feature]
    rows = np.array([3, 0, 6, 1, 2, 9, 4], dtype=np.int32)
    node = rows[:5]
    sorted_slot = np.full(n_features, -1, dtype=np.int64)
    sorted_rows = np.empty((0, n_rows), dtype=np.int32)
    sorted_codes = np.empty((0, n_rows), dtype=np.int32)
    if presorted:
        # Feature 0's rows in code order over the node's run (ties by node order).
        sorted_slot[0] = 0
        sorted_rows = np.zeros((1, n_rows), dtype=np.int32)
        sorted_rows[0, :5] = node[np.argsort(codes[node, 0], kind="stable")]
        sorted_codes = codes[sorted_rows, 0].astype(np.int32)
    ws = local_kernels.local_workspace(codes.T, 8, 4, int(n_codes.max()))
    known_everywhere = local_kernels._load(
        codes.T, rows, 0, 5, np.zeros(1, dtype=np.int32), rng.normal(size=n_rows), np.empty(0),
        False, sorted_rows, sorted_codes, sorted_slot, n_codes, np.zeros(n_rows, dtype=np.uint16),
        ws,
    )  # fmt: skip
    assert known_everywhere == (missing_at is None)
    np.testing.assert_array_equal(ws[0][:, :5], codes[node].T)
    np.testing.assert_array_equal(ws[1][0][:, :5], np.sort(codes[node], axis=0).T)
