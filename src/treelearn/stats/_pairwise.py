"""Sums added exactly as numpy adds a contiguous float64 array.

Kernels that replace numpy code (the growing loops, C4.5's pruning) sum weights with
:func:`numpy_sum`, so their totals, stored and divided by, are the same to the bit.
"""

import numpy as np
from numba import njit

#: numpy's block of pairwise summation (``PW_BLOCKSIZE`` in umath's loops_utils).
_PW_BLOCK = 128


@njit(cache=True)
def _block_sum(a, start, n):
    """``a[start:start + n].sum()`` for ``n <= 128`` in numpy's order (8 accumulators)."""
    if n < 8:
        res = -0.0
        for i in range(start, start + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i = 8
    stop = n - n % 8
    while i < stop:
        j = start + i
        r0 += a[j]
        r1 += a[j + 1]
        r2 += a[j + 2]
        r3 += a[j + 3]
        r4 += a[j + 4]
        r5 += a[j + 5]
        r6 += a[j + 6]
        r7 += a[j + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[start + i]
        i += 1
    return res


@njit(cache=True)
def numpy_sum(a, start, n):
    """``a[start:start + n].sum()`` bit for bit as numpy sums a contiguous float64 array
    (its pairwise summation: blocks of 128 halved on multiples of 8), so the kernels'
    totals equal those of the numpy code they replace. (Callers pass a constant
    ``start`` as ``np.int64``: numba would compile this kernel for a literal too.)"""
    if n <= _PW_BLOCK:
        return _block_sum(a, start, n)
    # numpy's recursion, with an explicit stack: (start, length, children pushed)
    st_start = np.empty(64, dtype=np.int64)
    st_n = np.empty(64, dtype=np.int64)
    st_open = np.zeros(64, dtype=np.bool_)
    sums = np.empty(64)
    n_sums = 0
    sp = 0
    st_start[0], st_n[0] = start, n
    while sp >= 0:
        s, m = st_start[sp], st_n[sp]
        if m <= _PW_BLOCK:
            sums[n_sums] = _block_sum(a, s, m)
            n_sums += 1
            sp -= 1
        elif not st_open[sp]:
            st_open[sp] = True
            half = m // 2
            half -= half % 8
            st_start[sp + 1], st_n[sp + 1], st_open[sp + 1] = s + half, m - half, False
            st_start[sp + 2], st_n[sp + 2], st_open[sp + 2] = s, half, False
            sp += 2
        else:  # both halves summed, the first half's below the second's
            sums[n_sums - 2] = sums[n_sums - 2] + sums[n_sums - 1]
            n_sums -= 1
            sp -= 1
    return sums[0]
