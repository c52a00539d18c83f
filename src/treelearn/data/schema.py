"""Reading the columns of ``X`` and deciding each column's kind.

Any input becomes a :class:`RawTable`: a list of :class:`RawColumn` (name,
kind, values as a numpy array, missing mask, categories where the input
declares them) and the number of rows. DataFrames of every library narwhals
supports (pandas, polars, pyarrow, ...) are read through narwhals, so there is
no hand-written converter per library.

Kinds
    ``nominal``: pandas ``category``, polars ``Enum``/``Categorical``, pyarrow
    ``dictionary``, string, ``object`` holding strings, and ``bool`` columns;
    numpy columns named in ``categorical_features``; numpy ``object`` columns
    whose values are not numbers. ``numeric``: every other numeric column.

Categories
    A declared category list (pandas ``category``, polars ``Enum``) is kept in
    its declared order, unused categories included; ``bool`` columns are
    ``[False, True]``; other nominal columns (polars ``Categorical`` and
    pyarrow ``dictionary`` included, whose order is the order values were first
    seen) use their distinct non-missing training values, sorted.

Missing values
    ``NaN``, ``None``, ``pd.NA``, ``NaT`` and the nulls of polars and pyarrow
    are missing in every kind of column.

Feature names
    A DataFrame whose column names are all strings has feature names: the
    model remembers them and, at prediction, matches DataFrame columns by
    name in any order. Columns of other inputs (numpy arrays, DataFrames with
    non-string names such as ``0, 1, 2``) are taken by position, as in
    scikit-learn.

Prediction-time checks
    A column must keep its kind: numbers where the model saw numbers, and, in
    a nominal column, values of the same type (strings, numbers or booleans)
    as its training categories. A value of the right type that is not a
    training category is routed like a missing value; a value of another type
    (the number ``3`` in a column trained on strings) raises
    :class:`~treelearn.exceptions.SchemaMismatchError`, since it almost always
    means the column was encoded differently than in training.
"""

import numbers
from dataclasses import dataclass, replace

import narwhals.stable.v2 as nw
import numpy as np
import pandas as pd

from treelearn._arrays import read_only
from treelearn.data import _kernels
from treelearn.exceptions import DataError, ParameterError, SchemaMismatchError

NOMINAL = "nominal"
NUMERIC = "numeric"
_MAX_LISTED = 10
#: What :func:`pandas.api.types.infer_dtype` says of an object column of numbers.
NUMBER_KINDS = frozenset({"integer", "floating", "mixed-integer-float", "decimal", "empty"})


@dataclass(frozen=True)
class RawColumn:
    """One input column before encoding.

    Attributes
    ----------
    name : str
        Column name (``"x0"``, ``"x1"``, ... for arrays without names).
    kind : {"nominal", "numeric"}
    values : ndarray
        Numeric columns: the caller's numbers in their own dtype (float32,
        float64, integers; missing is NaN, and NaN is missing), as a read-only
        view of the input where it holds them (a column of a C-ordered matrix is
        a strided view), never a copy; a copy in float64 only for inputs that
        are not numpy numbers (object columns, nulls of nullable dtypes).
        Nominal columns: ``object`` (missing is None).
    missing : ndarray of bool
        Which rows are missing; for a column without a missing value, a
        read-only all-False view that takes no memory (:func:`no_missing`).
    categories : tuple or None
        Category list declared by the input's dtype, else None.
    levels : tuple or None
        Nominal columns read from a dictionary-encoded input (a pandas
        ``category`` column: its categories; a pandas string column: its
        distinct values, factorized), else None. With ``level_codes``, the
        same column as ``values`` in integer form, which encoding reads
        instead of hashing every row's value.
    level_codes : ndarray of int or None
        ``values[i]`` is ``levels[level_codes[i]]``, or missing where the code
        is -1. A copy of the column with other ``values`` must drop both
        (:meth:`with_values`).
    finite : bool
        True when the reader has already seen that no value is infinite (a
        column of a C-ordered matrix, scanned with the others in one pass), so
        :func:`check_finite` need not look again; False when not known.
    """

    name: str
    kind: str
    values: np.ndarray
    missing: np.ndarray
    categories: tuple | None = None
    levels: tuple | None = None
    level_codes: np.ndarray | None = None
    finite: bool = False

    @property
    def has_missing(self):
        """Whether a row is missing; the mask of a column read without any
        (:func:`no_missing`) is not scanned (0.27 ms at 800,000 rows)."""
        if self.missing.shape[0] and not self.missing.strides[0]:
            return bool(self.missing[0])
        return bool(self.missing.any())

    def take(self, rows):
        """This column restricted to ``rows`` (a boolean mask or indices)."""
        level_codes = None if self.level_codes is None else self.level_codes[rows]
        values = self.values[rows]
        # A zero stride is the memoryless mask of a column without missing values.
        missing = self.missing[rows] if self.missing.strides[0] else no_missing(values.shape[0])
        return replace(self, values=values, missing=missing, level_codes=level_codes)

    def with_values(self, values, **changes):
        """This column holding ``values`` instead (its level codes dropped)."""
        changes = {"levels": None, "level_codes": None, "finite": False, **changes}
        return replace(self, values=values, **changes)


@dataclass(frozen=True)
class RawTable:
    """The columns of ``X`` before encoding.

    Attributes
    ----------
    columns : list of RawColumn
    n_rows : int
    from_frame : bool
        True when the column names came from a DataFrame (all strings).
    matrix : ndarray or None
        The C-ordered float32 or float64 matrix ``X`` was, when it was one (its
        numeric columns are views of this matrix's columns, which encoding may
        read a block of rows at a time); None otherwise.
    """

    columns: list
    n_rows: int
    from_frame: bool
    matrix: np.ndarray | None = None

    @property
    def shape(self):
        return (self.n_rows, len(self.columns))

    def take(self, rows):
        """The table restricted to ``rows`` (a boolean mask or indices)."""
        columns = [column.take(rows) for column in self.columns]
        n_rows = int(np.count_nonzero(rows)) if np.asarray(rows).dtype == bool else len(rows)
        return RawTable(columns, n_rows, self.from_frame)


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
    shown = ", ".join(show_value(n) for n in names[:_MAX_LISTED])
    return shown + (f", ... ({len(names)} in all)" if len(names) > _MAX_LISTED else "")


def is_dataframe(X):
    """True for any DataFrame narwhals can read (pandas, polars, pyarrow, ...)."""
    return nw.dependencies.is_into_dataframe(X)


def has_feature_names(X):
    """True for a DataFrame whose column names are all strings."""
    if not is_dataframe(X):
        return False
    return _frame_names(_from_native(X)) is not None


def _from_native(X):
    """``X`` as a narwhals DataFrame; duplicated column names are a :class:`DataError`."""
    try:
        return nw.from_native(X, eager_only=True)
    except nw.exceptions.DuplicateError as exc:
        raise DataError(
            f"X has duplicated column names: {exc}\nGive every column its own name."
        ) from exc


def _frame_names(frame):
    """The column names as strings, or None when none of them is a string."""
    names = list(frame.columns)
    are_strings = [isinstance(name, str) for name in names]
    if all(are_strings) and names:
        return names
    if any(are_strings):
        kinds = sorted({type(name).__name__ for name in names})
        raise DataError(
            f"X has column names of several types ({', '.join(kinds)}); feature names "
            "must all be strings. Convert them, e.g. X.columns = X.columns.astype(str)."
        )
    return None


def read_table(X, categorical_features=None):
    """Split ``X`` into :class:`RawColumn` objects, one per column.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or DataFrame
    categorical_features : None, sequence of str or int, or boolean mask
        Columns to treat as nominal whatever their dtype (names, indices or a
        mask of length n_features).

    Returns
    -------
    RawTable
        Numeric columns are read-only views of ``X``'s own numbers where it
        holds them as numpy floats or integers (a column of a 2D array, a
        DataFrame column's array): reading ``X`` copies none of them, and
        nothing ever writes into them.
    """
    if is_dataframe(X):
        frame = _from_native(X)
        string_names = _frame_names(frame)
        names = string_names or [str(name) for name in frame.columns]
        forced = _resolve_categorical(categorical_features, names)
        columns = [
            _read_frame_column(series, name, forced[j])
            for j, (series, name) in enumerate(zip(frame.iter_columns(), names, strict=True))
        ]
        return RawTable(columns, int(frame.shape[0]), string_names is not None)
    array = _as_2d_array(X)
    names = [f"x{j}" for j in range(array.shape[1])]
    forced = _resolve_categorical(categorical_features, names)
    scans = _scan_rows(array)
    columns = [
        _read_array_column(array[:, j], names[j], forced[j], scans[j])
        for j in range(array.shape[1])
    ]
    scanned = bool(scans) and scans[0] is not None
    return RawTable(columns, int(array.shape[0]), False, read_only(array) if scanned else None)


def _scan_rows(array):
    """Per column, ``(has NaN, has an infinity)`` of a C-ordered float matrix, from one
    pass over it in memory order (:func:`treelearn.data._kernels.scan_nan_inf`); for
    other arrays ``None`` per column (their columns are looked at one by one)."""
    n_columns = array.shape[1]
    scanned = (
        array.dtype in _kernels.KERNEL_FLOAT_DTYPES
        and n_columns > 1
        and array.shape[0] > 0
        and array.flags.c_contiguous
    )
    if not scanned:
        return [None] * n_columns
    has_nan = np.zeros(n_columns, dtype=bool)
    has_inf = np.zeros(n_columns, dtype=bool)
    if array.shape[0] >= _kernels.PARALLEL_MIN_ROWS:
        _kernels.scan_nan_inf_parallel(array, has_nan, has_inf)
    else:
        _kernels.scan_nan_inf(array, has_nan, has_inf)
    return list(zip(has_nan.tolist(), has_inf.tolist(), strict=True))


def check_not_empty(table):
    """Raise a :class:`DataError` when ``table`` has no row or no column."""
    n_rows, n_columns = table.shape
    if n_rows == 0:
        raise DataError(
            f"Found array with 0 sample(s) (shape={table.shape}) while a minimum of 1 is "
            "required: X has no rows. Pass at least one row to fit a tree."
        )
    if n_columns == 0:
        raise DataError(
            f"Found array with 0 feature(s) (shape={table.shape}) while a minimum of 1 is "
            "required: X has no columns. Pass at least one feature column."
        )


def _as_2d_array(X):
    if hasattr(X, "toarray") or type(X).__module__.startswith("scipy.sparse"):
        raise DataError("Sparse input is not supported: pass a dense array, e.g. X.toarray().")
    array = np.asarray(X)
    if array.ndim != 2:
        raise DataError(
            f"Expected a 2D array (n_samples, n_features), got an array of shape "
            f"{array.shape}. Reshape your data, e.g. X.reshape(-1, 1) for a single feature "
            "or X.reshape(1, -1) for a single row."
        )
    if array.dtype.kind == "c":
        raise DataError(
            f"Complex data not supported: X has dtype {array.dtype}. Pass real numbers."
        )
    if array.dtype.kind not in "biufOUS":
        raise DataError(
            f"X has dtype {array.dtype}, which treelearn cannot learn from; pass numbers, "
            "strings or booleans (convert dates to numbers first)."
        )
    return array


def _resolve_categorical(categorical_features, names):
    """Boolean mask over ``names`` from names, indices or a mask."""
    n = len(names)
    mask = np.zeros(n, dtype=bool)
    if categorical_features is None:
        return mask
    if isinstance(categorical_features, str):
        categorical_features = [categorical_features]
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
                    f"the columns are {_describe_names(names)}."
                )
            mask[names.index(item)] = True
        elif isinstance(item, int):
            if not -n <= item < n:
                raise ParameterError(
                    f"categorical_features index {item} is out of range for X with {n} "
                    f"columns; use indices in [0, {n - 1}]."
                )
            mask[item] = True
        else:
            raise ParameterError(
                f"categorical_features must hold column names, indices or a boolean mask, "
                f"got {item!r}."
            )
    return mask


def _nominal_values(values, missing=None):
    values = np.asarray(values, dtype=object)
    is_missing = np.asarray(pd.isna(values), dtype=bool)
    if missing is not None:
        is_missing |= missing
    if is_missing.any():
        values = values.copy()
        values[is_missing] = None
    return values, is_missing


def no_missing(n_rows):
    """The missing mask of a column without a missing value: all False, read-only, and
    taking no memory (a zero-stride view of one ``False``)."""
    return np.broadcast_to(np.False_, (n_rows,))


def _numeric_values(values, name, missing=None):
    """A numeric column's values and missing mask (see :class:`RawColumn`).

    Float and integer arrays are kept as they are, as read-only views: no copy of
    the caller's data. Other inputs are converted to float64; so is a column
    whose ``missing`` rows (the input's nulls) do not already hold NaN.
    """
    values = np.asarray(values)
    if values.dtype.kind not in "fiu":
        try:
            values = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise DataError(
                f"Column {name!r} was declared numeric but holds values that are not "
                f"numbers ({exc}); declare it nominal (categorical_features) or clean it."
            ) from exc
    nulls_not_nan = (
        missing is not None
        and missing.any()
        and (values.dtype.kind != "f" or not np.isnan(values[missing]).all())
    )
    if nulls_not_nan:
        values = np.array(values, dtype=np.float64)
        values[missing] = np.nan
    is_missing = np.isnan(values) if values.dtype.kind == "f" else None
    if is_missing is None or not is_missing.any():
        is_missing = no_missing(values.shape[0])
    return read_only(values), is_missing


def declared_categories(series):
    """The declared category order of a pandas ``category`` or polars ``Enum`` column."""
    dtype = series.dtype
    if isinstance(dtype, nw.Enum):
        return tuple(_python(c) for c in dtype.categories)
    if dtype == nw.Categorical and nw.dependencies.is_pandas_like_series(nw.to_native(series)):
        return tuple(_python(c) for c in series.cat.get_categories().to_list())
    return None


def _read_pandas_nominal(native, name, categorical):
    """A pandas ``category`` or string column from its integer codes (no per-row hashing
    or conversion): the categories' codes, or the string column factorized."""
    if categorical:
        level_codes = np.asarray(native.array.codes)
        index = native.array.categories
    else:
        level_codes, index = pd.factorize(native, use_na_sentinel=True)
    levels = tuple(_python(level) for level in index.to_list())
    missing = level_codes < 0
    table = np.empty(len(levels) + 1, dtype=object)  # code -1 picks the trailing None
    table[:-1] = np.asarray(index, dtype=object)
    values = table[level_codes]
    categories = levels if categorical else None
    return RawColumn(name, NOMINAL, values, missing, categories, levels, level_codes)


def _read_frame_column(series, name, forced_nominal):
    dtype = series.dtype
    if dtype in (nw.String, nw.Categorical):
        native = nw.to_native(series)
        if nw.dependencies.is_pandas_series(native):
            return _read_pandas_nominal(native, name, dtype == nw.Categorical)
    # Nulls come from the library itself: pyarrow's dictionary arrays turn
    # nulls into arbitrary categories when converted to numpy.
    null = np.asarray(series.is_null().to_numpy(), dtype=bool)
    nominal_dtype = dtype in (nw.String, nw.Boolean, nw.Categorical, nw.Enum)
    if nominal_dtype or forced_nominal:
        categories = declared_categories(series)
        if dtype == nw.Boolean:
            categories = (False, True)
        values, missing = _nominal_values(series.to_numpy(), null)
        return RawColumn(name, NOMINAL, values, missing, categories)
    if dtype.is_numeric():
        values, missing = _numeric_values(series.to_numpy(), name, null)
        return RawColumn(name, NUMERIC, values, missing)
    if dtype == nw.Object:
        return _read_array_column(series.to_numpy(), name, False)
    raise DataError(
        f"Column {name!r} has dtype {dtype}, which treelearn cannot learn from; "
        "convert it to numbers or to strings/categories, or drop it."
    )


def _scanned_numeric_column(values, name, scan):
    """A float column of a C-ordered matrix whose NaN and infinities :func:`_scan_rows`
    has looked for: a read-only view, its mask built only when it has a NaN."""
    has_nan, has_inf = scan
    missing = np.isnan(values) if has_nan else no_missing(values.shape[0])
    return RawColumn(name, NUMERIC, read_only(values), missing, finite=not has_inf)


def _read_array_column(values, name, forced_nominal, scan=None):
    if scan is not None and not forced_nominal:
        return _scanned_numeric_column(values, name, scan)
    if forced_nominal or values.dtype.kind in "USb":
        categories = (False, True) if values.dtype.kind == "b" else None
        values, missing = _nominal_values(values)
        return RawColumn(name, NOMINAL, values, missing, categories)
    if values.dtype.kind == "O":
        missing = np.asarray(pd.isna(values), dtype=bool)
        known = values[~missing]
        if pd.api.types.infer_dtype(known, skipna=True) in NUMBER_KINDS:
            numbers_ = np.full(values.shape[0], np.nan)
            numbers_[~missing] = np.asarray(known, dtype=np.float64)
            return RawColumn(name, NUMERIC, numbers_, missing)
        values, missing = _nominal_values(values, missing)
        return RawColumn(name, NOMINAL, values, missing)
    numbers_, missing = _numeric_values(values, name)  # a view of ``values``
    return RawColumn(name, NUMERIC, numbers_, missing)


def _family(value):
    """``"string"``, ``"boolean"``, ``"number"`` or the type name of a category value."""
    if isinstance(value, (bool, np.bool_)):
        return "boolean"
    if isinstance(value, numbers.Number):
        return "number"
    if isinstance(value, (str, bytes)):
        return "string"
    return type(value).__name__


def _sorted_categories(values, missing, name):
    return _sorted_levels([_python(v) for v in pd.unique(values[~missing])], name)


def _present_levels(column):
    """The levels of a dictionary-encoded column that some row holds."""
    codes = column.level_codes
    held = np.bincount(codes[codes >= 0], minlength=len(column.levels)) > 0
    return [level for level, is_held in zip(column.levels, held, strict=True) if is_held]


def _sorted_levels(present, name):
    try:
        return tuple(sorted(present))
    except TypeError:
        # Mixed types (e.g. 1 and "a"): order by kind of value, then value.
        try:
            return tuple(sorted(present, key=lambda v: (_family(v), v)))
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
        raise DataError(
            f"X has duplicated column names: {_describe_names(duplicated)}; "
            "give every column its own name."
        )
    categories = []
    for column in columns:
        if column.missing.all():
            raise DataError(
                f"Column {column.name!r} has no known value (every one of its "
                f"{column.missing.shape[0]} training rows is missing); a tree cannot "
                "learn from it. Drop the column before fitting."
            )
        if column.kind == NUMERIC:
            check_finite(column)
            categories.append(None)
        elif column.categories is not None:
            categories.append(column.categories)
        elif column.level_codes is not None:
            categories.append(_sorted_levels(_present_levels(column), column.name))
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
    if column.finite:
        return
    infinite = np.isinf(column.values)
    if infinite.any():
        raise DataError(
            f"Column {column.name!r} has infinite values at rows "
            f"{describe_rows(np.flatnonzero(infinite))}; replace them with finite numbers "
            "or NaN (missing)."
        )


def align_columns(X, schema, estimator_name="the model"):
    """Read predict-time ``X`` and put its columns in the fitted order.

    DataFrame columns are matched by name (any order) when the model was fitted
    on a DataFrame with feature names; otherwise by position. Every column is
    checked against its fitted kind (see the module docstring).
    """
    forced = [i for i, kind in enumerate(schema.kinds) if kind == NOMINAL]
    if schema.from_frame and has_feature_names(X):
        columns = _columns_by_name(X, schema)
    else:
        if not is_dataframe(X):
            X = _as_2d_array(X)
        same_width = X.shape[1] == schema.n_features
        table = read_table(X, categorical_features=forced if forced and same_width else None)
        if len(table.columns) != schema.n_features:
            raise SchemaMismatchError(
                f"X has {len(table.columns)} features, but {estimator_name} is expecting "
                f"{schema.n_features} features as input; pass the {schema.n_features} "
                "columns the model was fitted on, in the same order."
            )
        columns = [
            replace(column, name=name)
            for name, column in zip(schema.names, table.columns, strict=True)
        ]
    return [
        _conform_column(column, schema.kinds[j], schema.categories[j])
        for j, column in enumerate(columns)
    ]


def _columns_by_name(X, schema):
    frame = _from_native(X)
    given = list(frame.columns)
    absent = [n for n in schema.names if n not in given]
    extra = [n for n in given if n not in schema.names]
    if absent or extra:
        parts = []
        if absent:
            parts.append(f"missing columns {_describe_names(absent)}")
        if extra:
            parts.append(f"unexpected columns {_describe_names(extra)}")
        raise SchemaMismatchError(
            f"X does not have the columns the model was fitted on: {'; '.join(parts)}. "
            "Pass exactly the training columns (their order does not matter)."
        )
    return [
        _read_frame_column(frame.get_column(name), name, schema.kinds[j] == NOMINAL)
        for j, name in enumerate(schema.names)
    ]


def _conform_column(column, kind, categories):
    """``column`` checked against its fitted kind; a column with no known value is all missing."""
    if column.missing.all():
        n_rows = column.missing.shape[0]
        values = np.full(n_rows, np.nan) if kind == NUMERIC else np.full(n_rows, None, object)
        return column.with_values(values, kind=kind)
    _check_column_kind(column, kind, categories)
    return column


def _check_column_kind(column, kind, categories):
    if column.kind != kind:
        example = ", ".join(show_value(v) for v in column.values[~column.missing][:3])
        raise SchemaMismatchError(
            f"Column {column.name!r} was {kind} at fit time but holds {column.kind} values "
            f"now (e.g. {example}); pass it with the same kind of values as in training."
        )
    if kind == NUMERIC:
        check_finite(column)
        return
    trained = {_family(c) for c in categories}
    if column.level_codes is not None:
        present = _present_levels(column)
    else:
        present = pd.unique(column.values[~column.missing])
    foreign = [v for v in present if _family(v) not in trained]
    if not foreign:
        return
    bad_families = sorted({_family(v) for v in foreign})
    bad_rows = [
        i
        for i, v in enumerate(column.values)
        if not column.missing[i] and _family(v) in bad_families
    ]
    raise SchemaMismatchError(
        f"Column {column.name!r} was trained on {_plural(trained)} (categories "
        f"{_describe_names(list(categories))}) but holds {_plural(bad_families)} at rows "
        f"{describe_rows(bad_rows)} (e.g. {show_value(foreign[0])}). Pass the values as in "
        "training (for example convert the column with .astype(str) if it was trained on "
        "strings); categories of the right type that were never seen in training are "
        "treated as missing."
    )


def _python(value):
    """A numpy scalar as the Python scalar it holds; anything else unchanged."""
    return value.item() if isinstance(value, np.generic) else value


def show_value(value):
    """``repr`` of a value, numpy scalars shown as Python ones."""
    return repr(_python(value))


def _plural(families):
    return " and ".join(f"{family}s" for family in sorted(families))
