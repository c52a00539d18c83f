"""Growing one tree on several threads: whether threads pay, which subtrees go to
them in which batches, and how their node tables are stitched back together.

:class:`~treelearn.growing.grower.Grower` decides with :func:`threads_pay` whether a
fit keeps the threads it was given (``n_jobs``); the numba loop's nodes of at least
:data:`PARALLEL_MIN_ROWS` rows then search their features (and build histograms,
partition rows) on all of them, and where every feature is searched,
:func:`grow_on_threads` grows the tree as

1. :func:`~treelearn.growing._loop_kernels.grow_top`: the nodes of at least
   ``n / (k * n_threads)`` rows (``k``: :func:`subtrees_per_thread`) split, the
   smaller ones deferred with their split;
2. :func:`~treelearn.growing._loop_kernels.grow_subtrees`: the deferred nodes'
   subtrees, in batches (:func:`subtree_batches`) that each thread takes in turn
   (:func:`~treelearn._threads.map_on_threads`);
3. :func:`_stitched_table`: every node written once where the serial loop numbers
   it,

the same Tree, to the bit, as one thread grows. The constants here are read
through this module when a tree is grown (tests set them on it).
"""

import ctypes
import functools
import sys
import threading

import numpy as np

from treelearn._threads import map_on_threads
from treelearn.growing import _loop_kernels as loop_kernels
from treelearn.growing import _node_tables as node_tables
from treelearn.growing import _stitch_kernels as stitch_kernels

#: Nodes with at least this many rows search their features on several threads
#: (when ``n_jobs`` allows more than one); smaller ones are not worth the start-up.
PARALLEL_MIN_ROWS = 20_000
#: A fit grows on several threads only when the tree's expected work
#: (:func:`expected_work`) is at least this much: below it, the threads' fixed
#: costs (the top's parallel kernels, each thread's scratch, the hand-offs, the
#: stitching: 1-2 ms) outweigh what they share. Two threads against one, 183 fits
#: of 20,000-200,000 rows x 1-16 features, depth 4, 10 and full, 255 bins and
#: exact, two classes and regression (``make_classification`` with five informative
#: features and one cluster a class, ``make_regression``; best of 7, alternating in
#: one process): threads on all of them, fits of 1-10 ms took up to 2.8x as long
#: (20,000 x 1, depth 4: 1.1 against 3.2 ms); with this bound, 7 of the 183 lose
#: 2-9% (between 7 and 27 ms) and 6 forgo 10-34%. Measured on CART's numba loop; the
#: Python loop (surrogates, fractional missing values, ``max_leaf_nodes``, gain
#: ratio without the C4.5 loop) takes the same bound, not measured there.
THREADS_MIN_WORK = 1_000_000
#: :func:`expected_work`'s cost of a presorted feature's row (exact mode: its rows
#: partitioned at every split, its codes scanned in order) in binned ones'.
PRESORTED_ROW_WORK = 2.0
#: :func:`expected_work`'s share of a classification tree's bound that it grows:
#: its nodes stop when pure, a regression tree's seldom do.
CLASSIFICATION_WORK_SHARE = 1 / 3
#: On several threads, subtrees of fewer than ``n / (SUBTREES_PER_THREAD * n_threads)``
#: rows (and at least ``SUBTREE_MIN_ROWS``; shallow trees: below) are grown
#: separately, one per thread at a time; more, smaller ones balance the threads
#: better, but the nodes above them split one at a time, their features on the
#: threads, whose partitions and searches scale less well than whole subtrees on
#: separate threads. Two threads, 800,000 x 20, depth 10, 255 bins (one process,
#: eleven fits of each alternating): with 4 instead of 8 the fit took 4-10% less
#: (best 112.5 / 195.6 / 200.9 ms against 121.7 / 203.4 / 222.0 for two classes,
#: ten, regression); full depth and 80,000 rows within 2% either way.
SUBTREES_PER_THREAD = 4
#: A tree of at most ``SHALLOW_MAX_DEPTH`` levels without presorted rows (whose
#: subtrees are grown from copies of their rows: ``_loop_kernels.COPY_MAX_BYTES``)
#: defers at most ``SHALLOW_SUBTREES_PER_THREAD`` subtrees a thread: on two threads
#: its subtrees take about 1.85x less time, the nodes above them about 1.55x, and
#: subtrees of few levels each cost about as much as another. Two threads, 255 bins,
#: best of 5 (two rounds, alternating), 4 against 2 a thread: 800,000 x 20, depth 10,
#: 10 classes 0.147-0.149 s against 0.133-0.139, 2 classes 0.091-0.094 against
#: 0.089-0.091, regression the same; depth 6, 10 classes 0.080-0.088 against
#: 0.077-0.079; depth 12 the same; 80,000 rows, depth 10, 10 classes 0.034-0.036
#: against 0.031-0.032, regression 0.031-0.032 against 0.029. Deeper trees were
#: slower with 2 (depths 15 and 20: 1-7%; full depth: up to 8%), as exact mode's
#: trees (no copies) at depth 10 (0-5%).
SHALLOW_MAX_DEPTH = 10
SHALLOW_SUBTREES_PER_THREAD = 2
SUBTREE_MIN_ROWS = 1_000
#: Batches of those subtrees (:func:`subtree_batches`) take ``1 / (GUIDED_SHARE *
#: n_threads)`` of the estimated work left each, at most ``1 / (MAX_BATCH_SHARE *
#: n_threads)`` and at least ``1 / (MIN_BATCH_SHARE * n_threads)`` of the whole.
#: Against batches of equal rows (1/16 of them on two threads), the threads' last
#: batches ended 1.3-2.5 ms apart instead of 4.4-11.1 (800,000 x 20, depth 10, two
#: threads; full depth at 100,000 rows: 1.4 against 8.9). Without the upper bound
#: (first batches of 1/4 of the work), the stitching's first wave held more of the
#: subtrees' tables twice: 15 MB more at full depth, regression, 800,000 rows.
GUIDED_SHARE = 2
MAX_BATCH_SHARE = 8
MIN_BATCH_SHARE = 32
#: A batch of subtrees of at least this many rows hands the memory it freed back
#: to the system when grown (:func:`_return_freed_memory`, 0.2-3 ms a call): what
#: it freed in its thread's heap otherwise piles up under the tables kept for the
#: stitching. While each batch made its scratch anew, 10 classes, 800,000 rows,
#: depth 10: the fit's peak 151 -> 75 MB on two threads; with each thread's scratch
#: kept (:func:`~treelearn.growing._loop_kernels.subtree_scratch`), not handing back
#: added 1-2 MB at depth 10 and 3-6 MB at full depth (2 and 10 classes), in the same
#: time. Smaller batches free too little.
TRIM_MIN_BATCH_ROWS = 25_000
#: A stitched tree of at least this many bytes of nodes is put together in waves of
#: ``n_threads`` batches, each wave's subtrees let go of (and the memory handed
#: back) once placed; a smaller one is placed in one go on the calling thread,
#: nothing handed back (the hand-backs and hand-offs, 1.5 ms of a 33 ms fit of
#: 80,000 rows at depth 10 on two threads, held no memory worth it).
STITCH_WAVES_MIN_BYTES = 8 << 20


def expected_work(n_rows, n_binned, n_presorted, max_depth, min_samples_leaf, classification):
    """The work a tree of ``n_rows`` rows is expected to take, in rows times
    searched features times levels below the root: each level of a binary tree
    reads every row's codes of every searched feature once (``n_binned`` binned,
    ``n_presorted`` presorted ones, each weighing :data:`PRESORTED_ROW_WORK`), down to
    ``max_depth`` (None: the ``log2`` of the rows over ``min_samples_leaf``, a
    balanced tree's depth) less the root's level, whose work the threads share least;
    a classification tree's times :data:`CLASSIFICATION_WORK_SHARE`. Compared with
    :data:`THREADS_MIN_WORK`; an estimate made before growing, so rough for trees
    that stop early (pure nodes, few codes)."""
    levels = np.log2(max(n_rows / max(min_samples_leaf, 1), 2.0))
    if max_depth is not None:
        levels = min(levels, max_depth)
    features = n_binned + PRESORTED_ROW_WORK * n_presorted
    work = n_rows * features * max(levels - 1, 0.5)
    return work * CLASSIFICATION_WORK_SHARE if classification else work


def threads_pay(n_rows, n_binned, n_presorted, max_depth, min_samples_leaf, classification):
    """Whether a tree's :func:`expected_work` (its arguments) reaches
    :data:`THREADS_MIN_WORK`, so that growing it on several threads pays."""
    work = expected_work(n_rows, n_binned, n_presorted, max_depth, min_samples_leaf, classification)
    return work >= THREADS_MIN_WORK


def subtrees_per_thread(max_depth, presorted):
    """``k`` of the deferral size ``n / (k * n_threads)``: :data:`SUBTREES_PER_THREAD`,
    or at most :data:`SHALLOW_SUBTREES_PER_THREAD` for a tree of at most
    :data:`SHALLOW_MAX_DEPTH` levels without presorted rows (``presorted`` False:
    its subtrees are grown from copies of their rows)."""
    if max_depth is not None and max_depth <= SHALLOW_MAX_DEPTH and not presorted:
        return min(SUBTREES_PER_THREAD, SHALLOW_SUBTREES_PER_THREAD)
    return SUBTREES_PER_THREAD


def grow_on_threads(
    data, search, rng, kept, limits, thresholds, buffers, n_values, n_links, n_threads, max_depth
):
    """:func:`~treelearn.growing._loop_kernels.grow_depth_first` on ``n_threads``
    threads (its arguments, as the grower makes them; ``max_depth`` the spec's):
    the nodes of at least ``n / (k * n_threads)`` rows (``k``:
    :func:`subtrees_per_thread`) are split first (large ones searching their
    features on all threads), then the subtrees below them are grown on separate
    threads, largest first, and stitched back together numbered as the serial
    loop numbers them: the same Tree, to the bit, as one thread grows. Every
    feature is searched, so ``rng`` (shared by the threads) is never drawn from.
    Returns ``(nodes, n_nodes, category_pool)``, as ``grow_depth_first`` does."""
    n_rows = data[1].shape[0]
    presorted = search[10].shape[0] > 0  # (sorted_rows: a row per presorted feature)
    k = subtrees_per_thread(max_depth, presorted)
    defer_rows = max(n_rows // (k * n_threads), SUBTREE_MIN_ROWS)
    tables, frontier = loop_kernels.grow_top(
        data, search, rng, kept, limits, PARALLEL_MIN_ROWS, thresholds, buffers,
        n_values, n_links, defer_rows,
    )  # fmt: skip
    front_int, n_front = frontier[0], frontier[5]
    sizes = front_int[:n_front, loop_kernels.S_END] - front_int[:n_front, loop_kernels.S_START]
    depths = front_int[:n_front, loop_kernels.S_DEPTH]
    batches = subtree_batches(sizes, depths, max_depth, n_threads)

    # Each thread's scratch (for the largest subtree) and work space (pool of kept
    # histograms, room for copies of rows, node table, local mode's arrays),
    # reused by its batches.
    largest = int(sizes.max()) if n_front else 0
    # More rows than any subtree, of the type grow_top took PARALLEL_MIN_ROWS as: the
    # subtrees' loop is the one compiled for the top, none of its nodes on threads.
    never_threaded = np.int64(n_rows + 1)
    work_spaces = {}

    def grow(items):
        thread = threading.get_ident()
        if thread not in work_spaces:
            own_search, own_buffers = loop_kernels.subtree_scratch(search, buffers, largest)
            work_spaces[thread] = (
                own_search,
                own_buffers,
                loop_kernels.no_work_space(data),
                loop_kernels.local_space(data, search),
            )
        own_search, own_buffers, space, local = work_spaces[thread]
        subtrees, space = loop_kernels.grow_subtrees(
            data, own_search, rng, kept, limits, never_threaded, thresholds, own_buffers,
            space, local, n_values, n_links, frontier, items,
        )  # fmt: skip
        work_spaces[thread] = (own_search, own_buffers, space, local)
        if sizes[items].sum() >= TRIM_MIN_BATCH_ROWS:
            _return_freed_memory()
        return subtrees

    results = map_on_threads(grow, batches, n_threads)
    work_spaces.clear()
    return _stitched_table(n_threads, tables, frontier, batches, results)


def subtree_batches(sizes, depths, max_depth, n_threads):
    """The deferred nodes (of ``sizes`` rows, at ``depths``) in batches for
    ``n_threads`` threads, each of which takes the next batch when it is done with
    one: a list of arrays of node indices, the costliest subtrees first.

    A subtree's cost is estimated as its rows times the levels it can still grow
    (``log2`` of its rows, at most what ``max_depth`` leaves it). Batches shrink as
    the work left does (each takes ``1 / (GUIDED_SHARE * n_threads)`` of it, at most
    ``1 / (MAX_BATCH_SHARE * n_threads)`` and at least ``1 / (MIN_BATCH_SHARE *
    n_threads)`` of the whole), so the threads' last batches are small and end close
    together, while no batch holds more of the subtrees' tables than batches of equal
    rows did (:func:`_stitched_table` places them ``n_threads`` batches at a time). A
    batch closes at the first subtree that brings it to its share."""
    levels = np.log2(np.maximum(sizes, 2))
    if max_depth is not None:
        levels = np.minimum(levels, np.maximum(max_depth - depths, 1))
    cost = sizes * levels
    order = np.argsort(-cost, kind="stable")
    left = cost.sum()
    least = left / (MIN_BATCH_SHARE * n_threads)
    most = left / (MAX_BATCH_SHARE * n_threads)
    batches = []
    first = 0
    taken = 0.0
    for k, item in enumerate(order):
        taken += cost[item]
        share = min(max(left / (GUIDED_SHARE * n_threads), least), most)
        if taken >= share or k == order.shape[0] - 1:
            batches.append(order[first : k + 1])
            left -= taken
            first, taken = k + 1, 0.0
    return batches


def _stitched_table(n_threads, tables, frontier, batches, results):
    """``(nodes, n_nodes, category_pool)``: :func:`~treelearn.growing._loop_kernels.grow_top`'s
    ``tables`` with the subtrees grown for each batch of deferred nodes
    (``results``) put in: every node written once, where the serial loop numbers
    it, ``n_threads`` batches at a time on ``n_threads`` threads
    (:func:`~treelearn._threads.map_on_threads`; their places never meet).

    Each wave's subtrees are let go of once placed (``results`` is the caller's
    list: emptied here), so the subtrees' tables and the stitched ones, whose pages
    are touched only as nodes are written, are never all held at once; the
    stitched table's columns become the Tree's arrays (its room is its nodes). A
    tree of fewer than :data:`STITCH_WAVES_MIN_BYTES` of nodes is placed in one
    wave on the calling thread, no memory handed back."""
    no_items = np.zeros(0, dtype=np.int64)
    items = np.concatenate(batches) if batches else no_items
    n_nodes = np.concatenate([r[3] for r in results]) if results else no_items
    number, base, n_total = stitch_kernels.serial_layout(tables, frontier, items, n_nodes)
    n_values = tables[0][node_tables.NODE_COLUMNS.index("value")].shape[1]
    n_links = tables[0][node_tables.NODE_COLUMNS.index("links")].shape[1]
    in_waves = n_total * node_tables.node_bytes(n_values, n_links) >= STITCH_WAVES_MIN_BYTES
    if in_waves:
        _return_freed_memory()  # (what growing the subtrees freed)
    wave_size = n_threads if in_waves else max(len(batches), 1)
    out_nodes = node_tables.new_nodes(n_total, n_values, n_links)
    stitch_kernels.place_top_nodes(tables, number, out_nodes)
    category_pools = [tables[2][: tables[3]]] + [r[1] for r in results]
    pool_start = np.cumsum([0] + [p.shape[0] for p in category_pools])
    first_item = np.cumsum([0] + [b.shape[0] for b in batches])
    front_node = frontier[0][:, loop_kernels.S_NODE]
    for first in range(0, len(batches), wave_size):
        wave = range(first, min(first + wave_size, len(batches)))
        placements = [
            (
                results[k],
                number[front_node[batches[k]]],
                base[first_item[k] : first_item[k + 1]],
                pool_start[k + 1],
                out_nodes,
            )
            for k in wave
        ]
        if in_waves:
            map_on_threads(lambda p: stitch_kernels.place_subtrees(*p), placements, n_threads)
        else:
            for placement in placements:
                stitch_kernels.place_subtrees(*placement)
        del placements
        for k in wave:
            results[k] = None
        if in_waves:
            _return_freed_memory()
    category_pool = np.concatenate(category_pools)
    del category_pools
    results.clear()
    return out_nodes, n_total, category_pool


def _return_freed_memory():
    """Hand the memory freed so far back to the system where the C library keeps it
    (glibc's ``malloc_trim``): the subtrees' tables were allocated on the pool's
    threads, in per-thread heaps whose freed pages glibc keeps for reuse, so the
    stitched tables would otherwise come on top of them. Elsewhere, nothing."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none (looked up once,
    on first use)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim
