"""C4.5's fractional cases: children's rows and weights."""

import numpy as np
import pytest

from treelearn.splitting.fractional import class_statistics, split_fractional_rows


def test_missing_rows_go_to_every_branch_with_its_share():
    rows = np.array([10, 11, 12, 13, 14, 15], dtype=np.intp)
    weight = np.array([1.0, 2.0, 1.0, 1.0, 0.5, 1.0])
    branch = np.array([0, 1, 0, 0, 2, 0])
    missing = np.array([False, False, False, True, False, True])
    children, known = split_fractional_rows(rows, weight, branch, missing, 4)
    # Known weights: branch 0 rows 10, 12 -> 2.0; branch 1 -> 2.0; branch 2 -> 0.5; branch 3 none.
    assert known.tolist() == [2.0, 2.0, 0.5, 0.0]
    (r0, w0), (r1, w1), (r2, w2), (r3, w3) = children
    assert r0.tolist() == [10, 12, 13, 15]
    np.testing.assert_allclose(w0, [1.0, 1.0, 2.0 / 4.5, 2.0 / 4.5])
    assert r1.tolist() == [11, 13, 15]
    np.testing.assert_allclose(w1, [2.0, 2.0 / 4.5, 2.0 / 4.5])
    assert r2.tolist() == [14, 13, 15]
    np.testing.assert_allclose(w2, [0.5, 0.5 / 4.5, 0.5 / 4.5])
    assert r3.size == 0 and w3.size == 0
    # The children's weights add up to the node's.
    assert sum(w.sum() for _, w in children) == pytest.approx(weight.sum(), rel=1e-12)


def test_class_statistics_count_rows_and_weigh_classes():
    y = np.array([0, 1, 1, 0, 2])
    stats = class_statistics(np.array([1, 2, 4]), np.array([0.5, 1.0, 0.25]), y, 3)
    assert stats.tolist() == [3.0, 0.0, 1.5, 0.25]
