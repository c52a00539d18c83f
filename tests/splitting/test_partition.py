"""Partition kernels: stable, every row kept exactly once, rows go where the split says."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treelearn.splitting import _partition_kernels as K
from treelearn.stats._kernels import node_statistics

SETTINGS = settings(max_examples=100, deadline=None)


@st.composite
def node_rows(draw):
    n = draw(st.integers(1, 120))
    n_codes = draw(st.integers(1, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    dtype = np.uint8 if n_codes < 255 else np.uint16
    codes = rng.integers(0, n_codes + 1, n).astype(dtype)  # n_codes = missing
    rows = rng.permutation(n).astype(np.intp)
    start = draw(st.integers(0, n - 1))
    end = draw(st.integers(start, n))
    return codes, n_codes, rows, start, end, rng


@SETTINGS
@given(data=node_rows(), missing_left=st.booleans())
def test_partition_threshold(data, missing_left):
    codes, n_codes, rows, start, end, rng = data
    left_code = int(rng.integers(-1, n_codes + 1))
    original = rows.copy()
    buffer = np.full(rows.shape[0], -7, dtype=np.intp)
    middle, n_missing = K.partition_threshold(
        codes, rows, start, end, left_code, n_codes, missing_left, buffer
    )
    node = original[start:end]
    node_codes = codes[node].astype(np.int64)
    goes_left = np.where(node_codes == n_codes, missing_left, node_codes <= left_code)
    # Left rows first, then right rows, each in their original order (stable).
    assert middle == start + int(goes_left.sum())
    assert n_missing == np.count_nonzero(node_codes == n_codes)
    np.testing.assert_array_equal(rows[start:middle], node[goes_left])
    np.testing.assert_array_equal(rows[middle:end], node[~goes_left])
    # Rows outside the node are untouched; every row is still there exactly once.
    np.testing.assert_array_equal(rows[:start], original[:start])
    np.testing.assert_array_equal(rows[end:], original[end:])
    np.testing.assert_array_equal(np.sort(rows), np.arange(rows.shape[0]))


@SETTINGS
@given(data=node_rows(), missing_left=st.booleans(), n_pieces=st.integers(1, 7))
def test_partition_threshold_parallel_is_the_serial_partition(data, missing_left, n_pieces):
    codes, n_codes, rows, start, end, rng = data
    left_code = int(rng.integers(-1, n_codes + 1))
    serial = rows.copy()
    middle_and_missing = K.partition_threshold(
        codes, serial, start, end, left_code, n_codes, missing_left, np.empty_like(rows)
    )
    # (More pieces than rows leaves some empty; every piece count gives one order.)
    buffer = np.full(rows.shape[0], -7, dtype=np.intp)
    assert middle_and_missing == K.partition_threshold_parallel(
        codes, rows, start, end, left_code, n_codes, missing_left, buffer, n_pieces
    )
    np.testing.assert_array_equal(rows, serial)


@SETTINGS
@given(data=node_rows(), n_children=st.integers(1, 5))
def test_partition_by_child(data, n_children):
    codes, n_codes, rows, start, end, rng = data
    child_of_code = rng.integers(0, n_children, n_codes + 1).astype(np.int64)
    original = rows.copy()
    buffer = np.full(rows.shape[0], -7, dtype=np.intp)
    bounds = np.full(n_children + 1, -1, dtype=np.int64)
    K.partition_by_child(codes, rows, start, end, child_of_code, n_children, buffer, bounds)
    node = original[start:end]
    child = child_of_code[codes[node].astype(np.int64)]
    expected_bounds = start + np.concatenate(
        [[0], np.cumsum(np.bincount(child, minlength=n_children))]
    )
    np.testing.assert_array_equal(bounds, expected_bounds)
    for k in range(n_children):
        np.testing.assert_array_equal(rows[bounds[k] : bounds[k + 1]], node[child == k])
    np.testing.assert_array_equal(rows[:start], original[:start])
    np.testing.assert_array_equal(rows[end:], original[end:])
    np.testing.assert_array_equal(np.sort(rows), np.arange(rows.shape[0]))


def test_partition_threshold_pins_an_example():
    codes = np.array([3, 0, 2, 1, 3, 0, 2], dtype=np.uint8)  # 3 = missing
    rows = np.array([6, 5, 4, 3, 2, 1, 0], dtype=np.intp)
    buffer = np.empty(7, dtype=np.intp)
    # Node = rows[1:6] = 5 4 3 2 1 (codes 0 3 1 2 0); left iff code <= 1, missing right.
    middle = K.partition_threshold(codes, rows, 1, 6, 1, 3, False, buffer)
    assert middle == (4, 1)  # (and one row missing)
    np.testing.assert_array_equal(rows, [6, 5, 3, 1, 4, 2, 0])
    rows = np.array([6, 5, 4, 3, 2, 1, 0], dtype=np.intp)
    middle = K.partition_threshold(codes, rows, 1, 6, 1, 3, True, buffer)
    assert middle == (5, 1)
    np.testing.assert_array_equal(rows, [6, 5, 4, 3, 1, 2, 0])


def test_partition_by_child_pins_an_example():
    codes = np.array([0, 1, 2, 3, 0, 1, 2, 3], dtype=np.uint8)
    rows = np.arange(8, dtype=np.intp)[::-1].copy()
    child_of_code = np.array([1, 0, 1, 0], dtype=np.int64)
    buffer = np.empty(8, dtype=np.intp)
    bounds = np.empty(3, dtype=np.int64)
    K.partition_by_child(codes, rows, 0, 8, child_of_code, 2, buffer, bounds)
    np.testing.assert_array_equal(bounds, [0, 4, 8])
    np.testing.assert_array_equal(rows, [7, 5, 3, 1, 6, 4, 2, 0])


@SETTINGS
@given(data=node_rows())
def test_counting_sort_rows_is_a_stable_sort(data):
    codes, n_codes, _, _, _, _ = data
    out = np.full(codes.shape[0], -1, dtype=np.int32)
    out_codes = np.full(codes.shape[0], -1, dtype=np.int32)
    K.counting_sort_rows(codes, n_codes + 1, out, out_codes)
    np.testing.assert_array_equal(out, np.argsort(codes, kind="stable"))
    np.testing.assert_array_equal(out_codes, np.sort(codes))  # the codes, in that order
    again = np.full_like(out, -1)
    K.counting_sort_rows(codes, n_codes + 1, again, out_codes[:0])  # (no codes wanted)
    np.testing.assert_array_equal(again, out)


def test_counting_sort_columns_sorts_each_column_as_counting_sort_rows():
    rng = np.random.default_rng(4)
    n_codes = np.array([3, 200, 1, 70_000, 9])
    codes = np.asfortranarray(
        np.column_stack([rng.integers(0, k + 1, 5000) for k in n_codes]).astype(np.uint32)
    )
    features = np.array([3, 0, 4, 1], dtype=np.int64)
    out = np.full((features.shape[0], 5000), -1, dtype=np.int32)
    out_codes = np.full_like(out, -1)
    K.counting_sort_columns(codes.T, features, n_codes[features] + 1, out, out_codes)
    for slot, f in enumerate(features):
        np.testing.assert_array_equal(out[slot], np.argsort(codes[:, f], kind="stable"))
        np.testing.assert_array_equal(out_codes[slot], codes[out[slot], f])
    again = np.full_like(out, -1)
    K.counting_sort_columns(codes.T, features, n_codes[features] + 1, again, NO_CODES)
    np.testing.assert_array_equal(again, out)


@SETTINGS
@given(
    data=node_rows(),
    n_children=st.integers(2, 3),
    n_slots=st.integers(1, 3),
    with_codes=st.booleans(),
)
def test_partition_sorted_rows_keeps_code_order_in_each_child(
    data, n_children, n_slots, with_codes
):
    codes, _, rows, start, end, rng = data
    n = codes.shape[0]
    # Each slot: the node's rows ordered by some feature's code; outside the node, junk.
    feature_codes = [rng.integers(0, 10, n) for _ in range(n_slots)]
    child_of_row = rng.integers(0, n_children, n).astype(np.int64)
    node = rows[start:end]
    # The children's runs, as partition_by_child lays them out.
    sizes = np.bincount(child_of_row[node], minlength=n_children)
    bounds = (start + np.concatenate([[0], np.cumsum(sizes)])).astype(np.int64)
    sorted_rows = np.tile(np.arange(n, dtype=np.int32)[::-1], (n_slots, 1))
    for s in range(n_slots):
        sorted_rows[s, start:end] = node[np.argsort(feature_codes[s][node], kind="stable")]
    before = sorted_rows.copy()
    # The codes beside each slot's rows (junk outside the node), or none kept.
    sorted_codes = np.full_like(sorted_rows, -7)
    for s in range(n_slots):
        sorted_codes[s, start:end] = feature_codes[s][sorted_rows[s, start:end]]
    codes_before = sorted_codes.copy()
    if not with_codes:
        sorted_codes = NO_CODES
    buffer = np.empty((2, n), dtype=np.int32)
    K.partition_sorted_rows(sorted_rows, sorted_codes, start, end, child_of_row, bounds, buffer)
    parallel_rows = before.copy()
    parallel_codes = codes_before.copy() if with_codes else NO_CODES
    K.partition_sorted_rows_parallel(
        parallel_rows, parallel_codes, start, end, child_of_row, bounds
    )
    np.testing.assert_array_equal(parallel_rows, sorted_rows)
    for s in range(n_slots):
        np.testing.assert_array_equal(sorted_rows[s, :start], before[s, :start])
        np.testing.assert_array_equal(sorted_rows[s, end:], before[s, end:])
        ordered = before[s, start:end]
        for k in range(n_children):
            run = sorted_rows[s, bounds[k] : bounds[k + 1]]
            np.testing.assert_array_equal(run, ordered[child_of_row[ordered] == k])
        if with_codes:
            # Each code moved with its row, the node's outside untouched.
            np.testing.assert_array_equal(
                sorted_codes[s, start:end], feature_codes[s][sorted_rows[s, start:end]]
            )
            np.testing.assert_array_equal(sorted_codes[s, :start], codes_before[s, :start])
            np.testing.assert_array_equal(sorted_codes[s, end:], codes_before[s, end:])
            np.testing.assert_array_equal(parallel_codes, sorted_codes)


#: ``parent_stats`` where they are not used (``exact_sums`` False).
NO_STATS = np.empty(0)
#: ``sorted_codes`` where no presorted codes are kept.
NO_CODES = np.empty((0, 0), dtype=np.int32)


def _summed_row_by_row(rows, y_class, y_value, weight, is_classification, channels):
    """A node's statistics row summed by a Python loop, a row at a time in node order:
    the sums the kernels must reproduce to the bit."""
    out = [0.0] * channels
    for r in rows:
        w = float(weight[r])
        out[0] += 1.0
        if is_classification:
            out[1 + int(y_class[r])] += w
        else:
            v = float(y_value[r])
            out[1] += w
            out[2] += w * v
            out[3] += w * v * v
    return np.array(out)


@SETTINGS
@given(
    data=node_rows(),
    n_children=st.integers(2, 3),
    regression=st.booleans(),
    n_classes=st.integers(2, 3),  # (two classes are summed by a kernel of their own)
)
def test_summarise_children_sums_each_run_and_marks_rows_only_when_asked(
    data, n_children, regression, n_classes
):
    codes, n_codes, rows, start, end, rng = data
    n = codes.shape[0]
    cuts = np.sort(rng.integers(start, end + 1, n_children - 1))
    bounds = np.concatenate([[start], cuts, [end]]).astype(np.int64)
    y_class = rng.integers(0, n_classes, n).astype(np.int32)
    y_value = rng.normal(size=n)
    weight = rng.uniform(0.0, 2.0, n)
    channels = 4 if regression else 1 + n_classes  # (n, w, sum y, sum y^2), or (n, weights)
    args = (y_class, y_value, weight, not regression)
    no_sorted_rows = np.empty((0, n), dtype=np.int32)
    buffer = np.empty((2, n), dtype=np.int32)
    child_of_row = np.full(n, -1, dtype=np.int64)
    stats = np.full((n_children, channels), np.nan)
    n_missing = K.summarise_children(
        rows, bounds, codes, n_codes, *args, child_of_row, no_sorted_rows, NO_CODES, buffer, stats,
        NO_STATS, False, -1,
    )  # fmt: skip
    node = rows[start:end]
    assert n_missing == np.count_nonzero(codes[node] == n_codes)
    for k in range(n_children):
        expected = np.empty(channels)
        node_statistics(rows, bounds[k], bounds[k + 1], *args, expected)
        np.testing.assert_array_equal(stats[k], expected)  # the same sums, in the same order
        run = rows[bounds[k] : bounds[k + 1]]
        np.testing.assert_array_equal(expected, _summed_row_by_row(run, *args, channels))
        np.testing.assert_array_equal(child_of_row[rows[bounds[k] : bounds[k + 1]]], k)
    outside = np.setdiff1d(np.arange(n), node)
    np.testing.assert_array_equal(child_of_row[outside], -1)
    # Without child_of_row (no presorted rows to split): the same statistics and count.
    # (An empty view of an array of -1: a store through it would land in that array.)
    unmarked = np.full(n, -1, dtype=np.int64)
    again = np.full_like(stats, np.nan)
    missing_again = K.summarise_children(
        rows, bounds, codes, n_codes, *args, unmarked[:0], no_sorted_rows, NO_CODES, buffer, again,
        NO_STATS, False, -1,
    )  # fmt: skip
    assert missing_again == n_missing
    np.testing.assert_array_equal(again, stats)
    np.testing.assert_array_equal(unmarked, -1)


@SETTINGS
@given(data=node_rows(), n_children=st.integers(2, 4), regression=st.booleans())
def test_summarise_children_parallel_is_the_serial_summary(data, n_children, regression):
    codes, n_codes, rows, start, end, rng = data
    n = codes.shape[0]
    cuts = np.sort(rng.integers(start, end + 1, n_children - 1))
    bounds = np.concatenate([[start], cuts, [end]]).astype(np.int64)
    args = (
        rng.integers(0, 3, n).astype(np.int32), rng.normal(size=n), rng.uniform(0.0, 2.0, n),
        not regression,
    )  # fmt: skip
    no_sorted_rows = np.empty((0, n), dtype=np.int32)
    serial_marks = np.full(n, -1, dtype=np.int64)
    serial = np.full((n_children, 4), np.nan)
    n_missing = K.summarise_children(
        rows, bounds, codes, n_codes, *args, serial_marks, no_sorted_rows, NO_CODES,
        np.empty((2, n), dtype=np.int32), serial, NO_STATS, False, -1,
    )  # fmt: skip
    marks = np.full(n, -1, dtype=np.int64)
    stats = np.full_like(serial, np.nan)
    assert n_missing == K.summarise_children_parallel(
        rows, bounds, codes, n_codes, *args, marks, stats, NO_STATS, False, -1, 1 << 14
    )
    np.testing.assert_array_equal(stats, serial)  # to the bit: each child summed in order
    np.testing.assert_array_equal(marks, serial_marks)
    unmarked = np.full(n, -1, dtype=np.int64)
    K.summarise_children_parallel(
        rows, bounds, codes, n_codes, *args, unmarked[:0], stats, NO_STATS, False, -1, 1 << 14
    )
    np.testing.assert_array_equal(unmarked, -1)


@SETTINGS
@given(
    data=node_rows(),
    n_children=st.integers(2, 4),
    piece_rows=st.integers(1, 40),
    unit_weights=st.booleans(),
)
def test_children_of_exact_sums_take_the_largest_from_the_parent(
    data, n_children, piece_rows, unit_weights
):
    """Classes and whole weights: given the node's statistics, the largest child
    gets them less its siblings' (serial), and the run is summed in pieces (on
    threads): both the statistics of summing every child row by row, to the bit,
    with the same marks and count of missing rows."""
    codes, n_codes, rows, start, end, rng = data
    n = codes.shape[0]
    cuts = np.sort(rng.integers(start, end + 1, n_children - 1))
    bounds = np.concatenate([[start], cuts, [end]]).astype(np.int64)
    weight = np.ones(n) if unit_weights else rng.integers(0, 5, n).astype(np.float64)
    args = (rng.integers(0, 3, n).astype(np.int32), rng.normal(size=n), weight, True)
    no_sorted_rows = np.empty((0, n), dtype=np.int32)
    buffer = np.empty((2, n), dtype=np.int32)
    summed_marks = np.full(n, -1, dtype=np.int64)
    summed = np.full((n_children, 4), np.nan)
    n_missing = K.summarise_children(
        rows, bounds, codes, n_codes, *args, summed_marks, no_sorted_rows, NO_CODES, buffer, summed,
        NO_STATS, False, -1,
    )  # fmt: skip
    parent = np.empty(4)
    node_statistics(rows, start, end, *args, parent)
    marks = np.full(n, -1, dtype=np.int64)
    stats = np.full_like(summed, np.nan)
    assert n_missing == K.summarise_children(
        rows, bounds, codes, n_codes, *args, marks, no_sorted_rows, NO_CODES, buffer, stats,
        parent, True, -1,
    )  # fmt: skip
    np.testing.assert_array_equal(stats, summed)
    np.testing.assert_array_equal(marks, summed_marks)
    marks = np.full(n, -1, dtype=np.int64)
    stats = np.full_like(summed, np.nan)
    assert n_missing == K.summarise_children_parallel(
        rows, bounds, codes, n_codes, *args, marks, stats, parent, True, -1, piece_rows
    )
    np.testing.assert_array_equal(stats, summed)
    np.testing.assert_array_equal(marks, summed_marks)
    # Given the count of missing rows (as a partition counts them) and no marks to
    # make, the largest child's rows are not visited: the same statistics, the
    # count returned as given (not read from the codes).
    for summarise in (
        lambda out, known: K.summarise_children(
            rows, bounds, codes, n_codes, *args, marks[:0], no_sorted_rows, NO_CODES, buffer,
            out, parent, True, known,
        ),
        lambda out, known: K.summarise_children_parallel(
            rows, bounds, codes, n_codes, *args, marks[:0], out, parent, True, known, piece_rows
        ),
    ):  # fmt: skip
        for known in (n_missing, n_missing + 3):
            unvisited = np.full_like(summed, np.nan)
            assert summarise(unvisited, known) == known
            np.testing.assert_array_equal(unvisited, summed)
    # The largest child's row does come from the parent: a parent off by a known
    # amount moves that row, and only it, by that amount (rows summed would not).
    largest = int(np.argmax(np.diff(bounds)))
    expected = summed.copy()
    expected[largest] += 8.0
    for summarise in (
        lambda out: K.summarise_children(
            rows, bounds, codes, n_codes, *args, marks, no_sorted_rows, NO_CODES, buffer, out,
            parent + 8.0, True, -1,
        ),
        lambda out: K.summarise_children_parallel(
            rows, bounds, codes, n_codes, *args, marks, out, parent + 8.0, True, -1, piece_rows
        ),
    ):  # fmt: skip
        off = np.full_like(summed, np.nan)
        summarise(off)
        np.testing.assert_array_equal(off, expected)
