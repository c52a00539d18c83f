"""``treelearn datasets``: the bundled datasets, one line each."""

from treelearn.cli.algorithms import CLASSIFICATION
from treelearn.cli.options import add_debug
from treelearn.cli.output import format_table
from treelearn.cli.tables import feature_kinds
from treelearn.datasets import dataset_info, list_datasets, load_dataset

__all__ = ["add_parser", "run_datasets"]


def add_parser(commands):
    """Add ``datasets`` to the subcommands."""
    datasets = commands.add_parser(
        "datasets",
        help="list the bundled datasets",
        description=(
            "List the bundled datasets, usable wherever DATA is accepted as "
            "'--dataset NAME' or 'builtin:NAME'."
        ),
    )
    add_debug(datasets)
    datasets.set_defaults(run=run_datasets)


def run_datasets(args):
    """Print one line per bundled dataset."""
    rows = [("name", "rows", "features", "target", "description")]
    for name in list_datasets():
        info = dataset_info(name)
        X, y = load_dataset(name)
        kinds = feature_kinds(X)
        features = ", ".join(f"{len(cols)} {kind}" for kind, cols in kinds.items() if cols)
        classes = f"{y.nunique()} classes" if info.task == CLASSIFICATION else "numeric"
        rows.append((name, str(X.shape[0]), features, f"{info.target} ({classes})", info.title))
    print(format_table(rows))
    print("\nUse one with: treelearn fit --dataset NAME (or DATA as builtin:NAME)")
    return 0
