"""Histogram kernels against the naive histogram, and the subtraction trick."""

import numpy as np
from _oracles import naive_histogram
from hypothesis import given, settings
from hypothesis import strategies as st

from treelearn._dtypes import code_dtype_for, n_channels
from treelearn.stats._kernels import (
    build_histogram,
    build_node_histograms,
    build_node_histograms_parallel,
    gather_targets,
    gather_targets_parallel,
    node_statistics,
    subtract_histograms,
)

SETTINGS = settings(max_examples=80, deadline=None)


@st.composite
def histogram_data(draw):
    n = draw(st.integers(1, 200))
    # Up to 11 features: the stacked kernels' passes of four, two and one feature.
    n_features = draw(st.integers(1, 11))
    n_classes = draw(st.sampled_from([0, 2, 3, 5]))  # 0: regression
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_codes = rng.integers(1, draw(st.sampled_from([3, 20, 300])), n_features)
    codes = np.empty((n, n_features), dtype=code_dtype_for(int(n_codes.max())), order="F")
    for f in range(n_features):
        codes[:, f] = rng.integers(0, n_codes[f] + 1, n)  # the last code is "missing"
    y_class = rng.integers(0, max(n_classes, 1), n).astype(np.int64)
    y_value = rng.normal(0.0, 10.0, n)
    weight = draw(
        st.sampled_from([np.ones(n), rng.integers(0, 5, n).astype(float), rng.uniform(0.0, 3.0, n)])
    )
    # A node: a subset of rows in any order, placed inside a longer rows array.
    node = rng.permutation(n)[: draw(st.integers(0, n))]
    pad = rng.permutation(n)[: draw(st.integers(0, 3))]
    rows = np.concatenate([pad, node, pad]).astype(np.intp)
    return {
        "codes": codes,
        "n_codes": n_codes.astype(np.int64),
        "n_classes": n_classes,
        "y_class": y_class,
        "y_value": y_value,
        "weight": weight,
        "rows": rows,
        "start": pad.shape[0],
        "end": pad.shape[0] + node.shape[0],
        "node": node,
        "rng": rng,
    }


def _fast_histogram(d, f, rows=None, start=None, end=None):
    rows = d["rows"] if rows is None else rows
    start = d["start"] if start is None else start
    end = d["end"] if end is None else end
    channels = n_channels(0 if d["n_classes"] else 1, d["n_classes"])
    hist = np.full((d["n_codes"][f] + 1, channels), np.nan)  # kernel must zero it
    build_histogram(
        d["codes"][:, f],
        rows,
        start,
        end,
        d["y_class"],
        d["y_value"],
        d["weight"],
        d["n_classes"] > 0,
        hist,
    )
    return hist


def _naive(d, f, node):
    return naive_histogram(
        d["codes"][:, f],
        node,
        d["n_codes"][f] + 1,
        d["y_class"],
        d["y_value"],
        d["weight"],
        d["n_classes"],
    )


@SETTINGS
@given(d=histogram_data())
def test_histogram_matches_naive(d):
    for f in range(d["codes"].shape[1]):
        fast = _fast_histogram(d, f)
        np.testing.assert_allclose(fast, _naive(d, f, d["node"]), rtol=1e-12, atol=1e-9)
        # Channel 0 counts rows exactly; the counts add up to the node size.
        np.testing.assert_array_equal(
            fast[:, 0],
            np.bincount(d["codes"][d["node"], f].astype(np.int64), minlength=d["n_codes"][f] + 1),
        )
        assert fast[:, 0].sum() == d["node"].shape[0]


@SETTINGS
@given(d=histogram_data())
def test_node_histograms_are_stacked_per_feature(d):
    features = np.arange(d["codes"].shape[1])[::-1].astype(np.int64)  # any order
    sizes = d["n_codes"][features] + 1
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    channels = n_channels(0 if d["n_classes"] else 1, d["n_classes"])
    is_classification = d["n_classes"] > 0
    args = (d["y_class"], d["y_value"], d["weight"], is_classification, features, offsets)
    stacked = np.full((offsets[-1], channels), np.nan)
    in_place = np.empty((2, 0))
    build_node_histograms(d["codes"].T, d["rows"], d["start"], d["end"], *args, stacked, in_place)
    for j, f in enumerate(features):
        np.testing.assert_allclose(
            stacked[offsets[j] : offsets[j + 1]], _naive(d, f, d["node"]), rtol=1e-12, atol=1e-9
        )
    # From the node's targets gathered first: the same sums to the bit.
    gathered = np.full((2, d["end"] - d["start"]), np.nan)
    gather_targets(d["rows"], d["start"], d["end"], *args[:4], gathered)
    from_gathered = np.full_like(stacked, np.nan)
    build_node_histograms(
        d["codes"].T, d["rows"], d["start"], d["end"], *args, from_gathered, gathered
    )
    np.testing.assert_array_equal(from_gathered, stacked)
    # And the gathered values are what is read: weights doubled there double every
    # weighted channel (exactly: a power of two), the row counts stay.
    gathered[0] *= 2.0
    build_node_histograms(
        d["codes"].T, d["rows"], d["start"], d["end"], *args, from_gathered, gathered
    )
    np.testing.assert_array_equal(from_gathered[:, 0], stacked[:, 0])
    np.testing.assert_array_equal(from_gathered[:, 1:], 2.0 * stacked[:, 1:])


@SETTINGS
@given(d=histogram_data())
def test_histograms_without_weights_are_those_of_unit_weights(d):
    """No sample weights (an empty weight array: every row weighs 1) are summed on one
    channel fewer and that channel filled in after (the count of classes, the weight of
    regression): the histograms of weights of one, to the bit, gathered or not, and
    the weights' row of the gathered targets is not read."""
    features = np.arange(d["codes"].shape[1]).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(d["n_codes"] + 1)]).astype(np.int64)
    channels = n_channels(0 if d["n_classes"] else 1, d["n_classes"])
    is_classification = d["n_classes"] > 0
    targets = (d["y_class"], d["y_value"])
    ones, unweighted = np.ones(d["codes"].shape[0]), np.empty(0)
    span = (d["codes"].T, d["rows"], d["start"], d["end"])
    weighted = np.full((offsets[-1], channels), np.nan)
    in_place = np.empty((2, 0))
    build_node_histograms(*span, *targets, ones, is_classification, features, offsets,
                          weighted, in_place)  # fmt: skip
    for gathered in (False, True):
        if gathered:
            targets_read = np.full((2, d["end"] - d["start"]), np.nan)  # weights' row: NaN
            gather_targets(d["rows"], d["start"], d["end"], *targets, unweighted,
                           is_classification, targets_read, False)  # fmt: skip
        else:
            targets_read = in_place
        without = np.full_like(weighted, np.nan)
        build_node_histograms(*span, *targets, unweighted, is_classification, features, offsets,
                              without, targets_read)  # fmt: skip
        np.testing.assert_array_equal(without, weighted)


@SETTINGS
@given(d=histogram_data(), n_threads=st.integers(1, 5))
def test_stacked_histograms_are_each_features_own_to_the_bit(d, n_threads):
    """The stacked kernels pass over the rows for up to four features at once,
    and the parallel one shares the features out among the threads given: each
    feature's histogram is still :func:`build_histogram`'s, to the bit, whatever
    the number of features, their order, the thread count, the weights, and
    whether the targets are gathered (on one thread or in runs on several)."""
    n_features = d["codes"].shape[1]
    features = d["rng"].permutation(n_features).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(d["n_codes"][features] + 1)]).astype(np.int64)
    channels = n_channels(0 if d["n_classes"] else 1, d["n_classes"])
    is_classification = d["n_classes"] > 0
    for weight in (d["weight"], np.empty(0)):
        own = {"weight": weight if weight.shape[0] else np.ones(d["codes"].shape[0])}
        expected = [_fast_histogram(d | own, f) for f in features]
        args = (d["y_class"], d["y_value"], weight, is_classification, features, offsets)
        gathered = np.full((2, d["end"] - d["start"]), np.nan)
        gather_targets(d["rows"], d["start"], d["end"], *args[:4], gathered, weight.shape[0] > 0)
        # Gathered in runs on the threads: the same values, none left out.
        in_runs = np.full_like(gathered, np.nan)
        gather_targets_parallel(d["rows"], d["start"], d["end"], *args[:4], in_runs,
                                weight.shape[0] > 0, n_threads)  # fmt: skip
        np.testing.assert_array_equal(in_runs, gathered)
        for targets in (np.empty((2, 0)), gathered):
            span = (d["codes"].T, d["rows"], d["start"], d["end"])
            serial = np.full((offsets[-1], channels), np.nan)
            build_node_histograms(*span, *args, serial, targets)
            threaded = np.full_like(serial, np.nan)
            build_node_histograms_parallel(*span, *args, threaded, targets, n_threads)
            for j in range(n_features):
                np.testing.assert_array_equal(serial[offsets[j] : offsets[j + 1]], expected[j])
            np.testing.assert_array_equal(threaded, serial)


@SETTINGS
@given(d=histogram_data())
def test_node_statistics_is_the_histogram_total(d):
    channels = n_channels(0 if d["n_classes"] else 1, d["n_classes"])
    stats = np.full(channels, np.nan)
    node_statistics(
        d["rows"],
        d["start"],
        d["end"],
        d["y_class"],
        d["y_value"],
        d["weight"],
        d["n_classes"] > 0,
        stats,
    )
    expected = _naive(d, 0, d["node"]).sum(axis=0)
    np.testing.assert_allclose(stats, expected, rtol=1e-12, atol=1e-9)
    if d["n_classes"]:
        w = d["weight"][d["node"]]
        np.testing.assert_allclose(stats[1:].sum(), w.sum(), rtol=1e-12, atol=1e-12)


@SETTINGS
@given(d=histogram_data(), n_children=st.integers(2, 4))
def test_parent_minus_siblings_is_the_last_child(d, n_children):
    """Split the node's rows into children: parent - (all children but one) == that one."""
    node = d["node"]
    child_of = d["rng"].integers(0, n_children, node.shape[0])
    children = [node[child_of == k] for k in range(n_children)]
    classification = d["n_classes"] > 0
    for f in range(d["codes"].shape[1]):
        parent = _fast_histogram(d, f)
        child_hists = [
            _fast_histogram(d, f, rows=c.astype(np.intp), start=0, end=c.shape[0]) for c in children
        ]
        keep = int(np.argmax([c.shape[0] for c in children]))
        siblings = sum(h for k, h in enumerate(child_hists) if k != keep)
        out = np.full_like(parent, np.nan)
        subtract_histograms(parent, siblings, classification, out)
        scale = max(1.0, np.abs(parent).max())
        np.testing.assert_allclose(out, child_hists[keep], rtol=1e-12, atol=1e-12 * scale)
        # Rows are counted exactly, and no count or weight is ever negative.
        np.testing.assert_array_equal(out[:, 0], child_hists[keep][:, 0])
        nonnegative = out if classification else out[:, [0, 1, 3]]
        assert np.all(nonnegative >= 0.0)


def test_subtraction_is_exact_with_integer_weights():
    rng = np.random.default_rng(0)
    n = 1000
    codes = rng.integers(0, 8, (n, 1)).astype(np.uint8)
    y = rng.integers(0, 3, n)
    w = rng.integers(1, 5, n).astype(float)
    rows = rng.permutation(n).astype(np.intp)
    d = {
        "codes": codes,
        "n_codes": np.array([7]),
        "n_classes": 3,
        "y_class": y,
        "y_value": np.zeros(1),
        "weight": w,
    }
    parent = _fast_histogram(d, 0, rows, 0, n)
    left = _fast_histogram(d, 0, rows, 0, 400)
    right = _fast_histogram(d, 0, rows, 400, n)
    out = np.empty_like(parent)
    subtract_histograms(parent, left, True, out)
    np.testing.assert_array_equal(out, right)


def test_subtraction_clips_rounding_residue_but_keeps_negative_sums():
    parent = np.array([[2.0, 0.3, -0.5, 0.7]])
    sibling = np.array([[1.0, 0.1 + 0.2, 0.5, 0.7 + 1e-16]])
    out = np.empty_like(parent)
    subtract_histograms(parent, sibling, False, out)
    # count 1; weight 0.3 - 0.30000000000000004 < 0 -> clipped to 0; sum(w y) stays -1;
    # sum(w y^2) clipped to 0.
    np.testing.assert_array_equal(out, [[1.0, 0.0, -1.0, 0.0]])
    # Each bin's channels alike, whichever bin (the numbers are read as one run).
    out = np.empty((3, 4))
    subtract_histograms(np.tile(parent, (3, 1)), np.tile(sibling, (3, 1)), False, out)
    np.testing.assert_array_equal(out, [[1.0, 0.0, -1.0, 0.0]] * 3)
    parent = np.array([[3.0, 0.3, 1.0]])
    sibling = np.array([[1.0, 0.1 + 0.2, 1.0]])
    out = np.empty_like(parent)
    subtract_histograms(parent, sibling, True, out)
    np.testing.assert_array_equal(out, [[2.0, 0.0, 0.0]])


def test_histogram_pins_numbers():
    codes = np.array([[0], [2], [2], [1], [3]], dtype=np.uint8)  # 3 = missing
    y = np.array([0, 1, 1, 0, 1])
    w = np.array([1.0, 2.0, 0.5, 4.0, 3.0])
    rows = np.array([4, 3, 2, 1, 0], dtype=np.intp)
    d = {
        "codes": codes,
        "n_codes": np.array([3]),
        "n_classes": 2,
        "y_class": y,
        "y_value": np.zeros(1),
        "weight": w,
    }
    hist = _fast_histogram(d, 0, rows, 1, 5)  # rows 3, 2, 1, 0
    np.testing.assert_array_equal(
        hist, [[1, 1.0, 0.0], [1, 4.0, 0.0], [2, 0.0, 2.5], [0, 0.0, 0.0]]
    )
    yv = np.array([1.0, -2.0, 3.0, 0.5, 10.0])
    d.update(n_classes=0, y_value=yv)
    hist = _fast_histogram(d, 0, rows, 0, 5)
    np.testing.assert_allclose(
        hist,
        [
            [1, 1.0, 1.0, 1.0],
            [1, 4.0, 2.0, 1.0],
            [2, 2.5, -4.0 + 1.5, 8.0 + 4.5],
            [1, 3.0, 30.0, 300.0],
        ],
    )
