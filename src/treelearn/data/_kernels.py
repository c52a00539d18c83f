"""Encoding kernels: bin codes, the exactness check of sampled bins, a radix sort, ranks.

Every kernel reads a numeric column as the caller gave it, float32 or float64
(:func:`as_kernel_floats`), in any memory layout (a column of a C-ordered matrix
is a strided view), with NaN for a missing value (the reader's convention,
:class:`treelearn.data.schema.RawColumn`), and compares and sorts each value as
the float64 it converts to exactly; the kernels write codes straight into one
column of the code matrix, whatever its unsigned dtype, so neither a float64
copy of the column nor a wider temporary of the codes is ever built. Inputs are
only read, never written.

Binary search in blocks
    A bin code is ``np.searchsorted(edges, x, side="left")``, the number of
    edges below ``x``. The kernels search a block of :data:`BLOCK` values at a
    time, one level of the search for the whole block before the next, over
    the edges padded with ``+inf`` to ``2**depth - 1`` entries
    (:func:`treelearn.data.binning.padded`), so every search takes exactly
    ``depth`` steps. The block's values are first copied into a small
    contiguous float64 buffer (a column of a C-ordered matrix is then read once,
    not once per step), and each step sets one bit of the code from a
    comparison (``code |= (edge < x) << level``): no branch, which the compiler
    keeps branch-free and, in the threaded kernels, vectorises over the block
    (gathers). Written as ``code + half * (edge < x)``, the same search was
    compiled into a conditional jump per step (seen in the machine code): 45-53
    ns a value against 3.7-12 ns (800,000 random float32 values, one thread, an
    Intel Xeon). The padding never counts: no number is above ``+inf``.

Prefix tables
    A column of at most :data:`PREFIX_TABLE_MAX_EDGES` edges and at least
    :data:`PREFIX_TABLE_MIN_ROWS` rows is coded without a search: the first
    :data:`PREFIX_BITS` bits of a value's order key (of the float32 it rounds
    to, -0.0 as 0.0; never smaller for a larger value) index a table of the
    column's edges (:func:`fill_prefix_tables`, a byte an entry) that says how
    many edges have a smaller prefix, all below the value; those of a larger
    prefix are all above it, so the next edge is the only one the value is
    compared with (as float64, so the code is the binary search's), where no two
    edges share a prefix. Quantile edges rarely share a prefix (none of 255 did
    on any of 20 normal columns), and one compare takes no branch: 43 ms for
    800,000 x 20 float32 values of a C-ordered matrix against 134 ms for the
    blocked binary search (an AMD EPYC with AVX-512, one thread). A column with a prefix
    of several edges (``crowded``) compares the edges after the next one in a loop.
    (Two-byte entries that also counted the edges of each prefix took longer, 2.2
    against 1.6 ms for 80,000 x 20 float32 values and 18.4 against 13.4 ms for
    800,000, on two threads of an Intel Xeon, and twice the memory: 2.6 MB for
    20 columns.)

Sorting
    Bin edges (from the column or its sample) and exact codes both start from
    the sorted known values. Bin edges need only the values: ``np.sort`` sorts
    them (numpy's vectorised sort; 0.3-0.8 ms for 80,000 or 200,000 float32
    values on an Intel Xeon with AVX-512, 3-5x faster than the radix sort below);
    :func:`distinct_at_most` counts the distinct values up to ``max_bins + 1``
    (beyond that, the quantiles are read off the sorted values at their ranks),
    and only for a column with fewer does :func:`value_runs` list the distinct
    values and their counts. Exact
    codes also need each row's rank: :func:`radix_sort_keys` sorts the values'
    bits as order-preserving unsigned keys, carrying each row's index, faster
    than ``np.argsort`` (a float32 column: 32-bit keys of its own bits,
    :func:`radix_sort_float32_keys`, widened after); :func:`write_key_ranks`
    then reads the distinct values and each row's rank in one pass;
    :func:`write_code_values` reads the distinct values back from the column
    and its codes.

Threads
    The ``*_parallel`` kernels split the rows into chunks of :data:`CHUNK` over
    numba's threads (as many as :func:`numba.get_num_threads` says); they give
    the same codes as the serial ones. :data:`PARALLEL_MIN_ROWS` is the column
    length from which the callers use them.
"""

import numpy as np
from numba import njit, prange

from treelearn._parallel_options import PRANGE_ONLY

#: Values searched together, one level of the binary search at a time.
BLOCK = 64
#: Rows of a matrix coded through prefix tables a column at a time (each column's
#: table entries in use stay in cache for this many lookups): 800,000 x 20
#: float32, one thread, 32-34 ms by blocks of 64 rows, 27.7 by 256, 25.5-27.0 by
#: 512, 26.1-26.2 by 1,024 and 2,048 (an AMD EPYC).
PREFIX_MATRIX_BLOCK = 512
#: Rows of a C-ordered matrix gathered or copied into rows of ``out`` (one per
#: column) a column at a time: the block's rows of the matrix stay in cache from one
#: column to the next, and each column's writes run in sequence.
MATRIX_BLOCK = 512
#: Rows per task of the parallel kernels.
CHUNK = 1 << 14
#: Columns with at least this many rows are coded on numba's threads.
PARALLEL_MIN_ROWS = 1 << 16
#: Leading bits of a value's order key that index a prefix table (an entry each).
PREFIX_BITS = 16
#: Most edges of a column coded through a prefix table (its entries: a byte).
PREFIX_TABLE_MAX_EDGES = 255
#: Columns of at least this many rows are coded through prefix tables: a table
#: (2**16 entries) costs about as much as binary searches of a few thousand values.
PREFIX_TABLE_MIN_ROWS = 1 << 13
#: Most columns coded through prefix tables at once (64 KB of table each).
PREFIX_TABLE_COLUMNS = 32


@njit(cache=True, inline="always")
def _search_loaded(tables, t, depth, count, base, block_values):
    """``base[k]``: number of entries of ``tables[t]`` below ``block_values[k]``, ``k < count``.

    ``tables[t]`` starts with ``2**depth - 1`` sorted entries (what follows is
    never read). A NaN value gets an arbitrary result (every comparison with
    it is false). ``tables`` is indexed in two dimensions, not through a row
    view: with a view per row the compiler no longer vectorised the search
    (2x slower).
    """
    for k in range(count):
        base[k] = 0
    for level in range(depth - 1, -1, -1):
        for k in range(count):
            b = base[k]
            # The bits below ``level`` are still 0: setting this one adds 2**level.
            base[k] = b | (np.int64(tables[t, b + (1 << level) - 1] < block_values[k]) << level)


@njit(cache=True, inline="always")
def _search_block(values, start, count, table, depth, base, block_values):
    """:func:`_search_loaded` of ``values[start:start + count]`` (any layout), copied
    into ``block_values`` (as float64) first; ``table`` is ``padded`` as one row."""
    for k in range(count):
        block_values[k] = values[start + k]
    _search_loaded(table, 0, depth, count, base, block_values)


@njit(cache=True, inline="always")
def _bin_range(values, table, depth, missing_code, out, start, stop):
    base = np.empty(BLOCK, dtype=np.int64)
    block_values = np.empty(BLOCK)
    for block in range(start, stop, BLOCK):
        count = min(BLOCK, stop - block)
        _search_block(values, block, count, table, depth, base, block_values)
        for k in range(count):
            x = block_values[k]
            out[block + k] = missing_code if x != x else base[k]


@njit(cache=True)
def bin_codes_serial(values, padded, depth, missing_code, out):
    """``out[i]``: the bin of ``values[i]`` (how many entries of ``padded`` are below it);
    ``missing_code`` for NaN."""
    table = padded.reshape((1, padded.shape[0]))
    _bin_range(values, table, depth, missing_code, out, 0, values.shape[0])


@njit(cache=True, parallel=PRANGE_ONLY)
def bin_codes_parallel(values, padded, depth, missing_code, out):
    """:func:`bin_codes_serial` on numba's threads."""
    n = values.shape[0]
    table = padded.reshape((1, padded.shape[0]))
    for chunk in prange((n + CHUNK - 1) // CHUNK):
        start = chunk * CHUNK
        _bin_range(values, table, depth, missing_code, out, start, min(start + CHUNK, n))


@njit(cache=True, inline="always")
def _bin_matrix_range(matrix, columns, tables, depths, missing_codes, out, start, stop):
    base = np.empty(BLOCK, dtype=np.int64)
    block_values = np.empty(BLOCK)
    for block in range(start, stop, BLOCK):
        count = min(BLOCK, stop - block)
        for t in range(columns.shape[0]):
            j = columns[t]
            for k in range(count):
                block_values[k] = matrix[block + k, j]
            _search_loaded(tables, t, depths[t], count, base, block_values)
            missing_code = missing_codes[t]
            for k in range(count):
                x = block_values[k]
                out[block + k, j] = missing_code if x != x else base[k]


@njit(cache=True)
def bin_matrix_codes_serial(matrix, columns, tables, depths, missing_codes, out):
    """:func:`bin_codes_serial` of the columns ``columns`` of a C-ordered ``matrix``
    at once, a block of rows at a time (each block's rows are read from memory
    once for all columns, where a column at a time reads every row once per
    column): column ``j = columns[t]`` into ``out[:, j]``, by the table
    ``tables[t]`` (padded, ``depths[t]``), its missing code ``missing_codes[t]``."""
    _bin_matrix_range(matrix, columns, tables, depths, missing_codes, out, 0, matrix.shape[0])


@njit(cache=True, parallel=PRANGE_ONLY)
def bin_matrix_codes_parallel(matrix, columns, tables, depths, missing_codes, out):
    """:func:`bin_matrix_codes_serial` on numba's threads."""
    n = matrix.shape[0]
    for chunk in prange((n + CHUNK - 1) // CHUNK):
        start = chunk * CHUNK
        _bin_matrix_range(matrix, columns, tables, depths, missing_codes, out, start,
                          min(start + CHUNK, n))  # fmt: skip


@njit(cache=True, inline="always")
def _prefix(x):
    """The leading :data:`PREFIX_BITS` bits of an order key of ``x`` rounded to
    float32 (-0.0 as 0.0): never smaller for a larger ``x``, so the values of one
    prefix are an interval, and an edge of another prefix than ``x``'s is on the
    side of ``x`` its prefix says. NaN gets some prefix (its code is not read)."""
    rounded = np.float32(x) + np.float32(0.0)
    bits = np.int64(np.float32(rounded).view(np.uint32))
    # Negative values: all bits flipped; others: the sign bit set (unsigned order).
    flip = -(bits >> 31) | 0x80000000
    return ((bits ^ flip) & 0xFFFFFFFF) >> (32 - PREFIX_BITS)


@njit(cache=True)
def fill_prefix_tables(edge_rows, n_edges, tables, crowded):
    """The prefix table of each row of sorted edges ``edge_rows[t, :n_edges[t]]``
    (at most :data:`PREFIX_TABLE_MAX_EDGES`) into ``tables[t]`` (uint8, an entry per
    prefix): the number of edges of smaller prefixes; ``crowded[t]``: two edges
    share a prefix."""
    for t in range(tables.shape[0]):
        crowded[t] = False
        filled = 0  # (the prefixes below are written)
        for k in range(n_edges[t]):
            p = _prefix(edge_rows[t, k])
            if p < filled:
                crowded[t] = True  # (p is the previous edge's)
            # The prefixes above the previous edge's, up to edge k's, have k edges below.
            tables[t, filled : p + 1] = k
            filled = max(filled, p + 1)
        tables[t, filled:] = n_edges[t]


@njit(cache=True, inline="always")
def _prefix_code(tables, edge_rows, t, x, crowded):
    """The number of edges of row ``t`` below ``x`` (see :func:`fill_prefix_tables`;
    ``edge_rows[t]`` padded with ``+inf`` after its edges)."""
    first = np.int64(tables[t, _prefix(x)])
    # Edges of smaller prefixes than x's are below it, of larger ones above it: only
    # the edge after the smaller ones may be either (of x's prefix, or above it;
    # compared without a branch; past the row's edges, +inf). Where edges share a
    # prefix, the next ones too.
    code = first + np.int64(edge_rows[t, first] < x)
    if crowded:
        while edge_rows[t, code] < x:
            code += 1
    return code


@njit(cache=True, inline="always")
def _prefix_range(values, table, edge_row, crowded, missing_code, out, start, stop):
    # A block's values are copied first (a strided column: its reads all issued
    # at once, not one behind each lookup).
    block_values = np.empty(BLOCK)
    for block in range(start, stop, BLOCK):
        count = min(BLOCK, stop - block)
        for k in range(count):
            block_values[k] = values[block + k]
        for k in range(count):
            x = block_values[k]
            code = _prefix_code(table, edge_row, 0, x, crowded)
            out[block + k] = missing_code if x != x else code


@njit(cache=True)
def prefix_codes_serial(values, table, edge_row, crowded, missing_code, out):
    """:func:`bin_codes_serial` through a prefix table (:func:`fill_prefix_tables`;
    ``table`` and ``edge_row`` as rows of one)."""
    _prefix_range(values, table, edge_row, crowded, missing_code, out, 0, values.shape[0])


@njit(cache=True, parallel=PRANGE_ONLY)
def prefix_codes_parallel(values, table, edge_row, crowded, missing_code, out):
    """:func:`prefix_codes_serial` on numba's threads."""
    n = values.shape[0]
    for chunk in prange((n + CHUNK - 1) // CHUNK):
        start = chunk * CHUNK
        _prefix_range(values, table, edge_row, crowded, missing_code, out, start,
                      min(start + CHUNK, n))  # fmt: skip


@njit(cache=True, inline="always")
def _prefix_matrix_range(matrix, columns, tables, edge_rows, crowded, missing_codes, out, start,
                         stop):  # fmt: skip
    for block in range(start, stop, PREFIX_MATRIX_BLOCK):
        block_stop = min(block + PREFIX_MATRIX_BLOCK, stop)
        for t in range(columns.shape[0]):
            # Unsigned rows and column: numba adds a signed index's length where it is
            # negative, a few instructions at every read and write.
            j = np.uint64(columns[t])
            missing_code = missing_codes[t]
            column_crowded = crowded[t]
            for i in range(np.uint64(block), np.uint64(block_stop)):
                x = np.float64(matrix[i, j])
                code = _prefix_code(tables, edge_rows, t, x, column_crowded)
                out[i, j] = missing_code if x != x else code


@njit(cache=True)
def prefix_matrix_codes_serial(matrix, columns, tables, edge_rows, crowded, missing_codes, out):
    """:func:`bin_matrix_codes_serial` through prefix tables (:func:`fill_prefix_tables`):
    column ``j = columns[t]`` by ``tables[t]``, ``edge_rows[t]``, ``crowded[t]``."""
    _prefix_matrix_range(matrix, columns, tables, edge_rows, crowded, missing_codes, out, 0,
                         matrix.shape[0])  # fmt: skip


@njit(cache=True, parallel=PRANGE_ONLY)
def prefix_matrix_codes_parallel(matrix, columns, tables, edge_rows, crowded, missing_codes,
                                 out):  # fmt: skip
    """:func:`prefix_matrix_codes_serial` on numba's threads."""
    n = matrix.shape[0]
    for chunk in prange((n + CHUNK - 1) // CHUNK):
        start = chunk * CHUNK
        _prefix_matrix_range(matrix, columns, tables, edge_rows, crowded, missing_codes, out,
                             start, min(start + CHUNK, n))  # fmt: skip


@njit(cache=True, inline="always")
def _gather_matrix_range(matrix, positions, columns, out, start, stop):
    # A block of rows a column at a time (the block's rows of the matrix stay in
    # cache from one column to the next), unsigned indices (see _prefix_matrix_range):
    # 200,000 of 800,000 x 20 float32 rows, one thread, 11-12 ms a row at a time
    # (each row written to 20 rows of ``out``) -> 3.9 ms.
    # ``positions`` None: every row, in order (a version compiled without them).
    for block in range(start, stop, MATRIX_BLOCK):
        block_stop = min(block + MATRIX_BLOCK, stop)
        for t in range(columns.shape[0]):
            j = np.uint64(columns[t])
            target = out[np.uint64(t)]
            for i in range(np.uint64(block), np.uint64(block_stop)):
                row = i if positions is None else np.uint64(positions[i])
                target[i] = matrix[row, j]


@njit(cache=True)
def gather_matrix_rows_serial(matrix, positions, columns, out):
    """``out[t, i] = matrix[positions[i], columns[t]]``: several columns of a C-ordered
    ``matrix`` at the rows ``positions``, each row read once for all of them (a
    column at a time reads a cache line of the matrix per row and column)."""
    _gather_matrix_range(matrix, positions, columns, out, 0, positions.shape[0])


@njit(cache=True, parallel=PRANGE_ONLY)
def gather_matrix_rows_parallel(matrix, positions, columns, out):
    """:func:`gather_matrix_rows_serial` on numba's threads."""
    n = positions.shape[0]
    for chunk in prange((n + CHUNK - 1) // CHUNK):
        start = chunk * CHUNK
        _gather_matrix_range(matrix, positions, columns, out, start, min(start + CHUNK, n))


@njit(cache=True)
def copy_matrix_columns(matrix, columns, out):
    """``out[t] = matrix[:, columns[t]]``: several columns of a C-ordered ``matrix``
    copied into contiguous rows, each row of the matrix read once for all of them."""
    _gather_matrix_range(matrix, None, columns, out, 0, matrix.shape[0])


@njit(cache=True, parallel=PRANGE_ONLY)
def copy_matrix_columns_parallel(matrix, columns, out):
    """:func:`copy_matrix_columns` on numba's threads, a run of rows each."""
    n = matrix.shape[0]
    for chunk in prange((n + CHUNK - 1) // CHUNK):
        start = chunk * CHUNK
        _gather_matrix_range(matrix, None, columns, out, start, min(start + CHUNK, n))


@njit(cache=True, inline="always")
def _unseen_in_range(values, padded, depth, n_distinct, start, stop, found):
    """The distinct values of ``values[start:stop]`` (NaN aside) that are none of the
    ``n_distinct`` sorted values padded into ``padded``, into ``found`` (ascending;
    -0.0 as 0.0); returns how many, or ``found``'s length + 1 as soon as there are
    more than it holds."""
    table = padded.reshape((1, padded.shape[0]))
    base = np.empty(BLOCK, dtype=np.int64)
    block_values = np.empty(BLOCK)
    cap = found.shape[0]
    n_found = 0
    for block in range(start, stop, BLOCK):
        count = min(BLOCK, stop - block)
        _search_block(values, block, count, table, depth, base, block_values)
        for k in range(count):
            x = block_values[k]
            b = base[k]
            if x != x or (b < n_distinct and padded[b] == x):
                continue
            at = lower_bound(found[:n_found], x)
            if at < n_found and found[at] == x:
                continue
            if n_found == cap:
                return cap + 1
            for m in range(n_found, at, -1):
                found[m] = found[m - 1]
            found[at] = x + 0.0
            n_found += 1
    return n_found


@njit(cache=True, nogil=True)
def unseen_distinct_serial(values, padded, depth, n_distinct, found, n_found):
    """:func:`_unseen_in_range` of all of ``values`` into ``found[0]``, its count into
    ``n_found[0]`` (``found`` of one row)."""
    n_found[0] = _unseen_in_range(values, padded, depth, n_distinct, 0, values.shape[0], found[0])


@njit(cache=True, parallel=PRANGE_ONLY)
def unseen_distinct_parallel(values, padded, depth, n_distinct, found, n_found):
    """:func:`unseen_distinct_serial` on numba's threads: ``values`` cut into
    ``found.shape[0]`` chunks of :data:`CHUNK` values (the last one shorter), chunk
    ``c``'s unseen values into ``found[c]`` and their count into ``n_found[c]``."""
    n = values.shape[0]
    for chunk in prange(found.shape[0]):
        start = chunk * CHUNK
        n_found[chunk] = _unseen_in_range(
            values, padded, depth, n_distinct, start, min(start + CHUNK, n), found[chunk]
        )


@njit(cache=True, inline="always")
def lower_bound(sorted_values, x):
    """``np.searchsorted(sorted_values, x, side="left")`` for one number ``x``."""
    low = 0
    high = sorted_values.shape[0]
    while low < high:
        middle = (low + high) >> 1
        if sorted_values[middle] < x:
            low = middle + 1
        else:
            high = middle
    return low


@njit(cache=True)
def scan_nan_inf(matrix, has_nan, has_inf):
    """``has_nan[j]``/``has_inf[j]`` set when column ``j`` of a C-ordered 2D float array
    holds a NaN/an infinity.

    Passes over the matrix in memory order (a column of a C-ordered matrix is
    strided: looking at each column on its own would read the whole matrix once
    per column). The first adds ``x - x`` of every value into a sum per column,
    without a branch (the compiler vectorises it): ``x - x`` is 0.0 for a finite
    value and NaN for a NaN or an infinity, so a column's sum is NaN exactly when
    it holds either. Only when some column does, a second pass, also without a
    branch, counts each column's NaN and infinities. 800,000 x 20, an Intel Xeon:
    float32 4.3 ms without either and 9.8 ms with NaN in every column, against
    17.9 and 16.5 ms for the branching single pass this replaced; float64 8.3 and
    18.6 ms against 9.6 and 9.1 (the second pass reads the matrix again).
    """
    flags = np.zeros(matrix.shape[1])
    _add_differences(matrix, 0, matrix.shape[0], flags)
    _flag_nan_inf(matrix, flags, has_nan, has_inf)


@njit(cache=True, parallel=PRANGE_ONLY)
def scan_nan_inf_parallel(matrix, has_nan, has_inf):
    """:func:`scan_nan_inf` with the first pass over blocks of :data:`CHUNK` rows on
    numba's threads (800,000 x 20 float32 on two threads: 2.3 -> 1.24 ms); a column's
    sum is NaN exactly when one of its blocks' is, whatever the order."""
    n_rows, n_columns = matrix.shape
    n_chunks = (n_rows + CHUNK - 1) // CHUNK
    chunk_flags = np.zeros((n_chunks, n_columns))
    for chunk in prange(n_chunks):
        start = chunk * CHUNK
        _add_differences(matrix, start, min(start + CHUNK, n_rows), chunk_flags[chunk])
    flags = np.zeros(n_columns)
    for chunk in range(n_chunks):
        for j in range(n_columns):
            flags[j] += chunk_flags[chunk, j]
    _flag_nan_inf(matrix, flags, has_nan, has_inf)


@njit(cache=True, inline="always")
def _add_differences(matrix, start, stop, flags):
    """``flags[j] += x - x`` for every value ``x`` of rows ``start:stop``, column ``j``."""
    for i in range(start, stop):
        for j in range(matrix.shape[1]):
            x = np.float64(matrix[i, j])
            flags[j] += x - x


@njit(cache=True)
def _flag_nan_inf(matrix, flags, has_nan, has_inf):
    """The second pass of :func:`scan_nan_inf`, when some column's ``flags`` is NaN."""
    if not np.any(flags != flags):
        return
    n_rows, n_columns = matrix.shape
    n_nan = np.zeros(n_columns, dtype=np.int64)
    n_inf = np.zeros(n_columns, dtype=np.int64)
    for i in range(n_rows):
        for j in range(n_columns):
            x = matrix[i, j]
            n_nan[j] += np.int64(x != x)
            n_inf[j] += np.int64(np.abs(x) == np.inf)
    for j in range(n_columns):
        if n_nan[j]:
            has_nan[j] = True
        if n_inf[j]:
            has_inf[j] = True


@njit(cache=True)
def label_offsets(labels, low, n_offsets, out):
    """``out[i] = labels[i] - low`` (every label within ``low .. low + n_offsets - 1``);
    returns how many labels have each offset, in the same pass."""
    counts = np.zeros(n_offsets, dtype=np.int64)
    for i in range(labels.shape[0]):
        offset = np.int64(labels[i]) - low
        counts[offset] += 1
        out[i] = offset
    return counts


#: Bits of the sort key taken per radix pass (six passes cover 64 bits, three 32).
DIGIT_BITS = 11
N_DIGITS = 6
N_DIGITS_32 = 3


@njit(cache=True, nogil=True)
def radix_sort_keys(values, keys, index, keys_spare, index_spare):
    """Sort the known values of a float32 or float64 column (any layout).

    Each known value, as the bits of the float64 it converts to exactly, becomes
    an unsigned key that orders as the value does (the sign bit set on
    positives, every bit flipped on negatives; -0.0 first made 0.0, so the two
    are one key); NaN rows are left out. An LSD radix sort of
    ``DIGIT_BITS`` bits a pass orders the keys and carries each row's index
    with its key; a pass whose digit is the same for every key is skipped (a
    float32 column cast to float64 has 29 zero low bits). Several times faster
    than ``np.argsort``; :func:`radix_sort_float32_keys` sorts a float32 column
    in fewer, narrower passes.

    Returns ``(n_known, spare)``: the sorted keys and row indices are
    ``keys[:n_known]``/``index[:n_known]``, or the spare arrays when ``spare``.
    """
    sign = np.uint64(1) << np.uint64(63)
    infinity = np.uint64(0x7FF0000000000000)
    counts = np.zeros((N_DIGITS, 1 << DIGIT_BITS), dtype=np.int64)
    n_known = np.int64(0)  # (np.int64: a literal 0 would compile _radix_passes again)
    for i in range(values.shape[0]):
        b = np.float64(values[i]).view(np.uint64)
        n_known = _add_key(b, sign, infinity, i, keys, index, n_known, counts)
    spare = _radix_passes(keys, index, keys_spare, index_spare, n_known, counts)
    return n_known, spare


@njit(cache=True, inline="always")
def _add_key(b, sign, infinity, i, keys, index, n_known, counts):
    """Row ``i``'s key from the bits ``b`` of its value (``sign``: the sign bit of
    their width, ``infinity``: the bits of +inf) appended at ``n_known``, its
    digits counted; NaN is left out. Returns the new ``n_known``."""
    if (b & ~sign) > infinity:  # NaN
        return n_known
    if b == sign:  # -0.0
        b = b ^ sign
    keys[n_known] = ~b if b & sign else b | sign
    key = keys[n_known]  # (read back: of the keys' width, where numba widened ``~b``)
    index[n_known] = i
    for d in range(counts.shape[0]):
        counts[
            d, (np.uint64(key) >> np.uint64(d * DIGIT_BITS)) & np.uint64((1 << DIGIT_BITS) - 1)
        ] += 1
    return n_known + 1


@njit(cache=True, nogil=True)
def radix_sort_float32_keys(values, keys, index, keys_spare, index_spare):
    """:func:`radix_sort_keys` of a float32 column with 32-bit keys, made from the
    float32's own bits in the same way: three passes of 8 bytes a row (key and
    index) instead of four of 12 (800,000 random values: 12 ns a value against
    19). The keys order the values as the float64 keys do; equal values keep
    their rows' order, so :func:`widen_float32_keys` of the result is
    :func:`radix_sort_keys`' result, row for row."""
    sign = np.uint32(0x80000000)
    infinity = np.uint32(0x7F800000)
    counts = np.zeros((N_DIGITS_32, 1 << DIGIT_BITS), dtype=np.int64)
    n_known = np.int64(0)  # (as in radix_sort_keys)
    for i in range(values.shape[0]):
        b = np.float32(values[i]).view(np.uint32)
        n_known = _add_key(b, sign, infinity, i, keys, index, n_known, counts)
    spare = _radix_passes(keys, index, keys_spare, index_spare, n_known, counts)
    return n_known, spare


@njit(cache=True, nogil=True)
def _radix_passes(keys, index, keys_spare, index_spare, n_known, counts):
    """The LSD passes of the radix sorts: ``counts[d]`` is the histogram of digit
    ``d`` of the first ``n_known`` keys (turned into write positions here); keys
    and indices go back and forth between the two pairs of arrays. Returns
    whether they end in the spare pair."""
    digit_mask = np.uint64((1 << DIGIT_BITS) - 1)
    source_keys, source_index = keys, index
    target_keys, target_index = keys_spare, index_spare
    spare = False
    for d in range(counts.shape[0]):
        if n_known == 0:
            break
        shift = np.uint64(d * DIGIT_BITS)
        if counts[d, (np.uint64(source_keys[0]) >> shift) & digit_mask] == n_known:
            continue
        start = 0
        for r in range(1 << DIGIT_BITS):
            count = counts[d, r]
            counts[d, r] = start
            start += count
        for i in range(n_known):
            key = source_keys[i]
            r = (np.uint64(key) >> shift) & digit_mask
            position = counts[d, r]
            target_keys[position] = key
            target_index[position] = source_index[i]
            counts[d, r] = position + 1
        source_keys, target_keys = target_keys, source_keys
        source_index, target_index = target_index, source_index
        spare = not spare
    return spare


@njit(cache=True, nogil=True)
def widen_float32_keys(keys, out):
    """``out[i]``: the :func:`radix_sort_keys` key (of the float64 value) of the
    value whose :func:`radix_sort_float32_keys` key is ``keys[i]``."""
    sign32 = np.uint32(0x80000000)
    sign = np.uint64(1) << np.uint64(63)
    for i in range(keys.shape[0]):
        key = keys[i]
        bits = np.uint32(key ^ sign32) if key & sign32 else np.uint32(~key)
        b = np.float64(np.uint32(bits).view(np.float32)).view(np.uint64)
        out[i] = ~b if b & sign else b | sign


@njit(cache=True, nogil=True)
def count_key_runs(sorted_keys):
    """Distinct keys of an ascending array."""
    runs = 0
    for i in range(sorted_keys.shape[0]):
        if i == 0 or sorted_keys[i] != sorted_keys[i - 1]:
            runs += 1
    return runs


@njit(cache=True, nogil=True)
def write_key_ranks(sorted_keys, sorted_index, distinct_bits, out, rows_in_order, codes_in_order):
    """Exact codes: ``out[sorted_index[i]]`` is the rank of ``sorted_keys[i]`` among the
    distinct keys; ``distinct_bits`` receives each distinct key turned back into the
    bits of its float64 value (missing rows are the caller's).

    Unless ``rows_in_order`` is empty, the known rows in code order are written
    beside: ``rows_in_order[i]`` is ``sorted_index[i]`` and ``codes_in_order[i]`` its
    rank, in sequence (the same codes gathered from ``out`` afterwards would be read
    at random: 3.8 ms a column of 800,000 rows)."""
    sign = np.uint64(1) << np.uint64(63)
    in_order = rows_in_order.shape[0] > 0
    rank = -1
    for i in range(sorted_keys.shape[0]):
        key = sorted_keys[i]
        if i == 0 or key != sorted_keys[i - 1]:
            rank += 1
            distinct_bits[rank] = key ^ sign if key & sign else ~key
        row = sorted_index[i]
        out[row] = rank
        if in_order:
            rows_in_order[i] = row
            codes_in_order[i] = rank


@njit(cache=True, nogil=True)
def write_code_values(values, codes, out):
    """``out[c]``: the value of the rows of exact code ``c`` (as the float64 it converts
    to, -0.0 as 0.0, as :func:`write_key_ranks` gives it), for ``c < out.shape[0]``;
    rows of the missing code are skipped. Every code below ``out.shape[0]`` must occur."""
    n_distinct = out.shape[0]
    for i in range(values.shape[0]):
        code = np.int64(codes[i])
        if code < n_distinct:
            out[code] = np.float64(values[i]) + 0.0  # -0.0 + 0.0 is 0.0


@njit(cache=True, nogil=True)
def distinct_at_most(ascending, limit):
    """How many distinct values the ascending float array ``ascending`` (no NaN)
    holds, counted up to ``limit`` (then ``limit``: a long column is not read
    further); -0.0 and 0.0 are one value."""
    n_runs = 0
    for i in range(ascending.shape[0]):
        if n_runs == limit:
            break
        if i == 0 or ascending[i] != ascending[i - 1]:
            n_runs += 1
    return n_runs


@njit(cache=True, nogil=True, inline="always")
def midpoint_quantiles_at(values, previous, following, gamma, out):
    """``out[k]``: numpy's two-sided linear interpolation between ``values[previous[k]]``
    and ``values[following[k]]`` (as float64, -0.0 as 0.0) with the weight ``gamma[k]``
    of the upper one (numpy 1.22+'s arithmetic)."""
    for k in range(previous.shape[0]):
        low = np.float64(values[previous[k]]) + 0.0  # -0.0 + 0.0 is 0.0
        high = np.float64(values[following[k]]) + 0.0
        difference = high - low
        if gamma[k] >= 0.5:
            out[k] = high - difference * (1.0 - gamma[k])
        else:
            out[k] = low + difference * gamma[k]


@njit(cache=True, nogil=True, inline="always")
def quantile_edges_in_place(quantiles, ascending):
    """The bin edges from ``quantiles`` of the sorted values ``ascending`` (float32 or
    float64, no NaN: a column's values or its distinct values), written over the
    first entries of ``quantiles``; returns how many. The quantiles are sorted,
    repeated ones merged (``np.unique``), those not below the largest value dropped
    (they would leave the last bin empty), and an edge kept only where more values
    are at most it than at most the edge before (two edges in one gap between values
    leave a bin empty; ``np.searchsorted`` compares a float32 array with the float64
    edges as float64, as numpy's does)."""
    quantiles.sort()
    largest = np.float64(ascending[ascending.shape[0] - 1])
    n_edges = 0
    at_most_before = 0
    for k in range(quantiles.shape[0]):
        edge = quantiles[k]
        if k > 0 and edge == quantiles[k - 1]:
            continue
        if not edge < largest:
            break  # (and every edge after it)
        at_most = np.searchsorted(ascending, edge, side="right")
        if at_most > at_most_before:
            quantiles[n_edges] = edge
            n_edges += 1
        at_most_before = at_most
    return n_edges


@njit(cache=True, nogil=True)
def sorted_quantile_edges(ascending, previous, following, gamma, out):
    """The bin edges of a column from its sorted values ``ascending`` (float32 or
    float64, no NaN, more distinct values than bins) in one call: the quantiles at
    the ranks ``previous``, ``following`` with weights ``gamma``
    (:func:`midpoint_quantiles_at`), then the edges from them
    (:func:`quantile_edges_in_place`), into the first entries of ``out`` (room for
    ``previous.shape[0]``); returns how many. (At 200,000 float32 values, numpy's
    search of the edges converted the whole column to float64 first.)"""
    midpoint_quantiles_at(ascending, previous, following, gamma, out)
    return quantile_edges_in_place(out, ascending)


@njit(cache=True, nogil=True)
def value_runs(ascending, distinct, counts):
    """Distinct values of an ascending float32 or float64 array (as float64, -0.0 as
    0.0), into ``distinct``, and how often each occurs into ``counts``; returns how
    many. A NaN (``np.sort`` puts them last) ends the values."""
    n_runs = 0
    previous = 0.0
    for i in range(ascending.shape[0]):
        x = np.float64(ascending[i]) + 0.0  # -0.0 + 0.0 is 0.0
        if x != x:
            break
        if n_runs == 0 or x != previous:
            distinct[n_runs] = x
            counts[n_runs] = 0
            n_runs += 1
            previous = x
        counts[n_runs - 1] += 1
    return n_runs


#: The dtypes the kernels read as they are; any other column is read as float64.
KERNEL_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def as_kernel_floats(values):
    """``values`` as an array the kernels read: a float32 or float64 array as it is
    (no copy, whatever its strides), any other numbers converted to float64.

    float32 and float64 values convert to float64 exactly, so a kernel gives
    the same result on the column as on its float64 copy.
    """
    values = np.asarray(values)
    if values.dtype in KERNEL_FLOAT_DTYPES:
        return values
    return np.asarray(values, dtype=np.float64)


def radix_sort(values):
    """Sorted keys and rows of the known values of ``values`` (numbers; NaN: missing).

    :func:`radix_sort_keys` with its buffers (:func:`radix_sort_float32_keys` for
    a float32 column, its keys then widened: the same keys and rows): returns
    ``(keys, rows)``, the keys ascending and ``rows[i]`` the row of ``keys[i]``.
    A float32 or float64 column is read where it is (:func:`as_kernel_floats`).
    """
    values = as_kernel_floats(values)
    n = values.shape[0]
    row_dtype = np.uint32 if n < 2**32 else np.int64
    key_dtype = np.uint32 if values.dtype == np.float32 else np.uint64
    keys = np.empty(n, dtype=key_dtype)
    rows = np.empty(n, dtype=row_dtype)
    spare_keys = np.empty(n, dtype=key_dtype)
    spare_rows = np.empty(n, dtype=row_dtype)
    sort = radix_sort_float32_keys if key_dtype == np.uint32 else radix_sort_keys
    n_known, spare = sort(values, keys, rows, spare_keys, spare_rows)
    if spare:
        keys, rows = spare_keys, spare_rows
    del spare_keys, spare_rows
    if key_dtype == np.uint32:
        narrow, keys = keys, np.empty(n_known, dtype=np.uint64)
        widen_float32_keys(narrow[:n_known], keys)
    return keys[:n_known], rows[:n_known]
