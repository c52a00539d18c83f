"""The ``treelearn`` command: argument parsing, the subcommands, and error reporting.

Commands (thin over the Python API):

``treelearn fit [DATA] [--dataset NAME] [--target COL] [options]``
    Read a table, grow a tree, print it (:func:`treelearn.export.export_text`)
    and a summary.
``treelearn datasets``
    List the bundled datasets (:mod:`treelearn.datasets`).

Errors the user can fix (a missing file, an unknown column or dataset, data the
estimators reject) print one line to stderr, ``treelearn <command>: error:
<what>, <where>; <what to do>``, and exit with status 2, without a traceback
(``--debug`` shows it).
"""

import argparse
import sys
import time

import numpy as np
import pandas as pd

from treelearn import __version__
from treelearn.cli.tables import CliError, load_table, split_target
from treelearn.datasets import dataset_info, list_datasets, load_dataset
from treelearn.estimators import CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.exceptions import TreelearnError
from treelearn.export import export_text

__all__ = ["main"]

#: Exit status of every error the user can fix (argparse uses 2 as well).
EXIT_USAGE = 2

CLASSIFICATION = "classification"
REGRESSION = "regression"
CLASSIFICATION_CRITERIA = ("gini", "entropy")
REGRESSION_CRITERIA = ("squared_error", "absolute_error", "huber")
#: A numeric target with more distinct values than this is a regression target.
MAX_CLASSES_AUTO = 20
_MAX_NAMES_SHOWN = 8


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and name the help to read."""

    def error(self, message):
        self.exit(
            EXIT_USAGE,
            f"{self.prog}: error: {message} (see '{self.prog} --help')\n",
        )


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _non_negative_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {value}")
    return value


def build_parser():
    """The ``treelearn`` argument parser with its subcommands."""
    parser = _Parser(
        prog="treelearn",
        description="Decision trees from a data file or a bundled dataset.",
        epilog="Run 'treelearn COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"treelearn {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_fit(commands)
    datasets = commands.add_parser(
        "datasets",
        help="list the bundled datasets",
        description="List the bundled datasets (usable as 'treelearn fit --dataset NAME').",
    )
    datasets.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    datasets.set_defaults(run=run_datasets)
    return parser


def _add_fit(commands):
    fit = commands.add_parser(
        "fit",
        help="grow a tree and print it with a summary",
        description=(
            "Grow a decision tree on a data file or a bundled dataset, print it as "
            "indented text and summarise it (rows, features by kind, leaves, depth, "
            "training accuracy or RMSE, time taken)."
        ),
        epilog=(
            "DATA is a UTF-8 CSV/TSV file with a header row (delimiter ',', ';' or tab, "
            "detected from the header); '?' and empty fields are missing values. Text and "
            "true/false columns are nominal, number columns numeric. With --task auto the "
            f"target is a regression target when it is numeric and has non-integer values "
            f"or more than {MAX_CLASSES_AUTO} distinct values; otherwise each distinct value "
            "is a class. Examples: 'treelearn fit --dataset watermelon2', "
            "'treelearn fit data.csv --target price'."
        ),
    )
    source = fit.add_argument_group("data")
    source.add_argument(
        "data",
        nargs="?",
        metavar="DATA",
        help="CSV/TSV file to learn from (or builtin:NAME for a bundled dataset)",
    )
    source.add_argument(
        "--dataset",
        metavar="NAME",
        help=f"a bundled dataset instead of DATA: {', '.join(list_datasets())}",
    )
    source.add_argument(
        "--target",
        metavar="COL",
        help="the column to predict (default: the dataset's target, or a file's last column)",
    )
    source.add_argument(
        "--drop",
        metavar="COLS",
        help="comma-separated columns to leave out (row numbers, identifiers, ...)",
    )
    tree = fit.add_argument_group("tree")
    tree.add_argument(
        "--algorithm",
        choices=["cart", "id3"],
        default="cart",
        help="learning algorithm: cart (binary splits; classes or numbers) or id3 (multiway "
        "splits on nominal columns, classes only); C4.5 arrives in a later version",
    )
    tree.add_argument(
        "--discretize",
        choices=["mdl", "quantile"],
        help="id3 only: turn numeric columns into intervals (Fayyad-Irani MDL or quantile bins)",
    )
    tree.add_argument(
        "--task",
        choices=["auto", CLASSIFICATION, REGRESSION],
        default="auto",
        help="classification or regression tree (default: auto, from the target; see below)",
    )
    tree.add_argument(
        "--criterion",
        choices=CLASSIFICATION_CRITERIA + REGRESSION_CRITERIA,
        help="split criterion (default: gini for CART classes, entropy for ID3, "
        "squared_error for numbers)",
    )
    tree.add_argument(
        "--max-depth",
        type=_positive_int,
        metavar="N",
        help="grow at most N levels below the root (default: no limit)",
    )
    tree.add_argument(
        "--min-samples-leaf",
        type=_positive_int,
        default=1,
        metavar="N",
        help="each leaf keeps at least N rows (default: 1)",
    )
    output = fit.add_argument_group("output")
    output.add_argument(
        "--decimals",
        type=_non_negative_int,
        default=3,
        metavar="N",
        help="digits after the decimal point in the printed tree (default: 3)",
    )
    output.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    fit.set_defaults(run=run_fit)


def main(argv=None):
    """Run the ``treelearn`` command; return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 for an error the user can fix.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version and usage errors
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    try:
        return args.run(args)
    except (CliError, TreelearnError) as error:
        if args.debug:
            raise
        message = " ".join(str(error).split())
        print(f"treelearn {args.command}: error: {message}", file=sys.stderr)
        return EXIT_USAGE


# -- treelearn datasets --------------------------------------------------------------


def run_datasets(args):
    """Print one line per bundled dataset."""
    rows = []
    for name in list_datasets():
        info = dataset_info(name)
        X, y = load_dataset(name)
        kinds = _feature_kinds(X)
        features = ", ".join(f"{len(cols)} {kind}" for kind, cols in kinds.items() if cols)
        classes = f"{y.nunique()} classes" if info.task == CLASSIFICATION else "numeric"
        rows.append((name, str(X.shape[0]), features, f"{info.target} ({classes})", info.title))
    header = ("name", "rows", "features", "target", "description")
    widths = [max(_width(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [_pad(cell, width) for cell, width in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[-1]]))
    print("\nUse one with: treelearn fit --dataset NAME")
    return 0


def _width(text):
    """Display width: CJK characters take two columns in a terminal."""
    return sum(2 if ord(ch) >= 0x1100 else 1 for ch in text)


def _pad(text, width):
    return text + " " * (width - _width(text))


def _feature_kinds(X):
    """Column names by kind, with the rule the estimators use for DataFrames."""
    kinds = {"nominal": [], "numeric": []}
    for name in X.columns:
        dtype = X[name].dtype
        numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
        kinds["numeric" if numeric else "nominal"].append(str(name))
    return kinds


# -- treelearn fit ---------------------------------------------------------------------


def run_fit(args):
    """Read the data, grow the tree, print it and the summary."""
    table = load_table(args.data, args.dataset)
    X, y, notes = split_target(table, args.target, args.drop)
    task = choose_task(y, args.task, table.source)
    criterion = _check_criterion(args.criterion, task, y.name)
    model = _estimator(args, task, criterion, y.name)
    if task == REGRESSION:
        y = y.astype(np.float64)
    started = time.perf_counter()
    try:
        model.fit(X, y)
    except TreelearnError as error:
        raise CliError(f"cannot fit a tree on {table.source}: {error}") from error
    seconds = time.perf_counter() - started
    print(f"{args.algorithm.upper()} {task} tree for {y.name!s} ({table.source})\n")
    print(export_text(model, decimals=args.decimals))
    for note in notes:
        print(f"note: {note}")
    _print_summary(model, X, y, task, seconds)
    return 0


def _estimator(args, task, criterion, target):
    """The estimator the options ask for, or a :class:`CliError` naming the clash."""
    params = {"max_depth": args.max_depth}
    if criterion is not None:
        params["criterion"] = criterion
    if args.algorithm == "id3":
        if task != CLASSIFICATION:
            raise CliError(
                f"--algorithm id3 grows classification trees, but target {target!r} is "
                "numeric; use --algorithm cart, or --task classification if its values are classes."
            )
        if args.min_samples_leaf != 1:
            raise CliError("--min-samples-leaf is a CART option; ID3 has no leaf-size limit.")
        return ID3Classifier(discretize=args.discretize, **params)
    if args.discretize is not None:
        raise CliError("--discretize is an ID3 option; CART splits numeric columns itself.")
    params["min_samples_leaf"] = args.min_samples_leaf
    return (CARTClassifier if task == CLASSIFICATION else CARTRegressor)(**params)


def choose_task(y, requested, source):
    """``"classification"`` or ``"regression"`` for the target ``y``.

    ``auto``: regression when ``y`` is numeric (not bool) and has non-integer
    values or more than :data:`MAX_CLASSES_AUTO` distinct values.
    """
    numeric = pd.api.types.is_numeric_dtype(y.dtype) and not pd.api.types.is_bool_dtype(y.dtype)
    if requested == REGRESSION:
        if not numeric:
            raise CliError(
                f"--task regression needs a numeric target, but column {y.name!r} of {source} "
                "holds text; drop --task regression to grow a classification tree."
            )
        return REGRESSION
    if requested == CLASSIFICATION or not numeric:
        return CLASSIFICATION
    values = y.to_numpy(dtype=np.float64)
    fractional = bool(np.any(values != np.round(values)))
    if fractional or np.unique(values).shape[0] > MAX_CLASSES_AUTO:
        return REGRESSION
    return CLASSIFICATION


def _check_criterion(criterion, task, target):
    if criterion is None:
        return None
    allowed = CLASSIFICATION_CRITERIA if task == CLASSIFICATION else REGRESSION_CRITERIA
    if criterion not in allowed:
        raise CliError(
            f"--criterion {criterion} is not for a {task} tree (target {target!r}); "
            f"use one of {', '.join(allowed)}, or set --task."
        )
    return criterion


def _print_summary(model, X, y, task, seconds):
    schema = getattr(model, "input_schema_", model.feature_schema_)  # before discretizing
    by_kind = {"nominal": [], "numeric": []}
    for name, kind in zip(schema.names, schema.kinds, strict=True):
        by_kind[kind].append(str(name))
    parts = [f"{len(names)} {kind}{_name_list(names)}" for kind, names in by_kind.items()]
    lines = [
        ("rows", f"{X.shape[0]}"),
        ("features", f"{schema.n_features}: " + ", ".join(parts)),
    ]
    if task == CLASSIFICATION:
        lines.append(("classes", f"{len(model.classes_)}{_name_list(model.classes_)}"))
    criterion = model.criterion
    lines.append(
        (
            "tree",
            f"{model.get_n_leaves()} leaves, depth {model.get_depth()} (criterion {criterion})",
        )
    )
    predicted = model.predict(X)
    if task == CLASSIFICATION:
        correct = int(np.sum(predicted == y.to_numpy()))
        accuracy = correct / len(y)
        lines.append(("training accuracy", f"{accuracy:.2%} ({correct} of {len(y)} rows)"))
    else:
        target = y.to_numpy(dtype=np.float64)
        rmse = float(np.sqrt(np.mean((predicted - target) ** 2)))
        lines.append(("training RMSE", f"{rmse:.4g} (target std {np.std(target):.4g})"))
    lines.append(("time", f"{seconds:.3f} s to fit"))
    width = max(len(label) for label, _ in lines)
    for label, text in lines:
        print(f"{label.ljust(width)}  {text}")


def _name_list(names):
    names = [str(n) for n in names]
    if not names:
        return ""
    shown = ", ".join(names[:_MAX_NAMES_SHOWN])
    more = f", ... ({len(names) - _MAX_NAMES_SHOWN} more)" if len(names) > _MAX_NAMES_SHOWN else ""
    return f" ({shown}{more})"
