"""Reading the command line's data: a CSV/TSV file or a bundled dataset, and its target.

Files are UTF-8 (a byte-order mark is allowed) with a header row. The
delimiter is the one of ``,``, ``;`` and tab that occurs most in the header
line. ``?`` and empty fields are missing values (as are pandas' usual
``NA``/``NaN``/``null`` spellings).
"""

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from treelearn.datasets import dataset_info, list_datasets, load_dataset
from treelearn.exceptions import ParameterError

__all__ = ["CliError", "Table", "load_table", "split_target"]

BUILTIN_PREFIX = "builtin:"
MISSING_MARKERS = ["?"]
_DELIMITERS = (",", ";", "\t")
_TEXT_SUFFIXES = {".csv", ".tsv", ".tab", ".txt", ".data"}
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
    """

    frame: pd.DataFrame
    source: str
    default_target: str


def load_table(data, dataset):
    """The :class:`Table` named by the ``DATA`` argument or ``--dataset``."""
    if data is not None and dataset is not None:
        raise CliError(
            f"both a data file ({data}) and --dataset {dataset} were given; pass only one."
        )
    if data is None and dataset is None:
        raise CliError(
            "no data given; pass a CSV file (treelearn fit data.csv --target COL) or a "
            f"bundled dataset (--dataset NAME; one of {', '.join(list_datasets())})."
        )
    if dataset is None and data.startswith(BUILTIN_PREFIX):
        dataset = data[len(BUILTIN_PREFIX) :]
    if dataset is not None:
        return _bundled(dataset)
    return _read_file(Path(data))


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


def detect_delimiter(header_line):
    """The delimiter among ``,``, ``;`` and tab that occurs most in the header line."""
    counts = [header_line.count(d) for d in _DELIMITERS]
    best = max(range(len(_DELIMITERS)), key=lambda i: (counts[i], -i))
    return _DELIMITERS[best] if counts[best] > 0 else ","


def _read_file(path):
    if not path.exists():
        raise CliError(f"no such file: {path}; check the path (or use --dataset NAME).")
    if path.is_dir():
        raise CliError(f"{path} is a folder, not a data file; pass a CSV file.")
    suffix = path.suffix.lower()
    if suffix not in _TEXT_SUFFIXES:
        raise CliError(
            f"cannot read {path}: '{suffix or 'no extension'}' files are not supported yet; "
            "export the table as a UTF-8 CSV file (.csv or .tsv)."
        )
    try:
        with path.open("r", encoding="utf-8-sig") as handle:
            header = handle.readline()
            handle.seek(0)
            frame = pd.read_csv(
                handle,
                sep=detect_delimiter(header),
                na_values=MISSING_MARKERS,
                skipinitialspace=True,
            )
    except UnicodeDecodeError as error:
        raise CliError(
            f"{path} is not UTF-8 text (byte 0x{error.object[error.start]:02x} at position "
            f"{error.start}); save it as a UTF-8 CSV file."
        ) from None
    except pd.errors.EmptyDataError:
        raise CliError(f"{path} is empty; it needs a header row and data rows.") from None
    except pd.errors.ParserError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "parse error"
        raise CliError(f"{path} is not a well-formed CSV file ({first}).") from None
    except OSError as error:
        raise CliError(f"cannot read {path}: {error.strerror or error}.") from None
    if frame.shape[0] == 0:
        raise CliError(f"{path} has a header but no data rows.")
    frame.columns = [str(c).strip() for c in frame.columns]
    return Table(frame, str(path), frame.columns[-1])


def _describe_columns(columns):
    names = [str(c) for c in columns]
    shown = ", ".join(names[:_MAX_LISTED])
    return shown + (f", ... ({len(names)} columns)" if len(names) > _MAX_LISTED else "")


def split_target(table, target, drop):
    """Features ``X``, target ``y`` and notes for the user.

    Rows without a target value are left out (and a note says which).
    """
    frame = table.frame
    columns = list(frame.columns)
    dropped = [name.strip() for name in drop.split(",") if name.strip()] if drop else []
    unknown = [name for name in dropped if name not in columns]
    if unknown:
        raise CliError(
            f"--drop names {', '.join(repr(u) for u in unknown)}, not a column of "
            f"{table.source}; the columns are {_describe_columns(columns)}."
        )
    target = table.default_target if target is None else target
    if target not in columns:
        raise CliError(
            f"no column {target!r} in {table.source}; the columns are "
            f"{_describe_columns(columns)}. Pass one of them with --target."
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
        rows = [str(i + 1) for i in missing.nonzero()[0][:10]]
        more = ", ..." if missing.sum() > 10 else ""
        notes.append(
            f"{int(missing.sum())} rows without a value for {target!r} were left out "
            f"(data rows {', '.join(rows)}{more})."
        )
        frame = frame.loc[~missing]
        y = frame[target]
    return frame[features], y, notes
