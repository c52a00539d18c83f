"""``treelearn predict``: a saved model's predictions for the rows of a data file.

The output is CSV: the input rows in their order with all their own columns
(from a CSV file, every field exactly as written), then ``prediction`` and,
with ``--proba``, one ``P(class)`` column per class. It goes to stdout, or to
``-o FILE``, written atomically.

The model's columns are found by name; the file may have more (an id, the
true target), which are copied but not used. A column the model learned as
nominal from text is read as text whatever it looks like (so ``007`` stays
``"007"``), and one it learned as numeric must hold numbers.
"""

from pathlib import Path

import numpy as np
import pandas as pd

from treelearn.cli.options import add_debug
from treelearn.cli.output import write_atomic
from treelearn.cli.show import load_model
from treelearn.cli.tables import (
    CliError,
    dataset_name,
    describe_columns,
    load_table,
    read_data_file,
)
from treelearn.data.readers import file_format, set_kinds
from treelearn.data.schema import NOMINAL
from treelearn.exceptions import DataError, TreelearnError

__all__ = ["add_parser", "run_predict"]


def add_parser(commands):
    """Add ``predict`` to the subcommands."""
    predict = commands.add_parser(
        "predict",
        help="predict the rows of a data file with a saved model",
        description=(
            "Predict every row of DATA with a model saved by 'treelearn fit --save FILE'. "
            "The output is CSV: the input rows, in order, with their own columns, then "
            "'prediction' (and with --proba one P(class) column per class)."
        ),
        epilog=(
            "DATA is a CSV/TSV, Parquet or ARFF file, or builtin:NAME (or --dataset NAME). "
            "It needs the model's feature columns (found by name); other columns are "
            "copied to the output unchanged. Example: "
            "'treelearn predict model.json new.csv -o predicted.csv --proba'."
        ),
    )
    predict.add_argument("model", metavar="MODEL", help="a model file written by fit --save")
    predict.add_argument(
        "data", nargs="?", metavar="DATA", help="the rows to predict (a file or builtin:NAME)"
    )
    predict.add_argument("--dataset", metavar="NAME", help="a bundled dataset instead of DATA")
    predict.add_argument(
        "-o", "--output", metavar="FILE", help="write the CSV to FILE (default: print it)"
    )
    predict.add_argument(
        "--proba", action="store_true", help="add the class probabilities (classification)"
    )
    add_debug(predict)
    predict.set_defaults(run=run_predict)


def _text_columns(schema):
    """The model's nominal columns learned from text: read them as text."""
    return [
        name
        for name, kind, categories in zip(
            schema.names, schema.kinds, schema.categories, strict=True
        )
        if kind == NOMINAL and categories and all(isinstance(c, str) for c in categories)
    ]


def _read_rows(args, schema):
    """(features for the model, the rows to copy to the output, what to call the data)."""
    if dataset_name(args.data, args.dataset) is not None or args.data is None:
        table = load_table(args.data, args.dataset, example="treelearn predict MODEL data.csv")
        frame = table.frame
        output = frame.reset_index() if frame.index.name is not None else frame.copy()
    elif _is_text(args.data):
        output = read_data_file(args.data, as_text=True).frame
        text = [c for c in _text_columns(schema) if c in set(output.columns)]
        table = read_data_file(args.data, nominal=text)
        frame = table.frame
    else:
        table = read_data_file(args.data)
        frame = table.frame
        output = frame.copy()
    columns = [str(c) for c in frame.columns]
    absent = [name for name in schema.names if name not in columns]
    if absent:
        raise CliError(
            f"{table.source} lacks the model's columns {', '.join(repr(a) for a in absent)}; "
            f"the model needs {describe_columns(schema.names)}, and {table.source} has "
            f"{describe_columns(columns)}."
        )
    frame = _conform(frame, schema, table.source)
    return frame[list(schema.names)], output, table.source


def _is_text(data):
    """CSV and ARFF rows are copied to the output as written in the file."""
    try:
        return file_format(data) in ("csv", "arff")
    except DataError:
        return False  # read_data_file reports the extension


def _conform(frame, schema, source):
    """Text-learned nominal columns as text, numeric columns as numbers."""
    text = set(_text_columns(schema))
    nominal = [n for n in schema.names if n in text]
    numeric = [
        name
        for name, kind in zip(schema.names, schema.kinds, strict=True)
        if kind != NOMINAL
        and not (
            pd.api.types.is_numeric_dtype(frame[name].dtype)
            and not pd.api.types.is_bool_dtype(frame[name].dtype)
        )
    ]
    try:
        return set_kinds(frame, nominal, numeric, source)
    except DataError as error:
        raise CliError(f"{error} (the model learned it as numeric)") from None


def _unique_name(name, taken):
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def run_predict(args):
    """Predict every row; write the input rows with the predictions appended."""
    model = load_model(args.model)
    is_classifier = hasattr(model, "classes_")
    if args.proba and not is_classifier:
        raise CliError(
            f"--proba needs a classification model, but {args.model} holds a regression "
            "tree; leave out --proba."
        )
    schema = getattr(model, "input_schema_", model.feature_schema_)
    X, output, source = _read_rows(args, schema)
    _check_output(args, source)
    try:
        predicted = model.predict(X)
        proba = model.predict_proba(X) if args.proba else None
    except TreelearnError as error:
        raise CliError(f"cannot predict the rows of {source}: {error}") from error
    output = output.reset_index(drop=True)
    taken = {str(c) for c in output.columns}
    output[_unique_name("prediction", taken)] = np.asarray(predicted, dtype=object)
    if proba is not None:
        for j, label in enumerate(model.classes_):
            output[_unique_name(f"P({label})", taken)] = proba[:, j]
    text = output.to_csv(index=False, lineterminator="\n")
    if args.output is None:
        print(text, end="")
        return 0
    write_atomic(args.output, text)
    print(f"wrote {len(output)} predictions for {source} to {args.output}")
    return 0


def _check_output(args, source):
    if args.output is None:
        return
    target = Path(args.output).resolve()
    for what, path in (("data file", source), ("model file", args.model)):
        if Path(path).exists() and Path(path).resolve() == target:
            raise CliError(
                f"-o {args.output} is the {what}; write the predictions to another file."
            )
