"""Reading the columns of ``X`` and deciding each column's kind.

Any input becomes a list of :class:`RawColumn` (name, kind, values as a numpy
array, categories where the input declares them). DataFrames of every library
narwhals supports (pandas, polars, pyarrow, ...) are read through narwhals, so
there is no hand-written converter per library.

Kinds
    ``nominal``: pandas ``category``, polars ``Enum``/``Categorical``, string,
    ``object`` and ``bool`` columns; numpy columns named in
    ``categorical_features``; numpy ``object`` columns whose values are not
    numbers. ``numeric``: every other numeric column.

Categories
    A declared category list (pandas ``category``, polars ``Enum``) is kept in
    its declared order; ``bool`` columns are ``[False, True]``; other nominal
    columns use their distinct non-missing training values, sorted.

Missing values
    ``NaN``, ``None``, ``pd.NA`` and ``NaT`` are missing in every kind of column.
"""

from dataclasses import dataclass

import narwhals.stable.v2 as nw
import numpy as np
import pandas as pd

from treelearn.exceptions import DataError, ParameterError, SchemaMismatchError

NOMINAL = "nominal"
NUMERIC = "numeric"
_MAX_LISTED = 10


@dataclass(frozen=True)
class RawColumn:
    """One input column before encoding.

    Attributes
    ----------
    name : str
        Column name (``"x0"``, ``"x1"``, ... for arrays without names).
    kind : {"nominal", "numeric"}
    values : ndarray
        ``float64`` for numeric columns (missing is NaN), ``object`` for nominal ones.
    missing : ndarray of bool
        Which rows are missing.
    categories : tuple or None
        Category list declared by the input's dtype, else None.
    """

    name: str
    kind: str
    values: np.ndarray
    missing: np.ndarray
    categories: tuple | None = None


@dataclass(frozen=True)
class FeatureSchema:
    """What a fitted model knows about its input columns.

    Attributes
    ----------
    names : tuple of str
    kinds : tuple of {"nominal", "numeric"}
    categories : tuple
        Per column, the ordered tuple of categories (nominal) or None (numeric).
    from_frame : bool
        True when the names came from a DataFrame; predict then matches columns
        by name.
    """

    names: tuple
    kinds: tuple
    categories: tuple
    from_frame: bool

    @property
    def n_features(self):
        return len(self.names)

    @property
    def is_nominal(self):
        """Boolean mask of the nominal columns."""
        return np.array([kind == NOMINAL for kind in self.kinds], dtype=bool)


def describe_rows(rows):
    """``[3, 8, 12]`` or ``[3, 8, ... (25 rows)]``: row numbers for an error message."""
    rows = [int(r) for r in rows]
    if len(rows) <= _MAX_LISTED:
        return str(rows)
    shown = ", ".join(str(r) for r in rows[:_MAX_LISTED])
    return f"[{shown}, ... ({len(rows)} rows)]"


def _describe_names(names):
    return ", ".join(repr(n) for n in names)


def is_dataframe(X):
    """True for any DataFrame narwhals can read (pandas, polars, pyarrow, ...)."""
    return nw.dependencies.is_into_dataframe(X)


def read_columns(X, categorical_features=None):
    """Split ``X`` into :class:`RawColumn` objects, one per column.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or DataFrame
    categorical_features : None, sequence of str or int, or boolean mask
        Columns to treat as nominal whatever their dtype (names, indices or a
        mask of length n_features).

    Returns
    -------
    columns : list of RawColumn
    from_frame : bool
    """
    if is_dataframe(X):
        frame = nw.from_native(X, eager_only=True)
        names = [str(name) for name in frame.columns]
        forced = _resolve_categorical(categorical_features, names)
        columns = [
            _read_frame_column(frame[col], name, forced[i])
            for i, (col, name) in enumerate(zip(frame.columns, names, strict=True))
        ]
        return columns, True
    array = _as_2d_array(X)
    names = [f"x{j}" for j in range(array.shape[1])]
    forced = _resolve_categorical(categorical_features, names)
    columns = [_read_array_column(array[:, j], names[j], forced[j]) for j in range(array.shape[1])]
    return columns, False


def _as_2d_array(X):
    if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
        raise DataError("Sparse input is not supported: pass a dense array, e.g. X.toarray().")
    array = np.asarray(X)
    if array.ndim != 2:
        raise DataError(
            f"Expected a 2D array (n_samples, n_features), got an array of shape "
            f"{array.shape}. Reshape your data, e.g. X.reshape(-1, 1) for a single feature."
        )
    if array.dtype.kind not in "biufcOUSM":
        raise DataError(f"Unsupported dtype {array.dtype} for X.")
    if array.dtype.kind == "c":
        raise DataError("Complex data is not supported; pass real numbers.")
    return array


def _resolve_categorical(categorical_features, names):
    """Boolean mask over ``names`` from names, indices or a mask."""
    n = len(names)
    mask = np.zeros(n, dtype=bool)
    if categorical_features is None:
        return mask
    given = np.asarray(categorical_features)
    if given.dtype == bool:
        if given.shape != (n,):
            raise ParameterError(
                f"categorical_features as a boolean mask must have one entry per column "
                f"({n}), got shape {given.shape}."
            )
        return given.copy()
    for item in given.ravel().tolist():
        if isinstance(item, str):
            if item not in names:
                raise ParameterError(
                    f"categorical_features names column {item!r}, which is not in X; "
                    f"columns are {_describe_names(names[:_MAX_LISTED])}"
                    + (" ..." if n > _MAX_LISTED else "")
                    + "."
                )
            mask[names.index(item)] = True
        elif isinstance(item, int):
            if not -n <= item < n:
                raise ParameterError(
                    f"categorical_features index {item} is out of range for {n} columns."
                )
            mask[item] = True
        else:
            raise ParameterError(
                f"categorical_features must hold column names, indices or a boolean mask, "
                f"got {item!r}."
            )
    return mask


def _nominal_values(values):
    values = np.asarray(values, dtype=object)
    return values, np.asarray(pd.isna(values), dtype=bool)


def _numeric_values(values, name):
    try:
        numbers = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(
            f"Column {name!r} was declared numeric but holds values that are not numbers "
            f"({exc}); declare it nominal (categorical_features) or clean it."
        ) from exc
    return numbers, np.isnan(numbers)


def _read_frame_column(series, name, forced_nominal):
    dtype = series.dtype
    native_categories = None
    if isinstance(dtype, nw.Enum):
        native_categories = tuple(dtype.categories)
    elif dtype == nw.Categorical:
        native = nw.to_native(series)
        if isinstance(native, pd.Series):
            native_categories = tuple(native.cat.categories.tolist())
    if dtype == nw.Boolean:
        native_categories = (False, True)
    if native_categories is not None or dtype in (nw.String, nw.Boolean) or forced_nominal:
        values, missing = _nominal_values(series.to_numpy())
        return RawColumn(name, NOMINAL, values, missing, native_categories)
    if dtype.is_numeric():
        values, missing = _numeric_values(series.to_numpy(), name)
        return RawColumn(name, NUMERIC, values, missing)
    if dtype == nw.Object:
        return _read_array_column(series.to_numpy(), name, False)
    raise DataError(
        f"Column {name!r} has dtype {dtype}, which treelearn cannot learn from; "
        "convert it to numbers or to strings/categories, or drop it."
    )


def _read_array_column(values, name, forced_nominal):
    if forced_nominal or values.dtype.kind in "US":
        values, missing = _nominal_values(values)
        return RawColumn(name, NOMINAL, values, missing)
    if values.dtype.kind == "O":
        missing = np.asarray(pd.isna(values), dtype=bool)
        try:
            numbers = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            return RawColumn(name, NOMINAL, values, missing)
        return RawColumn(name, NUMERIC, numbers, np.isnan(numbers))
    numbers, missing = _numeric_values(values, name)
    return RawColumn(name, NUMERIC, numbers, missing)


def _sorted_categories(values, missing, name):
    present = pd.unique(values[~missing])
    try:
        return tuple(sorted(present))
    except TypeError:
        # Mixed types (e.g. 1 and "a"): order by type name, then value.
        try:
            return tuple(sorted(present, key=lambda v: (type(v).__name__, v)))
        except TypeError as exc:
            raise DataError(
                f"Column {name!r} holds values that cannot be ordered or compared ({exc}); "
                "convert them to strings or numbers."
            ) from exc


def infer_schema(columns, from_frame):
    """Fit-time :class:`FeatureSchema` of ``columns``, validating each column."""
    if not columns:
        raise DataError("X has no columns; at least one feature is needed.")
    names = [c.name for c in columns]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise DataError(f"X has duplicated column names: {_describe_names(duplicated)}.")
    categories = []
    for column in columns:
        if column.missing.all():
            raise DataError(
                f"Column {column.name!r} has no known value (every row is missing); "
                "drop it before fitting."
            )
        if column.kind == NUMERIC:
            check_finite(column)
            categories.append(None)
        elif column.categories is not None:
            categories.append(column.categories)
        else:
            categories.append(_sorted_categories(column.values, column.missing, column.name))
    return FeatureSchema(
        names=tuple(names),
        kinds=tuple(c.kind for c in columns),
        categories=tuple(categories),
        from_frame=from_frame,
    )


def check_finite(column):
    """Raise a :class:`DataError` naming the rows where a numeric column is infinite."""
    infinite = np.isinf(column.values)
    if infinite.any():
        raise DataError(
            f"Column {column.name!r} has infinite values at rows "
            f"{describe_rows(np.flatnonzero(infinite))}; replace them with finite numbers "
            "or NaN (missing)."
        )


def align_columns(X, schema):
    """Read predict-time ``X`` and put its columns in the fitted order.

    DataFrame columns are matched by name (any order) when the model was fitted
    on a DataFrame; otherwise by position.
    """
    forced = [i for i, kind in enumerate(schema.kinds) if kind == NOMINAL]
    if is_dataframe(X) and schema.from_frame:
        frame = nw.from_native(X, eager_only=True)
        given = [str(c) for c in frame.columns]
        missing = [n for n in schema.names if n not in given]
        extra = [n for n in given if n not in schema.names]
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"missing columns {_describe_names(missing)}")
            if extra:
                parts.append(f"unexpected columns {_describe_names(extra)}")
            raise SchemaMismatchError(
                f"X does not have the columns the model was fitted on: {'; '.join(parts)}. "
                "Pass exactly the training columns (their order does not matter)."
            )
        lookup = dict(zip(given, frame.columns, strict=True))
        columns = [
            _read_frame_column(frame[lookup[name]], name, schema.kinds[i] == NOMINAL)
            for i, name in enumerate(schema.names)
        ]
    else:
        columns, _ = read_columns(X, categorical_features=forced or None)
        if len(columns) != schema.n_features:
            raise SchemaMismatchError(
                f"X has {len(columns)} features, but the model was fitted with "
                f"{schema.n_features} features; pass the same columns as in training."
            )
        columns = [
            RawColumn(name, kind, c.values, c.missing, c.categories)
            for name, kind, c in zip(schema.names, schema.kinds, columns, strict=True)
        ]
    for column, kind in zip(columns, schema.kinds, strict=True):
        if column.kind != kind:
            raise SchemaMismatchError(
                f"Column {column.name!r} was {kind} at fit time but is {column.kind} now; "
                "pass it with the same kind of values as in training."
            )
        if kind == NUMERIC:
            check_finite(column)
    return columns
