"""C4.5's value groups (option -s), computed by hand."""

import numpy as np
import pytest

from treelearn.splitting.subsets import c45_value_groups


def h(*weights):
    w = np.array(weights, dtype=float)
    p = w[w > 0] / w.sum()
    return float(-(p * np.log2(p)).sum())


def test_single_class_values_merge_then_the_best_pair_merges():
    # Values A, B (all class 0), C (2 : 2), D (all class 1). A and B merge as single-class
    # groups; then of the pairs of {AB, D, C}, merging AB with C has the best gain ratio
    # (0.576 against 0.469 for three groups), and two groups are left.
    freq = np.array([[4, 0], [4, 0], [2, 2], [0, 4]], dtype=float)
    groups, gain, info = c45_value_groups(freq, 0.0, 2.0)
    assert groups.tolist() == [0, 0, 0, 1]
    assert gain == pytest.approx(h(10, 6) - 12 / 16 * h(10, 2))
    assert info == pytest.approx(h(12, 4))


def test_unknown_rows_scale_the_gain_and_count_in_the_split_information():
    # The same values with 4 rows of unknown value: the unknown rows weigh in the split
    # information as one more branch, so merging AB with C (ratio 0.373 / 1.371 = 0.272)
    # no longer beats the three groups {AB}, {D}, {C} (0.563 / 1.922 = 0.293).
    freq = np.array([[4, 0], [4, 0], [2, 2], [0, 4]], dtype=float)
    groups, gain, info = c45_value_groups(freq, 4.0, 2.0)
    assert groups.tolist() == [0, 0, 2, 1]
    assert gain == pytest.approx(16 / 20 * (h(10, 6) - 4 / 16 * h(2, 2)))
    assert info == pytest.approx(h(4, 8, 4, 4))


def test_values_absent_at_the_node_form_one_more_group():
    freq = np.array([[3, 0], [0, 0], [0, 3], [0.25, 0]], dtype=float)
    groups, gain, _ = c45_value_groups(freq, 0.0, 2.0)
    # Two present values stay apart (no merging below three groups); the value with no
    # row and the one of weight 0.25 (not above 0.5) make the extra group.
    assert groups.tolist() == [0, 2, 1, 2]
    # The gain counts the 0.25 row with the rest: groups {3, 0}, {0, 3} and {0.25, 0}.
    assert gain == pytest.approx(h(3.25, 3))


def test_an_attribute_with_one_value_present_cannot_split():
    freq = np.array([[3, 1], [0, 0], [0, 0]], dtype=float)
    groups, _, _ = c45_value_groups(freq, 0.0, 2.0)
    assert groups is None


def test_two_groups_need_m_rows_each():
    # Three values, one with a single row: merging leaves {big, big} or fails m = 2.
    freq = np.array([[5, 0], [0, 5], [1, 0]], dtype=float)
    groups, _, _ = c45_value_groups(freq, 0.0, 2.0)
    assert groups is not None and len(set(groups.tolist())) == 2
    assert groups[0] == groups[2]  # the single class-0 row joins the class-0 value
    groups, _, _ = c45_value_groups(np.array([[5, 1], [1, 0], [0, 1]], float), 0.0, 6.0)
    assert groups is None
