"""The command line's data: a data file or a bundled dataset, and its target.

``DATA`` is a file, read by :func:`treelearn.data.readers.read_file` (CSV/TSV,
Parquet or ARFF, by extension), or ``builtin:NAME`` for a bundled dataset
(the same as ``--dataset NAME``). ``--nominal COLS`` / ``--numeric COLS``
override the detected kinds and ``--drop COLS`` leaves columns out (comma-
separated names). Every problem becomes a :class:`CliError`, printed as one
line.
"""

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from treelearn.data.readers import read_file, set_kinds
from treelearn.datasets import dataset_info, list_datasets, load_dataset
from treelearn.exceptions import DataError, ParameterError

__all__ = [
    "BUILTIN_PREFIX",
    "CliError",
    "Table",
    "column_list",
    "describe_columns",
    "feature_kinds",
    "load_table",
    "split_target",
]

BUILTIN_PREFIX = "builtin:"
_MAX_LISTED = 20


class CliError(Exception):
    """An error the user can fix; its message is printed as one line."""


@dataclass(frozen=True)
class Table:
    """A table read for the command.

    Attributes
    ----------
    frame : DataFrame
        Every column, target included.
    source : str
        What to call the data in messages: the file path or the dataset name.
    default_target : str
        The target used when ``--target`` is not given.
    path : Path or None
        The file read, None for a bundled dataset.
    """

    frame: pd.DataFrame
    source: str
    default_target: str
    path: Path | None = None


def column_list(text):
    """``"a, b,c"`` -> ``["a", "b", "c"]`` (None or empty -> ``[]``)."""
    if not text:
        return []
    return [name.strip() for name in text.split(",") if name.strip()]


def describe_columns(columns):
    """The column names for a message, at most 20 of them."""
    names = [str(c) for c in columns]
    shown = ", ".join(names[:_MAX_LISTED])
    return shown + (f", ... ({len(names)} columns)" if len(names) > _MAX_LISTED else "")


def dataset_name(data, dataset):
    """The bundled dataset DATA/--dataset names, or None for a file."""
    if dataset is not None:
        return dataset
    if data is not None and data.startswith(BUILTIN_PREFIX):
        return data[len(BUILTIN_PREFIX) :]
    return None


def load_table(data, dataset, nominal=None, numeric=None, example="data.csv --target COL"):
    """The :class:`Table` named by the ``DATA`` argument or ``--dataset``.

    Parameters
    ----------
    data : str or None
        A file path or ``builtin:NAME``.
    dataset : str or None
        ``--dataset NAME``.
    nominal, numeric : str or None
        ``--nominal`` / ``--numeric``: comma-separated column names.
    example : str
        How DATA is passed, for the message when there is none.
    """
    if data is not None and dataset is not None:
        raise CliError(
            f"both a data file ({data}) and --dataset {dataset} were given; pass only one."
        )
    if data is None and dataset is None:
        raise CliError(
            f"no data given; pass a data file ({example}) or a bundled dataset "
            f"(--dataset NAME; one of {', '.join(list_datasets())})."
        )
    name = dataset_name(data, dataset)
    if name is not None:
        table = _bundled(name)
        try:
            frame = set_kinds(table.frame, column_list(nominal), column_list(numeric), name)
        except DataError as error:
            raise CliError(_option_names(str(error))) from None
        return Table(frame, table.source, table.default_target)
    return read_data_file(data, nominal=column_list(nominal), numeric=column_list(numeric))


def _option_names(message):
    """A reader's message in the command's words (``nominal columns`` -> ``--nominal columns``)."""
    for kind in ("nominal", "numeric"):
        for noun in ("column ", "columns "):
            if message.startswith(f"{kind} {noun}"):
                message = "--" + message
    return message


def read_data_file(data, nominal=(), numeric=(), as_text=False):
    """Read ``data`` (a file path) as a :class:`Table`; every problem is a :class:`CliError`."""
    path = Path(data)
    if not path.exists():
        raise CliError(f"no such file: {path}; check the path (or use --dataset NAME).")
    if path.is_dir():
        raise CliError(f"{path} is a folder, not a data file; pass a CSV, Parquet or ARFF file.")
    try:
        frame = read_file(path, nominal=nominal, numeric=numeric, as_text=as_text)
    except DataError as error:
        raise CliError(_option_names(str(error))) from None
    except ImportError as error:
        raise CliError(f"cannot read {path}: {error}.") from None
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror or error}.") from None
    return Table(frame, str(path), str(frame.columns[-1]), path)


def _bundled(name):
    try:
        info = dataset_info(name)
    except ParameterError:
        raise CliError(
            f"unknown dataset {name!r}; the bundled datasets are {', '.join(list_datasets())} "
            "(see 'treelearn datasets')."
        ) from None
    X, y = load_dataset(name)
    return Table(pd.concat([X, y], axis=1), name, info.target)


def feature_kinds(X):
    """Column names by kind, with the rule the estimators use for DataFrames."""
    kinds = {"nominal": [], "numeric": []}
    for name in X.columns:
        dtype = X[name].dtype
        numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
        kinds["numeric" if numeric else "nominal"].append(str(name))
    return kinds


def split_target(table, target, drop):
    """Features ``X``, target ``y`` and notes for the user.

    Rows without a target value are left out (and a note says which).
    """
    frame = table.frame
    columns = [str(c) for c in frame.columns]
    dropped = column_list(drop)
    unknown = [name for name in dropped if name not in columns]
    if unknown:
        raise CliError(
            f"--drop names {', '.join(repr(u) for u in unknown)}, not a column of "
            f"{table.source}; the columns are {describe_columns(columns)}."
        )
    target = table.default_target if target is None else target
    if target not in columns:
        raise CliError(
            f"no column {target!r} in {table.source}; the columns are "
            f"{describe_columns(columns)}. Pass one of them with --target."
        )
    if target in dropped:
        raise CliError(f"--drop includes the target {target!r}; the target cannot be dropped.")
    features = [c for c in columns if c != target and c not in dropped]
    if not features:
        raise CliError(
            f"{table.source} has no feature columns besides the target {target!r}; a tree "
            "needs at least one."
        )
    notes = []
    y = frame[target]
    missing = y.isna().to_numpy()
    if missing.all():
        raise CliError(f"column {target!r} of {table.source} has no values; pick another --target.")
    if missing.any():
        count = int(missing.sum())
        rows = [str(i + 1) for i in missing.nonzero()[0][:10]]
        more = ", ..." if count > 10 else ""
        notes.append(
            f"{count} {'row' if count == 1 else 'rows'} without a value for {target!r} "
            f"{'was' if count == 1 else 'were'} left out (data {'row' if count == 1 else 'rows'} "
            f"{', '.join(rows)}{more})."
        )
        frame = frame.loc[~missing]
        y = frame[target]
    return frame[features], y, notes
