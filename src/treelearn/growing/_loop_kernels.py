"""The depth-first growing loop of :class:`~treelearn.growing.grower.Grower` in numba.

:meth:`Grower.grow` hands its common configuration to :func:`grow_depth_first`
(``Grower._fast_loop_applies`` says when): a histogram criterion (gini,
entropy, squared error), ``missing="learn"``, ``selection="gain"``, subset or
multiway nominal splits, depth-first order (``max_leaf_nodes=None``), any
``max_features``, any number of threads. Split records (``record_splits``) are
not made here: :mod:`~treelearn.growing._record_kernels` makes them from the
grown Tree. Everything else runs the Python loop.

The kernel is that loop, step for step, over the same kernels
(:func:`~treelearn.splitting._kernels.find_best_split`, the partition and
histogram kernels), so it grows the same Tree bit for bit:

- nodes are numbered as they are created: a node's children together, right
  after it is split; nodes waiting to be split sit on a stack, first child on
  top (:class:`~treelearn.growing.frontier.DepthFirstFrontier`);
- a node is searched when it is created, so the features drawn for
  ``max_features`` come from ``rng`` (numba draws from the same bit generator
  with NumPy's algorithm) in the Python loop's order;
- the stop rules, the ``min_impurity_decrease``/``min_gain`` tests, the kept
  histograms (built for all children but the largest, which gets its
  parent's minus its siblings'; dropped below ``store_min_rows`` rows) and
  the thresholds are the Python loop's;
- a node's weight is the sum of its class weights added as NumPy adds them
  (pairwise: :func:`~treelearn.stats._pairwise.numpy_sum`), since the weight is stored and divides.

Nodes go into the growable node table of :mod:`~treelearn.growing._node_tables`
(made with room for a binary tree's most nodes, so that it need not grow),
whose columns become the Tree's arrays
(:func:`~treelearn.growing._node_tables.tree_arrays`). With every feature
numeric, a popped node of at most
:data:`~treelearn.growing._local_kernels.LOCAL_MAX_ROWS` rows has its whole
subtree grown on local copies of its rows
(:func:`~treelearn.growing._local_kernels.grow_local`), the same nodes in the
same order. Grown on one thread without presorted rows, a popped node of up to
:data:`COPY_MAX_BYTES` of rows (and at most half of them) has its subtree grown
from a copy of its rows (:mod:`~treelearn.growing._row_copy_kernels`): a node deep
in the tree holds a row in many of the training set, and each of its histograms
reads a cache line a row and feature of the code matrix; from the copy, which stays
in cache, it reads 0.6 ns a row and feature against 1.4-2.5 (2 classes, nodes of
1,600-22,000 rows of 800,000). The copy keeps the rows' order, so every sum is added
in the same order: the same Tree.

On several threads (all features searched), :func:`grow_top` splits the large
nodes and defers the others with their split, statistics and kept histogram;
:func:`grow_subtrees` grows the deferred nodes' subtrees, each exactly as the
serial loop would, several calls at once on separate threads (numba releases
the GIL); :mod:`~treelearn.growing._stitch_kernels` puts them back, every node
numbered as the serial loop numbers it, each written once. Same Tree, bit for bit,
for any number of threads.

Compile time: numba compiles a kernel with the code of every kernel it calls linked
in and optimised again, so a kernel that only calls another compiles all the code
below it once more. The loop is one kernel, :func:`_grow`, called from
Python by :func:`grow_depth_first`, :func:`grow_top` and, on threads,
:func:`grow_subtrees` (plain functions, each passing the types the others pass); a
node's search (:func:`_search`) and the children's kept histograms
(:func:`~treelearn.growing._kept_hist_kernels.child_histograms`) are inlined into it
(the latter, with the stacked histograms inlined into
:func:`~treelearn.growing._kept_hist_kernels.build_kept`, took a first one-thread fit from
161 to 149 s, a two-thread one from 238 to 228 s, 2026-12-07). When :func:`grow_depth_first`
and two wrappers around the search were kernels, they compiled for 15 s of their
own, of the 124 s of the CLI's first run; :func:`grow_subtrees` as a kernel, 8.7 s of
a first two-thread fit's 96 (2026-12-06).
"""

import numba
import numpy as np
from numba import njit

from treelearn._copy_kernels import copy_flat
from treelearn._dtypes import (
    N_REGRESSION_CHANNELS,
    NO_CHILD,
    TASK_CLASSIFICATION,
    TASK_REGRESSION,
)
from treelearn._dtypes import n_channels as task_channels
from treelearn._optional_kernels import if_present
from treelearn._random_kernels import permute_into
from treelearn.growing._kept_hist_kernels import build_kept, child_histograms, take_slot
from treelearn.growing._local_kernels import (
    LOCAL_MAX_ROWS,
    grow_local,
    local_mode_pays,
    local_workspace,
)
from treelearn.growing._node_tables import (
    L_MAX_DEPTH,
    category_pool_for,
    grown,
    initial_capacity,
    may_split,
    missing_child,
    new_nodes,
    record_split,
    room_for,
    split_admissible,
    weight_of,
    write_node,
)
from treelearn.growing._row_copy_kernels import copied_rows, copy_row_bytes, new_copy_space
from treelearn.splitting._cut_kernels import (
    N_OUT,
    OUT_FEATURE,
    OUT_GAIN,
    OUT_IS_SUBSET,
    OUT_LEFT_CODE,
    OUT_MISSING_LEFT,
)
from treelearn.splitting._kernels import (
    find_best_split,
    find_best_split_parallel,
    scratch_codes_size,
)
from treelearn.splitting._partition_kernels import (
    partition_by_child,
    partition_sorted_rows_parallel,
    partition_threshold,
    partition_threshold_parallel,
    summarise_children,
    summarise_children_parallel,
)
from treelearn.splitting._scan_buffer_kernels import own_sorted_scan, presorted_codes
from treelearn.stats._kernels import (
    node_statistics,
)

#: Columns of the stack of nodes waiting to be split (``stack_int``); their
#: split (the ``OUT_*`` slots) is in ``stack_out`` and their mask in ``stack_mask``.
S_NODE, S_START, S_END, S_DEPTH, S_SLOT = 0, 1, 2, 3, 4
N_STACK = 5

#: Most bytes a node table is first made with room for
#: (:func:`~treelearn.growing._node_tables.initial_capacity`): address space, not
#: memory, as only the nodes written are touched; a larger tree grows the table
#: (doubling its columns). 256 MB: 3.3M nodes of regression (a full-depth tree of
#: 1.65M rows), 1.7M of 10 classes, 33k of 1,000 classes (a table of those doubles
#: as the tree needs). No more, so that a machine that will not promise much more
#: memory than it has (overcommit) is never asked for more than this first.
MAX_INITIAL_TABLE_BYTES = 256 << 20

#: A deferred node (:func:`grow_top`) hands its kept histogram to its subtree only
#: when its rows times the kept features reach this many times the histogram's
#: entries, or when the histogram could not be built again to the bit (sums not
#: exact); a smaller one is built again by the subtree, on its thread, instead of
#: copied into the frontier while the other threads wait (fresh pages, faulted in).
#: 10 classes, 80,000 rows, depth 10, two threads (nodes of 2,500-5,000 rows, 20
#: features, histograms of 56,000 entries): 0.050 -> 0.047 s; at 800,000 rows
#: (nodes of 25,000-50,000 rows) copying was 3% quicker.
DEFER_HIST_MIN_RATIO = 8

#: A popped node of more than ``LOCAL_MAX_ROWS`` rows, at most half the training
#: rows and at most this many bytes of rows (its codes, row index and targets:
#: :func:`~treelearn.growing._row_copy_kernels.copy_row_bytes`), has its whole subtree
#: grown from a copy of its rows (:func:`~treelearn.growing._row_copy_kernels.copied_rows`),
#: when grown on one thread without presorted rows and its children may be split.
#: 800,000 x 20, depth 10, one thread (alternating processes): 2 classes 0.149 s
#: against 0.173, 10 classes 0.247 against 0.312, regression 0.221 against 0.326;
#: 1 MB and 8 MB were slower, 4 MB the same.
COPY_MAX_BYTES = 2 << 20

#: Rows per piece of a partition on threads (:func:`partition_threshold_parallel`):
#: numba shares the pieces out among its threads, whatever their number.
PARTITION_PIECE_ROWS = 1 << 14


@njit(cache=True, inline="always")
def _search(data, search, rng, limits, parallel_min_rows, start, end, stats, node_weight, hist,
            offsets, out, out_mask):  # fmt: skip
    """``Grower._search``: the node's best split into ``out``/``out_mask``; True
    when it passes ``min_impurity_decrease`` and ``min_gain``. With ``max_features``
    below the number of features, they are searched in the order of ``rng.permutation``
    (``rng`` is not drawn from otherwise). Inlined into the loop: as a kernel of its
    own, numba compiled the split finders' code into it and again into the loop."""
    feature_codes, rows, y_class, y_value, weight, is_classification, criterion, n_classes = data
    (
        n_codes, is_nominal, all_features, max_features, min_count, min_weight, hist_ratio,
        scratch_hist, scratch_codes, scratch_mask, sorted_rows, sorted_slot, skip_missing,
        multiway, whole_weights, sorted_scan,
    ) = search  # fmt: skip
    n_features = all_features.shape[0]
    order = all_features
    if max_features < n_features:
        order = np.empty(n_features, np.int64)
        permute_into(rng, order)
    # (None where no feature is nominal, as scratch_mask: see find_best_split.)
    out_mask = if_present(scratch_mask, out_mask)
    if (
        parallel_min_rows is not None
        and max_features >= n_features
        and end - start >= parallel_min_rows
    ):
        # As Grower._search: large nodes search their features on several threads.
        find_best_split_parallel(
            feature_codes, rows, start, end, y_class, y_value, weight, is_classification, criterion,
            n_classes, order, n_codes, is_nominal, hist, offsets, stats, min_count,
            min_weight, hist_ratio, out, out_mask, sorted_rows, sorted_slot, skip_missing,
            multiway, whole_weights, sorted_scan,
        )  # fmt: skip
    else:
        find_best_split(
            feature_codes, rows, start, end, y_class, y_value, weight, is_classification, criterion,
            n_classes, order, max_features, n_codes, is_nominal, hist, offsets, stats,
            min_count, min_weight, hist_ratio, scratch_hist, scratch_codes, scratch_mask, out,
            out_mask, sorted_rows, sorted_slot, skip_missing, multiway, whole_weights,
            sorted_scan,
        )  # fmt: skip
    return split_admissible(out, limits, node_weight)


@njit(cache=True)
def _partition(codes_f, rows, start, end, out, mask, missing_code, multiway, buffer, coc, bounds,
               parallel_min_rows):  # fmt: skip
    """``Grower._partition``: reorder the node's rows child by child; writes the
    children's bounds and, for a nominal split, the child of each code to
    ``coc``. Returns the number of children and, for a threshold split, the
    number of rows missing the feature (-1 otherwise: not counted). A threshold
    split of at least ``parallel_min_rows`` rows (None: never) is partitioned on
    numba's threads (the same order)."""
    if out[OUT_IS_SUBSET] == 0.0:
        bounds[0] = start
        if parallel_min_rows is not None and end - start >= parallel_min_rows:
            bounds[1], n_missing = partition_threshold_parallel(
                codes_f, rows, start, end, int(out[OUT_LEFT_CODE]), missing_code,
                out[OUT_MISSING_LEFT] != 0.0, buffer, -(-(end - start) // PARTITION_PIECE_ROWS),
            )  # fmt: skip
        else:
            bounds[1], n_missing = partition_threshold(
                codes_f, rows, start, end, int(out[OUT_LEFT_CODE]), missing_code,
                out[OUT_MISSING_LEFT] != 0.0, buffer,
            )  # fmt: skip
        bounds[2] = end
        return 2, n_missing
    if multiway:
        counts = np.zeros(missing_code + 1, dtype=np.int64)
        for i in range(start, end):
            counts[codes_f[rows[i]]] += 1
        for c in range(missing_code):
            coc[c] = c
        coc[missing_code] = np.argmax(counts[:missing_code]) if counts[missing_code] else NO_CHILD
        n_children = missing_code
    else:
        for c in range(missing_code + 1):
            coc[c] = np.int64(mask[c]) - 1
        n_children = 2
    partition_by_child(
        codes_f, rows, start, end, np.maximum(coc[: missing_code + 1], 0), n_children, buffer,
        bounds,
    )  # fmt: skip
    return n_children, np.int64(-1)


@njit(cache=True)
def _push(stacks, top, node, start, end, depth, slot, out, out_mask, stats):
    """Push a node waiting to be split; returns the stacks (maybe grown)."""
    stack_int, stack_out, stack_mask, stack_stats = stacks
    if top == stack_int.shape[0]:
        stack_int = grown(stack_int, 2 * top)
        stack_out = grown(stack_out, 2 * top)
        stack_mask = grown(stack_mask, 2 * top)
        stack_stats = grown(stack_stats, 2 * top)
    stack_int[top, S_NODE] = node
    stack_int[top, S_START] = start
    stack_int[top, S_END] = end
    stack_int[top, S_DEPTH] = depth
    stack_int[top, S_SLOT] = slot
    copy_flat(out, stack_out[top])
    if out[OUT_IS_SUBSET] != 0.0:
        copy_flat(out_mask, stack_mask[top])
    copy_flat(stats, stack_stats[top])
    return stack_int, stack_out, stack_mask, stack_stats


def grow_depth_first(data, search, rng, kept, limits, parallel_min_rows, thresholds, buffers,
                     n_values, n_links):  # fmt: skip
    """Grow the tree depth-first, as ``Grower.grow`` does; returns ``(nodes, n_nodes,
    category_pool)``, the node table (whose columns
    :func:`~treelearn.growing._node_tables.tree_arrays` makes the Tree's arrays) and
    the category maps' pool.

    Parameters (tuples, unpacked below; the arrays are the grower's own)
    ----------
    data : (feature_codes, rows, y_class, y_value, weight, is_classification, criterion, n_classes)
        ``feature_codes[f, r]`` is the code of row ``r`` in feature ``f`` (the
        dataset's codes transposed: C-contiguous however many features, so one
        compilation serves every table); ``rows`` is ``arange(n)`` and is reordered
        node by node.
    search : (n_codes, is_nominal, all_features, max_features, min_count, min_weight,
              hist_ratio, scratch_hist, scratch_codes, scratch_mask, sorted_rows,
              sorted_slot, skip_missing, multiway, whole_weights, sorted_scan)
        As :func:`~treelearn.splitting._kernels.find_best_split` takes them
        (``skip_missing`` False; ``sorted_scan`` with a row per numba thread,
        as :func:`~treelearn.splitting._kernels.find_best_split_parallel` takes it).
    rng : numpy.random.Generator
        With ``max_features`` below the number of features, each searched node's
        features are ordered by ``rng.permutation`` (drawn in node order, as the
        Python loop draws them); not drawn from otherwise. Always a Generator, never
        None: each type of an argument is another compilation of the whole loop.
    kept : (stored_features, stored_rows, stored_offsets, store_min_rows)
        The features whose histograms nodes keep, and from how many rows.
    limits : ndarray of float64
        The stop rules, slots ``L_*``.
    parallel_min_rows : int or None
        Nodes of at least this many rows use several threads (to search their
        features, build kept histograms, partition their rows and presorted rows,
        and sum their children's statistics). None: no
        node does, and the threaded kernels are left out of this compilation (numba
        prunes the branches), which keeps the single-threaded loop quick to compile.
    thresholds : (threshold_kind, threshold_ptr, threshold_values)
        Per feature (``THRESHOLD_*``) its sorted distinct values or bin edges in
        ``threshold_values[threshold_ptr[f]:threshold_ptr[f + 1]]``.
    buffers : (child_of_row, sorted_buffer, partition_buffer, local_of_row)
        ``sorted_buffer``: two rows (presorted rows, their codes) of the training rows;
        ``local_of_row``: local mode's scratch, an entry per training row (none
        where no feature is presorted).
    n_values : int
        Width of a node's value (classes, or 1).
    n_links : int
        Link columns of the node table
        (:func:`~treelearn.growing._node_tables.links_width`).
    """
    # A Python function calling the loop, not a kernel: numba would compile all of
    # the loop's code once more into a kernel that calls it. No node deferred: None
    # where no node uses threads (a serial fit's loop, compiled without the deferral),
    # else 0, so that drawn features on threads run the loop grow_top compiled.
    defer_rows = None if parallel_min_rows is None else 0
    tables, _, _ = _grow(
        data, search, rng, kept, limits, parallel_min_rows, _threads_of(parallel_min_rows),
        thresholds, buffers, no_work_space(data), local_space(data, search), n_values, n_links,
        _root_seed(data, kept), defer_rows,
    )  # fmt: skip
    nodes, n_nodes, category_pool, _ = tables
    return nodes, n_nodes, category_pool


def grow_top(data, search, rng, kept, limits, parallel_min_rows, thresholds, buffers, n_values,
             n_links, defer_rows):  # fmt: skip
    """The first step of growing on several threads: :func:`grow_depth_first`
    (all features searched, ``rng`` not drawn from), except that a node of fewer than
    ``defer_rows`` rows is left unsplit, its split kept in the frontier for
    :func:`grow_subtrees`.

    Returns ``(tables, frontier)``: ``tables = (nodes, n_nodes, category_pool,
    n_cat)``, the node table (:mod:`~treelearn.growing._node_tables`; deferred
    nodes are leaves there) and category pool, and
    ``frontier = (front_int, front_stats, front_out, front_mask, front_hist,
    n_front, n_front_hist)``: per deferred node its ``S_*`` slots (``S_SLOT``:
    its row of ``front_hist``, or -1 when it hands no histogram over: it keeps
    none, or its subtree builds it again, :data:`DEFER_HIST_MIN_RATIO`), statistics
    row, split and subset mask, in the order the serial loop would split them.
    """
    # (A Python function, as grow_depth_first is.)
    tables, frontier, _ = _grow(
        data, search, rng, kept, limits, parallel_min_rows, _threads_of(parallel_min_rows),
        thresholds, buffers, no_work_space(data), local_space(data, search), n_values, n_links,
        _root_seed(data, kept), defer_rows,
    )  # fmt: skip
    return tables, frontier


def _threads_of(parallel_min_rows):
    """The threads the loop's large nodes use: numba's count, which the estimator
    sets around the fit (1 where no node uses threads, ``parallel_min_rows`` None).
    Read here, not in the loop: a kernel that reads it cannot be cached."""
    return np.int64(numba.get_num_threads() if parallel_min_rows is not None else 1)


def subtree_scratch(search, buffers, largest):
    """A thread's own ``search`` and ``buffers`` (as :func:`grow_depth_first` takes
    them) for :func:`grow_subtrees`: its split scratch, presorted-scan and partition
    buffers for subtrees of up to ``largest`` rows, made once per thread and handed
    to each of its batches (made afresh per batch, their pages were faulted in again
    and handed back every time). The rest is shared: ``child_of_row``, whose entries
    for the rows of separate subtrees never meet, like their runs of ``rows`` and
    ``sorted_rows``. (Masks and scan buffers stay None where ``search``'s are.)"""
    (
        n_codes, is_nominal, all_features, max_features, min_count, min_weight, hist_ratio,
        scratch_hist, scratch_codes, scratch_mask, sorted_rows, sorted_slot, skip_missing,
        multiway, whole_weights, sorted_scan,
    ) = search  # fmt: skip
    own_search = (
        n_codes, is_nominal, all_features, max_features, min_count, min_weight, hist_ratio,
        np.empty_like(scratch_hist),
        np.empty(scratch_codes_size(largest, scratch_hist.shape[0] - 1, hist_ratio),
                 dtype=scratch_codes.dtype),
        None if scratch_mask is None else np.zeros_like(scratch_mask), sorted_rows,
        sorted_slot, skip_missing, multiway, whole_weights,
        None if sorted_scan is None else own_sorted_scan(sorted_scan, np.int64(largest)),
    )  # fmt: skip
    child_of_row, sorted_buffer, partition_buffer, local_of_row = buffers
    own_buffers = (
        child_of_row,
        np.empty((2, largest if sorted_rows.shape[0] else 0), dtype=sorted_buffer.dtype),
        np.empty(largest, dtype=partition_buffer.dtype),
        local_of_row,
    )
    return own_search, own_buffers


def grow_subtrees(data, search, rng, kept, limits, parallel_min_rows, thresholds, buffers,
                  work_space, local, n_values, n_links, frontier, items):  # fmt: skip
    """Grow the subtrees of the deferred nodes ``items`` (rows of ``frontier``,
    from :func:`grow_top`; a batch of :func:`~treelearn.growing.threaded.subtree_batches`,
    never empty) one after the other, each as the serial loop grows it:
    several calls run at once on separate threads (the loop releases the GIL), each
    with ``search`` and ``buffers`` of its own (:func:`subtree_scratch`, for at least
    the items' largest subtree). They share ``rng``, which none draws from (every
    feature is searched).

    A Python function calling the loop once a subtree, as :func:`grow_top` does,
    with the same types, so the one loop compiled for the top grows the subtrees
    too: as a kernel, numba compiled all of the loop's code once more into this
    loop over a few items (6-18 a fit: 8.7 of a first two-thread fit's 96 s).

    ``parallel_min_rows``: more rows than any of the subtrees has, so that no node of
    theirs uses threads, but of the type :func:`grow_top` took it as (None, as a
    serial fit passes it, would compile the loop a second time).

    ``work_space``: the calling thread's pool of kept histograms, siblings' sum,
    room for copies of rows and node table (:func:`no_work_space` the first time),
    and ``local``, its local mode's arrays (:func:`local_space`), reused by each
    subtree: made afresh
    for each, their pages were faulted in again every time (10 classes, 800,000
    rows, depth 10: about 1,400 page faults a subtree, 25,000 a fit; the copies'
    room, 2 classes: 7,900 page faults a fit against 4,800).

    Returns ``(subtrees, work_space)``: ``subtrees = (nodes, category_pool, first,
    n_nodes, first_cat)``, the subtrees' node tables one after the other, item
    ``i``'s ``n_nodes[i]`` nodes from node ``first[i]`` on (its root, the deferred
    node, split, first), its children and category pool indices local to it (its
    pool from ``first_cat[i]``); ``work_space`` as grown, for the thread's next call.
    """
    front_int, front_stats, front_out, front_mask, front_hist = frontier[:5]
    largest = (front_int[items, S_END] - front_int[items, S_START]).max()
    if largest > buffers[2].shape[0]:
        raise ValueError("grow_subtrees: buffers smaller than a subtree's rows")
    if largest >= parallel_min_rows:
        raise ValueError("grow_subtrees: a subtree large enough for threads")
    no_hist = np.empty((0, front_hist.shape[2]))
    node_tables, category_pools = [], []
    for item in items:
        slot = front_int[item, S_SLOT]
        seed = (
            front_int[item, S_START], front_int[item, S_END], front_int[item, S_DEPTH],
            front_stats[item], front_hist[slot] if slot >= 0 else no_hist, front_out[item],
            front_mask[item],
        )  # fmt: skip
        tables, _, work_space = _grow(
            data, search, rng, kept, limits, parallel_min_rows, np.int64(1), thresholds,
            buffers, work_space, local, n_values, n_links, seed, np.int64(0),
        )  # fmt: skip
        nodes, count, category_pool, n_cat = tables
        # Copies: the next call writes its nodes over work_space's table.
        node_tables.append(tuple(column[:count].copy() for column in nodes))
        category_pools.append(category_pool[:n_cat].copy())
    n_nodes = np.array([table[0].shape[0] for table in node_tables], dtype=np.int64)
    n_cats = np.array([pool.shape[0] for pool in category_pools], dtype=np.int64)
    if len(node_tables) == 1:
        all_nodes = node_tables[0]
    else:
        all_nodes = tuple(np.concatenate(columns) for columns in zip(*node_tables, strict=True))
    all_cat = np.concatenate(category_pools)
    first = np.cumsum(n_nodes) - n_nodes
    first_cat = np.cumsum(n_cats) - n_cats
    return (all_nodes, all_cat, first, n_nodes, first_cat), work_space


@njit(cache=True)
def no_work_space(data):
    """The ``work_space`` of :func:`_grow` that has it make its own: no histogram
    slot, no room for a copy of rows of ``data``, no node."""
    # Sizes as np.int64, not literals: numba compiles a kernel called with a literal
    # again for its value, apart from the calls that pass a variable.
    zero, one = np.int64(0), np.int64(1)
    return (
        np.empty((0, 0, 0)), np.empty((0, 0)), new_copy_space(data, zero), new_nodes(zero, one, one)
    )  # fmt: skip


def local_space(data, search):
    """Local mode's arrays (:func:`~treelearn.growing._local_kernels.local_workspace`)
    for the loop over ``data`` and ``search`` (as :func:`grow_depth_first` takes them):
    for subtrees of up to :data:`LOCAL_MAX_ROWS` rows where local mode can run (every
    feature numeric, no surrogate search), else None: numba then leaves local mode
    out of the loop's compilation."""
    feature_codes, rows, is_classification, n_classes = data[0], data[1], data[5], data[7]
    n_codes, is_nominal, skip_missing = search[0], search[1], search[12]
    if skip_missing or is_nominal.any():
        return None
    task = TASK_CLASSIFICATION if is_classification else TASK_REGRESSION
    return local_workspace(
        feature_codes,
        np.int64(min(LOCAL_MAX_ROWS, rows.shape[0])),
        np.int64(task_channels(task, n_classes)),
        np.int64(n_codes.max() + 1),
    )


@njit(cache=True)
def _local_rows(local):
    """Rows of the largest subtree local mode's arrays ``local`` hold (None: 0)."""
    if local is None:
        return np.int64(0)
    return np.int64(local[3].shape[0])


@njit(cache=True, _nrt=False)
def _grown_locally(limits, depth, n_rows, slot, defer_rows, local_rows):
    """Whether the loop grows a node of ``n_rows`` rows at ``depth`` (its kept
    histogram in pool slot ``slot``, -1: none) in local mode when it pops it: not
    deferred (``defer_rows`` None: none is), no histogram kept, and local mode pays
    (``local_rows`` 0: never)."""
    return (
        (defer_rows is None or n_rows >= defer_rows)
        and slot < 0
        and local_mode_pays(limits, depth, n_rows, local_rows)
    )


@njit(cache=True, inline="always")
def _n_channels(data):
    """Width of a statistics row of ``data``'s task (:func:`treelearn._dtypes.n_channels`)."""
    is_classification, n_classes = data[5], data[7]
    return 1 + n_classes if is_classification else N_REGRESSION_CHANNELS


@njit(cache=True)
def _root_seed(data, kept):
    """The seed of :func:`_grow` for the whole tree: all rows, depth 0, not searched yet."""
    rows, y_class, y_value, weight, is_classification = data[1:6]
    n_channels = _n_channels(data)
    stats = np.empty(n_channels)
    # (np.int64: a literal 0 would compile node_statistics once more than its other calls.)
    node_statistics(
        rows, np.int64(0), rows.shape[0], y_class, y_value, weight, is_classification, stats
    )
    no_split = np.full(N_OUT, np.nan)
    return (
        np.int64(0), np.int64(rows.shape[0]), np.int64(0), stats,
        np.empty((0, n_channels)), no_split, np.zeros(0, dtype=np.uint8),
    )  # fmt: skip


@njit(cache=True)
def _defer(frontier, stacks, top, hist):
    """Move the stack's entry ``top`` to the frontier (see :func:`grow_top`), with a
    copy of its kept histogram ``hist`` (no rows: none); returns the frontier
    (maybe grown)."""
    front_int, front_stats, front_out, front_mask, front_hist, n_front, n_hist = frontier
    stack_int, stack_out, stack_mask, stack_stats = stacks
    if n_front == front_int.shape[0]:
        size = max(2 * n_front, 16)
        front_int = grown(front_int, size)
        front_stats = grown(front_stats, size)
        front_out = grown(front_out, size)
        front_mask = grown(front_mask, size)
    copy_flat(stack_int[top], front_int[n_front])
    front_int[n_front, S_SLOT] = -1
    if hist.shape[0]:
        if n_hist == front_hist.shape[0]:
            bigger = np.empty((max(2 * n_hist, 4), hist.shape[0], hist.shape[1]))
            copy_flat(front_hist[:n_hist], bigger[:n_hist])
            front_hist = bigger
        copy_flat(hist, front_hist[n_hist])
        front_int[n_front, S_SLOT] = n_hist
        n_hist += 1
    copy_flat(stack_stats[top], front_stats[n_front])
    copy_flat(stack_out[top], front_out[n_front])
    copy_flat(stack_mask[top], front_mask[n_front])
    return front_int, front_stats, front_out, front_mask, front_hist, n_front + 1, n_hist


@njit(cache=True, nogil=True)
def _grow(data, search, rng, kept, limits, parallel_min_rows, n_threads, thresholds, buffers,
          work_space, local, n_values, n_links, seed, defer_rows):  # fmt: skip
    """The loop of :func:`grow_depth_first` from ``seed``, the root of what it grows:
    ``(start, end, depth, stats, hist, split, mask)``, its rows, depth, statistics,
    kept histogram (no rows: none) and, when it was searched already (a deferred
    node of :func:`grow_top`), its split (``split[OUT_GAIN]`` NaN: not searched)
    and subset mask. Nodes of fewer than ``defer_rows`` rows are deferred
    (:func:`grow_top`; 0: none, None: none, and the deferral left out of this
    compilation, as :func:`grow_depth_first` passes it where no node uses threads);
    nodes of at least ``parallel_min_rows`` rows (None: none) use ``n_threads``
    threads (:func:`_threads_of`). ``work_space``: ``(pool, siblings,
    copy_space, node_room)``, the pool of kept histograms, the siblings' sum, the room
    for copies of rows (:func:`~treelearn.growing._row_copy_kernels.new_copy_space`) and
    a node table to work in (each too small, as :func:`no_work_space`'s: made here);
    ``local``: local mode's arrays (:func:`local_space`; None: no local mode, left out
    of this compilation).

    Returns ``(tables, frontier, work_space)``: ``tables`` and ``frontier`` as
    :func:`grow_top`, ``work_space`` as grown (for the next call to reuse). The node
    table of ``tables`` is ``work_space``'s: a caller that passes ``work_space`` on
    copies the nodes out first (:func:`grow_subtrees`), as the next call writes over
    them.

    Where no node uses threads (``parallel_min_rows`` None or more rows than the
    seed's) and none is deferred, a node popped to be split that may be copied
    (:data:`COPY_MAX_BYTES`) is, with its rows renumbered from 0 in their order; its
    subtree's nodes are pushed and popped with bounds in the copy, read from the
    copy until the stack is back below it."""
    feature_codes, rows, y_class, y_value, weight, is_classification, criterion, _ = data
    n_codes, is_nominal, sorted_rows, multiway = search[0], search[1], search[10], search[13]
    sorted_codes = presorted_codes(search[15])
    stored_features, stored_rows, stored_offsets, store_min_rows = kept
    child_of_row, sorted_buffer, partition_buffer, local_of_row = buffers
    seed_start, seed_end, seed_depth, seed_stats, seed_hist, seed_split, seed_mask = seed
    n_channels = _n_channels(data)
    width = 1  # of a nominal split's mask and map: its codes, missing included
    max_children = 2
    for f in range(n_codes.shape[0]):
        if is_nominal[f]:
            width = max(width, n_codes[f] + 1)
            if multiway:
                max_children = max(max_children, n_codes[f])
    empty_hist = np.zeros((0, n_channels))
    no_offsets = np.full(n_codes.shape[0], -1, dtype=np.int64)
    out = np.empty(N_OUT)
    out_mask = np.zeros(width, dtype=np.uint8)
    pool, siblings, copy_space, node_room = work_space
    if pool.shape[0] == 0:
        pool = np.empty((4, stored_rows[-1], n_channels))
        siblings = np.empty((stored_rows[-1], n_channels))
    free = np.arange(pool.shape[0] - 1, -1, -1)
    n_free = np.int64(pool.shape[0])
    histograms = (stored_features, stored_rows, store_min_rows, siblings)
    # Room for every node of a binary tree (nothing of it is touched until written).
    capacity = initial_capacity(seed_end - seed_start, n_values, n_links, MAX_INITIAL_TABLE_BYTES)
    if node_room[0].shape[0] >= capacity:
        nodes = node_room
    else:
        nodes = new_nodes(capacity, n_values, n_links)
    category_pool = np.empty(64, dtype=np.int64)
    n_cat = np.int64(0)
    stacks = (
        np.empty((16, N_STACK), dtype=np.int64),
        np.empty((16, N_OUT)),
        np.empty((16, width), dtype=np.uint8),
        np.empty((16, n_channels)),
    )
    top = np.int64(0)
    # Room for about as many deferred nodes as grow_top defers (between one and two
    # for each defer_rows rows), so that their histograms are seldom copied to a
    # larger table: each doubling held both (10 classes, 100k rows: 7 MB more).
    room = 0
    if defer_rows is not None and defer_rows > 0:
        room = 2 * ((seed_end - seed_start) // defer_rows) + 4
    frontier = (
        np.empty((room, N_STACK), dtype=np.int64),
        np.empty((room, n_channels)),
        np.empty((room, N_OUT)),
        np.empty((room, width), dtype=np.uint8),
        np.empty((room, stored_rows[-1], n_channels)),
        np.int64(0),
        np.int64(0),
    )
    child_stats = np.empty((max_children, n_channels))
    child_weight = np.empty(max_children)
    child_out = np.empty((max_children, N_OUT))
    child_mask = np.empty((max_children, width), dtype=np.uint8)
    child_split = np.zeros(max_children, dtype=np.bool_)
    slots = np.empty(max_children, dtype=np.int64)
    bounds = np.empty(max_children + 1, dtype=np.int64)
    coc = np.empty(width, dtype=np.int64)
    # (child_of_row is read only to split presorted rows, here and in local mode.)
    no_child_of_row = child_of_row[:0]
    exact_sums = is_classification and search[14]
    # Local mode (small subtrees on local copies): subtrees of up to local_rows rows
    # (0: none; ``local`` None where it cannot run, see local_space).
    local_rows = _local_rows(local)
    # Subtrees grown on copies of their rows (COPY_MAX_BYTES): ``active`` is the data
    # the loop reads, the copy's from when the node at stack level ``copy_top`` is
    # popped until the stack is back to that level.
    copy_rows = np.int64(0)
    if (
        (parallel_min_rows is None or seed_end - seed_start < parallel_min_rows)
        and (defer_rows is None or defer_rows == 0)
        and sorted_rows.shape[0] == 0
    ):
        copy_rows = min(
            COPY_MAX_BYTES // copy_row_bytes(data), rows.shape[0] // 2, seed_end - seed_start
        )
        if copy_rows <= LOCAL_MAX_ROWS:
            copy_rows = 0
    if copy_space[1].shape[0] < copy_rows:
        copy_space = new_copy_space(data, copy_rows)
    active = data
    copy_top = np.int64(-1)
    max_depth = limits[L_MAX_DEPTH]
    # A child that local mode will grow is searched there, unless features are drawn
    # (rng's draws are made in the order the loop searches its nodes: a child is
    # searched when its parent splits, before its elder sibling's subtree is grown).
    search_in_local_mode = search[3] >= n_codes.shape[0]

    # The seed is opened as the only child of no node, or (searched already)
    # recorded and put on the stack. (Counters start as np.int64, not literals,
    # so that numba compiles each callee for one signature.)
    n_nodes = np.int64(0)
    n_children = np.int64(1)
    node = np.int64(-1)
    depth = np.int64(seed_depth)
    bounds[0] = seed_start
    bounds[1] = seed_end
    copy_flat(seed_stats, child_stats[0])
    slots[0] = -1
    if seed_hist.shape[0]:
        pool, free, n_free, slots[0] = take_slot(pool, free, n_free)
        copy_flat(seed_hist, pool[slots[0]])
    elif stored_features.shape[0] and seed_end - seed_start >= store_min_rows:
        pool, free, n_free, slots[0] = take_slot(pool, free, n_free)
        build_kept(active, stored_features, stored_rows, bounds[0], bounds[1],
                    parallel_min_rows, n_threads, partition_buffer, pool[slots[0]])  # fmt: skip
    if not np.isnan(seed_split[OUT_GAIN]):
        seed_row = seed_stats.reshape((1, -1))
        zero = np.int64(0)  # (a literal 0 would compile write_node and _push once more)
        write_node(nodes, n_nodes, seed_row, zero, weight_of(seed_stats, is_classification),
                   seed_end - seed_start, node, is_classification, criterion)  # fmt: skip
        n_nodes += 1
        stacks = _push(stacks, top, zero, seed_start, seed_end, seed_depth, slots[0],
                       seed_split, seed_mask, seed_stats)  # fmt: skip
        top += 1
        n_children = 0
    split = np.zeros(N_OUT)
    mask = np.zeros(width, dtype=np.uint8)
    missing_code = np.int64(0)
    n_missing = np.int64(0)
    while True:
        first = n_nodes
        # The table is written without reference counting (write_node, record_split)
        # and grown only when full: passed to or returned by a counting call, each
        # of its nine arrays would be counted up and down at every split (a
        # full-depth tree with a nominal feature, every node grown here: 4-5%).
        if n_nodes + n_children > nodes[0].shape[0]:
            nodes = room_for(nodes, n_nodes, n_children)
        for k in range(n_children):
            n_rows = bounds[k + 1] - bounds[k]
            w = weight_of(child_stats[k], is_classification)
            impurity = write_node(nodes, n_nodes, child_stats, k, w, n_rows, node,
                                  is_classification, criterion)  # fmt: skip
            n_nodes += 1
            child_weight[k] = w
            if search_in_local_mode and _grown_locally(
                limits, depth, n_rows, slots[k], defer_rows, local_rows
            ):
                # Grown in local mode when popped, where it is searched from its
                # rows in code order (the same split: see _local_kernels): not here,
                # from a histogram of every feature built at its scattered rows.
                found = may_split(limits, depth, n_rows, w, impurity)
                out[OUT_GAIN] = np.nan  # (not searched yet)
            else:
                if slots[k] >= 0:
                    hist, offsets = pool[slots[k]], stored_offsets
                else:
                    hist, offsets = empty_hist, no_offsets
                # As Grower._make_node after the node is recorded: searched if the
                # stop rules let it split.
                found = may_split(limits, depth, n_rows, w, impurity) and _search(
                    active, search, rng, limits, parallel_min_rows, bounds[k], bounds[k + 1],
                    child_stats[k], w, hist, offsets, out, out_mask,
                )  # fmt: skip
            child_split[k] = found
            if found:
                copy_flat(out, child_out[k])
                if out[OUT_IS_SUBSET] != 0.0:
                    copy_flat(out_mask, child_mask[k])
            elif slots[k] >= 0:
                free[n_free] = slots[k]
                n_free += 1
                slots[k] = -1
        if node >= 0:
            category_pool = category_pool_for(split, category_pool, n_cat, missing_code)
            n_cat = record_split(
                nodes, node, split, first, n_children,
                missing_child(split, coc, missing_code, n_missing, child_weight, n_children),
                multiway, thresholds, coc, missing_code, category_pool, n_cat,
            )  # fmt: skip
        for k in range(n_children - 1, -1, -1):
            if child_split[k]:
                stacks = _push(stacks, top, first + k, bounds[k], bounds[k + 1], depth, slots[k],
                               child_out[k], child_mask[k], child_stats[k])  # fmt: skip
                top += 1
        # Split the node on top of the stack (deferring those below defer_rows).
        popped = False
        while top > 0:
            if top == copy_top:
                active = data
                copy_top = -1
            top -= 1
            stack_int, stack_out, _, stack_stats = stacks
            n_rows = stack_int[top, S_END] - stack_int[top, S_START]
            # (``local is not None``: decided by its type when numba compiles the loop,
            # which leaves local mode out where it is None. Called from here, not
            # from a kernel that tests it: that call made full-depth regression
            # fits 18% slower.)
            if local is not None and _grown_locally(
                limits, stack_int[top, S_DEPTH], n_rows, stack_int[top, S_SLOT], defer_rows,
                local_rows,
            ):  # fmt: skip
                # A small node: its whole subtree now, in local mode.
                nodes, n_nodes, category_pool, n_cat = grow_local(
                    active, search, rng, limits, thresholds,
                    (nodes, n_nodes, category_pool, n_cat), local,
                    stack_int[top, S_NODE], stack_int[top, S_START], stack_int[top, S_END],
                    stack_int[top, S_DEPTH], stack_out[top], stack_stats[top], local_of_row,
                )  # fmt: skip
                continue
            # (``defer_rows is None``: decided by its type when numba compiles the loop,
            # which leaves the deferral out of a serial fit's loop.)
            if defer_rows is None or n_rows >= defer_rows:
                popped = True
                break
            slot = stack_int[top, S_SLOT]
            handed = slot >= 0 and (
                not exact_sums
                or n_rows * stored_features.shape[0] >= DEFER_HIST_MIN_RATIO * pool[0].size
            )
            frontier = _defer(frontier, stacks, top, pool[slot] if handed else empty_hist)
            if slot >= 0:
                free[n_free] = slot
                n_free += 1
        if not popped:
            break
        stack_int, stack_out, stack_mask = stacks[:3]
        node = stack_int[top, S_NODE]
        start = stack_int[top, S_START]
        end = stack_int[top, S_END]
        depth = stack_int[top, S_DEPTH] + 1
        parent_slot = stack_int[top, S_SLOT]
        if (
            copy_top < 0
            and LOCAL_MAX_ROWS < end - start <= copy_rows
            and (max_depth < 0 or depth < max_depth)
        ):
            active = copied_rows(data, start, end, copy_space)
            copy_top = top
            start, end = np.int64(0), end - start
        feature_codes, rows, y_class, y_value, weight = active[:5]
        copy_flat(stack_out[top], split)
        if split[OUT_IS_SUBSET] != 0.0:
            copy_flat(stack_mask[top], mask)
        f = int(split[OUT_FEATURE])
        codes_f = feature_codes[f]
        missing_code = n_codes[f]
        n_children, known_missing = _partition(
            codes_f, rows, start, end, split, mask, missing_code, multiway, partition_buffer,
            coc, bounds, parallel_min_rows,
        )  # fmt: skip
        marks = child_of_row if sorted_rows.shape[0] else no_child_of_row
        # (Exact sums: the largest child's statistics are the node's less its siblings'.)
        parent_stats = stacks[3][top]
        if parallel_min_rows is not None and end - start >= parallel_min_rows:
            # Large nodes partition (their rows, each feature's presorted rows) and
            # sum their children on several threads.
            n_missing = summarise_children_parallel(
                rows, bounds[: n_children + 1], codes_f, missing_code, y_class, y_value, weight,
                is_classification, marks, child_stats[:n_children], parent_stats, exact_sums,
                known_missing, PARTITION_PIECE_ROWS,
            )  # fmt: skip
            if sorted_rows.shape[0]:
                partition_sorted_rows_parallel(
                    sorted_rows, sorted_codes, start, end, child_of_row, bounds[: n_children + 1]
                )
        else:
            n_missing = summarise_children(
                rows, bounds[: n_children + 1], codes_f, missing_code, y_class, y_value, weight,
                is_classification, marks, sorted_rows, sorted_codes, sorted_buffer,
                child_stats[:n_children], parent_stats, exact_sums, known_missing,
            )  # fmt: skip
        pool, free, n_free = child_histograms(
            active, histograms, pool, free, n_free, parent_slot, bounds, n_children, slots,
            parallel_min_rows, n_threads, partition_buffer,
        )  # fmt: skip
    return (
        (nodes, n_nodes, category_pool, n_cat), frontier,
        (pool, siblings, copy_space, nodes),
    )  # fmt: skip
