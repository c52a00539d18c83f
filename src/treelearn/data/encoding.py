"""Turning raw columns into integer codes (fit) and into the prediction matrix.

Exact numeric codes
    A numeric value's code is the rank of the value among the column's distinct
    known training values, so codes keep the order of values; a split between
    codes ``k`` and ``k+1`` maps back to a threshold between the two
    neighbouring values (:func:`numeric_threshold`). The column is sorted once
    by a radix sort of its bits (:mod:`treelearn.data._kernels`), and the ranks
    are written straight into the code matrix's column (and, where asked, the
    rows in code order and their codes beside, in sequence: the growers' presorted
    rows). The sorted distinct values need not be kept beside the codes:
    :func:`read_code_values` reads them back from the column and its codes in one
    pass.

Nominal codes
    A category's code is its index in the column's ordered category list. A
    column read as integer codes (pandas ``category`` and string columns) maps
    them through a table of one entry per distinct value; any other column is
    factorized first, so each distinct value is looked up once, not each row.

Missing values
    In a column with ``n`` known codes a missing value has code ``n``
    (:mod:`treelearn._dtypes`). At prediction a category never seen in
    training is treated as a missing value.
"""

from typing import NamedTuple

import numpy as np
import pandas as pd

from treelearn._dtypes import FLOAT_DTYPE, code_dtype_for, row_index_dtype
from treelearn.data import _kernels
from treelearn.data.schema import NOMINAL


class SortedColumn(NamedTuple):
    """A numeric column in sorted order (:func:`sort_numeric`)."""

    #: The sorted keys of the known values (:func:`treelearn.data._kernels.radix_sort_keys`).
    keys: np.ndarray
    #: The row of each key.
    rows: np.ndarray
    #: Which rows are missing.
    missing: np.ndarray
    #: Distinct known values: the missing code.
    n_distinct: int


def sort_numeric(column):
    """A numeric column's sorted order, ahead of :func:`write_exact_codes`.

    The values are sorted once (a radix sort of their bits), and their distinct
    values counted, so the code matrix can be made wide enough before the
    codes are written.
    """
    keys, rows = _kernels.radix_sort(column.values)
    return SortedColumn(keys, rows, column.missing, int(_kernels.count_key_runs(keys)))


def write_exact_codes(sorted_column, out, in_code_order=None):
    """Exact codes of a column sorted by :func:`sort_numeric` into ``out``; returns its
    sorted distinct known values (``np.unique`` of them, -0.0 read as 0.0).

    ``out`` is any unsigned integer array that holds ``n_distinct`` (the missing code).
    ``in_code_order``, if given, is two arrays of a row each, ``(rows, codes)``, that
    receive every row in code order and its code: the known rows by value (equal
    values in row order: the radix sort is stable, -0.0 and 0.0 one key), then the
    missing rows in row order, as a stable sort of the codes would order them.
    """
    keys, rows, missing, n_distinct = sorted_column
    if n_distinct > np.iinfo(out.dtype).max:
        raise ValueError(f"codes up to {n_distinct} do not fit in {out.dtype}")
    distinct = np.empty(n_distinct, dtype=np.uint64)
    if in_code_order is None:
        rows_in_order = codes_in_order = np.empty(0, dtype=row_index_dtype(rows.shape[0]))
    else:
        rows_in_order, codes_in_order = in_code_order
    _kernels.write_key_ranks(keys, rows, distinct, out, rows_in_order, codes_in_order)
    out[missing] = n_distinct
    if in_code_order is not None:
        n_known = rows.shape[0]
        rows_in_order[n_known:] = np.flatnonzero(missing)
        codes_in_order[n_known:] = n_distinct
    return distinct.view(FLOAT_DTYPE)


def read_code_values(values, codes, n_distinct):
    """The sorted distinct known values of an exact-coded numeric column, read back from
    the column's values and its codes: ``out[c]`` is the value of the rows of code
    ``c``; the same array :func:`write_exact_codes` returned (float64, -0.0 read as 0.0).

    Parameters
    ----------
    values : ndarray
        The column's numbers as encoded (:attr:`~treelearn.data.schema.RawColumn.values`),
        in their own dtype and layout.
    codes : ndarray of unsigned int
        Its exact codes; ``n_distinct`` for a missing row.
    n_distinct : int
        Number of known codes.
    """
    out = np.empty(n_distinct, dtype=FLOAT_DTYPE)
    _kernels.write_code_values(_kernels.as_kernel_floats(values), codes, out)
    return out


def encode_numeric_exact(column):
    """Codes of a numeric column and its sorted distinct known values.

    Returns
    -------
    codes : ndarray of the narrowest unsigned dtype
        Rank of each value among the distinct values; missing rows get
        ``len(values)``.
    values : ndarray of float64
        The sorted distinct known values (``np.unique`` of the known values).
    """
    sorted_column = sort_numeric(column)
    n_rows = sorted_column.missing.shape[0]
    codes = np.empty(n_rows, dtype=code_dtype_for(sorted_column.n_distinct))
    values = write_exact_codes(sorted_column, codes)
    return codes, values


#: Up to this many distinct values a dict maps them to categories; beyond, a pandas Index.
_DICT_LOOKUP_MAX = 4096


def _object_index(values):
    array = np.empty(len(values), dtype=object)
    for k, value in enumerate(values):
        array[k] = value
    return pd.Index(array, dtype=object)


def category_lookup(categories, levels):
    """Index of each of ``levels`` in ``categories``; ``len(categories)`` where absent.

    Both are small next to the column (one entry per distinct value), so this
    hashes each distinct value once, however many rows hold it. Values match
    as in a dict (and a pandas ``Index``): equal values with equal hashes.
    """
    n = len(categories)
    if levels is categories:
        return np.arange(n, dtype=np.int64)
    if len(levels) <= _DICT_LOOKUP_MAX:
        position = {category: k for k, category in enumerate(categories)}
        return np.array([position.get(level, n) for level in levels], dtype=np.int64)
    lookup = _object_index(categories).get_indexer(_object_index(levels))
    lookup[lookup < 0] = n
    return lookup


def nominal_codes(column, categories, out):
    """Codes of a nominal column into ``out``: the index of each value in ``categories``;
    missing values and values not among ``categories`` get ``len(categories)``.

    A column read from a dictionary-encoded input (a pandas ``category`` or
    string column, see :class:`~treelearn.data.schema.RawColumn`) maps its
    integer codes; any other column is factorized first (one hash of each
    row's value, then one lookup per distinct value).
    """
    n = len(categories)
    if n > np.iinfo(out.dtype).max:
        raise ValueError(f"codes up to {n} do not fit in {out.dtype}")
    if column.level_codes is not None:
        level_codes, levels = column.level_codes, column.levels
    else:
        level_codes, levels = pd.factorize(column.values, use_na_sentinel=True)
    # The trailing entry is where a missing value's -1 wraps to.
    lookup = np.append(category_lookup(categories, levels), n).astype(out.dtype)
    np.take(lookup, level_codes, out=out, mode="wrap")
    return out


def midpoint_thresholds(low, high):
    """Thresholds between values ``low`` and the next values ``high`` (numbers or
    arrays of them, ``low < high``): the midpoint, ``low / 2 + high / 2``; where it
    rounds up to ``high`` (adjacent floats) ``low``, so that ``x <= threshold`` keeps
    separating the two (scikit-learn does the same). The one rule of every threshold
    between two values (:func:`numeric_threshold`, ``Dataset.thresholds``, the bin
    edges of a column of few values; in the numba loop,
    :func:`treelearn.growing._node_tables.threshold_of`)."""
    cut = np.asarray(low) / 2.0 + np.asarray(high) / 2.0
    return np.where((cut == high) | ~np.isfinite(cut), low, cut)


def numeric_threshold(values, left_code, right_code):
    """Threshold between the neighbouring known values of two codes:
    :func:`midpoint_thresholds` of ``values[left_code]`` and ``values[right_code]``."""
    return float(midpoint_thresholds(values[left_code], values[right_code]))


def prediction_matrix(columns, schema):
    """The float matrix the prediction kernels read.

    Numeric columns are passed as they are (NaN = missing); nominal columns
    carry their category code as a float, and NaN for a missing value or a
    category never seen in training.
    """
    n_rows = columns[0].values.shape[0] if columns else 0
    matrix = np.empty((n_rows, len(columns)), dtype=FLOAT_DTYPE)
    for j, (column, kind) in enumerate(zip(columns, schema.kinds, strict=True)):
        if kind == NOMINAL:
            categories = schema.categories[j]
            codes = nominal_codes(column, categories, np.empty(n_rows, dtype=np.intp))
            matrix[:, j] = codes
            matrix[codes == len(categories), j] = np.nan
        else:
            matrix[:, j] = column.values
    return matrix
