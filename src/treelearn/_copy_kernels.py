"""Copying arrays inside kernels without numba's slice assignment.

``target[...] = source`` with an array on the right compiles, into every kernel that
has one, numba's error for shapes that do not match (a message formatted from both
shapes: string code, 0.4-0.8 s of compile time each, six times in a first serial fit
of the growing loop, 4.6 s of its 84). Where the shapes match by construction, the
loops here copy the same values without it.
"""

from numba import njit


@njit(cache=True, _nrt=False, inline="always")
def copy_flat(source, target):
    """Every entry of ``source`` into ``target``, both C-contiguous and of the same size
    (any number of dimensions: entry ``i`` of each flattened), in order."""
    flat_source, flat_target = source.reshape(-1), target.reshape(-1)
    for i in range(flat_source.shape[0]):
        flat_target[i] = flat_source[i]
