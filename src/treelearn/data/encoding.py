"""Turning raw columns into integer codes (fit) and into the prediction matrix.

Exact numeric codes
    A numeric value's code is the rank of the value among the column's distinct
    known training values, so codes keep the order of values; a split between
    codes ``k`` and ``k+1`` maps back to a threshold between the two
    neighbouring values (:func:`numeric_threshold`).

Nominal codes
    A category's code is its index in the column's ordered category list.

Missing values
    In a column with ``n`` known codes a missing value has code ``n``
    (:mod:`treelearn._dtypes`). At prediction a category never seen in
    training is treated as a missing value.
"""

import numpy as np
import pandas as pd

from treelearn._dtypes import FLOAT_DTYPE
from treelearn.data.schema import NOMINAL


def encode_numeric_exact(column):
    """Codes of a numeric column and its sorted distinct known values.

    Returns
    -------
    codes : ndarray of int64
        Rank of each value among the distinct values; missing rows get
        ``len(values)``.
    values : ndarray of float64
        The sorted distinct known values.
    """
    known = ~column.missing
    values, inverse = np.unique(column.values[known], return_inverse=True)
    codes = np.full(column.values.shape[0], values.shape[0], dtype=np.int64)
    codes[known] = inverse
    return codes, values


def encode_nominal(values, categories):
    """Index of each value in ``categories``; missing or unknown values get ``len(categories)``."""
    codes = pd.Index(list(categories), dtype=object).get_indexer(values).astype(np.int64)
    codes[codes < 0] = len(categories)
    return codes


def numeric_threshold(values, left_code, right_code):
    """Threshold between the neighbouring known values of two codes.

    The midpoint of ``values[left_code]`` and ``values[right_code]``; when the
    midpoint rounds up to the right value (adjacent floats) the left value is
    used, so that ``x <= threshold`` keeps separating the two (scikit-learn
    does the same).
    """
    low = values[left_code]
    high = values[right_code]
    threshold = low / 2.0 + high / 2.0
    if threshold == high or not np.isfinite(threshold):
        threshold = low
    return float(threshold)


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
            codes = encode_nominal(column.values, categories).astype(FLOAT_DTYPE)
            codes[codes == len(categories)] = np.nan
            matrix[:, j] = codes
        else:
            matrix[:, j] = column.values
    return matrix
