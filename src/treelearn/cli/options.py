"""Arguments shared by the subcommands: the data options and the tree options."""

import argparse

from treelearn.cli.algorithms import (
    ALGORITHMS,
    CLASSIFICATION,
    MAX_CLASSES_AUTO,
    PRUNING_CHOICES,
    REGRESSION,
    criterion_choices,
)
from treelearn.datasets import list_datasets

__all__ = [
    "DATA_EPILOG",
    "add_data_arguments",
    "add_debug",
    "add_tree_arguments",
    "non_negative_int",
    "positive_int",
]

DATA_EPILOG = (
    "DATA is a data file: CSV/TSV (UTF-8 with a header row; delimiter detected; '?' and "
    'empty fields are missing), Parquet (.parquet; pip install "treelearn[parquet]") or '
    "Weka ARFF (.arff; nominal declarations honoured); or builtin:NAME for a bundled dataset. "
    "Text and true/false columns are nominal, number columns numeric (override with "
    "--nominal/--numeric). With --task auto the target is a regression target when it is "
    f"numeric and has non-integer values or more than {MAX_CLASSES_AUTO} distinct values; "
    "otherwise each distinct value is a class."
)


def positive_int(text):
    """argparse type: an int >= 1."""
    return _int_at_least(text, 1)


def non_negative_int(text):
    """argparse type: an int >= 0."""
    return _int_at_least(text, 0)


def _int_at_least(text, low):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"expected a number >= {low}, got {value}")
    return value


def add_debug(parser):
    """``--debug``: show the traceback of an error."""
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an error")


def add_data_arguments(parser, target=True, kinds=True, data_help=None):
    """DATA, --dataset, and (optionally) --target, --drop, --nominal, --numeric."""
    group = parser.add_argument_group("data")
    group.add_argument(
        "data",
        nargs="?",
        metavar="DATA",
        help=data_help or "CSV/TSV, Parquet or ARFF file (or builtin:NAME for a bundled dataset)",
    )
    group.add_argument(
        "--dataset",
        metavar="NAME",
        help=f"a bundled dataset instead of DATA: {', '.join(list_datasets())}",
    )
    if target:
        group.add_argument(
            "--target",
            metavar="COL",
            help="the column to predict (default: the dataset's target, or a file's last column)",
        )
        group.add_argument(
            "--drop",
            metavar="COLS",
            help="comma-separated columns to leave out (row numbers, identifiers, ...)",
        )
    if kinds:
        group.add_argument(
            "--nominal",
            metavar="COLS",
            help="comma-separated columns to treat as categories (e.g. numeric codes)",
        )
        group.add_argument(
            "--numeric",
            metavar="COLS",
            help="comma-separated columns to treat as numbers (each value must be a number)",
        )
    return group


def add_tree_arguments(parser, repeat_algorithm=False):
    """--algorithm, --task, --criterion, --max-depth, --min-samples-leaf, --discretize."""
    group = parser.add_argument_group("tree")
    names = ", ".join(f"{a.name} ({a.summary})" for a in ALGORITHMS.values())
    if repeat_algorithm:
        group.add_argument(
            "--algorithm",
            choices=list(ALGORITHMS),
            action="append",
            metavar="NAME",
            help=f"learning algorithm, repeat to compare several side by side: {names} "
            "(default: cart)",
        )
    else:
        group.add_argument(
            "--algorithm",
            choices=list(ALGORITHMS),
            default="cart",
            help=f"learning algorithm: {names} (default: cart)",
        )
    group.add_argument(
        "--task",
        choices=["auto", CLASSIFICATION, REGRESSION],
        default="auto",
        help="classification or regression tree (default: auto, from the target; see below)",
    )
    group.add_argument(
        "--criterion",
        choices=criterion_choices(),
        help="split criterion (default: gini for CART classes, entropy for ID3, "
        "squared_error for numbers)",
    )
    group.add_argument(
        "--max-depth",
        type=positive_int,
        metavar="N",
        help="grow at most N levels below the root (default: no limit)",
    )
    group.add_argument(
        "--min-samples-leaf",
        type=positive_int,
        metavar="N",
        help="CART: each leaf keeps at least N rows (default: 1); C4.5: its m, a split "
        "needs two branches of at least N rows (default: 2)",
    )
    group.add_argument(
        "--discretize",
        choices=["mdl", "quantile"],
        help="ID3: cut numeric columns into intervals (Fayyad-Irani MDL or quantile bins)",
    )
    pruning = parser.add_argument_group("pruning")
    pruning.add_argument(
        "--pruning",
        choices=PRUNING_CHOICES,
        help="prune after growing: error_based (C4.5's, the default of c4.5), pessimistic "
        "(Quinlan 1987), reduced_error or validation (on --validation-fraction of the rows "
        "held out), none (default: none for cart and id3)",
    )
    pruning.add_argument(
        "--cf",
        type=_fraction,
        metavar="F",
        help="C4.5's confidence factor for --pruning error_based (default 0.25; smaller "
        "prunes more)",
    )
    pruning.add_argument(
        "--ccp-alpha",
        type=_non_negative_float,
        metavar="A",
        help="CART: cost-complexity pruning at this alpha (default 0: none)",
    )
    pruning.add_argument(
        "--validation-fraction",
        type=_fraction,
        metavar="F",
        help="share of the rows held out for --pruning reduced_error or validation (default 0.25)",
    )
    return group


def _float(text):
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def _fraction(text):
    """argparse type: a number in (0, 1)."""
    value = _float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text}")
    return value


def _non_negative_float(text):
    """argparse type: a number >= 0."""
    value = _float(text)
    if not value >= 0.0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text}")
    return value
