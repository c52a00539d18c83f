"""Reading data files into pandas DataFrames: CSV/TSV, Parquet and Weka ARFF.

:func:`read_file` picks the reader from the file's extension and returns a
DataFrame whose column kinds the estimators understand (text, ``bool`` and
``category`` columns are nominal, number columns numeric; see
:mod:`treelearn.data.schema`). Every problem with a file is a
:class:`~treelearn.exceptions.DataError` that names the file (and the line or
column) and says what to do; a file that is not what its extension says is
reported as such.

CSV/TSV (``.csv``, ``.tsv``, ``.tab``, ``.txt``, ``.data``)
    UTF-8 (a byte-order mark is allowed) with a header row. The delimiter,
    one of ``,``, ``;``, tab and ``|``, is the one that splits the first lines
    into the same number of fields, the most fields (:func:`sniff_delimiter`;
    ties go to tab for ``.tsv``/``.tab`` files, then to :class:`csv.Sniffer`). ``?``, empty
    fields and pandas' usual spellings (``NA``, ``NaN``, ``null``, ...) are
    missing values. Leading spaces after a delimiter are ignored.

Parquet (``.parquet``, ``.pq``)
    Read with pyarrow, an optional dependency (``pip install
    "treelearn[parquet]"``). Dictionary-encoded columns become ``category``
    columns.

ARFF (``.arff``; Weka's Attribute-Relation File Format)
    A header of ``@relation``, ``@attribute NAME TYPE`` lines and ``@data``,
    then one comma-separated row per line. ``TYPE`` is ``numeric``, ``real``
    or ``integer`` (a float column), ``string`` (text, nominal for a tree),
    ``date ["format"]`` (kept as text), or a nominal declaration
    ``{a, b, c}``, which becomes a pandas ``category`` column with exactly those
    categories in that order (a tree then knows categories that no row has).
    Names and values may be quoted with ``'`` or ``"`` (backslash escapes
    inside quotes); ``?`` is a missing value; lines starting with ``%`` are
    comments; keywords are case-insensitive. Sparse rows (``{0 x, 3 y}``),
    instance weights and relational attributes are refused with a message.

Kinds can be overridden per column (:func:`set_kinds`, or ``nominal=`` and
``numeric=`` of :func:`read_file`): a column declared nominal is read as text
(from a CSV file, exactly as written, so ``007`` stays ``"007"``); a column
declared numeric must hold numbers, else the error names the column, the
first bad value and its row.
"""

import csv
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from treelearn.exceptions import DataError

__all__ = [
    "MISSING_MARKERS",
    "PARQUET_INSTALL",
    "SUFFIXES",
    "file_format",
    "read_arff",
    "read_csv",
    "read_file",
    "read_parquet",
    "set_kinds",
    "sniff_delimiter",
]

#: Field values read as missing, besides the empty field and pandas' defaults.
MISSING_MARKERS = ("?",)
#: The command that installs the Parquet reader's dependency.
PARQUET_INSTALL = 'pip install "treelearn[parquet]"'
#: Extension -> format.
SUFFIXES = {
    ".csv": "csv",
    ".tsv": "csv",
    ".tab": "csv",
    ".txt": "csv",
    ".data": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".arff": "arff",
}
_DELIMITERS = (",", ";", "\t", "|")
_SNIFF_LINES = 50
_PARQUET_MAGIC = b"PAR1"
_MAX_LISTED = 20


def _describe_columns(columns):
    names = [str(c) for c in columns]
    shown = ", ".join(names[:_MAX_LISTED])
    return shown + (f", ... ({len(names)} columns)" if len(names) > _MAX_LISTED else "")


def file_format(path):
    """``"csv"``, ``"parquet"`` or ``"arff"`` from the extension of ``path``.

    Raises
    ------
    DataError
        For any other extension (the message lists the supported ones).
    """
    suffix = Path(path).suffix.lower()
    try:
        return SUFFIXES[suffix]
    except KeyError:
        known = ", ".join(SUFFIXES)
        hint = (
            "save the sheet as a UTF-8 CSV file"
            if suffix in {".xls", ".xlsx", ".ods"}
            else "export the table as a UTF-8 CSV file"
        )
        raise DataError(
            f"cannot read {path}: '{suffix or 'no extension'}' files are not supported "
            f"(supported: {known}); {hint}."
        ) from None


def read_file(path, nominal=None, numeric=None, as_text=False):
    """Read a CSV/TSV, Parquet or ARFF file (chosen by extension) into a DataFrame.

    Parameters
    ----------
    path : str or os.PathLike
    nominal, numeric : sequence of str, optional
        Columns whose detected kind to override (see :func:`set_kinds`).
    as_text : bool, default=False
        CSV and ARFF: every field as the text written in the file (``?`` and
        empty fields included, nothing missing), e.g. to copy the input
        unchanged to an output file; ``nominal`` and ``numeric`` are then
        ignored. Parquet files are read as usual (their values are typed).

    Returns
    -------
    DataFrame

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    DataError
        If the file cannot be read as its extension says, is empty, has no data
        rows, or an override does not fit its column.
    ImportError
        For a Parquet file when pyarrow is not installed.
    """
    path = Path(path)
    kind = file_format(path)
    if not path.exists():
        raise FileNotFoundError(f"no such file: {path}")
    if path.is_dir():
        raise DataError(f"{path} is a folder, not a data file.")
    if path.stat().st_size == 0:
        raise DataError(f"{path} is empty; it needs a header row and data rows.")
    nominal = _names(nominal)
    numeric = _names(numeric)
    if kind == "csv":
        frame = read_csv(path, nominal=nominal, as_text=as_text)
    elif kind == "parquet":
        frame = read_parquet(path)
    else:
        frame = read_arff(path, as_text=as_text)
    if as_text and kind != "parquet":
        return frame
    return set_kinds(frame, nominal, numeric, source=str(path))


def _names(columns):
    if columns is None:
        return []
    if isinstance(columns, str):
        columns = [columns]
    return [str(c) for c in columns]


# -- CSV / TSV -------------------------------------------------------------------------


def sniff_delimiter(sample, prefer=None):
    """The delimiter of a CSV sample: ``,``, ``;``, tab or ``|``.

    Each candidate splits the sample's first lines with :mod:`csv` (quotes
    respected); a candidate is consistent when every line gets the same number
    of fields, more than one. The consistent candidate with the most fields
    wins; a tie goes to ``prefer``, then to :class:`csv.Sniffer`'s answer,
    then to the order ``,``, ``;``, tab, ``|``. When no candidate is
    consistent (ragged rows), the one that occurs most in the header line
    wins; ``,`` when none occurs (a single column).
    """
    lines = sample.splitlines()
    if len(lines) > 1 and not sample.endswith(("\n", "\r")):
        lines = lines[:-1]  # the sample may end in the middle of a line
    lines = [line for line in lines[:_SNIFF_LINES] if line.strip()]
    if not lines:
        return ","
    try:
        sniffed = csv.Sniffer().sniff("\n".join(lines), delimiters="".join(_DELIMITERS))
        sniffed = sniffed.delimiter
    except csv.Error:
        sniffed = None

    def rank(delimiter):
        return (delimiter == prefer, delimiter == sniffed, -_DELIMITERS.index(delimiter))

    consistent = {}
    for delimiter in _DELIMITERS:
        widths = {len(row) for row in csv.reader(lines, delimiter=delimiter)}
        if len(widths) == 1 and (width := widths.pop()) > 1:
            consistent[delimiter] = width
    if consistent:
        return max(consistent, key=lambda d: (consistent[d], *rank(d)))
    counts = {d: lines[0].count(d) for d in _DELIMITERS}
    best = max(_DELIMITERS, key=lambda d: (counts[d], *rank(d)))
    return best if counts[best] > 0 else ","


def _decode_error(path, error):
    return DataError(
        f"{path} is not UTF-8 text (byte 0x{error.object[error.start]:02x} at position "
        f"{error.start}); save it as a UTF-8 CSV file."
    )


def read_csv(path, nominal=(), as_text=False):
    """Read a UTF-8 CSV/TSV file with a header row (see the module docstring).

    Columns named in ``nominal`` are read as text, exactly as written.
    """
    path = Path(path)
    _refuse_binary(path)
    try:
        with path.open("r", encoding="utf-8-sig", newline="") as handle:
            sample = handle.read(64 * 1024)
            handle.seek(0)
            prefer = "\t" if path.suffix.lower() in {".tsv", ".tab"} else None
            sep = sniff_delimiter(sample, prefer=prefer)
            options = {"sep": sep, "skipinitialspace": True}
            if as_text:
                options.update(dtype=str, keep_default_na=False, na_filter=False)
            else:
                options.update(na_values=list(MISSING_MARKERS))
                if nominal:
                    options["dtype"] = dict.fromkeys(nominal, str)
            frame = pd.read_csv(handle, **options)
    except UnicodeDecodeError as error:
        raise _decode_error(path, error) from None
    except pd.errors.EmptyDataError:
        raise DataError(f"{path} is empty; it needs a header row and data rows.") from None
    except pd.errors.ParserError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "parse error"
        raise DataError(f"{path} is not a well-formed CSV file ({first}).") from None
    if frame.shape[0] == 0:
        raise DataError(f"{path} has a header but no data rows.")
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


#: The first bytes of binary files people mistake for tables: signature -> (what, do).
_SIGNATURES = {
    _PARQUET_MAGIC: ("a Parquet file", "rename it to .parquet"),
    b"PK\x03\x04": ("a zip archive (an Excel .xlsx workbook?)", "save the sheet as CSV"),
    b"\xd0\xcf\x11\xe0": ("an old Excel .xls workbook", "save the sheet as CSV"),
}


def _refuse_binary(path):
    """A :class:`DataError` for a file that is binary rather than text."""
    with open(path, "rb") as handle:
        head = handle.read(4096)
    for signature, (what, do) in _SIGNATURES.items():
        if head.startswith(signature):
            raise DataError(f"{path} is not a text file: it looks like {what}; {do}.")
    if b"\x00" in head:
        raise DataError(
            f"{path} is not a text file (it holds NUL bytes); export the table as a UTF-8 CSV file."
        )


# -- Parquet ---------------------------------------------------------------------------


def _import_parquet():
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ImportError(
            f"reading Parquet files needs pyarrow, which is not installed; run {PARQUET_INSTALL}"
        ) from None
    return pq


def read_parquet(path):
    """Read a Parquet file with pyarrow (``pip install "treelearn[parquet]"``)."""
    path = Path(path)
    with open(path, "rb") as handle:
        head = handle.read(4)
        handle.seek(-min(4, os.fstat(handle.fileno()).st_size), os.SEEK_END)
        tail = handle.read(4)
    if head != _PARQUET_MAGIC or tail != _PARQUET_MAGIC:
        what = "it looks like text" if _looks_like_text(path) else "it has no Parquet markers"
        raise DataError(
            f"{path} is not a Parquet file ({what}: a Parquet file starts and ends with "
            "'PAR1'); if it is a CSV file, rename it to .csv."
        )
    pq = _import_parquet()
    try:
        table = pq.read_table(path)
    except Exception as error:  # pyarrow raises ArrowInvalid, OSError, ...
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise DataError(f"{path} is not a readable Parquet file ({first}).") from None
    frame = table.to_pandas()
    if frame.shape[1] == 0:
        raise DataError(f"{path} has no columns.")
    if frame.shape[0] == 0:
        raise DataError(f"{path} has no data rows.")
    frame.columns = [str(c) for c in frame.columns]
    return frame.reset_index(drop=True)


def _looks_like_text(path):
    with open(path, "rb") as handle:
        head = handle.read(4096)
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start > len(head) - 4  # a character cut at the end of the sample
    return b"\x00" not in head


# -- ARFF ------------------------------------------------------------------------------


class _ArffError(Exception):
    """A problem on one line of an ARFF file (turned into a DataError naming the file)."""


def _unescape(char):
    return {"n": "\n", "t": "\t", "r": "\r"}.get(char, char)


def split_arff_values(text):
    """Split an ARFF value list on commas: ``[(value, quoted), ...]``.

    Values may be quoted with ``'`` or ``"`` (a backslash escapes the next
    character); spaces around values are ignored.
    """
    values = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i < n and text[i] in "'\"":
            quote, i, chars = text[i], i + 1, []
            while i < n and text[i] != quote:
                if text[i] == "\\" and i + 1 < n:
                    i += 1
                    chars.append(_unescape(text[i]))
                else:
                    chars.append(text[i])
                i += 1
            if i >= n:
                raise _ArffError(f"a quoted value is not closed ({quote}{''.join(chars)})")
            i += 1
            while i < n and text[i] in " \t":
                i += 1
            if i < n and text[i] != ",":
                raise _ArffError(f"unexpected {text[i : i + 10]!r} after a quoted value")
            values.append(("".join(chars), True))
        else:
            end = text.find(",", i)
            end = n if end < 0 else end
            values.append((text[i:end].strip(), False))
            i = end
        if i >= n:
            return values
        i += 1  # the comma


def _arff_name(rest):
    """Split ``rest`` of an ``@attribute`` line into (name, type text)."""
    rest = rest.strip()
    if not rest:
        raise _ArffError("@attribute without a name")
    if rest[0] in "'\"":
        quote, i, chars = rest[0], 1, []
        while i < len(rest) and rest[i] != quote:
            if rest[i] == "\\" and i + 1 < len(rest):
                i += 1
            chars.append(rest[i])
            i += 1
        if i >= len(rest):
            raise _ArffError("the attribute name's quote is not closed")
        return "".join(chars), rest[i + 1 :].strip()
    end = 0
    while end < len(rest) and rest[end] not in " \t{":
        end += 1
    return rest[:end], rest[end:].strip()


def _arff_type(type_text, name):
    """(``"numeric"`` | ``"text"`` | ``"nominal"``, declared categories or None)."""
    if type_text.startswith("{"):
        if not type_text.endswith("}"):
            raise _ArffError(f"the category list of attribute {name!r} does not end with '}}'")
        inner = type_text[1:-1].strip()
        categories = [value for value, _ in split_arff_values(inner)] if inner else []
        duplicated = sorted({c for c in categories if categories.count(c) > 1})
        if duplicated:
            raise _ArffError(f"attribute {name!r} declares {duplicated[0]!r} twice")
        return "nominal", categories
    keyword = type_text.split()[0].lower() if type_text.split() else ""
    if keyword in {"numeric", "real", "integer"}:
        return "numeric", None
    if keyword in {"string", "date"}:
        return "text", None
    if keyword == "relational":
        raise _ArffError(
            f"attribute {name!r} is relational (multi-instance data), which treelearn does not read"
        )
    raise _ArffError(
        f"attribute {name!r} has type {type_text or 'nothing'!r}; expected numeric, real, "
        "integer, string, date or a category list {a, b, c}"
    )


def _arff_lines(text):
    """``(line number, stripped line)`` of the lines that are not blank or comments."""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("%"):
            yield number, stripped


def _parse_arff_header(lines, path):
    attributes = []
    for number, line in lines:
        keyword = line.split(None, 1)[0].lower()
        if keyword == "@data":
            return attributes
        if keyword == "@relation":
            continue
        if keyword == "@attribute":
            try:
                name, type_text = _arff_name(line[len("@attribute") :])
                kind, categories = _arff_type(type_text, name)
            except _ArffError as error:
                raise DataError(f"{path}, line {number}: {error}.") from None
            if any(name == a[0] for a in attributes):
                raise DataError(
                    f"{path}, line {number}: attribute {name!r} is declared twice; "
                    "give every attribute its own name."
                )
            attributes.append((name, kind, categories))
            continue
        if not attributes and not line.startswith("@"):
            raise DataError(
                f"{path} is not an ARFF file: line {number} is {line[:40]!r}, but an ARFF "
                "file starts with @relation and @attribute lines; if it is a CSV file, "
                "rename it to .csv."
            )
        raise DataError(
            f"{path}, line {number}: expected @attribute or @data, found {line[:40]!r}."
        )
    if not attributes:
        raise DataError(
            f"{path} is not an ARFF file: it has no @attribute and no @data line; "
            "if it is a CSV file, rename it to .csv."
        )
    raise DataError(
        f"{path} is not a complete ARFF file: it declares {len(attributes)} attributes but "
        "has no @data line (the data section must start with a line '@data')."
    )


def _arff_value(value, quoted, attribute):
    name, kind, categories = attribute
    if value == "?" and not quoted:
        return None
    if kind == "numeric":
        try:
            return float(value)
        except ValueError:
            raise _ArffError(f"attribute {name!r} is numeric, but the value is {value!r}") from None
    if kind == "nominal" and value not in categories:
        shown = ", ".join(categories[:_MAX_LISTED])
        raise _ArffError(
            f"{value!r} is not a declared category of attribute {name!r} ({{{shown}}})"
        )
    return value


def read_arff(path, as_text=False):
    """Read a dense Weka ARFF file (see the module docstring).

    With ``as_text``, every value is the text of the file (unquoted), ``?`` included.
    """
    path = Path(path)
    _refuse_binary(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise DataError(
            f"{path} is not UTF-8 text (byte 0x{error.object[error.start]:02x} at position "
            f"{error.start}); save the ARFF file as UTF-8."
        ) from None
    lines = _arff_lines(text)
    attributes = _parse_arff_header(lines, path)
    rows = []
    for number, line in lines:
        if line.startswith("{"):
            raise DataError(
                f"{path}, line {number}: a sparse ARFF row ({line[:30]}...); treelearn reads "
                "dense ARFF only. Convert it (Weka: filters.unsupervised.instance."
                "SparseToNonSparse) or export it as CSV."
            )
        try:
            values = split_arff_values(line)
            if len(values) != len(attributes):
                extra = " (an instance weight {w}? it is not supported)" if "{" in line else ""
                raise _ArffError(
                    f"the row has {len(values)} values, but {len(attributes)} attributes "
                    f"are declared{extra}"
                )
            if as_text:
                rows.append([v for v, _ in values])
                continue
            rows.append(
                [_arff_value(v, q, a) for (v, q), a in zip(values, attributes, strict=True)]
            )
        except _ArffError as error:
            raise DataError(f"{path}, line {number}: {error}.") from None
    if not rows:
        raise DataError(f"{path} has no data rows after @data.")
    if as_text:
        return pd.DataFrame(rows, columns=[a[0] for a in attributes], dtype=object)
    return _arff_frame(attributes, rows)


def _arff_frame(attributes, rows):
    columns = {}
    for j, (name, kind, categories) in enumerate(attributes):
        values = [row[j] for row in rows]
        if kind == "numeric":
            columns[name] = np.array([np.nan if v is None else v for v in values], np.float64)
        elif kind == "nominal":
            columns[name] = pd.Categorical(values, categories=categories)
        else:
            columns[name] = pd.Series(values, dtype=object)
    return pd.DataFrame(columns)


# -- kinds -----------------------------------------------------------------------------


def _number_text(value):
    """A number as a category label: ``3`` for 3.0, else the shortest repr."""
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return str(value)


def _as_nominal(series):
    """Number columns become text labels; text, bool and category columns are kept."""
    dtype = series.dtype
    if not pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype):
        return series
    missing = series.isna().to_numpy()
    values = np.array([_number_text(v) for v in series.to_numpy()], dtype=object)
    values[missing] = None
    return pd.Series(values, index=series.index, name=series.name, dtype=object)


def _as_numeric(series, name, source):
    if pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype):
        return series.astype(np.float64)
    values = series.astype(object) if isinstance(series.dtype, pd.CategoricalDtype) else series
    numbers = pd.to_numeric(values, errors="coerce")
    bad = (numbers.isna() & values.notna()).to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"column {name!r} of {source} is declared numeric, but it holds "
            f"{values.iloc[row]!r} (data row {row + 1}), which is not a number; correct the "
            "value, mark it missing with '?', or leave the column nominal."
        )
    return numbers.astype(np.float64)


def set_kinds(frame, nominal=None, numeric=None, source="the data"):
    """``frame`` with the named columns made nominal or numeric.

    Parameters
    ----------
    frame : DataFrame
    nominal : sequence of str, optional
        Columns to treat as categories: number columns become text (``3.0``
        becomes ``"3"``); text and category columns are kept.
    numeric : sequence of str, optional
        Columns to treat as numbers: text is parsed (missing stays missing); a
        value that is not a number is an error naming the column, the value and
        its data row.
    source : str
        What to call the data in messages.

    Returns
    -------
    DataFrame
        A new frame (``frame`` itself when there is nothing to change).
    """
    nominal = _names(nominal)
    numeric = _names(numeric)
    if not nominal and not numeric:
        return frame
    columns = [str(c) for c in frame.columns]
    for option, names in (("nominal", nominal), ("numeric", numeric)):
        unknown = [n for n in names if n not in columns]
        if unknown:
            listed = ", ".join(repr(u) for u in unknown)
            are = "column {} is" if len(unknown) == 1 else "columns {} are"
            raise DataError(
                f"{option} {are.format(listed)} not in {source}; "
                f"the columns are {_describe_columns(columns)}."
            )
    both = [n for n in nominal if n in numeric]
    if both:
        raise DataError(f"column {both[0]!r} is declared both nominal and numeric; pick one.")
    frame = frame.copy()
    for name in nominal:
        frame[name] = _as_nominal(frame[name])
    for name in numeric:
        frame[name] = _as_numeric(frame[name], name, source)
    return frame
