"""C4.5's attribute evaluation (kernel against a row-by-row oracle) and its choice rule."""

import numpy as np
import pytest
from _oracles import c45_attribute_oracle
from hypothesis import given, settings
from hypothesis import strategies as st

from treelearn.data.dataset import build_dataset
from treelearn.growing.grower import code_value_arrays
from treelearn.splitting._gain_ratio_kernels import (
    CAND_GAIN,
    CAND_LEFT_CODE,
    CAND_RAW_GAIN,
    CAND_RIGHT_CODE,
    CAND_SPLIT_INFO,
    CAND_STATUS,
    CAND_TRIES,
    N_CAND,
    STATUS_NO_SPLIT,
    STATUS_SKIPPED,
    STATUS_SPLIT,
    evaluate_candidates,
)
from treelearn.splitting.gain_ratio import (
    EPSILON,
    NO_AVERAGE,
    choose_gain_ratio,
    many_valued,
)


def candidate_table(X, y, w, n_classes, nominal, min_objs, threshold_cost, usable=None):
    """The kernel's table for the whole of ``X`` (one node), and the dataset."""
    dataset = build_dataset(X, categorical_features=np.flatnonzero(nominal).tolist())
    n, d = X.shape
    rows = np.arange(n, dtype=np.intp)
    table = np.empty((d, N_CAND))
    width = int(dataset.n_codes.max()) + 2
    usable = np.ones(d, dtype=np.uint8) if usable is None else usable
    values, ptr = code_value_arrays(dataset)
    evaluate_candidates(
        dataset.codes.T, rows, 0, n, y.astype(np.int32), w.astype(float), n_classes,
        dataset.n_codes, dataset.is_nominal, usable, values, ptr, float(min_objs), True,
        threshold_cost, 2.0,
        np.empty((max(width, n + 1), 1 + n_classes)), np.empty(2 * n + width, dtype=np.int64),
        table, np.empty((0, 0), dtype=np.int64), np.full(d, -1, dtype=np.int64),
    )  # fmt: skip
    return table, dataset


@st.composite
def node_data(draw):
    n = draw(st.integers(4, 40))
    d = draw(st.integers(1, 4))
    n_classes = draw(st.integers(2, 3))
    nominal = np.array(draw(st.lists(st.booleans(), min_size=d, max_size=d)))
    columns = []
    for j in range(d):
        levels = draw(st.integers(2, 5)) if nominal[j] else draw(st.integers(2, 12))
        values = np.array(draw(st.lists(st.integers(0, levels - 1), min_size=n, max_size=n)))
        column = values.astype(float)
        holes = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        if draw(st.booleans()):
            column[holes & (np.arange(n) % 3 == 0)] = np.nan
        columns.append(column)
    X = np.column_stack(columns)
    y = np.array(draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n)))
    y[:n_classes] = np.arange(n_classes)
    weights = draw(st.lists(st.sampled_from([0.5, 1.0, 1.0, 2.0, 3.0]), min_size=n, max_size=n))
    min_objs = draw(st.sampled_from([1.0, 2.0, 3.0]))
    threshold_cost = draw(st.booleans())
    return X, y, np.array(weights), n_classes, nominal, min_objs, threshold_cost


@settings(max_examples=150, deadline=None)
@given(node_data())
def test_kernel_matches_the_row_by_row_oracle(data):
    X, y, w, n_classes, nominal, min_objs, threshold_cost = data
    if np.isnan(X).all(axis=0).any():
        return  # a column without a known value is refused before any kernel runs
    table, dataset = candidate_table(X, y, w, n_classes, nominal, min_objs, threshold_cost)
    for f in range(X.shape[1]):
        row = table[f]
        if nominal[f]:
            categories = dataset.schema.categories[f]
            x = np.array([np.nan if np.isnan(v) else categories.index(v) for v in X[:, f]])
            n_values = len(categories)
        else:
            x, n_values = X[:, f], 0
        expected = c45_attribute_oracle(
            x, nominal[f], n_values, y, w, n_classes, min_objs, threshold_cost
        )
        if expected is None:
            assert row[CAND_STATUS] != STATUS_SPLIT, f
            continue
        assert row[CAND_STATUS] == STATUS_SPLIT, f
        assert row[CAND_GAIN] == pytest.approx(expected["gain"], abs=1e-10)
        assert row[CAND_RAW_GAIN] == pytest.approx(expected["raw_gain"], abs=1e-10)
        if nominal[f]:
            assert row[CAND_SPLIT_INFO] == pytest.approx(expected["split_info"], abs=1e-10)
            continue
        assert row[CAND_TRIES] == expected["tries"]
        values = dataset.numeric_values[f]
        left, right = values[int(row[CAND_LEFT_CODE])], values[int(row[CAND_RIGHT_CODE])]
        gains = np.array(expected["cut_gains"])
        # The same cut, unless two gains sit right at the tie tolerance's edge.
        if not np.any(np.abs(np.abs(gains[:, None] - gains[None, :]) - 1e-6) < 1e-9):
            assert (left, right) == (expected["left_value"], expected["right_value"])
            assert row[CAND_SPLIT_INFO] == pytest.approx(expected["split_info"], abs=1e-10)


def test_skipped_features_are_marked_and_left_alone():
    X = np.array([[0, 1.0], [1, 2.0], [0, 3.0], [1, 4.0], [0, 5.0], [1, 6.0]])
    y = np.array([0, 1, 0, 1, 0, 1])
    table, _ = candidate_table(
        X, y, np.ones(6), 2, np.array([True, False]), 1.0, False, np.array([0, 1], dtype=np.uint8)
    )
    assert table[0, CAND_STATUS] == STATUS_SKIPPED
    assert table[1, CAND_STATUS] == STATUS_SPLIT


def test_threshold_cost_is_log2_of_the_cuts_tried_over_the_node_weight():
    x = np.arange(20, dtype=float)
    y = (x >= 10).astype(int)
    X = x[:, None]
    with_cost, _ = candidate_table(X, y, np.ones(20), 2, np.array([False]), 2.0, True)
    without, _ = candidate_table(X, y, np.ones(20), 2, np.array([False]), 2.0, False)
    # MinSplit = max(0.1 * 20 / 2, 2) = 2: cuts after the 2nd .. 18th value, 17 of them.
    assert with_cost[0, CAND_TRIES] == 17
    assert without[0, CAND_GAIN] == pytest.approx(1.0)
    assert with_cost[0, CAND_GAIN] == pytest.approx(1.0 - np.log2(17) / 20)


def test_numeric_cuts_keep_min_split_on_each_side():
    # 100 rows, 2 classes: MinSplit = 0.1 * 100 / 2 = 5; the pure cut after 3 rows is not tried.
    x = np.arange(100, dtype=float)
    y = np.where(x < 3, 0, 1)
    y[50:53] = 0
    table, dataset = candidate_table(x[:, None], y, np.ones(100), 2, np.array([False]), 2.0, False)
    assert dataset.numeric_values[0][int(table[0, CAND_LEFT_CODE])] >= 4
    assert table[0, CAND_TRIES] == 100 - 1 - 2 * 4


def table_of(gains, infos, status=None):
    table = np.full((len(gains), N_CAND), np.nan)
    table[:, CAND_STATUS] = STATUS_SPLIT if status is None else status
    table[:, CAND_GAIN] = gains
    table[:, CAND_SPLIT_INFO] = infos
    return table


def test_a_high_ratio_below_average_gain_is_passed_over():
    # Ratios 0.5, 0.5 (but gain 0.05 < average 0.3167), 0.4.
    choice = choose_gain_ratio(table_of([0.5, 0.05, 0.4], [1.0, 0.1, 1.0]), np.zeros(3, bool))
    assert choice.average_gain == pytest.approx(0.95 / 3)
    assert choice.above_average.tolist() == [True, False, True]
    assert choice.feature == 0
    choice = choose_gain_ratio(table_of([0.3, 0.05, 0.4], [1.0, 0.1, 1.0]), np.zeros(3, bool))
    assert choice.feature == 2


def test_slack_of_epsilon_below_the_average():
    gains = [0.2, 0.2 - 0.9 * EPSILON * 3 / 2]
    # average = 0.2 - 0.45 eps*3/2...; the lower gain is within EPSILON of the average.
    choice = choose_gain_ratio(table_of(gains, [2.0, 0.5]), np.zeros(2, bool))
    assert choice.above_average.all()
    assert choice.feature == 1


def test_equal_ratios_go_to_the_first_feature_and_tiny_split_info_is_refused():
    choice = choose_gain_ratio(table_of([0.4, 0.4], [1.0, 1.0]), np.zeros(2, bool))
    assert choice.feature == 0
    choice = choose_gain_ratio(table_of([0.4, 0.4], [EPSILON / 2, 1.0]), np.zeros(2, bool))
    assert choice.feature == 1


def test_many_valued_attributes_are_left_out_of_the_average_only():
    # 10 rows: a nominal attribute with 3 values (>= 0.3 * 10) does not count towards the
    # average, but it may still be chosen.
    excluded = many_valued([3, 2, 0], 10)
    assert excluded.tolist() == [True, False, False]
    choice = choose_gain_ratio(table_of([0.9, 0.1, 0.2], [1.5, 1.0, 1.0]), excluded)
    assert choice.in_average.tolist() == [False, True, True]
    assert choice.average_gain == pytest.approx(0.15)
    assert choice.feature == 0
    # Every attribute many-valued (Release 8's MultiVal): none is left out.
    assert not many_valued([5, 4], 10).any()


def test_no_possible_attribute_means_no_split():
    table = table_of([0.1, 0.2], [1.0, 1.0], status=[STATUS_NO_SPLIT, STATUS_SKIPPED])
    choice = choose_gain_ratio(table, np.zeros(2, bool))
    assert choice.feature == -1
    assert choice.average_gain == NO_AVERAGE


def test_values_closer_than_c45s_tolerance_are_not_cut_between():
    # C4.5 (contin.c) cuts only between values more than 1e-5 apart.
    x = np.array([1.0] * 3 + [1.000005] * 3 + [2.0] * 3)
    y = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1])
    table, dataset = candidate_table(x[:, None], y, np.ones(9), 2, np.array([False]), 2.0, False)
    assert table[0, CAND_TRIES] == 1  # only between 1.000005 and 2.0
    assert dataset.numeric_values[0][int(table[0, CAND_LEFT_CODE])] == 1.000005


def test_equal_gains_up_to_rounding_go_to_the_lower_cut():
    # Symmetric data: the cuts after 2 and after 4 rows have the same gain.
    x = np.arange(6, dtype=float)
    y = np.array([0, 0, 1, 1, 0, 0])
    table, dataset = candidate_table(x[:, None], y, np.ones(6), 2, np.array([False]), 2.0, False)
    assert dataset.numeric_values[0][int(table[0, CAND_LEFT_CODE])] == 1.0


def test_ratios_equal_up_to_rounding_go_to_the_first_attribute():
    # 0.6853314789615865 against 0.6853314789615866: the same ratio, the first attribute.
    gains = [0.6853314789615865, 0.6853314789615866 * 1.0000001]
    choice = choose_gain_ratio(table_of(gains, [1.0, 1.0]), np.zeros(2, bool))
    assert choice.feature == 0
    choice = choose_gain_ratio(table_of([0.5, 0.5 + 2e-6], [1.0, 1.0]), np.zeros(2, bool))
    assert choice.feature == 1
