"""The kept histograms a node builds do not depend on where its targets are read.

:func:`treelearn.growing._kept_hist_kernels.build_kept` gathers a node's weights
and targets into the memory of the partition buffer where they fit (int64 row
indices: nodes of up to half the rows; int32: a quarter, an odd count of them
leaving one index out) and reads them in place elsewhere; either way its
histograms are :func:`~treelearn.stats._kernels.build_node_histograms`' of the
node read in place, to the bit.
"""

import numpy as np
import pytest

from treelearn._dtypes import TASK_CLASSIFICATION, TASK_REGRESSION, n_channels
from treelearn.growing._kept_hist_kernels import build_kept
from treelearn.stats._kernels import build_node_histograms

N_ROWS = 1001  # (odd: an int32 buffer of this many holds 500 float64s, not 500.5)
N_CODES = np.array([5, 3, 17], dtype=np.int64)


def _data(task, weighted):
    rng = np.random.default_rng(7)
    codes = np.empty((N_ROWS, N_CODES.shape[0]), dtype=np.uint8, order="F")
    for f, n_codes in enumerate(N_CODES):
        codes[:, f] = rng.integers(0, n_codes + 1, N_ROWS)  # (code n_codes: missing)
    rows = rng.permutation(N_ROWS).astype(np.int32)
    classification = task == TASK_CLASSIFICATION
    y_class = rng.integers(0, 3, N_ROWS).astype(np.int32)
    if not classification:
        y_class = np.zeros(1, np.int32)
    y_value = np.zeros(1) if classification else rng.normal(size=N_ROWS)
    weight = rng.uniform(0.5, 2.0, N_ROWS) if weighted else np.empty(0)
    # (criterion and class count: not read by build_kept)
    return codes.T, rows, y_class, y_value, weight, classification, np.int64(0), np.int64(3)


@pytest.mark.parametrize("task", [TASK_CLASSIFICATION, TASK_REGRESSION])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(
    ("buffer_dtype", "buffer_rows"),
    [(np.int64, N_ROWS), (np.int32, N_ROWS), (np.int32, N_ROWS - 1), (np.int32, 0)],
)
def test_kept_histograms_are_the_in_place_ones_wherever_targets_are_read(
    task, weighted, buffer_dtype, buffer_rows
):
    data = _data(task, weighted)
    feature_codes, rows, y_class, y_value, weight, classification = data[:6]
    features = np.arange(N_CODES.shape[0], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(N_CODES + 1)]).astype(np.int64)
    width = n_channels(task, 3)
    # Nodes of all the rows, more than a quarter, less than a quarter, one row.
    for start, end in [(0, N_ROWS), (100, 100 + N_ROWS // 3), (7, 7 + N_ROWS // 5), (3, 4)]:
        buffer = np.full(buffer_rows, -1, dtype=buffer_dtype)
        kept = np.full((offsets[-1], width), np.nan)
        build_kept(data, features, offsets, start, end, None, 1, buffer, kept)
        in_place = np.full((offsets[-1], width), np.nan)
        build_node_histograms(
            feature_codes, rows, start, end, y_class, y_value, weight, classification, features,
            offsets, in_place, np.empty((2, 0)),
        )  # fmt: skip
        np.testing.assert_array_equal(kept, in_place)
        room = buffer_rows * np.dtype(buffer_dtype).itemsize // 8  # (float64s)
        assert (buffer != -1).any() == (2 * (end - start) <= min(N_ROWS, room))
        assert kept[:, 0].sum() == N_CODES.shape[0] * (end - start)
