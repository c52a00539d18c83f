"""Checked JSON encoding of arrays and fields, shared by the model-file readers and writers.

Every check failure raises :class:`Invalid` naming the field (``where``); the
model-file loader turns it into :class:`~treelearn.exceptions.ModelFormatError`.
Floats are written with Python's shortest round-trip repr; NaN and infinities,
which JSON has no number for, are the strings ``"NaN"``, ``"Infinity"`` and
``"-Infinity"``.
"""

import json
import math

import numpy as np

NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class Invalid(Exception):
    """A field of a document that fails a check (turned into ModelFormatError)."""

    def __init__(self, where, message):
        super().__init__(f"{where}: {message}" if where else message)


def non_finite_name(value):
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def encode_array(array):
    """``{"dtype", "shape", "data"}`` with ``data`` flattened in C order."""
    data = array.ravel().tolist()
    if array.dtype.kind == "f":
        data = [v if math.isfinite(v) else non_finite_name(v) for v in data]
    elif array.dtype.kind == "b":
        data = [int(v) for v in data]
    return {"dtype": array.dtype.name, "shape": list(array.shape), "data": data}


def require(value, types, where, expected):
    """``value`` if it is of ``types`` (a bool only where bool is named), else Invalid."""
    types = types if isinstance(types, tuple) else (types,)
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
        raise Invalid(where, f"expected {expected}, got {show(value)}")
    return value


def show(value):
    """A short text of a JSON value for messages."""
    text = json.dumps(value, ensure_ascii=False) if _jsonable(value) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _jsonable(value):
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        return False
    return True


def decode_array(spec, where, dtype, ndim):
    """The array an :func:`encode_array` object describes, of ``dtype`` and ``ndim`` dimensions."""
    require(spec, dict, where, 'an object {"dtype", "shape", "data"}')
    if set(spec) != {"dtype", "shape", "data"}:
        raise Invalid(where, f'expected the fields ["data", "dtype", "shape"], got {sorted(spec)}')
    dtype = np.dtype(dtype)
    if spec["dtype"] != dtype.name:
        raise Invalid(where, f"has dtype {show(spec['dtype'])}, expected {dtype.name!r}")
    shape = require(spec["shape"], list, f"{where}.shape", "a list of sizes")
    if len(shape) != ndim or not all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape
    ):
        raise Invalid(f"{where}.shape", f"expected {ndim} non-negative sizes, got {show(shape)}")
    data = require(spec["data"], list, f"{where}.data", "a list")
    if len(data) != math.prod(shape):
        raise Invalid(
            where, f"has {len(data)} values but its shape {shape} needs {math.prod(shape)}"
        )
    if dtype.kind == "f":
        values = _float_data(data, where)
    else:
        if not all(type(v) is int for v in data):
            bad = next(v for v in data if type(v) is not int)
            raise Invalid(where, f"holds {show(bad)} in an array of {dtype.name}")
        low, high = (0, 1) if dtype.kind == "b" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
        if data and (min(data) < low or max(data) > high):
            raise Invalid(where, f"holds values outside the range of {dtype.name}")
        values = data
    return np.array(values, dtype=dtype).reshape(shape)


def _float_data(data, where):
    values = []
    for v in data:
        if type(v) is float or (type(v) is int):
            if not math.isfinite(v):
                raise Invalid(where, f"holds the number {v}; non-finite values are strings")
            values.append(v)
        elif isinstance(v, str) and v in NON_FINITE:
            values.append(NON_FINITE[v])
        else:
            raise Invalid(where, f"holds {show(v)} in an array of float64")
    return values
