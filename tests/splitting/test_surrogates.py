"""Surrogate splits (``missing="surrogate"``) against their naive oracles.

* :class:`SurrogateSearch` finds the surrogates :func:`_oracles.surrogates_oracle`
  finds by trying every split of every feature, ranked the same way, by every
  code-table path (dense count, sorting, pre-sorted rows);
* routing a node's rows matches :func:`_oracles.route_oracle`;
* ``find_best_split(..., skip_missing=True)`` finds the best split of the
  rows that know each feature (brute force over those rows), and with no
  missing value it answers exactly as ``skip_missing=False``.
"""

import numpy as np
import pytest
from _oracles import brute_force_best_split, route_oracle, surrogates_oracle
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treelearn.criteria import criterion_id
from treelearn.splitting import _cut_kernels as cut_kernels
from treelearn.splitting import _kernels as K
from treelearn.splitting import _scan_buffer_kernels as scan_buffers
from treelearn.splitting.surrogate import SurrogateSearch

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------------------
# Random nodes
# ---------------------------------------------------------------------------


@st.composite
def nodes(draw, max_rows=40):
    """A code matrix with missing values, integer weights, a node (a run of a
    shuffled row order, with rows before and after it) and a primary split."""
    n = draw(st.integers(6, max_rows))
    n_features = draw(st.integers(2, 4))
    is_nominal = np.array(draw(st.lists(st.booleans(), min_size=n_features, max_size=n_features)))
    n_codes = np.array([draw(st.integers(1, 5 if nominal else 8)) for nominal in is_nominal])
    p_missing = draw(st.sampled_from([0.0, 0.15, 0.4]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    codes = np.empty((n, n_features), dtype=np.uint8, order="F")
    for f in range(n_features):
        column = rng.integers(0, n_codes[f], n)
        column[rng.random(n) < p_missing] = n_codes[f]
        codes[:, f] = column
    weight = rng.integers(1, 4, n).astype(float)
    rows = rng.permutation(n).astype(np.intp)
    start = int(rng.integers(0, 3))
    end = n - int(rng.integers(0, 3))
    primary = int(rng.integers(0, n_features))
    if is_nominal[primary]:
        mask = np.zeros(int(n_codes.max()) + 1, dtype=np.uint8)
        mask[: n_codes[primary]] = rng.integers(1, 3, n_codes[primary])
        left_code = -1
    else:
        mask = None
        left_code = int(rng.integers(0, n_codes[primary]))
    return dict(
        codes=codes, n_codes=n_codes, is_nominal=is_nominal, weight=weight, rows=rows,
        start=start, end=end, primary=primary, mask=mask, left_code=left_code,
        max_surrogates=draw(st.integers(0, 4)),
    )  # fmt: skip


def primary_sides(node):
    """Direction (1 left, 2 right, 0 missing) of each node row, straight from the split."""
    rows = node["rows"][node["start"] : node["end"]]
    f = node["primary"]
    codes = node["codes"][rows, f].astype(np.int64)
    missing = codes == node["n_codes"][f]
    if node["mask"] is not None:
        side = node["mask"][np.where(missing, 0, codes)].astype(np.int64)
    else:
        side = np.where(codes <= node["left_code"], 1, 2)
    return rows, np.where(missing, 0, side)


def run_search(node, hist_ratio, presorted=False):
    """SurrogateSearch.find on the node; returns (surrogates, the search)."""
    search = SurrogateSearch(
        node["codes"], node["n_codes"], node["is_nominal"], node["weight"],
        node["max_surrogates"], hist_ratio,
    )  # fmt: skip
    sorted_rows = sorted_slot = None
    if presorted:
        n, n_features = node["codes"].shape
        sorted_slot = np.full(n_features, -1, dtype=np.int64)
        sorted_rows = np.zeros((n_features, n), dtype=np.int32)
        run = node["rows"][node["start"] : node["end"]]
        for f in range(n_features):
            sorted_slot[f] = f
            sorted_rows[f, node["start"] : node["end"]] = run[
                np.argsort(node["codes"][run, f], kind="stable")
            ]
    found = search.find(
        node["rows"], node["start"], node["end"], node["primary"], left_code=node["left_code"],
        mask=node["mask"], sorted_rows=sorted_rows, sorted_slot=sorted_slot,
    )  # fmt: skip
    return found, search


def as_dicts(found):
    out = []
    for s in range(len(found)):
        f = int(found.feature[s])
        nominal = bool(found.is_nominal[s])
        out.append(
            dict(
                feature=f,
                agreement=float(found.agreement[s]),
                adjusted=float(found.adjusted[s]),
                left_code=-1 if nominal else int(found.left_code[s]),
                right_code=-1 if nominal else int(found.right_code[s]),
                reverse=0 if nominal else int(found.reverse[s]),
                mask=found.mask[s].astype(np.int64) if nominal else None,
            )
        )
    return out


def assert_same_surrogates(got, expected, n_codes):
    assert [s["feature"] for s in got] == [s["feature"] for s in expected]
    for g, e in zip(got, expected, strict=True):
        assert g["agreement"] == pytest.approx(e["agreement"], rel=1e-12)
        assert g["adjusted"] == pytest.approx(e["adjusted"], rel=1e-12)
        for key in ("left_code", "right_code", "reverse"):
            assert g[key] == e[key], (key, g, e)
        if e["mask"] is not None:
            k = int(n_codes[e["feature"]])
            np.testing.assert_array_equal(g["mask"][:k], e["mask"][:k])


# ---------------------------------------------------------------------------
# Finding and routing
# ---------------------------------------------------------------------------


@SETTINGS
@given(node=nodes())
def test_surrogates_match_the_oracle_on_every_path(node):
    rows, side = primary_sides(node)
    expected = surrogates_oracle(
        node["codes"], node["n_codes"], node["is_nominal"], node["weight"], rows,
        node["primary"], side, node["max_surrogates"],
    )  # fmt: skip
    for hist_ratio, presorted in ((1e18, False), (0.0, False), (0.0, True)):
        found, _ = run_search(node, hist_ratio, presorted)
        assert_same_surrogates(as_dicts(found), expected, node["n_codes"])
    w = node["weight"][rows]
    assert found.t_left == w[side == 1].sum() and found.t_right == w[side == 2].sum()
    assert found.majority_child == (0 if found.t_left >= found.t_right else 1)


@SETTINGS
@given(node=nodes())
def test_routing_matches_the_oracle(node):
    found, search = run_search(node, 2.0)
    rows, side = primary_sides(node)
    expected = route_oracle(
        node["codes"], node["n_codes"], rows, side, as_dicts(found), found.majority_child
    )
    child_of_row = np.full(node["codes"].shape[0], -7, dtype=np.int64)
    work = node["rows"].copy()
    buffer = np.empty_like(work)
    middle, n_routed = search.split_rows(
        work, node["start"], node["end"], found, child_of_row, buffer
    )
    np.testing.assert_array_equal(child_of_row[rows], expected)
    # Stable partition: left rows first, each side in its original order.
    np.testing.assert_array_equal(work[node["start"] : middle], rows[expected == 0])
    np.testing.assert_array_equal(work[middle : node["end"]], rows[expected == 1])
    np.testing.assert_array_equal(work[: node["start"]], node["rows"][: node["start"]])
    # Each surrogate counts the rows it routed: missing the primary, known to it,
    # missing every surrogate ranked before it.
    missing = side == 0
    for s, f in enumerate(found.feature):
        known = node["codes"][rows, f] != node["n_codes"][f]
        if found.is_nominal[s]:
            known &= found.mask[s][node["codes"][rows, f]] > 0
        assert n_routed[s] == int((missing & known).sum())
        missing &= ~known


def test_numeric_surrogate_needs_two_rows_each_way():
    """A surrogate that only peels off one row is no surrogate (rpart's rule)."""
    codes = np.array([[0, 0], [0, 1], [0, 2], [0, 3], [1, 4], [1, 5]], dtype=np.uint8)
    search = SurrogateSearch(codes, np.array([2, 6]), np.array([False, False]), np.ones(6), 5)
    rows = np.arange(6, dtype=np.intp)
    # Primary on feature 1: rows 0..3 left, rows 4, 5 right; feature 0 matches it.
    found = search.find(rows, 0, 6, 1, left_code=3)
    assert found.feature.tolist() == [0]
    assert (found.left_code[0], found.right_code[0], found.reverse[0]) == (0, 1, 0)
    assert found.agreement[0] == 1.0 and found.adjusted[0] == 1.0
    # Feature 0 sending only row 5 right would agree on 5 rows of 6 (the
    # majority rule: 4), but one row is too few for a side.
    codes[:, 0] = [0, 0, 0, 0, 0, 1]
    search = SurrogateSearch(codes, np.array([2, 6]), np.array([False, False]), np.ones(6), 5)
    assert len(search.find(rows, 0, 6, 1, left_code=3)) == 0


def test_a_perfect_nominal_surrogate_is_kept():
    """rpart 4.1's code counts agreeing/disagreeing rows and drops this one;
    treelearn applies its stated rule (two rows each way) and keeps it."""
    x = np.arange(12)
    codes = np.column_stack([x, x >= 6]).astype(np.uint8)
    search = SurrogateSearch(codes, np.array([12, 2]), np.array([False, True]), np.ones(12), 3)
    found = search.find(np.arange(12, dtype=np.intp), 0, 12, 0, left_code=5)
    assert found.feature.tolist() == [1]
    assert found.mask[0, :2].tolist() == [1, 2]
    assert found.agreement[0] == 1.0 and found.adjusted[0] == 1.0


def test_max_surrogates_keeps_the_best_ranked():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 50, 200)
    noisy = [np.clip(x + rng.integers(-k, k + 1, 200), 0, 60) for k in (12, 2, 30, 6)]
    codes = np.column_stack([x, *noisy]).astype(np.uint8)
    n_codes = codes.max(axis=0).astype(np.int64) + 1
    everything = SurrogateSearch(codes, n_codes, np.zeros(5, bool), np.ones(200), 4)
    two = SurrogateSearch(codes, n_codes, np.zeros(5, bool), np.ones(200), 2)
    rows = np.arange(200, dtype=np.intp)
    all_four = everything.find(rows, 0, 200, 0, left_code=24)
    best_two = two.find(rows, 0, 200, 0, left_code=24)
    assert all_four.feature.tolist() == [2, 4, 1, 3]  # less noise, more agreement
    assert np.all(np.diff(all_four.agreement) <= 0)
    assert best_two.feature.tolist() == [2, 4]
    np.testing.assert_array_equal(best_two.agreement, all_four.agreement[:2])


# ---------------------------------------------------------------------------
# The primary split in surrogate mode
# ---------------------------------------------------------------------------


def call_find_best_split(node, y, n_classes, criterion, skip_missing, hist_ratio, min_count=1):
    codes, n_codes, is_nominal = node["codes"], node["n_codes"], node["is_nominal"]
    n, n_features = codes.shape
    rows, start, end = node["rows"], node["start"], node["end"]
    classification = n_classes > 0
    y_class = y.astype(np.int64) if classification else np.zeros(1, dtype=np.int64)
    y_value = np.zeros(1) if classification else y.astype(float)
    weight = node["weight"]
    n_channels = 1 + n_classes if classification else 4
    stats = np.zeros(n_channels)
    for r in rows[start:end]:
        stats[0] += 1
        if classification:
            stats[1 + y_class[r]] += weight[r]
        else:
            stats[1:] += weight[r] * np.array([1.0, y_value[r], y_value[r] ** 2])
    max_bins = int(n_codes.max()) + 1
    out = np.empty(cut_kernels.N_OUT)
    out_mask = np.zeros(max_bins + 1, dtype=np.uint8)
    K.find_best_split(
        np.ascontiguousarray(codes.T), rows, start, end, y_class, y_value, weight, classification,
        criterion_id(criterion, classification), n_classes,
        np.arange(n_features, dtype=np.int64), n_features, n_codes, is_nominal,
        np.zeros((0, n_channels)), np.full(n_features, -1, dtype=np.int64), stats, min_count,
        0.0, hist_ratio, np.empty((max_bins + 1, n_channels)),
        np.empty(K.scratch_codes_size(n, max_bins, hist_ratio), dtype=np.int64),
        np.zeros(max_bins + 1, dtype=np.uint8),
        out, out_mask, np.zeros((0, n), dtype=np.int32), np.full(n_features, -1, dtype=np.int64),
        skip_missing, False, False, scan_buffers.sorted_scan_buffers(1, 0, codes.dtype),
    )  # fmt: skip
    return out.copy(), out_mask


@SETTINGS
@given(
    node=nodes(max_rows=30),
    task=st.sampled_from([("gini", 2), ("entropy", 3), ("squared_error", 0)]),
    min_count=st.integers(1, 3),
    seed=st.integers(0, 1000),
)
def test_primary_split_is_the_best_over_the_known_rows(node, task, min_count, seed):
    criterion, n_classes = task
    if node["is_nominal"].any():
        # The subset search's best prefix of sorted levels is exact only without
        # a leaf minimum (an engine limitation, both modes): test it with 1.
        min_count = 1
    rng = np.random.default_rng(seed)
    n = node["codes"].shape[0]
    y = rng.integers(0, n_classes, n) if n_classes else rng.normal(size=n).round(1)
    node_rows = node["rows"][node["start"] : node["end"]]
    best = -np.inf
    for f in range(node["codes"].shape[1]):
        known = node_rows[node["codes"][node_rows, f] != node["n_codes"][f]]
        gain, _ = brute_force_best_split(
            node["codes"], node["n_codes"], node["is_nominal"], y, node["weight"], known,
            criterion, n_classes, min_count=min_count, features=[f],
        )  # fmt: skip
        best = max(best, gain)
    answers = [
        call_find_best_split(node, y, n_classes, criterion, True, ratio, min_count)
        for ratio in (1e18, 0.0)
    ]
    for out, mask in answers:
        if best == -np.inf:
            assert out[cut_kernels.OUT_GAIN] == -np.inf
            continue
        assert out[cut_kernels.OUT_GAIN] == pytest.approx(best, rel=1e-9, abs=1e-9)
        assert out[cut_kernels.OUT_MISSING_LEFT] == 0.0
        f = int(out[cut_kernels.OUT_FEATURE])
        if out[cut_kernels.OUT_IS_SUBSET]:
            assert mask[node["n_codes"][f]] == 0  # the missing level takes no part
        else:
            assert out[cut_kernels.OUT_RIGHT_CODE] >= 0  # never "known left, missing right"
    if best > -np.inf:  # both statistics paths describe the same split
        assert answers[0][0][0] == pytest.approx(answers[1][0][0], rel=1e-12, abs=1e-12)
        np.testing.assert_array_equal(answers[0][0][1:], answers[1][0][1:])


@SETTINGS
@given(node=nodes(max_rows=30), seed=st.integers(0, 1000))
def test_without_missing_values_both_modes_answer_alike(node, seed):
    codes = node["codes"].copy()
    for f in range(codes.shape[1]):  # replace missing codes by known ones
        column = codes[:, f]
        column[column == node["n_codes"][f]] = 0
    node = dict(node, codes=np.asfortranarray(codes))
    y = np.random.default_rng(seed).integers(0, 2, codes.shape[0])
    for ratio in (1e18, 0.0):
        learn = call_find_best_split(node, y, 2, "gini", False, ratio)
        surrogate = call_find_best_split(node, y, 2, "gini", True, ratio)
        if learn[0][cut_kernels.OUT_FEATURE] < 0:  # no split: the other slots are not defined
            np.testing.assert_array_equal(learn[0][:2], surrogate[0][:2])
            continue
        np.testing.assert_array_equal(learn[0], surrogate[0])
        np.testing.assert_array_equal(learn[1], surrogate[1])
