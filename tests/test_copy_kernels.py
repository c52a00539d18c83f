"""copy_flat: the growing loop's copies without numba's slice assignment."""

import numpy as np
import pytest
from numba import njit

from treelearn._copy_kernels import copy_flat


@njit(cache=False)
def _copy_rows_into(source, target, first):
    """``target[first : first + len(source)] = source`` by copy_flat (as the kernels
    call it: on views of C-contiguous arrays)."""
    copy_flat(source, target[first : first + source.shape[0]])


@pytest.mark.parametrize("shape", [(7,), (4, 3), (2, 3, 5)])
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.uint8])
def test_copy_flat_copies_every_entry_in_order(shape, dtype):
    rng = np.random.default_rng(0)
    source = (rng.random(shape) * 200).astype(dtype)
    target = np.zeros((shape[0] + 3, *shape[1:]), dtype=dtype)
    _copy_rows_into(source, target, 2)
    np.testing.assert_array_equal(target[2 : 2 + shape[0]], source)
    assert not target[:2].any() and not target[2 + shape[0] :].any()


def test_copy_flat_casts_as_slice_assignment_does():
    """Row indices gathered as int64 into an int32 run (the partition's copy back)."""
    source = np.array([5, 1, 2**31 - 1, 0], dtype=np.int64)
    target = np.zeros(6, dtype=np.int32)
    _copy_rows_into(source, target, 1)
    expected = np.zeros(6, dtype=np.int32)
    expected[1:5] = source
    np.testing.assert_array_equal(target, expected)
