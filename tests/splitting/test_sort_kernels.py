"""A node's rows ordered by code: each of the sort's three ways (insertion, counting,
merge) gives numpy's stable order, and writes only the node's part of ``out``."""

import numpy as np
import pytest

from treelearn.splitting._sort_kernels import (
    COUNTING_SORT_BINS_PER_ROW,
    INSERTION_SORT_MAX_ROWS,
    sort_rows_by_code,
)

#: (node rows, codes) that take each of the three sorts.
CASES = {
    "insertion": (INSERTION_SORT_MAX_ROWS, 1000),
    "counting": (200, COUNTING_SORT_BINS_PER_ROW * 200),
    "merge": (200, COUNTING_SORT_BINS_PER_ROW * 200 + 1),
}


@pytest.mark.parametrize("case", list(CASES))
def test_rows_come_out_in_stable_code_order(case):
    n_node, n_bins = CASES[case]
    takes_counting = (
        n_node > INSERTION_SORT_MAX_ROWS and n_bins <= COUNTING_SORT_BINS_PER_ROW * n_node
    )
    assert takes_counting == (case == "counting")
    rng = np.random.default_rng(n_node + n_bins)
    n_rows = 3 * n_node
    # Few distinct codes among many possible ones: ties, whose order must be kept.
    codes_f = rng.choice(rng.integers(0, n_bins, 12), n_rows).astype(np.uint16)
    rows = rng.permutation(n_rows).astype(np.int32)
    start = n_node // 2
    end = start + n_node
    out = np.full(n_node + 5, -1, dtype=np.int64)
    work = np.full(max(n_bins + 1, 3 * n_node), -7, dtype=np.int64)
    sort_rows_by_code(codes_f, rows, start, end, n_bins, out, work, work)
    node = rows[start:end]
    np.testing.assert_array_equal(out[:n_node], node[np.argsort(codes_f[node], kind="stable")])
    np.testing.assert_array_equal(out[n_node:], -1)
