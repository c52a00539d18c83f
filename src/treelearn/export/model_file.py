"""Model files: a fitted estimator as a versioned JSON document.

``model.save(path)`` (or :func:`save_model`) writes the file and
``treelearn.load(path)`` (or :func:`load_model`) reads it back. A model file is
data, never code: it holds the Tree's arrays, the column schema, the classes
and the parameters, and loading builds the estimator from an allow-list of
treelearn's own classes, checks every field, and imports or runs nothing named
in the file (unlike pickle). The loaded estimator predicts exactly as the saved
one (``predict``, ``predict_proba``, ``apply``).

Layout (``format_version`` 2)::

    {
      "format": "treelearn-model",
      "format_version": 2,
      "treelearn_version": "0.1.0",
      "estimator": "CARTClassifier",
      "params": {"criterion": "gini", "max_depth": 3, ...},
      "schema": {
        "names": ["outlook", "temperature"],
        "kinds": ["nominal", "numeric"],
        "categories": [{"type": "str", "values": ["overcast", "rainy", "sunny"]}, null],
        "from_frame": true
      },
      "classes": {"type": "str", "dtype": "object", "values": ["no", "yes"]},
      "split_records": {...},
      "tree": {
        "n_features": 2,
        "n_classes": 2,
        "arrays": {
          "feature": {"dtype": "int32", "shape": [3], "data": [0, -1, -1]},
          "threshold": {"dtype": "float64", "shape": [3], "data": ["NaN", "NaN", "NaN"]},
          "value": {"dtype": "float64", "shape": [3, 2], "data": [5.0, 9.0, ...]},
          ...
        }
      }
    }

Values
    Categories and classes keep their Python type: a list is written as
    ``{"type": T, "values": [...]}`` with ``T`` one of ``"str"``, ``"int"``,
    ``"float"``, ``"bool"``, or ``"mixed"`` with a parallel ``"types"`` list
    (a nominal column holding both numbers and strings); ``classes`` also
    records the numpy ``dtype`` of ``classes_``. Values JSON cannot hold
    exactly (infinite or NaN floats, dates, arbitrary objects) are refused at
    save time, naming the column.

Tree arrays
    Every array of :class:`~treelearn.tree.Tree` (surrogate arrays included)
    as ``{"dtype", "shape", "data"}``, ``data`` flattened in C order. Floats
    are written with Python's shortest round-trip repr, so they read back
    bit for bit; NaN and infinities, which JSON has no number for, are the
    strings ``"NaN"``, ``"Infinity"`` and ``"-Infinity"``. Version 1 (treelearn
    before the Tree's node indices became int32) wrote every integer array as int64;
    such a file still loads, its indices checked to fit.

Split records (optional)
    What an ID3 or C4.5 tree weighed at each node it searched
    (``split_records_``, read by :func:`treelearn.explain`), laid out as
    :mod:`treelearn.export._split_records_format` describes.

Parameters
    ``get_params()``: JSON numbers, strings, booleans and null as they are;
    tuples and arrays (``categorical_features``) become lists; a non-finite
    float is ``{"type": "float", "value": "Infinity"}``; a dict
    (``class_weight``) is ``{"type": "dict", "keys": <typed values>,
    "values": [...]}``. A ``random_state`` given as a numpy ``RandomState`` or
    ``Generator`` is saved as null, with a warning (it matters only for
    refitting).

Writing
    The document is built (and every value checked) in memory first, then
    written to a temporary file in the target's folder, flushed and fsynced,
    and moved over the target with :func:`os.replace`: a reader sees the old
    file or the new one, never half of one, and an interrupted save leaves the
    old file as it was and no temporary file behind.

Loading
    Checks the format name and version (a newer version is refused with a
    request to upgrade treelearn), the estimator name against the allow-list,
    the parameters (as the estimator checks them), the schema (unique names,
    kinds, typed categories), the classes, every array's dtype, shape and
    values, the Tree's invariants (:meth:`Tree.validate`) and the agreement of
    tree and schema (a nominal split tests a nominal column and maps each of
    its categories); any failure raises
    :class:`~treelearn.exceptions.ModelFormatError` naming the file and the
    field.
"""

import contextlib
import json
import math
import os
import secrets
import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from treelearn._dtypes import NODE_INDEX_DTYPE, NODE_MULTIWAY, NODE_SUBSET, NODE_THRESHOLD
from treelearn.data.schema import NOMINAL, NUMERIC, FeatureSchema
from treelearn.estimators.c45 import C45Classifier
from treelearn.estimators.cart import CARTClassifier, CARTRegressor
from treelearn.estimators.id3 import ID3Classifier
from treelearn.exceptions import ModelFormatError
from treelearn.export._json_values import (
    NON_FINITE,
    Invalid,
    decode_array,
    encode_array,
    non_finite_name,
    require,
    show,
)
from treelearn.export._split_records_format import decode_split_records, encode_split_records
from treelearn.tree.structure import _ARRAY_DTYPES, _SURROGATE_DTYPES, Tree

__all__ = [
    "ESTIMATORS",
    "FORMAT",
    "FORMAT_VERSION",
    "load_model",
    "model_document",
    "model_from_document",
    "save_model",
]

FORMAT = "treelearn-model"
FORMAT_VERSION = 2
#: The estimators a model file may hold, by the name written in the file. An
#: ID3Classifier that discretized numeric columns keeps a discretizer the format
#: does not hold yet, and is refused by the fitted-attribute check.
ESTIMATORS = {
    cls.__name__: cls for cls in (CARTClassifier, CARTRegressor, ID3Classifier, C45Classifier)
}
#: Fitted attributes the format holds; a model with others cannot be saved faithfully.
_FITTED = frozenset(
    {
        "tree_",
        "feature_schema_",
        "n_features_in_",
        "feature_names_in_",
        "n_outputs_",
        "classes_",
        "n_classes_",
        "split_records_",
    }
)
_KEYS = (
    "format",
    "format_version",
    "treelearn_version",
    "estimator",
    "params",
    "schema",
    "classes",
    "tree",
)
#: Fields a document may leave out.
_OPTIONAL_KEYS = ("split_records",)
_TREE_DTYPES = {**_ARRAY_DTYPES, **_SURROGATE_DTYPES}
#: The Tree's dtypes in files of format version 1: its node indices int64.
_TREE_DTYPES_V1 = {
    name: np.int64 if dtype is NODE_INDEX_DTYPE else dtype for name, dtype in _TREE_DTYPES.items()
}
_TYPES = {"str": str, "int": int, "float": float, "bool": bool}
_CLASS_DTYPES = frozenset(
    ["bool", "object", "float16", "float32", "float64"]
    + [f"{sign}int{bits}" for sign in ("", "u") for bits in (8, 16, 32, 64)]
)


# -- saving ------------------------------------------------------------------------
def save_model(model, path):
    """Write a fitted treelearn estimator to a JSON model file, atomically.

    Parameters
    ----------
    model : CARTClassifier, CARTRegressor or ID3Classifier
        A fitted estimator.
    path : str or os.PathLike
        The file to write (replaced if it exists).

    Raises
    ------
    NotFittedError
        If ``model`` is not fitted.
    ModelFormatError
        If the model is not one a model file can hold, or holds a value JSON
        cannot represent exactly (the message names the column or parameter);
        nothing is written then.

    See Also
    --------
    load_model : read the file back.
    """
    document = model_document(model)
    text = json.dumps(document, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    _write_atomic(os.fspath(path), (text + "\n").encode("utf-8"))


def model_document(model):
    """The JSON-ready document (a dict) :func:`save_model` writes for ``model``."""
    name = type(model).__name__
    if ESTIMATORS.get(name) is not type(model):
        raise ModelFormatError(
            f"Cannot save a {name}: model files hold treelearn's own estimators "
            f"({', '.join(ESTIMATORS)}), not other or derived classes."
        )
    check_is_fitted(model, "tree_")
    extra = sorted(key for key in vars(model) if key.endswith("_") and not key.startswith("_"))
    extra = [key for key in extra if key not in _FITTED]
    if extra:
        raise ModelFormatError(
            f"Cannot save this {name}: its fitted attributes {extra} are not part of model "
            f"format version {FORMAT_VERSION}, so the loaded model could differ."
        )
    from treelearn import __version__

    classes = None
    if model._classification:
        typed = _encode_values(model.classes_.tolist(), "classes_")
        classes = {"type": typed.pop("type"), "dtype": _class_dtype(model.classes_), **typed}
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "treelearn_version": __version__,
        "estimator": name,
        "params": _encode_params(model.get_params(deep=False)),
        "schema": _encode_schema(model.feature_schema_),
        "classes": classes,
        "tree": _encode_tree(model.tree_),
    }
    records = getattr(model, "split_records_", None)
    if records:
        document["split_records"] = encode_split_records(records, model.tree_.n_features)
    return document


def _python(value):
    return value.item() if isinstance(value, np.generic) else value


def _value_type(value, where):
    """Type name of a category or class value; refuse what JSON cannot hold exactly."""
    if isinstance(value, bool):
        return "bool"
    if type(value) is int:
        return "int"
    if type(value) is float:
        if not math.isfinite(value):
            raise ModelFormatError(
                f"Cannot save {where}: it holds the value {value!r}, which JSON cannot hold "
                "exactly; replace it (e.g. by a string or a large finite number) and refit."
            )
        return "float"
    if isinstance(value, str):
        return "str"
    raise ModelFormatError(
        f"Cannot save {where}: it holds {value!r} of type {type(value).__name__}; a model "
        "file holds strings, integers, floats and booleans. Convert the column (e.g. "
        ".astype(str)) and refit."
    )


def _encode_values(values, where):
    """``{"type": T, "values": [...]}`` (or ``"mixed"`` with ``"types"``) for a list."""
    values = [_python(v) for v in values]
    types = [_value_type(v, where) for v in values]
    values = [str(v) if t == "str" else v for v, t in zip(values, types, strict=True)]
    if len(set(types)) <= 1:
        return {"type": types[0] if types else "str", "values": values}
    return {"type": "mixed", "types": types, "values": values}


def _class_dtype(classes):
    dtype = classes.dtype
    if dtype.kind == "U":
        return f"<U{dtype.itemsize // 4}"
    if dtype.name not in _CLASS_DTYPES:
        raise ModelFormatError(
            f"Cannot save classes_ of dtype {dtype}; a model file holds classes of bool, "
            "integer, float, str or object dtype."
        )
    return dtype.name


def _encode_scalar(name, value):
    value = _python(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        return {"type": "float", "value": non_finite_name(value)}
    raise ModelFormatError(
        f"Cannot save parameter {name}={value!r}: a model file holds numbers, strings, "
        "booleans, None, lists of these and class_weight dicts."
    )


def _encode_params(params):
    encoded = {}
    for name, value in params.items():
        if isinstance(value, (np.random.RandomState, np.random.Generator)):
            warnings.warn(
                f"{name}={type(value).__name__}(...) cannot be stored in a model file; it is "
                "saved as None (it matters only for refitting).",
                UserWarning,
                stacklevel=4,
            )
            value = None
        if isinstance(value, dict):
            encoded[name] = {
                "type": "dict",
                "keys": _encode_values(list(value), f"parameter {name}"),
                "values": [_encode_scalar(name, v) for v in value.values()],
            }
        elif isinstance(value, (list, tuple, np.ndarray)):
            items = value.ravel().tolist() if isinstance(value, np.ndarray) else value
            encoded[name] = [_encode_scalar(name, v) for v in items]
        else:
            encoded[name] = _encode_scalar(name, value)
    return encoded


def _encode_schema(schema):
    categories = [
        None if kind == NUMERIC else _encode_values(cats, f"column {name!r}")
        for name, kind, cats in zip(schema.names, schema.kinds, schema.categories, strict=True)
    ]
    return {
        "names": list(schema.names),
        "kinds": list(schema.kinds),
        "categories": categories,
        "from_frame": bool(schema.from_frame),
    }


def _encode_tree(tree):
    return {
        "n_features": int(tree.n_features),
        "n_classes": int(tree.n_classes),
        "arrays": {name: encode_array(getattr(tree, name)) for name in _TREE_DTYPES},
    }


def _write_atomic(path, data):
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename."""
    folder = os.path.dirname(os.path.abspath(path))
    temp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    descriptor = os.open(temp, flags, 0o666)  # the umask applies, as for open(path, "w")
    try:
        with open(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    _fsync_folder(folder)


def _fsync_folder(folder):
    """Make the rename durable (POSIX); skipped where folders cannot be opened."""
    if os.name != "posix":
        return
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


# -- loading -------------------------------------------------------------------------
def load_model(path):
    """Read a model file written by :func:`save_model` (or ``model.save``).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    estimator
        A fitted estimator of the class named in the file, which predicts as
        the saved one did.

    Raises
    ------
    ModelFormatError
        If the file is not JSON, is truncated or corrupt, is not a treelearn
        model file, was written by a newer format version, or fails any check
        (the message names the field).
    OSError
        If the file cannot be read.
    """
    with open(path, "rb") as handle:
        raw = handle.read()
    try:
        return _from_document(_parse(raw))
    except Invalid as exc:
        raise ModelFormatError(
            f"{os.fspath(path)!r} is not a valid treelearn model file: {exc}."
        ) from None


def model_from_document(document):
    """The fitted estimator a parsed model document (a dict) describes.

    Raises
    ------
    ModelFormatError
        If the document fails any check of :func:`load_model`.
    """
    try:
        return _from_document(document)
    except Invalid as exc:
        raise ModelFormatError(f"Invalid treelearn model document: {exc}.") from None


def _from_document(document):
    _check_header(document)
    cls = ESTIMATORS[document["estimator"]]
    estimator = _build_estimator(cls, document["params"])
    schema = _decode_schema(document["schema"])
    classes = None
    if cls._classification:
        classes = _decode_classes(document["classes"])
    elif document["classes"] is not None:
        raise Invalid("classes", f"must be null for a {cls.__name__}")
    tree = _decode_tree(document["tree"], document["format_version"])
    _check_agreement(tree, schema, classes)
    estimator.tree_ = tree
    estimator.feature_schema_ = schema
    estimator.n_features_in_ = schema.n_features
    if schema.from_frame:
        estimator.feature_names_in_ = np.array(schema.names, dtype=object)
    estimator.n_outputs_ = 1
    if classes is not None:
        estimator.classes_ = classes
        estimator.n_classes_ = len(classes)
    if "split_records" in document:
        estimator.split_records_ = decode_split_records(
            document["split_records"], tree.node_count, tree.n_features
        )
    return estimator


def _reject_constant(name):
    raise Invalid("", f"JSON holds the non-standard number {name}, which a model file never does")


def _unique_keys(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        duplicated = sorted({k for k in keys if keys.count(k) > 1})
        raise Invalid("", f"a JSON object repeats the keys {duplicated}")
    return dict(pairs)


def _parse(raw):
    if not raw.strip():
        raise Invalid("", "the file is empty")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise Invalid("", f"it is not UTF-8 text ({exc}); a model file is JSON") from None
    try:
        return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as exc:
        raise Invalid(
            "",
            f"it is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            "the file may be truncated or corrupt",
        ) from None
    except RecursionError:
        raise Invalid("", "its JSON is nested too deeply") from None


def _check_header(document):
    if not isinstance(document, dict):
        raise Invalid(
            "",
            f"the document is a JSON {type(document).__name__}, not an object; it is not a "
            "treelearn model file",
        )
    if document.get("format") != FORMAT:
        found = (
            "no 'format' field"
            if "format" not in document
            else (f"format {show(document['format'])}")
        )
        raise Invalid("", f"it has {found}, expected {FORMAT!r}; it is not a treelearn model file")
    version = document.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise Invalid("format_version", f"expected a positive integer, got {show(version)}")
    if version > FORMAT_VERSION:
        raise Invalid(
            "",
            f"it was written in model format version {version} (by treelearn "
            f"{document.get('treelearn_version', '?')}), newer than this treelearn reads "
            f"(version {FORMAT_VERSION}); upgrade treelearn to load it",
        )
    missing = [key for key in _KEYS if key not in document]
    if missing:
        raise Invalid("", f"it lacks the fields {missing}")
    unknown = sorted(set(document) - set(_KEYS) - set(_OPTIONAL_KEYS))
    if unknown:
        raise Invalid("", f"it has unknown fields {unknown}")
    require(document["treelearn_version"], str, "treelearn_version", "a string")
    name = document["estimator"]
    if not isinstance(name, str) or name not in ESTIMATORS:
        raise Invalid(
            "estimator",
            f"{show(name)} is not an estimator a model file may hold "
            f"({', '.join(ESTIMATORS)}); nothing named in a file is imported or run",
        )


# -- typed values --------------------------------------------------------------------
def _decode_value(value, type_name, where):
    if type_name == "float" and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    expected = _TYPES[type_name]
    if type(value) is not expected:
        raise Invalid(where, f"holds {show(value)} where its type says {type_name}")
    if type_name == "float" and not math.isfinite(value):
        raise Invalid(where, f"holds the non-finite number {value}")
    return value


def _decode_values(spec, where, extra=()):
    """The list a ``{"type", "values"}`` object describes (see :func:`_encode_values`)."""
    require(spec, dict, where, 'an object {"type": ..., "values": [...]}')
    allowed = {"type", "values", *extra} | ({"types"} if spec.get("type") == "mixed" else set())
    if set(spec) - allowed or not {"type", "values"} <= set(spec):
        raise Invalid(where, f"expected the fields {sorted(allowed)}, got {sorted(spec)}")
    values = require(spec["values"], list, f"{where}.values", "a list")
    type_name = spec["type"]
    if not isinstance(type_name, str):
        raise Invalid(f"{where}.type", f"expected a type name, got {show(type_name)}")
    if type_name == "mixed":
        types = require(spec.get("types"), list, f"{where}.types", "a list of type names")
        if len(types) != len(values):
            raise Invalid(where, f"has {len(values)} values but {len(types)} types")
    elif type_name in _TYPES:
        types = [type_name] * len(values)
    else:
        raise Invalid(f"{where}.type", f"{show(type_name)} is not one of {[*_TYPES, 'mixed']}")
    decoded = []
    for i, (value, name) in enumerate(zip(values, types, strict=True)):
        if not isinstance(name, str) or name not in _TYPES:
            raise Invalid(f"{where}.types[{i}]", f"{show(name)} is not one of {list(_TYPES)}")
        decoded.append(_decode_value(value, name, f"{where}.values[{i}]"))
    keys = [(type(v), v) for v in decoded]
    if len(set(keys)) != len(keys):
        raise Invalid(where, "repeats a value")
    return decoded


def _decode_classes(spec):
    values = _decode_values(spec, "classes", extra=("dtype",))
    dtype_name = require(spec.get("dtype"), str, "classes.dtype", "a dtype name")
    is_unicode = dtype_name.startswith("<U") and dtype_name[2:].isdigit()
    if not (is_unicode or dtype_name in _CLASS_DTYPES):
        raise Invalid("classes.dtype", f"{show(dtype_name)} is not a dtype classes may have")
    if not values:
        raise Invalid("classes", "a classifier needs at least one class")
    try:
        classes = np.array(values, dtype=np.dtype(dtype_name))
    except (TypeError, ValueError, OverflowError) as exc:
        raise Invalid("classes", f"its values do not fit dtype {dtype_name} ({exc})") from None
    if classes.tolist() != values or any(
        type(a) is not type(b) for a, b in zip(classes.tolist(), values, strict=True)
    ):
        raise Invalid("classes", f"its values do not fit dtype {dtype_name} exactly")
    return classes


# -- parameters ----------------------------------------------------------------------
def _decode_scalar(value, where):
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise Invalid(where, f"holds the non-finite number {value}")
        return value
    if isinstance(value, dict) and set(value) == {"type", "value"} and value["type"] == "float":
        if value["value"] not in NON_FINITE:
            raise Invalid(where, f"{show(value['value'])} is not one of {list(NON_FINITE)}")
        return NON_FINITE[value["value"]]
    raise Invalid(where, f"expected a number, string, boolean or null, got {show(value)}")


def _decode_param(value, where):
    if isinstance(value, list):
        return [_decode_scalar(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and value.get("type") == "dict":
        if set(value) != {"type", "keys", "values"}:
            raise Invalid(where, 'expected the fields ["keys", "type", "values"]')
        keys = _decode_values(value["keys"], f"{where}.keys")
        values = require(value["values"], list, f"{where}.values", "a list")
        if len(values) != len(keys):
            raise Invalid(where, f"has {len(keys)} keys but {len(values)} values")
        return {
            k: _decode_scalar(v, f"{where}.values[{i}]")
            for i, (k, v) in enumerate(zip(keys, values, strict=True))
        }
    return _decode_scalar(value, where)


def _build_estimator(cls, params):
    require(params, dict, "params", "an object of parameters")
    known = cls().get_params(deep=False)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise Invalid("params", f"{cls.__name__} has no parameters {unknown}")
    decoded = {name: _decode_param(value, f"params.{name}") for name, value in params.items()}
    estimator = cls(**{**known, **decoded})
    try:
        estimator._check_params()
    except (TypeError, ValueError) as exc:  # ParameterError is a ValueError
        raise Invalid("params", str(exc)) from None
    return estimator


# -- schema and tree -----------------------------------------------------------------
def _decode_schema(spec):
    require(spec, dict, "schema", "an object")
    expected = {"names", "kinds", "categories", "from_frame"}
    if set(spec) != expected:
        raise Invalid("schema", f"expected the fields {sorted(expected)}, got {sorted(spec)}")
    names = require(spec["names"], list, "schema.names", "a list of column names")
    if not names or not all(isinstance(n, str) for n in names):
        raise Invalid("schema.names", "expected a non-empty list of strings")
    if len(set(names)) != len(names):
        raise Invalid("schema.names", "repeats a column name")
    kinds = require(spec["kinds"], list, "schema.kinds", "a list")
    categories = require(spec["categories"], list, "schema.categories", "a list")
    for field, items in (("kinds", kinds), ("categories", categories)):
        if len(items) != len(names):
            raise Invalid(f"schema.{field}", f"has {len(items)} entries for {len(names)} columns")
    decoded = []
    for j, (name, kind, cats) in enumerate(zip(names, kinds, categories, strict=True)):
        where = f"schema.categories[{j}] (column {name!r})"
        if kind == NUMERIC:
            if cats is not None:
                raise Invalid(where, "a numeric column has no categories; expected null")
            decoded.append(None)
        elif kind == NOMINAL:
            decoded.append(tuple(_decode_values(cats, where)))
        else:
            raise Invalid(f"schema.kinds[{j}]", f"{show(kind)} is not 'nominal' or 'numeric'")
    from_frame = require(spec["from_frame"], bool, "schema.from_frame", "true or false")
    return FeatureSchema(tuple(names), tuple(kinds), tuple(decoded), from_frame)


def _decode_tree(spec, format_version):
    require(spec, dict, "tree", "an object")
    if set(spec) != {"n_features", "n_classes", "arrays"}:
        raise Invalid(
            "tree", f'expected the fields ["arrays", "n_classes", "n_features"], got {sorted(spec)}'
        )
    for key in ("n_features", "n_classes"):
        value = require(spec[key], int, f"tree.{key}", "a non-negative integer")
        if value < 0:
            raise Invalid(f"tree.{key}", f"expected a non-negative integer, got {value}")
    arrays = require(spec["arrays"], dict, "tree.arrays", "an object of arrays")
    missing = [name for name in _TREE_DTYPES if name not in arrays]
    unknown = sorted(set(arrays) - set(_TREE_DTYPES))
    if missing or unknown:
        raise Invalid("tree.arrays", f"missing arrays {missing}, unknown arrays {unknown}")
    dtypes = _TREE_DTYPES_V1 if format_version == 1 else _TREE_DTYPES
    decoded = {
        name: decode_array(arrays[name], f"tree.arrays.{name}", dt, 2 if name == "value" else 1)
        for name, dt in dtypes.items()
    }
    try:
        return Tree(
            **decoded, n_features=spec["n_features"], n_classes=spec["n_classes"]
        ).validate()
    except ModelFormatError as exc:
        raise Invalid("tree", str(exc).rstrip(".")) from None
    except (IndexError, ValueError, TypeError) as exc:  # arrays too inconsistent to check
        raise Invalid("tree", f"its arrays are inconsistent ({exc})") from None


def _check_agreement(tree, schema, classes):
    """The tree fits the schema (features, categories) and the classes."""
    if tree.n_features != schema.n_features:
        raise Invalid(
            "tree.n_features",
            f"is {tree.n_features} but the schema has {schema.n_features} columns",
        )
    n_outputs = tree.value.shape[1]
    if classes is None:
        if tree.n_classes != 0 or n_outputs != 1:
            raise Invalid("tree", "a regression tree needs n_classes 0 and one value per node")
    elif tree.n_classes != len(classes) or n_outputs != len(classes):
        raise Invalid(
            "tree",
            f"n_classes is {tree.n_classes} and value has {n_outputs} columns, but there are "
            f"{len(classes)} classes",
        )
    for name in ("value", "weight"):
        if not np.isfinite(getattr(tree, name)).all():
            raise Invalid(f"tree.arrays.{name}", "holds a non-finite number")
    n_categories = np.array([len(c) if c is not None else 0 for c in schema.categories])
    nominal = schema.is_nominal
    _check_splits(
        "node", tree.kind, tree.feature, np.diff(tree.category_ptr), nominal, n_categories
    )
    _check_splits(
        "surrogate",
        tree.surrogate_kind,
        tree.surrogate_feature,
        np.diff(tree.surrogate_category_ptr),
        nominal,
        n_categories,
    )


def _check_splits(what, kind, feature, map_length, nominal, n_categories):
    for index in np.flatnonzero(kind == NODE_THRESHOLD):
        if nominal[feature[index]]:
            raise Invalid("tree", f"{what} {index} is a threshold split of a nominal column")
    for index in np.flatnonzero((kind == NODE_MULTIWAY) | (kind == NODE_SUBSET)):
        f = feature[index]
        if not nominal[f]:
            raise Invalid("tree", f"{what} {index} is a nominal split of a numeric column")
        if map_length[index] != n_categories[f]:
            raise Invalid(
                "tree",
                f"{what} {index} maps {map_length[index]} categories, but its column has "
                f"{n_categories[f]}",
            )
