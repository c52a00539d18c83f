"""The training data as the engine sees it: a matrix of codes plus what maps them back."""

from dataclasses import dataclass

import numpy as np

from treelearn._dtypes import code_dtype_for
from treelearn.data.encoding import encode_nominal, encode_numeric_exact
from treelearn.data.schema import (
    NOMINAL,
    FeatureSchema,
    check_not_empty,
    infer_schema,
    read_table,
)


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
        Per feature, the sorted distinct training values (numeric) or None.
    schema : FeatureSchema
    """

    codes: np.ndarray
    n_codes: np.ndarray
    is_nominal: np.ndarray
    numeric_values: tuple
    schema: FeatureSchema

    @property
    def n_samples(self):
        return self.codes.shape[0]

    @property
    def n_features(self):
        return self.codes.shape[1]

    @property
    def has_missing(self):
        """Per feature, whether any training row is missing."""
        return np.array(
            [(self.codes[:, f] == self.n_codes[f]).any() for f in range(self.n_features)]
        )


def build_dataset(X, categorical_features=None):
    """Read, validate and encode ``X`` (exact codes).

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    categorical_features : see :func:`treelearn.data.schema.read_table`

    Returns
    -------
    Dataset
    """
    return encode_table(read_table(X, categorical_features))


def encode_table(table):
    """Validate and encode a :class:`~treelearn.data.schema.RawTable` (exact codes).

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
    n_codes = np.empty(len(columns), dtype=np.int64)
    for j, column in enumerate(columns):
        if schema.kinds[j] == NOMINAL:
            codes = encode_nominal(column.values, schema.categories[j])
            values = None
            n_codes[j] = len(schema.categories[j])
        else:
            codes, values = encode_numeric_exact(column)
            n_codes[j] = values.shape[0]
        code_columns.append(codes)
        numeric_values.append(values)
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
    )
