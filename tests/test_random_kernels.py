"""permute_into: the loops' permutation, drawn as numpy's Generator.permutation draws."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from treelearn._random_kernels import permute_into


@njit(cache=False)
def _numba_permutation(rng, n):
    """numba's own ``Generator.permutation`` (what the loops called before)."""
    return rng.permutation(n)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 300),
    seed=st.integers(0, 2**32 - 1),
    draws=st.integers(1, 4),
    dtype=st.sampled_from([np.int64, np.int32, np.intp]),
)
def test_the_orders_and_the_state_after_them_are_numpys(n, seed, draws, dtype):
    ours, numpys = np.random.default_rng(seed), np.random.default_rng(seed)
    order = np.full(n, -1, dtype=dtype)
    for _ in range(draws):
        permute_into(ours, order)
        np.testing.assert_array_equal(order, numpys.permutation(n))
    # The generator is left where numpy leaves it: the next draws agree too.
    np.testing.assert_array_equal(
        ours.integers(0, 2**62, size=4), numpys.integers(0, 2**62, size=4)
    )


@pytest.mark.parametrize("n", [1, 2, 20, 1000])
def test_the_orders_are_numbas_generator_permutations(n):
    ours, numbas = np.random.default_rng(7), np.random.default_rng(7)
    order = np.empty(n, dtype=np.int64)
    for _ in range(3):
        permute_into(ours, order)
        np.testing.assert_array_equal(order, _numba_permutation(numbas, n))


def test_every_order_of_three_is_drawn_about_equally_often():
    """A Fisher-Yates shuffle: each of the 3! orders with probability 1/6."""
    rng = np.random.default_rng(0)
    order = np.empty(3, dtype=np.int64)
    counts = {}
    for _ in range(6000):
        permute_into(rng, order)
        counts[tuple(order)] = counts.get(tuple(order), 0) + 1
    assert sorted(counts) == sorted(
        [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]
    )
    assert all(900 <= c <= 1100 for c in counts.values()), counts
