"""The split finder against the brute-force oracle.

``find_best_split`` must return the best gain over every threshold (with
missing values sent either way) and every binary subset of a nominal feature's
present levels, as :func:`_oracles.brute_force_best_split` finds by trying them
all, and the split it describes must really have that gain. Every statistics
path (a histogram built at the node, a kept node histogram, a compact histogram
from sorting, a compact histogram from pre-sorted rows) gives the same split.
"""

import inspect
import math

import numpy as np
import pandas as pd
import pytest
from _oracles import brute_force_best_split, naive_cost, naive_histogram, naive_split_gain
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

from treelearn import CARTClassifier
from treelearn._dtypes import code_dtype_for
from treelearn.criteria import criterion_id
from treelearn.criteria._kernels import weighted_impurity
from treelearn.splitting import _kernels as K
from treelearn.splitting import _scan_buffer_kernels as scan_buffers
from treelearn.splitting import _sort_kernels as sort_kernels
from treelearn.splitting._cut_kernels import (
    N_CUT_ROWS,
    N_OUT,
    OUT_FEATURE,
    OUT_GAIN,
    OUT_IS_SUBSET,
    OUT_LEFT_CODE,
    OUT_MISSING_LEFT,
    OUT_RIGHT_CODE,
)
from treelearn.splitting._subset_kernels import MAX_EXHAUSTIVE_LEVELS
from treelearn.splitting._value_scan_kernels import (
    VALUE_CUTS_MAX_ROWS_PER_CODE,
    scan_sorted_values_by_cuts,
    value_cut_pairs_inlined,
)

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
HIST_ALWAYS = 1e18  # hist_ratio that makes every numeric feature use a full histogram
SORT_ALWAYS = 0.0  # hist_ratio that makes every numeric feature use a compact (sorted) one


# ---------------------------------------------------------------------------
# Harness: call the kernel the way the grower does
# ---------------------------------------------------------------------------


def find_split(
    codes,
    n_codes,
    is_nominal,
    y,
    weight,
    node_rows,
    criterion,
    n_classes,
    *,
    min_count=1,
    min_weight=0.0,
    hist_ratio=HIST_ALWAYS,
    path="auto",
    feature_order=None,
    max_features=None,
    pad=3,
    absent_kinds_none=True,
):
    """Run ``find_best_split`` on the node ``node_rows``; return its answer as a dict.

    ``node_rows`` is placed at ``[start:end]`` of a longer ``rows`` array
    (``pad`` other rows on each side) so that offsets are exercised.
    ``path``: ``"auto"`` (by ``hist_ratio``), ``"kept"`` (every feature's
    histogram handed in as a kept node histogram), ``"presorted"`` (numeric
    features read from pre-sorted rows, without ``sorted_scan`` buffers: their
    codes and targets gathered into buffers made for the node), ``"gathered"``
    (the same, gathered into ``sorted_scan`` buffers), ``"coded"`` (gathered,
    the codes copied from presorted codes kept beside the rows) or
    ``"coded_in_place"`` (those codes, ``sorted_scan`` buffers of no rows).

    ``absent_kinds_none``: as the grower passes them, the masks are None where no
    feature is nominal and ``sorted_scan`` where none is numeric (numba then leaves
    that kind's search out); False: arrays, as for a mix of kinds.
    """
    n, n_features = codes.shape
    classification = n_classes > 0
    y_class = np.asarray(y, dtype=np.int64) if classification else np.zeros(1, dtype=np.int64)
    y_value = np.zeros(1) if classification else np.asarray(y, dtype=np.float64)
    weight = np.asarray(weight, dtype=np.float64)
    node_rows = np.asarray(node_rows, dtype=np.intp)
    others = np.setdiff1d(np.arange(n), node_rows)
    before = others[:pad]
    after = others[pad : 2 * pad]
    rows = np.concatenate([before, node_rows, after]).astype(np.intp)
    start, end = before.shape[0], before.shape[0] + node_rows.shape[0]
    n_channels = 1 + n_classes if classification else 4
    node_stats = np.zeros(n_channels)
    for r in node_rows:
        node_stats[0] += 1
        if classification:
            node_stats[1 + y_class[r]] += weight[r]
        else:
            node_stats[1:] += weight[r] * np.array([1.0, y_value[r], y_value[r] ** 2])
    n_codes = np.asarray(n_codes, dtype=np.int64)
    max_bins = int(n_codes.max()) + 1
    offsets = np.full(n_features, -1, dtype=np.int64)
    node_hist = np.zeros((0, n_channels))
    if path == "kept":
        blocks = [
            naive_histogram(
                codes[:, f], node_rows, n_codes[f] + 1, y_class, y_value, weight, n_classes
            )
            for f in range(n_features)
        ]
        offsets = np.concatenate([[0], np.cumsum([b.shape[0] for b in blocks])[:-1]])
        offsets = offsets.astype(np.int64)
        node_hist = np.vstack(blocks)
    sorted_slot = np.full(n_features, -1, dtype=np.int64)
    sorted_rows = np.zeros((0, n), dtype=np.int32)
    sorted_codes = np.zeros((0, 0), dtype=np.int32)
    if path in ("presorted", "gathered", "gathered_unit", "coded", "coded_in_place"):
        numeric = [f for f in range(n_features) if not is_nominal[f]]
        sorted_rows = np.zeros((len(numeric), n), dtype=np.int32)
        for slot, f in enumerate(numeric):
            sorted_slot[f] = slot
            order = np.argsort(codes[node_rows, f], kind="stable")
            sorted_rows[slot, start:end] = node_rows[order]
        # The codes beside the rows: those of the node's run, junk elsewhere.
        sorted_codes = np.full_like(sorted_rows, 10**6)
        for slot, f in enumerate(numeric):
            sorted_codes[slot, start:end] = codes[sorted_rows[slot, start:end], f]
    # (A search that finds no split writes only the gain and the feature: the other
    # slots read -1 then, not whatever an empty array held, which could be NaN.)
    out = np.full(N_OUT, -1.0)
    any_nominal = bool(np.any(is_nominal))
    out_mask = np.zeros(max_bins + 1, dtype=np.uint8)
    masks_given = any_nominal or not absent_kinds_none
    available = {
        "feature_codes": np.ascontiguousarray(codes.T),
        "rows": rows,
        "start": start,
        "end": end,
        "y_class": y_class,
        "y_value": y_value,
        "weight": weight,
        "is_classification": classification,
        "criterion": criterion_id(criterion, classification),
        "n_classes": n_classes,
        "feature_order": (
            np.arange(n_features, dtype=np.int64)
            if feature_order is None
            else np.asarray(feature_order, dtype=np.int64)
        ),
        "max_features": n_features if max_features is None else max_features,
        "n_codes": n_codes,
        "is_nominal": np.asarray(is_nominal, dtype=np.bool_),
        "node_hist": node_hist,
        "node_hist_offsets": offsets,
        "node_stats": node_stats,
        "min_count": min_count,
        "min_weight": float(min_weight),
        "hist_ratio": float(hist_ratio),
        "scratch_hist": np.empty((max_bins + 1, n_channels)),
        "scratch_codes": np.empty(
            K.scratch_codes_size(n, max_bins, float(hist_ratio)), dtype=np.int64
        ),
        "scratch_mask": np.zeros(max_bins + 1, dtype=np.uint8) if masks_given else None,
        "out": out,
        "out_mask": out_mask if masks_given else None,
        "sorted_rows": sorted_rows,
        "sorted_slot": sorted_slot,
    }
    if not np.all(is_nominal) or not absent_kinds_none:
        # Buffers of no rows: a node's presorted rows are gathered into its own.
        available["sorted_scan"] = scan_buffers.sorted_scan_buffers(1, 0, codes.dtype)
    if path in ("gathered", "gathered_unit"):  # presorted rows gathered in code order
        # ("gathered_unit": weights all 1, only the targets gathered)
        available["sorted_scan"] = scan_buffers.sorted_scan_buffers(
            1, n, codes.dtype, path == "gathered_unit"
        )
    if path in ("coded", "coded_in_place"):
        n_gathered = n if path == "coded" else 0
        available["sorted_scan"] = scan_buffers.sorted_scan_buffers(
            1, n_gathered, codes.dtype, sorted_codes=sorted_codes
        )
    # Parameters added later with a default (e.g. surrogate options) keep it.
    parameters = inspect.signature(K.find_best_split.py_func).parameters.values()
    unknown = [p.name for p in parameters if p.name not in available and p.default is p.empty]
    assert not unknown, f"find_best_split grew parameters the harness does not know: {unknown}"
    args = [available.get(p.name, p.default) for p in parameters]
    rows_before = rows.copy()
    K.find_best_split(*args)
    np.testing.assert_array_equal(rows, rows_before)  # the search must not move rows
    return {
        "gain": out[OUT_GAIN],
        "feature": int(out[OUT_FEATURE]),
        "left_code": int(out[OUT_LEFT_CODE]),
        "right_code": int(out[OUT_RIGHT_CODE]),
        "missing_left": bool(out[OUT_MISSING_LEFT]),
        "is_subset": bool(out[OUT_IS_SUBSET]),
        "mask": out_mask.copy(),
        "parent_cost": naive_cost(
            np.asarray(y)[node_rows], weight[node_rows], criterion, n_classes
        ),
    }


def left_rows_of(split, codes, n_codes, node_rows):
    """Which node rows the split's description sends to the left child."""
    f = split["feature"]
    codes_node = codes[node_rows, f].astype(np.int64)
    missing = codes_node == n_codes[f]
    if split["is_subset"]:
        marks = split["mask"][codes_node]
        assert np.all(marks > 0), "a present level is marked absent in the subset mask"
        return marks == 1
    known_left = (codes_node <= split["left_code"]) & ~missing
    return known_left | (missing & split["missing_left"])


def assert_gain_close(actual, expected, scale):
    assert math.isclose(actual, expected, rel_tol=1e-9, abs_tol=1e-9 * max(1.0, scale)), (
        actual,
        expected,
    )


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


@st.composite
def node_data(draw, *, kinds=("numeric", "nominal"), max_codes=10, task="any", max_rows=50):
    """A small coded data set, a node (subset of rows) and a task."""
    n = draw(st.integers(4, max_rows))
    n_features = draw(st.integers(1, 3))
    kind = draw(st.sampled_from(kinds))
    is_nominal = np.array([kind == "nominal"] * n_features)
    if len(kinds) > 1:
        is_nominal = np.array(
            draw(st.lists(st.booleans(), min_size=n_features, max_size=n_features))
        )
    n_codes = np.array(
        draw(st.lists(st.integers(1, max_codes), min_size=n_features, max_size=n_features)),
        dtype=np.int64,
    )
    missing_rate = draw(st.sampled_from([0.0, 0.0, 0.2, 0.5]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    codes = np.empty((n, n_features), dtype=code_dtype_for(int(n_codes.max())), order="F")
    for f in range(n_features):
        # Few distinct codes make ties in values; some codes absent at the node.
        column = rng.integers(0, n_codes[f], n)
        column[rng.random(n) < missing_rate] = n_codes[f]
        codes[:, f] = column
    if task == "any":
        task = draw(st.sampled_from(["binary", "multiclass", "regression"]))
    if task == "regression":
        n_classes = 0
        criterion = "squared_error"
        y = np.round(rng.normal(0.0, 3.0, n), 2) + rng.integers(-2, 3, n)
    else:
        n_classes = 2 if task == "binary" else draw(st.integers(3, 4))
        criterion = draw(st.sampled_from(["gini", "entropy"]))
        y = rng.integers(0, n_classes, n)
    weight_kind = draw(st.sampled_from(["ones", "integers", "floats"]))
    if weight_kind == "ones":
        weight = np.ones(n)
    elif weight_kind == "integers":
        weight = rng.integers(0, 4, n).astype(float)
    else:
        weight = rng.uniform(0.1, 3.0, n)
    node_size = draw(st.integers(2, n))
    node_rows = rng.permutation(n)[:node_size]
    return {
        "codes": codes,
        "n_codes": n_codes,
        "is_nominal": is_nominal,
        "y": y,
        "weight": weight,
        "node_rows": node_rows,
        "criterion": criterion,
        "n_classes": n_classes,
    }


_DATA_KEYS = (
    "codes",
    "n_codes",
    "is_nominal",
    "y",
    "weight",
    "node_rows",
    "criterion",
    "n_classes",
)


def _check_against_brute_force(data, min_count=1, min_weight=0.0, **kwargs):
    split = find_split(
        data["codes"],
        data["n_codes"],
        data["is_nominal"],
        data["y"],
        data["weight"],
        data["node_rows"],
        data["criterion"],
        data["n_classes"],
        min_count=min_count,
        min_weight=min_weight,
        **kwargs,
    )
    best, _ = brute_force_best_split(
        data["codes"],
        data["n_codes"],
        data["is_nominal"],
        data["y"],
        data["weight"],
        data["node_rows"],
        data["criterion"],
        data["n_classes"],
        min_count=min_count,
        min_weight=min_weight,
    )
    if best == -np.inf:
        assert split["gain"] == -np.inf and split["feature"] == -1
        return split, best
    assert split["gain"] > -np.inf, "the kernel found no split where the brute force found one"
    scale = split["parent_cost"]
    assert_gain_close(split["gain"], best, scale)
    # The split the kernel describes really has the gain it reports, and is admissible.
    node_rows = data["node_rows"]
    left = left_rows_of(split, data["codes"], data["n_codes"], node_rows)
    y_node = np.asarray(data["y"])[node_rows]
    w_node = data["weight"][node_rows]
    assert min_count <= left.sum() <= left.shape[0] - min_count
    assert w_node[left].sum() >= min_weight and w_node[~left].sum() >= min_weight
    actual = naive_split_gain(y_node, w_node, left, data["criterion"], data["n_classes"])
    assert_gain_close(actual, split["gain"], scale)
    assert split["is_subset"] == bool(data["is_nominal"][split["feature"]])
    return split, best


# ---------------------------------------------------------------------------
# Numeric thresholds (ties in values, missing values, weights, min leaf)
# ---------------------------------------------------------------------------


@SETTINGS
@given(data=node_data(kinds=("numeric",)), min_count=st.sampled_from([1, 1, 2, 3, 5]))
def test_numeric_split_is_best_of_all_thresholds(data, min_count):
    _check_against_brute_force(data, min_count=min_count)


@SETTINGS
@given(data=node_data(kinds=("numeric",)), min_count=st.sampled_from([1, 2, 4]))
def test_numeric_split_is_best_with_sorted_path(data, min_count):
    _check_against_brute_force(data, min_count=min_count, hist_ratio=SORT_ALWAYS)


@SETTINGS
@given(data=node_data(kinds=("numeric",)), fraction=st.sampled_from([0.05, 0.2, 0.4]))
def test_numeric_split_respects_min_weight(data, fraction):
    min_weight = fraction * data["weight"][data["node_rows"]].sum()
    _check_against_brute_force(data, min_weight=min_weight)


# ---------------------------------------------------------------------------
# Nominal subsets
# ---------------------------------------------------------------------------


@SETTINGS
@given(
    data=node_data(kinds=("nominal",), max_codes=8, task="binary"),
)
def test_two_class_subset_is_best_of_all_subsets(data):
    _check_against_brute_force(data)


@SETTINGS
@given(data=node_data(kinds=("nominal",), max_codes=8, task="regression"))
def test_regression_subset_is_best_of_all_subsets(data):
    _check_against_brute_force(data)


@SETTINGS
@given(data=node_data(kinds=("nominal",), max_codes=11, task="multiclass", max_rows=60))
def test_multiclass_subset_is_exhaustive_up_to_12_levels(data):
    """Up to 11 categories plus the missing level: at most MAX_EXHAUSTIVE_LEVELS levels."""
    _check_against_brute_force(data)


@SETTINGS
@given(
    data=node_data(kinds=("nominal",), max_codes=11, task="multiclass", max_rows=60),
    min_count=st.sampled_from([2, 3, 5]),
)
def test_multiclass_subset_with_min_leaf_is_exhaustive(data, min_count):
    _check_against_brute_force(data, min_count=min_count)


@SETTINGS
@given(data=node_data(task="any"))
def test_mixed_features_best_split(data):
    _check_against_brute_force(data)


def test_twelve_levels_three_classes_is_exhaustive():
    """At exactly MAX_EXHAUSTIVE_LEVELS levels (11 categories + missing) every
    subset is tried: the answer equals the brute force on data built so that
    no class ordering finds it."""
    assert MAX_EXHAUSTIVE_LEVELS == 12
    rng = np.random.default_rng(7)
    n = 240
    codes = np.asfortranarray(rng.integers(0, 12, (n, 1)).astype(np.uint8))  # 11 = missing
    y = rng.integers(0, 3, n)
    data = {
        "codes": codes,
        "n_codes": np.array([11]),
        "is_nominal": np.array([True]),
        "y": y,
        "weight": rng.uniform(0.5, 2.0, n),
        "node_rows": np.arange(n),
        "criterion": "gini",
        "n_classes": 3,
    }
    split, _ = _check_against_brute_force(data, pad=0)
    assert split["gain"] > 0


def test_more_levels_than_exhaustive_uses_a_valid_heuristic_split():
    """Above 12 levels with 3 classes the heuristic split is admissible, has the
    gain it reports, and is no better than the brute-force optimum."""
    rng = np.random.default_rng(3)
    n = 300
    codes = np.asfortranarray(rng.integers(0, 14, (n, 1)).astype(np.uint8))
    y = rng.integers(0, 3, n)
    w = np.ones(n)
    rows = np.arange(n)
    split = find_split(codes, [14], [True], y, w, rows, "gini", 3, pad=0)
    best, _ = brute_force_best_split(codes, [14], [True], y, w, rows, "gini", 3)
    left = left_rows_of(split, codes, np.array([14]), rows)
    assert_gain_close(naive_split_gain(y, w, left, "gini", 3), split["gain"], n)
    assert 0 < split["gain"] <= best * (1 + 1e-12)


# A node where the ordering result does not hold under min_samples_leaf=2. Levels
# (codes): a = 0 (4 rows, 3 of class 1), b = 1 (1 row, class 1), c = 2 (1 row,
# class 0). Ordered by class-1 fraction / mean target: c, a, b; both prefixes of
# that order leave a side of one row, so a prefix search finds no split, while
# {b, c} | {a} is admissible and lowers the impurity. (The engine once missed it.)
MIN_LEAF_CODES = np.asfortranarray(np.array([[1], [0], [0], [0], [0], [2]], dtype=np.uint8))
MIN_LEAF_Y = np.array([1, 1, 0, 1, 1, 0])


def _min_leaf_data(task):
    return {
        "codes": MIN_LEAF_CODES,
        "n_codes": np.array([3]),
        "is_nominal": np.array([True]),
        "y": MIN_LEAF_Y if task == "binary" else MIN_LEAF_Y.astype(float),
        "weight": np.ones(6),
        "node_rows": np.arange(6),
        "criterion": "gini" if task == "binary" else "squared_error",
        "n_classes": 2 if task == "binary" else 0,
    }


@pytest.mark.parametrize(("task", "gain"), [("binary", 1 / 6), ("regression", 1 / 12)])
def test_subset_with_min_leaf_need_not_be_a_prefix(task, gain):
    # Gini: 6 * 4/9 - (2 * 1/2 + 4 * 3/8) = 1/6. Squared error: 4/3 - (1/2 + 3/4) = 1/12.
    data = _min_leaf_data(task)
    _, candidates = brute_force_best_split(*(data[key] for key in _DATA_KEYS), min_count=2)
    assert len(candidates) == 1  # only {b, c} | {a} leaves two rows on each side
    left = candidates[0][2]
    np.testing.assert_array_equal(left ^ left[1], [True, False, False, False, False, True])
    split, best = _check_against_brute_force(data, min_count=2, pad=0)
    assert best == pytest.approx(gain, rel=1e-12)
    assert split["gain"] == pytest.approx(gain, rel=1e-12)


def test_estimator_with_min_leaf_splits_the_nominal_feature():
    X = pd.DataFrame({"c": ["b", "a", "a", "a", "a", "c"]})
    model = CARTClassifier(min_samples_leaf=2).fit(X, MIN_LEAF_Y)
    assert model.tree_.node_count == 3
    assert sorted(model.tree_.n_samples[1:].tolist()) == [2, 4]


@SETTINGS
@given(
    data=node_data(kinds=("nominal",), max_codes=8, task="binary"),
    min_count=st.sampled_from([2, 3, 5]),
)
def test_two_class_subset_with_min_leaf_is_best_of_all_subsets(data, min_count):
    _check_against_brute_force(data, min_count=min_count)


@SETTINGS
@given(
    data=node_data(kinds=("nominal",), max_codes=8, task="regression"),
    min_count=st.sampled_from([2, 3, 5]),
)
def test_regression_subset_with_min_leaf_is_best_of_all_subsets(data, min_count):
    _check_against_brute_force(data, min_count=min_count)


@SETTINGS
@given(
    data=node_data(kinds=("nominal",), max_codes=8, task="any"),
    fraction=st.sampled_from([0.1, 0.3]),
)
def test_subset_with_min_weight_is_best_of_all_subsets(data, fraction):
    min_weight = fraction * data["weight"][data["node_rows"]].sum()
    _check_against_brute_force(data, min_weight=min_weight)


@pytest.mark.parametrize("task", ["binary", "regression"])
def test_more_levels_than_exhaustive_with_min_leaf_is_admissible(task):
    """Above 12 levels a leaf-size constraint makes the prefix search a heuristic:
    its split is still admissible, has the gain it reports and is no better than
    the optimum."""
    rng = np.random.default_rng(5)
    n = 200
    codes = np.asfortranarray(rng.integers(0, 14, (n, 1)).astype(np.uint8))
    y = rng.integers(0, 2, n) if task == "binary" else rng.normal(size=n)
    criterion, n_classes = ("gini", 2) if task == "binary" else ("squared_error", 0)
    w = np.ones(n)
    rows = np.arange(n)
    split = find_split(codes, [14], [True], y, w, rows, criterion, n_classes, min_count=20, pad=0)
    best, _ = brute_force_best_split(
        codes, [14], [True], y, w, rows, criterion, n_classes, min_count=20
    )
    left = left_rows_of(split, codes, np.array([14]), rows)
    assert 20 <= left.sum() <= n - 20
    assert_gain_close(naive_split_gain(y, w, left, criterion, n_classes), split["gain"], n)
    assert 0 < split["gain"] <= best * (1 + 1e-12)


# ---------------------------------------------------------------------------
# All statistics paths give the same split
# ---------------------------------------------------------------------------


def _integer_data(data):
    """Make sums exact (integer weights and targets) so every path agrees to the bit."""
    data = dict(data)
    data["weight"] = np.round(data["weight"] * 2) / 2 + 0.5
    if data["n_classes"] == 0:
        data["y"] = np.round(data["y"])
    return data


@SETTINGS
@given(data=node_data(task="any", max_rows=150), min_count=st.sampled_from([1, 2, 3]))
def test_gathered_presorted_scan_is_the_histograms_split(data, min_count):
    """Nodes above SMALL_NODE_MAX_ROWS rows scan presorted features; gathering their
    codes, weights and targets first gives the histogram path's split, to the bit."""
    data = _integer_data(data)
    args = (
        data["codes"], data["n_codes"], data["is_nominal"], data["y"], data["weight"],
        data["node_rows"], data["criterion"], data["n_classes"],
    )  # fmt: skip
    by_hist = find_split(*args, min_count=min_count, hist_ratio=HIST_ALWAYS)
    for path in ("presorted", "gathered", "coded", "coded_in_place"):
        other = find_split(*args, min_count=min_count, hist_ratio=SORT_ALWAYS, path=path)
        _assert_same_threshold_split(other, by_hist, path)


def _assert_same_threshold_split(other, by_hist, path):
    """``other`` (``find_split``'s answer by ``path``) is the histogram path's split."""
    assert (other["gain"], other["feature"]) == (by_hist["gain"], by_hist["feature"])
    if by_hist["feature"] >= 0:
        for key in ("left_code", "right_code", "missing_left", "is_subset"):
            assert other[key] == by_hist[key], (path, key, by_hist, other)


@SETTINGS
@given(data=node_data(task="any", max_rows=150), min_count=st.sampled_from([1, 2, 3]))
def test_gathered_scan_of_unit_weights_is_the_histograms_split(data, min_count):
    """Rows of weight 1 (no sample weights) have only their targets gathered, the
    weights' row holding ones from the start: the histogram path's split, to the bit."""
    data = _integer_data(data)
    data["weight"] = np.ones_like(data["weight"])
    args = (
        data["codes"], data["n_codes"], data["is_nominal"], data["y"], data["weight"],
        data["node_rows"], data["criterion"], data["n_classes"],
    )  # fmt: skip
    by_hist = find_split(*args, min_count=min_count, hist_ratio=HIST_ALWAYS)
    other = find_split(*args, min_count=min_count, hist_ratio=SORT_ALWAYS, path="gathered_unit")
    _assert_same_threshold_split(other, by_hist, "gathered_unit")


@pytest.mark.parametrize("hist_ratio", [SORT_ALWAYS, 0.5, 1.0, 2.0, 3.7, HIST_ALWAYS])
def test_scratch_codes_hold_every_node_that_is_sorted(hist_ratio):
    # A feature of n_bins codes is sorted in a node of n_node rows where
    # n_bins > hist_ratio * n_node: its rows, their codes, then the sort's scratch (none
    # for the insertion sort, n_bins + 1 counts, or three entries a row for the merge
    # sort of a node with too many codes to count).
    for n_rows in (1, 2, 5, 64, 300):
        for max_bins in (2, 3, 17, 256, 3000):
            size = K.scratch_codes_size(n_rows, max_bins, hist_ratio)
            n_node, n_bins = np.meshgrid(
                np.arange(1, n_rows + 1), np.arange(2, max_bins + 1), indexing="ij"
            )
            sort_scratch = np.where(
                n_bins > sort_kernels.COUNTING_SORT_BINS_PER_ROW * n_node, 3 * n_node, n_bins + 1
            )
            sort_scratch[n_node <= sort_kernels.INSERTION_SORT_MAX_ROWS] = 0
            needed = (2 * n_node + 1 + sort_scratch)[n_bins > hist_ratio * n_node]
            assert needed.max(initial=0) <= size
    # Sized by the nodes that sort, not by the training rows.
    assert K.scratch_codes_size(800_000, 256, 2.0) == 2 * 129 + 258
    assert K.scratch_codes_size(800_000, 256, SORT_ALWAYS) == 2 * 800_000 + 258


def test_unit_weight_buffers_hold_ones_and_say_so():
    sorted_codes = np.zeros((2, 5), dtype=np.int32)
    buffers = scan_buffers.sorted_scan_buffers(
        2, 5, np.uint8, unit_weights=True, sorted_codes=sorted_codes
    )
    keys, identity, gathered, unit_weights, codes = buffers
    assert unit_weights is True and gathered.shape == (2, 2, 5) and codes is sorted_codes
    # Keys of the code matrix's type and int32 positions, as local mode's: every
    # call of scan_sorted_rows shares one compilation.
    assert keys.dtype == np.uint8 and identity.dtype == np.int32
    np.testing.assert_array_equal(gathered[:, 0], 1.0)
    own = scan_buffers.own_sorted_scan(buffers, 3)
    assert own[0].dtype == np.uint8
    assert own[3] and own[2].shape == (1, 2, 3) and np.shares_memory(own[1], identity)
    assert np.shares_memory(own[4], sorted_codes)
    np.testing.assert_array_equal(own[2][0, 0], 1.0)
    assert not scan_buffers.sorted_scan_buffers(1, 4, np.uint8)[3]
    assert scan_buffers.sorted_scan_buffers(1, 4, np.uint8)[4].shape == (0, 0)
    no_rows = scan_buffers.sorted_scan_buffers(1, 0, np.uint8)
    assert scan_buffers.own_sorted_scan(no_rows, 3)[2].shape == (1, 2, 0)


def test_a_thread_without_room_scans_a_node_in_buffers_of_the_same_types():
    """``_thread_scan``: a thread's own rows of the buffers where they hold the node;
    else (buffers of no rows, a thread beyond them, too few rows) buffers made for the node
    where features are presorted, of the same types, weights to be gathered; none
    otherwise."""
    codes = np.zeros((6, 2), dtype=np.uint16)
    sorted_codes = np.zeros((1, 6), dtype=np.int32)
    buffers = scan_buffers.sorted_scan_buffers(
        1, 6, codes.dtype, unit_weights=True, sorted_codes=sorted_codes
    )
    mine = scan_buffers._thread_scan(buffers, 0, codes, 4, True)
    assert np.shares_memory(mine[0], buffers[0]) and np.shares_memory(mine[2], buffers[2])
    assert mine[3] is True
    small = scan_buffers.sorted_scan_buffers(1, 3, codes.dtype, sorted_codes=sorted_codes)
    no_rows = scan_buffers.sorted_scan_buffers(1, 0, codes.dtype)
    for sorted_scan, thread in ((no_rows, 0), (buffers, 1), (small, 0)):
        keys, positions, targets, unit_weights, kept_codes = scan_buffers._thread_scan(
            sorted_scan, thread, codes, 4, True
        )
        assert keys.shape == (4,) and keys.dtype == np.uint16
        np.testing.assert_array_equal(positions, np.arange(4, dtype=np.int32), strict=True)
        assert targets.shape == (2, 4) and unit_weights is False
        assert kept_codes.shape == ((0, 0) if sorted_scan is no_rows else (1, 6))
        # No presorted features: nothing is gathered, no rows are made (a thread with
        # rows of the buffers gets them, as ever).
        unused = scan_buffers._thread_scan(sorted_scan, thread, codes, 4, False)[2]
        if sorted_scan is small:
            assert np.shares_memory(unused, small[2])
        else:
            assert unused.shape == (2, 0)


@SETTINGS
@given(data=node_data(task="any"), min_count=st.sampled_from([1, 2, 3]))
def test_histogram_and_sorted_paths_agree(data, min_count):
    data = _integer_data(data)
    args = tuple(data[key] for key in _DATA_KEYS)
    by_hist = find_split(*args, min_count=min_count, hist_ratio=HIST_ALWAYS)
    by_sort = find_split(*args, min_count=min_count, hist_ratio=SORT_ALWAYS)
    by_kept = find_split(*args, min_count=min_count, hist_ratio=SORT_ALWAYS, path="kept")
    answers = [by_hist, by_sort, by_kept]
    if "sorted_slot" in inspect.signature(K.find_best_split.py_func).parameters:
        answers.append(
            find_split(*args, min_count=min_count, hist_ratio=SORT_ALWAYS, path="presorted")
        )
    for other in answers[1:]:
        assert (other["gain"], other["feature"]) == (by_hist["gain"], by_hist["feature"])
        if by_hist["feature"] < 0:
            continue  # no split: the other slots are not defined
        for key in ("left_code", "right_code", "missing_left", "is_subset"):
            assert other[key] == by_hist[key], (key, by_hist, other)
        n_bins = data["n_codes"][by_hist["feature"]] + 1
        np.testing.assert_array_equal(other["mask"][:n_bins], by_hist["mask"][:n_bins])


@SETTINGS
@given(
    data=st.one_of(node_data(kinds=("numeric",)), node_data(kinds=("nominal",))),
    min_count=st.sampled_from([1, 2]),
    hist_ratio=st.sampled_from([HIST_ALWAYS, SORT_ALWAYS]),
)
def test_a_kind_of_feature_absent_searched_without_its_buffers_finds_the_same_split(
    data, min_count, hist_ratio
):
    """Numeric features only, with no masks; nominal only, with no ``sorted_scan``
    (each None: numba compiles the search without that kind's code): the split the
    search with every buffer (the compilation for a mix of kinds) finds."""
    args = tuple(data[key] for key in _DATA_KEYS)
    without = find_split(*args, min_count=min_count, hist_ratio=hist_ratio)
    every = find_split(*args, min_count=min_count, hist_ratio=hist_ratio, absent_kinds_none=False)
    for key in ("gain", "feature", "left_code", "right_code", "missing_left", "is_subset"):
        np.testing.assert_array_equal(without[key], every[key])
    np.testing.assert_array_equal(without["mask"], every["mask"])


@pytest.mark.parametrize("missing", ["sorted_scan", "out_mask"])
def test_a_feature_without_the_buffers_of_its_kind_is_an_error_not_skipped(missing):
    """A numeric feature searched with ``sorted_scan`` None, or a nominal one with the
    masks None, stops the search (the grower never does either): skipping it would
    silently grow another tree."""
    codes = np.array([[0, 0], [1, 1], [0, 1], [1, 0]], dtype=np.uint8, order="F")
    is_nominal = np.array([missing == "out_mask", missing == "out_mask"])
    y = np.array([0, 1, 0, 1], dtype=np.int64)
    node_stats = np.array([4.0, 2.0, 2.0])
    scan = None if missing == "sorted_scan" else scan_buffers.sorted_scan_buffers(1, 0, codes.dtype)
    with pytest.raises(
        AssertionError, match=f"a {'numeric' if missing == 'sorted_scan' else 'nominal'} feature"
    ):
        K.find_best_split(
            codes.T.copy(), np.arange(4, dtype=np.intp), 0, 4, y, np.zeros(1), np.ones(4), True,
            criterion_id("gini", True), 2, np.arange(2, dtype=np.int64), 2,
            np.array([2, 2], dtype=np.int64), is_nominal, np.zeros((0, 3)),
            np.full(2, -1, dtype=np.int64), node_stats, 1, 0.0, HIST_ALWAYS, np.empty((3, 3)),
            np.empty(K.scratch_codes_size(4, 3, HIST_ALWAYS), dtype=np.int64), None,
            np.empty(N_OUT), None,
            np.zeros((0, 4), dtype=np.int32), np.full(2, -1, dtype=np.int64), False, False,
            False, scan,
        )  # fmt: skip


def _reference_squared_error_scan(codes, w, y, missing_code, min_count, min_weight):
    """The threshold scan as the channel-row kernels did it before squared error
    kept its sums in registers: rows of a code summed in node order into a group,
    the group added to the left side, each cut tried with missing rows right,
    then left, then "known left, missing right"; Python floats, the same
    operations in the same order. Returns ``(gain, left, right, missing_left)``."""

    def add(stats, j):
        return [stats[0] + 1.0, stats[1] + w[j], stats[2] + w[j] * y[j],
                stats[3] + w[j] * y[j] * y[j]]  # fmt: skip

    def cost(stats):
        if stats[1] <= 0.0:
            return 0.0
        value = stats[3] - stats[2] * stats[2] / stats[1]
        return value if value > 0.0 else 0.0

    total, missing = [0.0] * 4, [0.0] * 4
    groups = {}
    for j, code in enumerate(codes):
        total = add(total, j)
        if code == missing_code:
            missing = add(missing, j)
        else:
            groups[code] = add(groups.get(code, [0.0] * 4), j)
    parent = cost(total)
    best = [-math.inf, -1, -1, 0.0]

    def keep(left, right, left_code, right_code, missing_left):
        sides_ok = all(side[0] >= min_count and side[1] >= min_weight for side in (left, right))
        if sides_ok:
            gain = parent - cost(left) - cost(right)
            if gain > best[0]:
                best[:] = [gain, left_code, right_code, missing_left]

    def minus(a, b):
        return [a[c] - b[c] for c in range(4)]

    def plus(a, b):
        return [a[c] + b[c] for c in range(4)]

    left, prev = [0.0] * 4, -1
    for code in sorted(groups):
        if prev >= 0:
            keep(left, minus(total, left), prev, code, 0.0)
            if missing[0] > 0:
                with_missing = plus(left, missing)
                keep(with_missing, minus(total, with_missing), prev, code, 1.0)
        left = plus(left, groups[code])
        prev = code
    if missing[0] > 0 and prev >= 0:
        keep(left, missing, prev, -1, 0.0)
    return tuple(best)


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 60),
    n_codes=st.integers(1, 12),
    min_count=st.sampled_from([1, 2, 4]),
    min_weight=st.sampled_from([0.0, 1.5]),
    with_missing=st.booleans(),
    unit=st.booleans(),
)
def test_squared_error_scans_match_the_channel_row_reference(
    seed, m, n_codes, min_count, min_weight, with_missing, unit
):
    """The register scans (rows in code order, in one pass or in three over
    ``cut_rows``, rows of weight 1 also without reading their weights; a
    histogram) give the reference's split and gain to the bit, missing rows
    (code ``n_codes``) included."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_codes + int(with_missing), m)
    w = np.ones(m) if unit else rng.uniform(0.1, 3.0, m)
    y = rng.normal(0.0, 10.0, m)
    expected = _reference_squared_error_scan(codes, w, y, n_codes, min_count, min_weight)
    criterion = criterion_id("squared_error", False)
    stats = [0.0] * 4
    for j in range(m):
        stats = [stats[0] + 1.0, stats[1] + w[j], stats[2] + w[j] * y[j],
                 stats[3] + w[j] * y[j] * y[j]]  # fmt: skip
    total = np.array(stats)
    parent = total[3] - total[2] * total[2] / total[1]
    parent_cost = parent if parent > 0.0 else 0.0
    order = np.argsort(codes, kind="stable").astype(np.int64)
    keys = codes[order].astype(np.int64)
    work = np.zeros((5, 4))
    best = np.zeros(4)
    scratch = [(None, False), (np.full((N_CUT_ROWS, m), np.nan), False)]
    if unit:
        scratch.append((np.full((N_CUT_ROWS, m), np.nan), True))
    for cut_rows, unit_weights in scratch:
        n_present = K.scan_sorted_rows(
            keys, order, m, n_codes, w, np.zeros(m), y, False, total, parent_cost, criterion,
            min_count, min_weight, (work[0], work[1], work[2], work[3], work[4]), best, False,
            cut_rows, unit_weights,
        )  # fmt: skip
        assert n_present == np.unique(codes).size
        if expected[0] == -math.inf:
            assert best[0] == -math.inf
        else:
            assert tuple(best) == expected
    # The three passes did run where they should (the scratch written), and only
    # there; with unit weights, without writing the sides' weights.
    short_runs = m <= VALUE_CUTS_MAX_ROWS_PER_CODE * n_codes
    three_passes = m >= 2 and short_runs and codes.max() < n_codes
    assert (not np.isnan(scratch[1][0]).all()) == three_passes
    if unit and three_passes:
        assert np.isnan(scratch[2][0][1]).all() and not np.isnan(scratch[2][0][0]).all()
    hist = np.zeros((n_codes + 1, 4))
    for j in range(m):
        hist[codes[j]] += [1.0, w[j], w[j] * y[j], w[j] * y[j] * y[j]]
    best[:] = 0.0
    K.scan_threshold(
        hist, np.arange(n_codes + 1), True, n_codes, total, parent_cost, criterion, False,
        min_count, min_weight, best, work[0], work[1], work[2],
    )  # fmt: skip
    assert best[0] == expected[0]
    if expected[0] > -math.inf:
        assert tuple(best) == expected


@njit(error_model="numpy")
def _paired_value_cuts(keys_a, order_a, keys_b, order_b, m, y, total, parent_cost, min_count,
                       min_weight, best_a, best_b, cut_a, cut_b):  # fmt: skip
    """value_cut_pairs_inlined, compiled as local mode compiles it (numpy's error model)."""
    return value_cut_pairs_inlined(keys_a, order_a, keys_b, order_b, m, y, total, parent_cost,
                                   min_count, min_weight, best_a, best_b, cut_a,
                                   cut_b)  # fmt: skip


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(2, 80),
    n_codes=st.tuples(st.integers(1, 40), st.integers(1, 40)),
    min_count=st.sampled_from([1, 2, 4]),
    scale=st.sampled_from([1e-3, 1.0, 1e6]),
)
def test_paired_value_cuts_are_each_features_single_scan(seed, m, n_codes, min_count, scale):
    """Two features' three-pass scans in one loop (local mode's pairs, rows of weight
    1) write each feature's best split and gain as its own scan writes them, to the
    bit, and count the same values present."""
    rng = np.random.default_rng(seed)
    y = rng.normal(0.0, scale, m)
    # Some targets repeated: runs whose sums restart at equal values.
    y[rng.random(m) < 0.3] = y[0]
    total = np.array([m, m, y.sum(), (y * y).sum()], dtype=np.float64)
    parent_cost = max(total[3] - total[2] * total[2] / total[1], 0.0)
    runs = []
    for k in n_codes:
        codes = rng.integers(0, k, m)
        order = np.argsort(codes, kind="stable").astype(np.int32)
        runs.append((codes[order].astype(np.uint8), order))
    expected = []
    for keys, order in runs:
        best = np.full(4, np.nan)
        n_present = scan_sorted_values_by_cuts(keys, order, m, None, y, total, parent_cost,
                                               min_count, 0.0, best,
                                               np.full((N_CUT_ROWS, m), np.nan))  # fmt: skip
        assert n_present == np.unique(keys).size
        expected.append((n_present, best))
    best_a, best_b = np.full(4, np.nan), np.full(4, np.nan)
    cut_a, cut_b = np.full((N_CUT_ROWS, m), np.nan), np.full((N_CUT_ROWS, m), np.nan)
    (keys_a, order_a), (keys_b, order_b) = runs
    n_a, n_b = _paired_value_cuts(keys_a, order_a, keys_b, order_b, m, y, total, parent_cost,
                                  min_count, 0.0, best_a, best_b, cut_a, cut_b)  # fmt: skip
    assert (n_a, n_b) == (expected[0][0], expected[1][0])
    np.testing.assert_array_equal(best_a, expected[0][1])
    np.testing.assert_array_equal(best_b, expected[1][1])


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(1, 80),
    n_codes=st.integers(1, 12),
    n_classes=st.integers(2, 7),
    max_weight=st.sampled_from([1, 3, 2**19]),
    min_count=st.sampled_from([1, 2, 4]),
    min_weight=st.sampled_from([0.0, 1.5, 6.0]),
    with_missing=st.booleans(),
    unit=st.booleans(),
)
def test_whole_weight_gini_scan_matches_the_channel_row_scan(
    seed, m, n_codes, n_classes, max_weight, min_count, min_weight, with_missing, unit
):
    """With whole row weights (zero included) the Gini scans that keep the sides'
    sums of squares up to date row by row (code by code on a histogram; in one
    pass or in three over ``cut_rows``, rows of weight 1 also without reading
    their weights) find the channel-row scan's split and gain to the bit;
    missing rows (code ``n_codes``) included."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_codes + int(with_missing), m)
    w = np.ones(m) if unit else rng.integers(0, max_weight + 1, m).astype(np.float64)
    y = rng.integers(0, n_classes, m).astype(np.int32)
    assert w.sum() < K.WHOLE_WEIGHT_LIMIT
    criterion = criterion_id("gini", True)
    hist = np.zeros((n_codes + 1, 1 + n_classes))
    for j in range(m):
        hist[codes[j], 0] += 1.0
        hist[codes[j], 1 + y[j]] += w[j]
    total = hist.sum(axis=0)
    parent_cost = weighted_impurity(total, criterion)
    order = np.argsort(codes, kind="stable").astype(np.int64)
    keys = codes[order].astype(np.int64)
    results = []
    scratch = [
        (False, None, False),
        (True, None, False),
        (True, np.full((N_CUT_ROWS, m), np.nan), False),
    ]
    if unit:
        scratch.append((True, np.full((N_CUT_ROWS, m), np.nan), True))
    for whole_weights, cut_rows, unit_weights in scratch:
        work = np.full((5, 1 + n_classes), np.nan)
        best = np.zeros(4)
        n_present = K.scan_sorted_rows(
            keys, order, m, n_codes, w, y, np.zeros(1), True, total, parent_cost, criterion,
            min_count, min_weight, tuple(work), best, whole_weights, cut_rows, unit_weights,
        )  # fmt: skip
        results.append((n_present, tuple(best) if best[0] > -math.inf else None))
    assert all(result == results[0] for result in results)
    # The three passes did run where they should (the scratch written), and only
    # there; with unit weights, without writing the sides' weights.
    three_passes = m >= 2 and codes.max() < n_codes
    assert (not np.isnan(scratch[2][1]).all()) == three_passes
    if unit and three_passes:
        assert np.isnan(scratch[3][1][1]).all() and not np.isnan(scratch[3][1][0]).all()

    def threshold_scan(skip_missing, whole_weights):
        work = np.full((3, 1 + n_classes), np.nan)
        best = np.zeros(4)
        n_present = K.scan_threshold(
            hist, np.arange(n_codes + 1), True, n_codes, total, parent_cost, criterion, True,
            min_count, min_weight, best, work[0], work[1], work[2], skip_missing, whole_weights,
        )  # fmt: skip
        return n_present, tuple(best) if best[0] > -math.inf else None

    assert threshold_scan(False, False) == threshold_scan(False, True) == results[0]
    # missing="surrogate": the known rows alone.
    assert threshold_scan(True, True) == threshold_scan(True, False)


# ---------------------------------------------------------------------------
# Tie rule, max_features, constant features
# ---------------------------------------------------------------------------


def test_tie_between_features_goes_to_lower_index():
    codes = np.asfortranarray(np.array([[0, 0], [0, 0], [1, 1], [1, 1]], dtype=np.uint8))
    y = np.array([0, 0, 1, 1])
    for order in ([0, 1], [1, 0]):
        split = find_split(
            codes,
            [2, 2],
            [False, False],
            y,
            np.ones(4),
            np.arange(4),
            "gini",
            2,
            feature_order=order,
            pad=0,
        )
        assert split["feature"] == 0
        assert split["gain"] == pytest.approx(2.0)  # 4 * 0.5 - 0


def test_tie_between_thresholds_goes_to_lower_threshold():
    # y = 0 1 1 0 over codes 0..3: cutting after code 0 or after code 2 both isolate one row.
    codes = np.asfortranarray(np.arange(4, dtype=np.uint8).reshape(-1, 1))
    y = np.array([0, 1, 1, 0])
    split = find_split(codes, [4], [False], y, np.ones(4), np.arange(4), "gini", 2, pad=0)
    assert (split["left_code"], split["right_code"]) == (0, 1)
    assert split["gain"] == pytest.approx(2.0 - 4 / 3)  # parent 4 * 1/2; right 3 * 4/9


def test_tie_in_missing_direction_sends_missing_right():
    # The missing row has weight 0, so sending it either way gives the same gain.
    codes = np.asfortranarray(np.array([[0], [0], [1], [1], [2]], dtype=np.uint8))
    y = np.array([0, 0, 1, 1, 1])
    w = np.array([1.0, 1.0, 1.0, 1.0, 0.0])
    split = find_split(codes, [2], [False], y, w, np.arange(5), "gini", 2, pad=0)
    assert split["left_code"] == 0 and split["right_code"] == 1
    assert split["missing_left"] is False
    assert split["gain"] == pytest.approx(2.0)


def test_missing_values_go_to_the_better_side():
    # Missing rows are class 0 like the low codes: they must go left.
    codes = np.asfortranarray(np.array([[0], [0], [1], [1], [2], [2]], dtype=np.uint8))
    y = np.array([0, 0, 1, 1, 0, 0])
    split = find_split(codes, [2], [False], y, np.ones(6), np.arange(6), "gini", 2, pad=0)
    assert (split["left_code"], split["missing_left"]) == (0, True)
    assert split["gain"] == pytest.approx(6 * (1 - (4 / 6) ** 2 - (2 / 6) ** 2))


def test_only_missing_vs_known_split():
    # One known value and missing rows: the only split is known | missing.
    codes = np.asfortranarray(np.array([[0], [0], [1], [1]], dtype=np.uint8))
    y = np.array([0, 0, 1, 1])
    split = find_split(codes, [1], [False], y, np.ones(4), np.arange(4), "entropy", 2, pad=0)
    assert split["right_code"] == -1 and split["missing_left"] is False
    assert split["gain"] == pytest.approx(4.0)


def test_max_features_skips_constant_features():
    # Feature 2 is constant at the node, so with max_features=1 and order [2, 1, 0]
    # the kernel goes on to feature 1 and stops there, although feature 0 is better.
    codes = np.asfortranarray(
        np.array([[0, 0, 3], [0, 1, 3], [1, 0, 3], [1, 1, 3]], dtype=np.uint8)
    )
    y = np.array([0, 0, 1, 1])
    split = find_split(
        codes,
        [2, 2, 4],
        [False, False, False],
        y,
        np.ones(4),
        np.arange(4),
        "gini",
        2,
        feature_order=[2, 1, 0],
        max_features=1,
        pad=0,
    )
    assert split["feature"] == 1
    assert split["gain"] == pytest.approx(0.0)
    split = find_split(
        codes,
        [2, 2, 4],
        [False, False, False],
        y,
        np.ones(4),
        np.arange(4),
        "gini",
        2,
        feature_order=[2, 1, 0],
        max_features=2,
        pad=0,
    )
    assert split["feature"] == 0 and split["gain"] == pytest.approx(2.0)


def test_no_admissible_split_reports_minus_infinity():
    codes = np.asfortranarray(np.array([[0], [1], [2]], dtype=np.uint8))
    y = np.array([0, 1, 0])
    split = find_split(
        codes, [3], [False], y, np.ones(3), np.arange(3), "gini", 2, min_count=2, pad=0
    )
    assert split["gain"] == -np.inf and split["feature"] == -1


def test_subset_mask_marks_absent_levels_zero():
    # Categories 0..4; only 1 and 3 present at the node (plus missing = 5).
    codes = np.asfortranarray(np.array([[1], [1], [3], [3], [5], [5]], dtype=np.uint8))
    y = np.array([0, 0, 1, 1, 0, 0])
    split = find_split(codes, [5], [True], y, np.ones(6), np.arange(6), "gini", 2, pad=0)
    mask = split["mask"][:6]
    assert mask[0] == mask[2] == mask[4] == 0
    assert mask[1] == mask[5] and mask[3] != mask[1]
    assert split["missing_left"] == (mask[5] == 1)
    assert split["gain"] == pytest.approx(6 * (1 - (4 / 6) ** 2 - (2 / 6) ** 2))
