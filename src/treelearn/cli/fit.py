"""``treelearn fit``: grow a tree, print it and a summary, optionally save it."""

import time

import numpy as np

from treelearn.cli.algorithms import (
    ALGORITHMS,
    CLASSIFICATION,
    build_estimator,
    check_options,
    choose_task,
)
from treelearn.cli.options import (
    DATA_EPILOG,
    add_data_arguments,
    add_debug,
    add_tree_arguments,
    non_negative_int,
)
from treelearn.cli.output import format_table
from treelearn.cli.tables import CliError, load_table, split_target
from treelearn.exceptions import TreelearnError
from treelearn.export import export_text

__all__ = ["add_parser", "run_fit"]

_MAX_NAMES_SHOWN = 8


def add_parser(commands):
    """Add ``fit`` to the subcommands."""
    fit = commands.add_parser(
        "fit",
        help="grow a tree and print it with a summary",
        description=(
            "Grow a decision tree on a data file or a bundled dataset, print it as "
            "indented text and summarise it (rows, features by kind, leaves, depth, "
            "training accuracy or RMSE, time taken); --save keeps it as a model file."
        ),
        epilog=DATA_EPILOG + " Examples: 'treelearn fit --dataset watermelon2', "
        "'treelearn fit data.csv --target price --save model.json'.",
    )
    add_data_arguments(fit)
    add_tree_arguments(fit)
    output = fit.add_argument_group("output")
    output.add_argument(
        "--save",
        metavar="FILE",
        help="write the fitted model to a JSON model file (for show and predict)",
    )
    output.add_argument(
        "--decimals",
        type=non_negative_int,
        default=3,
        metavar="N",
        help="digits after the decimal point in the printed tree (default: 3)",
    )
    add_debug(output)
    fit.set_defaults(run=run_fit)


def run_fit(args):
    """Read the data, grow the tree, save it if asked, print it and the summary."""
    table = load_table(args.data, args.dataset, args.nominal, args.numeric)
    X, y, notes = split_target(table, args.target, args.drop)
    task = choose_task(y, args.task, table.source)
    algorithm = ALGORITHMS[args.algorithm]
    check_options([algorithm], args)
    model, more_notes = build_estimator(algorithm, task, args, X, str(y.name))
    notes += more_notes
    if task != CLASSIFICATION:
        y = y.astype(np.float64)
    started = time.perf_counter()
    try:
        model.fit(X, y)
    except TreelearnError as error:
        raise CliError(f"cannot fit a tree on {table.source}: {error}") from error
    seconds = time.perf_counter() - started
    if args.save is not None:
        save_model(model, args.save)
    print(f"{algorithm.label} {task} tree for {y.name!s} ({table.source})\n")
    print(export_text(model, decimals=args.decimals))
    for note in notes:
        print(f"note: {note}")
    print_summary(model, X, y, task, seconds)
    if args.save is not None:
        print(f"\nsaved the model to {args.save} (see 'treelearn show' and 'treelearn predict')")
    return 0


def save_model(model, path):
    """``model.save(path)``, every failure a :class:`CliError`."""
    try:
        model.save(path)
    except TreelearnError as error:
        raise CliError(f"cannot save the model to {path}: {error}") from error
    except OSError as error:
        raise CliError(
            f"cannot save the model to {path}: {error.strerror or error}; check that the "
            "folder exists and can be written to."
        ) from None


def print_summary(model, X, y, task, seconds):
    """Rows, features by kind, classes, tree size, training score and time."""
    schema = getattr(model, "input_schema_", model.feature_schema_)  # before discretizing
    by_kind = {"nominal": [], "numeric": []}
    for name, kind in zip(schema.names, schema.kinds, strict=True):
        by_kind[kind].append(str(name))
    parts = [f"{len(names)} {kind}{name_list(names)}" for kind, names in by_kind.items()]
    lines = [
        ("rows", f"{X.shape[0]}"),
        ("features", f"{schema.n_features}: " + ", ".join(parts)),
    ]
    if task == CLASSIFICATION:
        lines.append(("classes", f"{len(model.classes_)}{name_list(model.classes_)}"))
    lines.append(
        (
            "tree",
            f"{model.get_n_leaves()} leaves, depth {model.get_depth()} ({_split_rule(model)})",
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
    print(format_table(lines))


def _split_rule(model):
    """How the model chose its splits, in a few words."""
    criterion = getattr(model, "criterion", None)
    return f"criterion {criterion}" if criterion else "gain ratio, C4.5's rule"


def name_list(names):
    """`` (a, b, c)`` or `` (a, ..., (12 more))`` after a count."""
    names = [str(n) for n in names]
    if not names:
        return ""
    shown = ", ".join(names[:_MAX_NAMES_SHOWN])
    more = f", ... ({len(names) - _MAX_NAMES_SHOWN} more)" if len(names) > _MAX_NAMES_SHOWN else ""
    return f" ({shown}{more})"
