"""The training data as the engine sees it: a matrix of codes plus what maps them back."""

from dataclasses import dataclass

import numpy as np

from treelearn._dtypes import code_dtype_for
from treelearn.data.binning import encode_numeric_binned
from treelearn.data.encoding import encode_nominal, encode_numeric_exact, numeric_threshold
from treelearn.data.schema import (
    NOMINAL,
    FeatureSchema,
    check_not_empty,
    infer_schema,
    read_table,
)

#: How far above the midpoint a training value may lie and still be C4.5's threshold.
DATA_THRESHOLD_TOLERANCE = 1e-6


@dataclass(frozen=True)
class Dataset:
    """Encoded training features.

    Attributes
    ----------
    codes : ndarray of shape (n_samples, n_features), Fortran order
        Codes in the narrowest unsigned dtype (see :mod:`treelearn._dtypes`).
    n_codes : ndarray of int64, shape (n_features,)
        Number of known codes per feature; the missing code is ``n_codes[f]``.
    is_nominal : ndarray of bool, shape (n_features,)
    numeric_values : tuple
        Per feature, the sorted distinct training values (numeric, exact
        codes) or None.
    bin_edges : tuple
        Per feature, the bin edges (numeric, histogram mode: see
        :mod:`treelearn.data.binning`) or None.
    schema : FeatureSchema
    """

    codes: np.ndarray
    n_codes: np.ndarray
    is_nominal: np.ndarray
    numeric_values: tuple
    schema: FeatureSchema
    bin_edges: tuple = ()

    @property
    def n_samples(self):
        return self.codes.shape[0]

    @property
    def n_features(self):
        return self.codes.shape[1]

    def threshold(self, feature, left_code, right_code):
        """The ``x <= threshold`` value of a split between two codes of a numeric feature.

        Exact codes: between the two neighbouring training values
        (:func:`~treelearn.data.encoding.numeric_threshold`); bins: the upper
        edge of the left bin.
        """
        if self.bin_edges and self.bin_edges[feature] is not None:
            return float(self.bin_edges[feature][left_code])
        return numeric_threshold(self.numeric_values[feature], left_code, right_code)

    def data_threshold(self, feature, left_code, right_code):
        """The largest training value not above :meth:`threshold` (C4.5 Release 8).

        C4.5 moves a cut from the midpoint down to a value seen in training
        (anywhere in the training data, not only at the node), so the tree's
        thresholds are values of the data. Rows at the node go the same way
        either way. Bins: the bin edge, as :meth:`threshold`.
        """
        cut = self.threshold(feature, left_code, right_code)
        values = self.numeric_values[feature]
        if values is None:
            return cut
        # A value within DATA_THRESHOLD_TOLERANCE above the midpoint counts as below it:
        # the midpoint's rounding must not move the threshold off a value (J48 does the same).
        index = int(np.searchsorted(values, cut + DATA_THRESHOLD_TOLERANCE, side="right")) - 1
        return float(values[min(max(index, left_code), right_code - 1)])


def build_dataset(X, categorical_features=None, max_bins=None):
    """Read, validate and encode ``X`` (exact codes, or bins when ``max_bins`` is set).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    categorical_features : see :func:`treelearn.data.schema.read_table`

    Returns
    -------
    Dataset
    """
    return encode_table(read_table(X, categorical_features), max_bins)


def encode_table(table, max_bins=None):
    """Validate and encode a :class:`~treelearn.data.schema.RawTable`.

    Numeric columns get exact codes, or, with ``max_bins``, at most that many
    quantile bins (:mod:`treelearn.data.binning`).

    Raises
    ------
    DataError
        If the table has no row or no column, a numeric column holds an
        infinite value, or a column has no known value.
    """
    check_not_empty(table)
    columns = table.columns
    schema = infer_schema(columns, table.from_frame)
    code_columns = []
    numeric_values = []
    bin_edges = []
    n_codes = np.empty(len(columns), dtype=np.int64)
    for j, column in enumerate(columns):
        values = edges = None
        if schema.kinds[j] == NOMINAL:
            codes = encode_nominal(column.values, schema.categories[j])
            n_codes[j] = len(schema.categories[j])
        elif max_bins is None:
            codes, values = encode_numeric_exact(column)
            n_codes[j] = values.shape[0]
        else:
            codes, edges = encode_numeric_binned(column, max_bins)
            n_codes[j] = edges.shape[0] + 1
        code_columns.append(codes)
        numeric_values.append(values)
        bin_edges.append(edges)
    dtype = code_dtype_for(int(n_codes.max()))
    matrix = np.empty((table.n_rows, len(columns)), dtype=dtype, order="F")
    for j, codes in enumerate(code_columns):
        matrix[:, j] = codes
    return Dataset(
        codes=matrix,
        n_codes=n_codes,
        is_nominal=schema.is_nominal,
        numeric_values=tuple(numeric_values),
        schema=schema,
        bin_edges=tuple(bin_edges),
    )
