"""The sorted scans' scratch (``sorted_scan``): per thread a row of keys, the rows'
gathered weights and targets, the row positions and the presorted rows' codes, made
once per fit (:func:`sorted_scan_buffers`), for a thread of its own
(:func:`own_sorted_scan`), or taken by the thread that scans a node
(:func:`_thread_scan`) in :func:`~treelearn.splitting._kernels.find_best_split` and
:func:`~treelearn.splitting._kernels.find_best_split_parallel`.
"""

import numpy as np
from numba import njit, types
from numba.extending import overload

from treelearn._dtypes import row_index_dtype


def sorted_scan_buffers(n_threads, n_rows, code_dtype, unit_weights=False, sorted_codes=None):
    """The ``sorted_scan`` scratch of
    :func:`~treelearn.splitting._kernels.find_best_split` and
    :func:`~treelearn.splitting._kernels.find_best_split_parallel` for nodes of up to
    ``n_rows`` rows: per thread a row of keys (``code_dtype``, the code matrix's) and
    two rows of gathered weights and targets, and ``arange(n_rows)`` (row positions, of the
    narrowest index type); allocated once (fresh pages per node cost a page
    fault each on first touch). The keys and positions have the types of local
    mode's (codes and int32 positions), so that every call of
    :func:`~treelearn.splitting._kernels.scan_sorted_rows` shares one compilation.

    ``unit_weights``: every row weight is 1. The weights' rows are then filled
    with ones here and never gathered: the gather reads only the targets, half
    its random reads (800k rows in random order: 5.8 ns a row with the weights,
    2.1 without). The fourth entry of the tuple says so.

    ``sorted_codes``: the codes of the presorted rows, run by run (the twin of
    ``sorted_rows``, partitioned with it by
    :func:`~treelearn.splitting._partition_kernels.summarise_children`), the fifth
    entry; None: an int32 array of no rows, and each presorted row's code is read
    from the code matrix (a random read a row and feature: 17.5% of a full-depth
    exact regression fit of 800k x 20 rows)."""
    gathered = np.empty((n_threads, 2, n_rows))
    if unit_weights:
        gathered[:, 0, :] = 1.0
    if sorted_codes is None:
        sorted_codes = np.empty((0, 0), dtype=np.int32)
    return (
        np.empty((n_threads, n_rows), dtype=code_dtype),
        np.arange(n_rows, dtype=row_index_dtype(n_rows)),
        gathered,
        bool(unit_weights),
        sorted_codes,
    )


def presorted_codes(sorted_scan):
    """The presorted rows' codes of :func:`sorted_scan_buffers` (its fifth entry), or
    an int32 array of no rows where ``sorted_scan`` is None (no numeric feature).
    Callable only from kernels."""
    raise NotImplementedError("presorted_codes is called from numba kernels only")


@overload(presorted_codes)
def _presorted_codes(sorted_scan):
    if isinstance(sorted_scan, types.NoneType):
        return lambda sorted_scan: np.empty((0, 0), dtype=np.int32)
    return lambda sorted_scan: sorted_scan[4]


@njit(cache=True)
def own_sorted_scan(sorted_scan, n_rows):
    """One thread's :func:`sorted_scan_buffers` for nodes of up to ``n_rows`` rows,
    of the kind of ``sorted_scan`` (its ``arange`` and codes shared; no rows when it
    has none)."""
    identity, gathered, unit_weights, sorted_codes = sorted_scan[1:]
    own = np.empty((1, 2, n_rows if gathered.shape[2] else 0))
    if unit_weights:
        own[0, 0, :] = 1.0
    keys = np.empty((1, n_rows), dtype=sorted_scan[0].dtype)
    return (keys, identity, own, unit_weights, sorted_codes)


@njit(cache=True)
def _thread_scan(sorted_scan, thread, feature_codes, n_node, presorted):
    """Thread ``thread``'s part of ``sorted_scan`` for a node of ``n_node`` rows; where
    it has no room for the node on that thread, :func:`_node_scan_buffers` (of the
    node's rows when features are ``presorted``, else of none); the presorted codes
    whenever it has them."""
    n_own = n_node if presorted else 0
    if thread >= sorted_scan[0].shape[0] or sorted_scan[2].shape[2] < n_own:
        return _node_scan_buffers(feature_codes, n_own, sorted_scan[1], sorted_scan[4])
    return (sorted_scan[0][thread], sorted_scan[1], sorted_scan[2][thread], sorted_scan[3],
            sorted_scan[4])  # fmt: skip


@njit(cache=True)
def _node_scan_buffers(feature_codes, n_rows, positions, sorted_codes):
    """One thread's ``sorted_scan`` for a node of ``n_rows`` rows, made for it: keys of
    the code matrix's type, ``arange`` of the type of ``positions`` (those of
    :func:`sorted_scan_buffers`), the targets' rows, weights to be gathered, and
    ``sorted_codes``."""
    return (
        np.empty(n_rows, dtype=feature_codes.dtype), np.arange(n_rows).astype(positions.dtype),
        np.empty((2, n_rows)), False, sorted_codes,
    )  # fmt: skip
