"""Two threads against one on trees of every size: where ``n_jobs=2`` pays and where not.

For each data shape (rows x features), depth, binning and task, fits the same CART
tree with ``n_jobs=1`` and ``n_jobs=2`` in this one process, alternating (``--rounds``
rounds of ``--repeat`` timed fits each, after one untimed fit), and reports the best
fit of each in ms, one thread's time over two threads' (above 1: two threads were
faster), whether the Grower kept two threads (its expected work against
``THREADS_MIN_WORK``), the tree's leaves and depth. Data: ``make_classification``
(five informative features at most, one cluster a class; two classes) or
``make_regression`` (five informative features at most), float32. Run by hand on an
otherwise idle machine; never in CI.
"""

import argparse
import functools
import itertools
import sys
import time

import numpy as np
from bench_peers import emit_report, load_average, machine_facts, machine_header
from sklearn.datasets import make_classification, make_regression

from treelearn import CARTClassifier, CARTRegressor
from treelearn.growing import grower


def make_data(task, n_rows, n_features):
    """``(X, y, estimator class)`` of ``task`` ("classification" or "regression")."""
    informative = min(n_features, 5)
    if task == "regression":
        X, y = make_regression(n_rows, n_features, n_informative=informative, random_state=0)
        return X.astype(np.float32), y, CARTRegressor
    # (make_classification needs two features at least: one feature is the first of two
    # informative ones.)
    width = max(n_features, 2)
    X, y = make_classification(
        n_rows, width, n_informative=min(width, 5), n_redundant=0, n_repeated=0,
        n_clusters_per_class=1, random_state=0,
    )  # fmt: skip
    return X[:, :n_features].astype(np.float32), y, CARTClassifier


def fit_tree(estimator, X, y, max_depth, max_bins, n_jobs):
    """A CART tree of ``estimator`` fitted to ``X``, ``y``."""
    return estimator(max_depth=max_depth, max_bins=max_bins, n_jobs=n_jobs).fit(X, y)


def grower_threads(fit):
    """The thread count the Grower kept (its expected work against
    ``THREADS_MIN_WORK``) in ``fit()``, read as it grows."""
    kept = []
    grow = grower.Grower.grow

    def noting(self):
        kept.append(self.n_threads)
        return grow(self)

    grower.Grower.grow = noting
    try:
        fitted = fit()
    finally:
        grower.Grower.grow = grow
    return fitted, kept[-1]


def best_fits(make, rounds, repeat):
    """``({n_jobs: best seconds}, model, threads)``: the best time of
    ``make(n_jobs)`` (a fitted model), the thread counts alternating each round after
    an untimed fit; the last model fitted on one thread, and the threads the Grower
    kept with ``n_jobs=2``."""
    best = {1: np.inf, 2: np.inf}
    model = threads = None
    for _ in range(rounds):
        for n_jobs in (1, 2):
            if n_jobs == 1:
                model = make(n_jobs)
            else:
                _, threads = grower_threads(lambda: make(2))
            for _ in range(repeat):
                start = time.perf_counter()
                make(n_jobs)
                best[n_jobs] = min(best[n_jobs], time.perf_counter() - start)
    return best, model, threads


def measure(args):
    """One report row per configuration, printed as it is measured."""
    rows = []
    for task, max_bins, (n_rows, n_features) in itertools.product(
        args.tasks, args.bins, args.sizes
    ):
        X, y, estimator = make_data(task, n_rows, n_features)
        for depth in args.depths:
            max_depth = None if depth == "full" else int(depth)
            make = functools.partial(fit_tree, estimator, X, y, max_depth, max_bins)
            best, model, threads = best_fits(make, args.rounds, args.repeat)
            row = (
                task, "exact" if max_bins is None else str(max_bins), f"{n_rows:,} x {n_features}",
                depth, best[1] * 1e3, best[2] * 1e3, best[1] / best[2], threads > 1,
                model.get_n_leaves(), model.get_depth(),
            )  # fmt: skip
            print(format_row(row), flush=True)
            rows.append(row)
    return rows


def format_row(row):
    task, bins, size, depth, one, two, ratio, taken, leaves, tree_depth = row
    return (
        f"| {task} | {bins} | {size} | {depth} | {one:.2f} | {two:.2f} | {ratio:.2f} | "
        f"{'yes' if taken else 'no'} | {leaves} | {tree_depth} |"
    )


def report(rows, machine):
    """The table, after the command, date, machine and load, and a summary line."""
    ratios = [row[6] for row in rows]
    lines = [
        *machine_header(machine),
        "",
        f"One thread's time over two threads': {min(ratios):.2f}-{max(ratios):.2f} on "
        f"{len(ratios)} fits, {sum(r < 0.95 for r in ratios)} below 0.95.",
        "",
        "| task | bins | rows x features | depth | 1 thread ms | 2 threads ms | 1 / 2 | "
        "threads taken | leaves | tree depth |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *(format_row(row) for row in rows),
    ]
    return "\n".join(lines) + "\n"


def size(text):
    n_rows, n_features = text.lower().split("x")
    return int(n_rows), int(n_features)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes", nargs="+", type=size, metavar="ROWSxFEATURES",
        default=[(n, d) for n in (20_000, 50_000, 100_000, 200_000) for d in (1, 4, 16)],
    )  # fmt: skip
    parser.add_argument("--depths", nargs="+", default=["4", "10", "full"])
    parser.add_argument(
        "--bins", nargs="+", type=lambda b: None if b == "exact" else int(b), default=[255, None],
        help="max_bins values; 'exact' for max_bins=None",
    )  # fmt: skip
    parser.add_argument(
        "--tasks", nargs="+", choices=["classification", "regression"],
        default=["classification", "regression"],
    )  # fmt: skip
    parser.add_argument("--rounds", type=int, default=2, help="alternations of the thread counts")
    parser.add_argument("--repeat", type=int, default=7, help="timed fits a round")
    parser.add_argument("--out", help="also write the markdown report to this file")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.repeat < 1:
        parser.error("--rounds and --repeat must be at least 1")
    machine = machine_facts(argv)
    rows = measure(args)
    machine["load_after"] = load_average()
    emit_report(report(rows, machine), args.out)


if __name__ == "__main__":
    main()
