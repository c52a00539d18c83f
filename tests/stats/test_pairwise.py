"""numpy_sum adds as numpy adds a contiguous float64 array, to the bit."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treelearn.stats._pairwise import numpy_sum


def test_numpy_sum_is_numpys_sum():
    rng = np.random.default_rng(0)
    for n in [*range(0, 40), 127, 128, 129, 255, 256, 300, 1000, 4099, 5003]:
        a = rng.random(n) * 10.0 ** rng.integers(-8, 8, n)
        assert numpy_sum(a, 0, n) == a.sum()
        padded = np.concatenate([[1.5, 2.5], a])  # a run inside a larger array
        assert numpy_sum(padded, 2, n) == a.sum()
        if n > 3:
            assert numpy_sum(a, 3, n - 3) == a[3:].sum()


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 1100), lo=st.integers(0, 3), seed=st.integers(0, 2**32 - 1))
def test_numpy_sum_rounds_as_numpy(n, lo, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.0, 1.0, lo + n) ** 7 * 10.0 ** rng.integers(-8, 8, lo + n)
    assert numpy_sum(a, lo, n) == a[lo:].sum()
