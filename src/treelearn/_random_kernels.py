"""Drawing inside kernels: a permutation the same as numpy's, compiled cheaply.

numba's ``Generator.permutation`` is a translation of numpy's for arrays of any
number of dimensions and any axis: a first fit compiled it (with the ``shuffle`` it
calls, ``swapaxes`` and a slice assignment's shape error) four times, 4.9 s of
compile time in a fit that never draws (the growing loop has one generator type
for fits that draw features and fits that do not). The loops draw only
permutations of ``0 .. n - 1``; :func:`permute_into` writes one with the same
steps numpy takes (the Fisher-Yates shuffle of ``numpy.random.Generator.shuffle``,
each swap partner from ``random_interval``, as numba's translation does), so the
same generator state gives the same order and leaves the same state as
``rng.permutation(n)`` in Python or in numba.
"""

import numpy as np
from numba import njit
from numba.np.random.random_methods import random_interval


@njit(cache=True)
def permute_into(rng, order):
    """``order[:] = rng.permutation(order.shape[0])``, drawing what numpy draws.

    Parameters
    ----------
    rng : numpy.random.Generator
        Advanced exactly as ``rng.permutation(order.shape[0])`` advances it.
    order : 1-d integer array
        Overwritten with a permutation of ``0 .. order.shape[0] - 1``.
    """
    n = order.shape[0]
    for i in range(n):
        order[i] = i
    for i in range(n - 1, 0, -1):
        j = np.intp(random_interval(rng.bit_generator, i))
        if j != i:
            order[i], order[j] = order[j], order[i]
