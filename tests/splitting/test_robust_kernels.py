"""The absolute-error / Huber kernels against brute force (``tests/_oracles.py``)."""

import numpy as np
import pytest
from _oracles import (
    huber_location_oracle,
    robust_cost_oracle,
    robust_split_oracle,
    weighted_median_oracle,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeRegressor

from treelearn.criteria._kernels import ABSOLUTE_ERROR, HUBER
from treelearn.splitting._cut_kernels import (
    N_OUT,
    OUT_FEATURE,
    OUT_GAIN,
    OUT_IS_SUBSET,
    OUT_LEFT_CODE,
    OUT_MISSING_LEFT,
    OUT_RIGHT_CODE,
)
from treelearn.splitting._robust_kernels import find_best_split_robust, node_location_cost

CRITERIA = {"absolute_error": ABSOLUTE_ERROR, "huber": HUBER}


def location_cost(y, w, criterion, delta=1.0):
    y = np.asarray(y, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    rows = np.arange(y.shape[0], dtype=np.intp)
    return node_location_cost(y, w, rows, 0, y.shape[0], CRITERIA[criterion], delta)


# -- locations and costs -------------------------------------------------------


@pytest.mark.parametrize(
    ("y", "w", "median"),
    [
        ([3.0, 1.0, 2.0], [1, 1, 1], 2.0),
        ([4.0, 1.0, 3.0, 2.0], [1, 1, 1, 1], 2.5),  # cumulative weight exactly half
        ([1.0, 2.0, 3.0], [1, 1, 2], 2.5),  # half reached exactly at y=2
        ([1.0, 2.0, 3.0], [1, 1, 3], 3.0),
        ([1.0, 2.0, 2.0, 5.0], [1, 1, 1, 1], 2.0),  # ties in y
        ([1.0, 2.0, 3.0, 100.0], [1, 1, 1, 0], 2.0),  # zero weight ignored
        ([1.0, 2.0, 3.0, 9.0], [1, 0, 1, 2], 6.0),  # next positive-weight value
    ],
)
def test_weighted_median_definition(y, w, median):
    location, cost = location_cost(y, w, "absolute_error")
    assert location == median == weighted_median_oracle(y, w)
    assert cost == pytest.approx(np.sum(np.asarray(w) * np.abs(np.asarray(y) - median)))


@settings(max_examples=40, deadline=None)
@given(
    y=st.lists(st.integers(-20, 20), min_size=1, max_size=15),
    data=st.data(),
)
def test_median_and_cost_equal_scikit_learn_leaf(y, data):
    """A one-node scikit-learn absolute-error tree has the same value and impurity."""
    w = data.draw(st.lists(st.integers(1, 4), min_size=len(y), max_size=len(y)))
    y = np.asarray(y, dtype=np.float64) / 4
    w = np.asarray(w, dtype=np.float64)
    X = np.zeros((y.shape[0], 1))  # constant feature: scikit-learn keeps one leaf
    tree = DecisionTreeRegressor(criterion="absolute_error").fit(X, y, sample_weight=w).tree_
    location, cost = location_cost(y, w, "absolute_error")
    assert location == tree.value[0, 0, 0]
    assert cost / w.sum() == pytest.approx(tree.impurity[0], abs=1e-12)


def test_huber_plateau_takes_midpoint():
    # g(c) = 0 on [0 + delta, 10 - delta]: every minimiser costs the same.
    location, cost = location_cost([0.0, 10.0], [1.0, 1.0], "huber", 1.0)
    assert location == 5.0
    assert cost == pytest.approx(2 * (4.0 + 0.5))


def test_huber_limits():
    rng = np.random.default_rng(0)
    y = rng.normal(size=31) * 3 + 100.0
    w = rng.integers(1, 4, size=31).astype(float)
    location, cost = location_cost(y, w, "huber", 1e9)  # all quadratic: the weighted mean
    mean = np.average(y, weights=w)
    assert location == pytest.approx(mean, rel=1e-12)
    assert cost == pytest.approx(0.5 * np.sum(w * (y - mean) ** 2), rel=1e-9)
    location, _ = location_cost(y, w, "huber", 1e-9)  # all linear: the weighted median
    assert location == pytest.approx(weighted_median_oracle(y, w), abs=1e-8)


@settings(max_examples=60, deadline=None)
@given(
    y=st.lists(
        st.floats(-10, 10, allow_nan=False).map(lambda v: round(v, 2)), min_size=1, max_size=12
    ),
    data=st.data(),
    delta=st.sampled_from([0.05, 0.5, 1.0, 3.0, 50.0]),
)
def test_huber_location_is_the_oracle_minimiser(y, data, delta):
    w = data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=len(y), max_size=len(y)))
    y = np.asarray(y)
    w = np.asarray(w)
    location, cost = location_cost(y, w, "huber", delta)
    c_oracle, cost_oracle = huber_location_oracle(y, w, delta)
    assert cost == pytest.approx(cost_oracle, rel=1e-9, abs=1e-9)
    if np.any(np.abs(y - c_oracle) < delta - 1e-6):  # strictly convex there: unique minimiser
        assert location == pytest.approx(c_oracle, abs=1e-6)
    # Either way the location attains the minimum.
    direct = np.sum(
        w
        * np.where(
            np.abs(y - location) <= delta,
            0.5 * (y - location) ** 2,
            delta * (np.abs(y - location) - delta / 2),
        )
    )
    assert direct == pytest.approx(cost_oracle, rel=1e-9, abs=1e-9)


# -- split search against brute force ------------------------------------------


@st.composite
def nodes(draw, max_rows=14):
    """A node: codes (numeric features with ties and missing, maybe one nominal), y, w."""
    n = draw(st.integers(2, max_rows))
    n_numeric = draw(st.integers(0, 2))
    n_nominal = draw(st.integers(0 if n_numeric else 1, 1))
    n_codes = []
    columns = []
    for _ in range(n_numeric + n_nominal):
        k = draw(st.integers(1, 5))
        missing_rate = draw(st.sampled_from([0.0, 0.0, 0.3]))
        column = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
        holes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
        column = [
            k if (hole and missing_rate) else c for c, hole in zip(column, holes, strict=True)
        ]
        n_codes.append(k)
        columns.append(column)
    codes = np.asfortranarray(np.array(columns, dtype=np.uint8).T)
    is_nominal = np.array([False] * n_numeric + [True] * n_nominal)
    # Half-integer targets and weights: absolute-error arithmetic is then exact.
    y = np.array(draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n))) / 2.0
    w = np.array(draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=n, max_size=n)))
    assume(w.sum() > 0)
    return codes, np.array(n_codes, dtype=np.int64), is_nominal, y, w


def run_kernel(
    codes,
    n_codes,
    is_nominal,
    y,
    w,
    criterion,
    delta,
    min_count,
    min_weight,
    order=None,
    max_features=None,
):
    n_features = codes.shape[1]
    order = np.arange(n_features, dtype=np.int64) if order is None else order
    out = np.empty(N_OUT)
    mask = np.zeros(int(n_codes.max()) + 1, dtype=np.uint8)
    rows = np.arange(y.shape[0], dtype=np.intp)
    find_best_split_robust(
        np.ascontiguousarray(codes.T),
        rows,
        0,
        y.shape[0],
        y,
        w,
        CRITERIA[criterion],
        delta,
        order,
        max_features or n_features,
        n_codes,
        is_nominal,
        min_count,
        min_weight,
        out,
        mask,
    )
    return out, mask


def kernel_left_rows(out, mask, codes, n_codes):
    column = codes[:, int(out[OUT_FEATURE])].astype(np.int64)
    if out[OUT_IS_SUBSET]:
        return mask[column] == 1
    missing = column == n_codes[int(out[OUT_FEATURE])]
    return np.where(missing, bool(out[OUT_MISSING_LEFT]), column <= out[OUT_LEFT_CODE])


def same_split(out, candidate, codes, n_codes, mask):
    if int(out[OUT_FEATURE]) != candidate["feature"]:
        return False
    if out[OUT_IS_SUBSET]:
        return np.array_equal(kernel_left_rows(out, mask, codes, n_codes), candidate["left"])
    return (
        out[OUT_LEFT_CODE] == candidate["left_code"]
        and out[OUT_RIGHT_CODE] == candidate["right_code"]
        and bool(out[OUT_MISSING_LEFT]) == candidate["missing_left"]
    )


def check_mask(out, mask, codes, n_codes):
    """Subset masks mark present levels 1/2 and absent ones 0."""
    if not out[OUT_IS_SUBSET]:
        return
    f = int(out[OUT_FEATURE])
    present = np.zeros(n_codes[f] + 1, dtype=bool)
    present[codes[:, f].astype(np.int64)] = True
    assert np.all((mask[: n_codes[f] + 1] > 0) == present)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(node=nodes(), min_count=st.integers(1, 3), min_weight=st.sampled_from([0.0, 1.0]))
def test_absolute_error_split_equals_brute_force(node, min_count, min_weight):
    """Exact arithmetic (half-integers): same gain and same split under the tie rule."""
    codes, n_codes, is_nominal, y, w = node
    out, mask = run_kernel(
        codes, n_codes, is_nominal, y, w, "absolute_error", 1.0, min_count, min_weight
    )
    features = range(codes.shape[1])
    candidates = robust_split_oracle(
        codes,
        n_codes,
        is_nominal,
        y,
        w,
        "absolute_error",
        1.0,
        min_count,
        min_weight,
        features,
        nominal_prefix_only=True,
    )
    if not candidates:
        assert out[OUT_GAIN] == -np.inf
        return
    best = max(c["gain"] for c in candidates)
    first_best = next(c for c in candidates if c["gain"] == best)
    assert out[OUT_GAIN] == best
    assert same_split(out, first_best, codes, n_codes, mask)
    check_mask(out, mask, codes, n_codes)
    # The nominal heuristic never beats the best of all subsets.
    exhaustive = robust_split_oracle(
        codes, n_codes, is_nominal, y, w, "absolute_error", 1.0, min_count, min_weight, features
    )
    assert out[OUT_GAIN] <= max(c["gain"] for c in exhaustive)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    node=nodes(max_rows=10),
    min_count=st.integers(1, 2),
    delta=st.sampled_from([0.3, 1.0, 4.0]),
)
def test_huber_split_is_optimal(node, min_count, delta):
    """Huber gains have rounding: the chosen split's gain is the best to 1e-7."""
    codes, n_codes, is_nominal, y, w = node
    out, mask = run_kernel(codes, n_codes, is_nominal, y, w, "huber", delta, min_count, 0.0)
    features = [f for f in range(codes.shape[1]) if not is_nominal[f]]
    numeric = robust_split_oracle(
        codes, n_codes, is_nominal, y, w, "huber", delta, min_count, 0.0, features
    )
    everything = numeric + robust_split_oracle(
        codes,
        n_codes,
        is_nominal,
        y,
        w,
        "huber",
        delta,
        min_count,
        0.0,
        [f for f in range(codes.shape[1]) if is_nominal[f]],
    )
    if out[OUT_GAIN] == -np.inf:
        # The nominal prefix heuristic may find no admissible prefix where some
        # subset is admissible; a numeric feature always finds its candidates.
        assert not numeric
        return
    tolerance = 1e-7 * (1.0 + np.sum(w * np.abs(y)))
    # The reported gain is the true gain of the reported split ...
    left = kernel_left_rows(out, mask, codes, n_codes)
    true_gain = (
        robust_cost_oracle(y, w, "huber", delta)
        - robust_cost_oracle(y[left], w[left], "huber", delta)
        - robust_cost_oracle(y[~left], w[~left], "huber", delta)
    )
    assert out[OUT_GAIN] == pytest.approx(true_gain, abs=tolerance)
    # ... at least the best numeric split, at most the best of all subsets.
    if numeric:
        assert out[OUT_GAIN] >= max(c["gain"] for c in numeric) - tolerance
    assert out[OUT_GAIN] <= max(c["gain"] for c in everything) + tolerance
    check_mask(out, mask, codes, n_codes)


@settings(max_examples=60, deadline=None)
@given(node=nodes(), data=st.data())
def test_max_features_skips_constant_features(node, data):
    """Features are visited in order until max_features non-constant ones were seen."""
    codes, n_codes, is_nominal, y, w = node
    n_features = codes.shape[1]
    order = np.array(data.draw(st.permutations(range(n_features))), dtype=np.int64)
    max_features = data.draw(st.integers(1, n_features))
    out, mask = run_kernel(
        codes, n_codes, is_nominal, y, w, "absolute_error", 1.0, 1, 0.0, order, max_features
    )
    visited = [f for f in order if np.unique(codes[:, f]).shape[0] > 1][:max_features]
    candidates = robust_split_oracle(
        codes,
        n_codes,
        is_nominal,
        y,
        w,
        "absolute_error",
        1.0,
        1,
        0.0,
        sorted(visited),
        nominal_prefix_only=True,
    )
    if not candidates:
        assert out[OUT_GAIN] == -np.inf
        return
    best = max(c["gain"] for c in candidates)
    assert out[OUT_GAIN] == best
    assert same_split(out, next(c for c in candidates if c["gain"] == best), codes, n_codes, mask)


def test_missing_left_and_last_candidate():
    # x: 0 0 1 1 missing missing; the missing rows look like x=0 rows.
    codes = np.asfortranarray(np.array([[0, 0, 1, 1, 2, 2]], dtype=np.uint8).T)
    n_codes = np.array([2])
    y = np.array([0.0, 0.0, 10.0, 10.0, 0.0, 0.0])
    w = np.ones(6)
    out, _ = run_kernel(codes, n_codes, np.array([False]), y, w, "absolute_error", 1.0, 1, 0.0)
    assert (out[OUT_LEFT_CODE], out[OUT_RIGHT_CODE], out[OUT_MISSING_LEFT]) == (0, 1, 1)
    assert out[OUT_GAIN] == 20.0
    # Missing rows unlike every known value: "all known left, missing right".
    y = np.array([0.0, 0.0, 0.0, 0.0, 10.0, 10.0])
    out, _ = run_kernel(codes, n_codes, np.array([False]), y, w, "absolute_error", 1.0, 1, 0.0)
    assert (out[OUT_LEFT_CODE], out[OUT_RIGHT_CODE], out[OUT_MISSING_LEFT]) == (1, -1, 0)


def test_split_scales_n_log_n():
    """A 40 000-row node with a 40 000-code feature is searched in well under a second."""
    import time

    rng = np.random.default_rng(0)
    n = 40_000
    codes = np.asfortranarray(rng.permutation(n).astype(np.uint16)[:, None])
    y = rng.normal(size=n)
    w = np.ones(n)
    for criterion in CRITERIA:
        run_kernel(
            codes[:100], np.array([n]), np.array([False]), y[:100], w[:100], criterion, 1.0, 1, 0.0
        )  # compile
        start = time.perf_counter()
        out, _ = run_kernel(codes, np.array([n]), np.array([False]), y, w, criterion, 1.0, 1, 0.0)
        assert time.perf_counter() - start < 2.0
        assert out[OUT_GAIN] > 0
