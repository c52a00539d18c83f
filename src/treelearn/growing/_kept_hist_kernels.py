"""The histograms the numba growing loop's nodes keep (features of few codes, from
``store_min_rows`` rows on), in a pool of slots: a split's children get theirs built,
but the largest child, whose histogram is its parent's minus its siblings'; a child
too small to keep one is built only for that subtraction. As the Python loop keeps
them (``Grower._child_histograms``), the same sums to the bit.
"""

import numpy as np
from numba import njit

from treelearn._copy_kernels import copy_flat
from treelearn.splitting._partition_kernels import largest_child
from treelearn.stats._kernels import (
    build_node_histograms,
    build_node_histograms_parallel,
    gather_targets,
    gather_targets_parallel,
    subtract_histograms,
)


@njit(cache=True, inline="always")
def child_histograms(data, stored, pool, free, n_free, parent_slot, bounds, n_children, slots,
                      parallel_min_rows, n_threads, partition_buffer):  # fmt: skip
    """``Grower.child_histograms``: kept histograms of the children as pool slots
    in ``slots`` (-1: none); frees the parent's. Returns (pool, free, n_free).
    Children of at least ``parallel_min_rows`` rows are built on ``n_threads`` threads.

    Inlined into the growing loop, its one caller in a kernel. numba compiles each kernel
    into a library of its own with a copy of every kernel it calls, optimised and turned
    into machine code again there: as a kernel of its own, this one's library (about 28,000
    LLVM instructions, the histogram builders') was compiled only to be copied into the
    loop's, 4-5 s of a first fit's compile (:func:`build_kept`'s library below it is kept:
    it has three callers, and numba types an inlined kernel again at each)."""
    is_classification = data[5]
    stored_features, stored_rows, store_min_rows, siblings = stored
    slots[:n_children] = -1
    largest = largest_child(bounds, n_children)
    if stored_features.shape[0] and bounds[largest + 1] - bounds[largest] >= store_min_rows:
        # The siblings' sum is made only where there are several: a binary split's
        # one sibling is subtracted as it is.
        summed = parent_slot >= 0 and n_children > 2
        if summed:
            siblings[:, :] = 0.0
        for k in range(n_children):
            if k == largest or (parent_slot < 0 and bounds[k + 1] - bounds[k] < store_min_rows):
                continue  # (a child too small to keep is built only for the subtraction)
            pool, free, n_free, slots[k] = take_slot(pool, free, n_free)
            build_kept(data, stored_features, stored_rows, bounds[k], bounds[k + 1],
                        parallel_min_rows, n_threads, partition_buffer, pool[slots[k]])  # fmt: skip
            if summed:
                siblings += pool[slots[k]]
        pool, free, n_free, slots[largest] = take_slot(pool, free, n_free)
        if parent_slot >= 0:
            others = siblings if summed else pool[slots[1 - largest]]
            subtract_histograms(pool[parent_slot], others, is_classification, pool[slots[largest]])
        else:
            build_kept(data, stored_features, stored_rows, bounds[largest],
                        bounds[largest + 1], parallel_min_rows, n_threads, partition_buffer,
                        pool[slots[largest]])  # fmt: skip
        for k in range(n_children):
            if slots[k] >= 0 and bounds[k + 1] - bounds[k] < store_min_rows:
                free[n_free] = slots[k]
                n_free += 1
                slots[k] = -1
    if parent_slot >= 0:
        free[n_free] = parent_slot
        n_free += 1
    return pool, free, n_free


@njit(cache=True)
def build_kept(data, features, offsets, start, end, parallel_min_rows, n_threads,
                partition_buffer, hist):  # fmt: skip
    """The kept histograms of the rows ``rows[start:end]`` into ``hist``; on
    ``n_threads`` threads from ``parallel_min_rows`` rows on (None: never).

    A node whose weights and targets (two float64 a row) fit in the memory of
    ``partition_buffer`` (a row index a training row, idle until the next
    partition: with int64 indices every node but the root, with int32 ones every
    node of at most a quarter of the rows) has them gathered there first
    (:func:`~treelearn.stats._kernels.gather_targets`): the histograms read them
    in sequence at no extra memory.
    """
    feature_codes, rows, y_class, y_value, weight, is_classification = data[:6]
    n_node = end - start
    # (Whole float64s only: an odd number of int32 indices leaves one out.)
    per_float = 8 // partition_buffer.itemsize
    whole = partition_buffer.shape[0] // per_float * per_float
    scratch = partition_buffer[:whole].view(np.float64)
    threaded = parallel_min_rows is not None and n_node >= parallel_min_rows
    if 2 * n_node <= min(rows.shape[0], scratch.shape[0]):
        gathered = scratch[: 2 * n_node].reshape((2, n_node))
        # (Without sample weights the histograms read no weights: none gathered.)
        with_weights = weight.shape[0] != 0
        if threaded:
            gather_targets_parallel(rows, start, end, y_class, y_value, weight,
                                    is_classification, gathered, with_weights,
                                    n_threads)  # fmt: skip
        else:
            gather_targets(rows, start, end, y_class, y_value, weight, is_classification,
                           gathered, with_weights)  # fmt: skip
    else:
        gathered = scratch[:0].reshape((2, 0))  # (read in place)
    if threaded:
        build_node_histograms_parallel(
            feature_codes, rows, start, end, y_class, y_value, weight, is_classification, features,
            offsets, hist, gathered, n_threads,
        )  # fmt: skip
    else:
        build_node_histograms(
            feature_codes, rows, start, end, y_class, y_value, weight, is_classification, features,
            offsets, hist, gathered,
        )  # fmt: skip


@njit(cache=True)
def take_slot(pool, free, n_free):
    """A free histogram slot of ``pool`` (the pool doubles when none is free)."""
    if n_free == 0:
        n_slots = pool.shape[0]
        bigger = np.empty((2 * n_slots, pool.shape[1], pool.shape[2]))
        copy_flat(pool, bigger[:n_slots])
        pool = bigger
        free = np.empty(2 * n_slots, dtype=np.int64)
        for s in range(n_slots):
            free[s] = 2 * n_slots - 1 - s
        n_free = n_slots
    n_free -= 1
    return pool, free, n_free, free[n_free]
