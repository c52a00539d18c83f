"""``treelearn explain``: the textbook table of a split, from a saved model or a data file."""

import math
from pathlib import Path

from treelearn.cli.algorithms import ALGORITHMS, CLASSIFICATION, build_estimator, check_options
from treelearn.cli.algorithms import choose_task as choose_task_of
from treelearn.cli.options import (
    DATA_EPILOG,
    add_data_arguments,
    add_debug,
    add_tree_arguments,
    non_negative_int,
)
from treelearn.cli.output import format_table
from treelearn.cli.show import load_model
from treelearn.cli.tables import CliError, load_table, split_target
from treelearn.exceptions import TreelearnError
from treelearn.explain import explain

__all__ = ["add_parser", "explanation_text", "run_explain"]

#: The table's columns: (header, DataFrame column).
_COLUMNS = (
    ("gain", "information_gain"),
    ("split info", "split_information"),
    ("gain ratio", "gain_ratio"),
    ("Gini index", "gini_index"),
)


def add_parser(commands):
    """Add ``explain`` to the subcommands."""
    parser = commands.add_parser(
        "explain",
        help="show why a node splits as it does: every attribute's gain, ratio and Gini",
        description=(
            "The table a textbook prints for the split at a node: for every attribute its "
            "information gain, split information, gain ratio, Gini index after the split, "
            "the best threshold of a numeric attribute and, for C4.5, whether it passed the "
            "above-average-gain rule. MODEL is a model file of an ID3 or C4.5 tree (fit "
            "--save); or give DATA and the tree is grown first (any algorithm; default c4.5)."
        ),
        epilog=DATA_EPILOG + " Examples: 'treelearn explain --dataset watermelon2 "
        "--algorithm id3', 'treelearn explain model.json --node 2'.",
    )
    add_data_arguments(parser, data_help="a model file (.json) or a data file")
    add_tree_arguments(parser)
    parser.set_defaults(algorithm="c4.5")
    output = parser.add_argument_group("output")
    output.add_argument(
        "--node",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="the node (default: 0, the root)",
    )
    output.add_argument(
        "--decimals",
        type=non_negative_int,
        default=3,
        metavar="N",
        help="digits after the decimal point (default: 3)",
    )
    add_debug(output)
    parser.set_defaults(run=run_explain)


def run_explain(args):
    """Load or grow the tree, then print the table of ``--node``."""
    if args.data is not None and args.dataset is None and Path(args.data).suffix == ".json":
        model = load_model(args.data)
        if not hasattr(model, "split_records_"):
            raise CliError(
                f"{args.data} holds a {type(model).__name__}, which keeps no split records; "
                "give the training data instead: 'treelearn explain DATA --algorithm cart'."
            )
        X = y = None
    else:
        model, X, y = _grow(args)
    if args.node >= model.tree_.node_count:
        raise CliError(
            f"--node {args.node} is not in the tree; it has nodes 0 to "
            f"{model.tree_.node_count - 1} (see 'treelearn fit ... --save' and 'show')."
        )
    try:
        table = explain(model, args.node, X, y)
    except TreelearnError as error:
        raise CliError(str(error)) from error
    print(explanation_text(table, args.decimals))
    return 0


def _grow(args):
    table = load_table(args.data, args.dataset, args.nominal, args.numeric)
    X, y, notes = split_target(table, args.target, args.drop)
    if choose_task_of(y, args.task, table.source) != CLASSIFICATION:
        raise CliError(
            f"explain shows information gain and Gini, defined for classes; target {y.name!r} "
            "is numeric. Pass --task classification if its values are classes."
        )
    algorithm = ALGORITHMS[args.algorithm]
    check_options([algorithm], args)
    model, more_notes = build_estimator(algorithm, CLASSIFICATION, args, X, str(y.name))
    for note in notes + more_notes:
        print(f"note: {note}")
    try:
        model.fit(X, y)
    except TreelearnError as error:
        raise CliError(f"cannot fit a tree on {table.source}: {error}") from error
    return model, X, y


def _number(value, decimals):
    return (
        ""
        if value is None or (isinstance(value, float) and math.isnan(value))
        else (f"{value:.{decimals}f}")
    )


def explanation_text(table, decimals=3):
    """The explain table as aligned text, with the node's class counts above it."""
    attrs = table.attrs
    counts = ", ".join(f"{label} {_number(w, decimals).rstrip('0').rstrip('.') or '0'}"
                       for label, w in attrs["class_counts"].items())  # fmt: skip
    lines = [
        f"node {attrs['node']}: {attrs['n_samples']} rows (weight "
        f"{_number(attrs['weight'], decimals).rstrip('0').rstrip('.')}); classes {counts}; "
        f"entropy {_number(attrs['entropy'], decimals)}, Gini {_number(attrs['gini'], decimals)}",
    ]
    if table.empty:
        lines.append(attrs["rule"])
        return "\n".join(lines)
    chosen = attrs["chosen"]
    lines.append(f"split on: {chosen if chosen is not None else '(none: the node is a leaf)'}"
                 f"; rule: {attrs['rule']}")  # fmt: skip
    if attrs.get("average_gain") is not None:
        lines.append(f"average gain: {_number(attrs['average_gain'], decimals)}")
    c45 = attrs.get("average_gain") is not None
    corrected = (
        c45
        and ((table["corrected_gain"] - table["information_gain"]).abs().fillna(0) > 1e-12).any()
    )
    header = ["attribute", "kind", "threshold", *(h for h, _ in _COLUMNS)]
    if corrected:
        header.insert(4, "corrected")
    if c45:
        header.append("above avg")
    header += ["status", "chosen"]
    rows = [header]
    for name, row in table.iterrows():
        cells = [name, row["kind"], _number(row["threshold"], decimals)]
        cells += [_number(row[column], decimals) for _, column in _COLUMNS]
        if corrected:
            cells.insert(4, _number(row["corrected_gain"], decimals))
        if c45:
            cells.append("yes" if row["above_average"] is True else "")
        cells += [row["status"], "*" if row["chosen"] else ""]
        rows.append(cells)
    numeric = range(2, 2 + len(_COLUMNS) + (1 if corrected else 0) + 1)
    lines += ["", format_table(rows, right=set(numeric))]
    return "\n".join(lines)
