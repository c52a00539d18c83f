"""Validating the target ``y`` and the row weights."""

import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import check_classification_targets

from treelearn.data.schema import describe_rows
from treelearn.exceptions import DataError, TargetError


def _as_1d(y, n_rows):
    categories = None
    if isinstance(y, pd.DataFrame):
        if y.shape[1] != 1:
            raise TargetError(
                f"y has {y.shape[1]} columns; treelearn trees predict one target column."
            )
        y = y.iloc[:, 0]
    if isinstance(y, pd.Series) and isinstance(y.dtype, pd.CategoricalDtype):
        categories = list(y.cat.categories)
    array = np.asarray(y)
    if array.ndim == 2 and array.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it is raveled "
            "(use y.ravel() to avoid this warning).",
            DataConversionWarning,
            stacklevel=3,
        )
        array = array.ravel()
    if array.ndim != 1:
        raise TargetError(
            f"y must be one-dimensional (n_samples,), got shape {array.shape}; "
            "treelearn trees predict one target column."
        )
    if array.shape[0] != n_rows:
        raise DataError(
            f"X has {n_rows} rows but y has {array.shape[0]}; they must have the same length."
        )
    return array, categories


def _check_no_missing(array):
    missing = np.asarray(pd.isna(array), dtype=bool)
    if missing.any():
        raise TargetError(
            f"y has missing values (NaN/None) at rows {describe_rows(np.flatnonzero(missing))}; "
            "drop those rows or fill in their target."
        )


def encode_class_target(y, n_rows):
    """Class labels and the index of each row's class.

    Classes are sorted, except for a pandas ``category`` target, whose declared
    category order is kept (categories that do not occur are left out).

    Returns
    -------
    classes : ndarray
    y_index : ndarray of int64
    """
    array, categories = _as_1d(y, n_rows)
    _check_no_missing(array)
    check_classification_targets(array)
    if categories is not None:
        present = set(pd.unique(array).tolist())
        classes = np.array([c for c in categories if c in present], dtype=array.dtype)
        lookup = {c: i for i, c in enumerate(classes.tolist())}
        y_index = np.array([lookup[v] for v in array.tolist()], dtype=np.int64)
        return classes, y_index
    classes, y_index = np.unique(array, return_inverse=True)
    return classes, y_index.astype(np.int64)


def validate_regression_target(y, n_rows):
    """``y`` as float64, with a clear error for non-numeric, missing or infinite values."""
    array, _ = _as_1d(y, n_rows)
    if array.dtype.kind not in "biuf":
        try:
            array = np.asarray(array, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TargetError(
                f"A regression target must be numeric, got values of dtype {array.dtype} "
                f"({exc}); use a classifier for class labels."
            ) from exc
    array = array.astype(np.float64)
    _check_no_missing(array)
    infinite = np.isinf(array)
    if infinite.any():
        raise TargetError(
            f"y has infinite values at rows {describe_rows(np.flatnonzero(infinite))}; "
            "a regression target must be finite."
        )
    return array


def validate_sample_weight(sample_weight, n_rows):
    """Row weights as float64: ones when None; finite, non-negative, not all zero."""
    if sample_weight is None:
        return np.ones(n_rows)
    weight = np.asarray(sample_weight, dtype=np.float64)
    if weight.ndim == 0:
        return np.full(n_rows, float(weight))
    if weight.shape != (n_rows,):
        raise DataError(
            f"sample_weight has shape {weight.shape}, expected ({n_rows},): one weight per row."
        )
    bad = ~np.isfinite(weight) | (weight < 0)
    if bad.any():
        raise DataError(
            f"sample_weight must be finite and non-negative; rows "
            f"{describe_rows(np.flatnonzero(bad))} are not."
        )
    if weight.sum() <= 0:
        raise DataError("sample_weight sums to 0; at least one row needs a positive weight.")
    return weight
