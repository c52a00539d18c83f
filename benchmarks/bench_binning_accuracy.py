"""What histogram mode costs in held-out score, told apart from a tree's luck.

Issue 7 asks for histogram-mode trees of the same accuracy as scikit-learn's, within
half a point. One held-out split says little about that: two trees grown on the same
rows by slightly different split choices (bin edges instead of midpoints between
values) differ by more than half a point on one data set and by less on the next.
This script grows, on each of ``--seeds`` data sets of one task (``bench_peers``'s
generators with ``random_state`` 0, 1, ...; the first 80% of the rows train, the
rest are held out), scikit-learn's tree, treelearn's exact tree (``max_bins=None``)
and its histogram tree (``--max-bins``, default 255), all at ``--max-depth``, and
reports per data set the held-out accuracy (points) or R², the leaves, and the
differences to scikit-learn; then the mean difference with its standard error
(the differences' standard deviation over the square root of the number of data
sets) and the range. Timing is not its business (see ``bench_peers.py``). Run by
hand; never in CI::

    python benchmarks/bench_binning_accuracy.py --task clf10 --rows 100000 --max-depth 10
    python benchmarks/bench_binning_accuracy.py --task reg --rows 100000 --max-depth none
"""

import argparse
import math
import statistics
import sys

from bench_peers import (
    TASKS,
    emit_report,
    load_average,
    machine_facts,
    machine_header,
    make_data,
    n_train_rows,
    parse_depth,
    score,
)


def parse_max_bins(text):
    """``"255"`` -> 255 (``"none"`` is exact mode, not a histogram: refused)."""
    value = int(text)
    if not 2 <= value <= 65_535:
        raise argparse.ArgumentTypeError(f"--max-bins must be 2 to 65535, got {text}")
    return value


def parse_args(argv):
    """The command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", choices=TASKS, default="clf10")
    parser.add_argument("--rows", type=int, default=100_000, help="rows a data set (80%% train)")
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument(
        "--max-depth", type=parse_depth, default=10, help="max_depth ('none': full depth)"
    )
    parser.add_argument("--max-bins", type=parse_max_bins, default=255)
    parser.add_argument("--seeds", type=int, default=8, help="data sets (random_state 0, 1, ...)")
    parser.add_argument("--out", help="also write the markdown report here (atomically)")
    args = parser.parse_args(argv)
    if args.seeds < 2:
        parser.error("--seeds must be at least 2 (the standard error needs two data sets)")
    return args


def held_out_scores(task, rows, features, depth, max_bins, seed):
    """``{model: (score, leaves)}`` of the three trees on data set ``seed``."""
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    from treelearn import CARTClassifier, CARTRegressor

    X, y = make_data(task, rows, features, random_state=seed)
    n_train = n_train_rows(rows)
    regression = task == "reg"
    sklearn_tree = DecisionTreeRegressor if regression else DecisionTreeClassifier
    treelearn_tree = CARTRegressor if regression else CARTClassifier
    models = {
        "sk": sklearn_tree(max_depth=depth, random_state=0),
        "exact": treelearn_tree(max_depth=depth, max_bins=None),
        "hist": treelearn_tree(max_depth=depth, max_bins=max_bins),
    }
    results = {}
    for name, model in models.items():
        model.fit(X[:n_train], y[:n_train])
        results[name] = (score(task, y[n_train:], model.predict(X[n_train:])), model.get_n_leaves())
    return results


def summary(differences, digits):
    """``mean ± standard error (min .. max)`` of ``differences``, ``digits`` decimals."""
    mean = statistics.fmean(differences)
    error = statistics.stdev(differences) / math.sqrt(len(differences))
    low, high = min(differences), max(differences)
    return f"{mean:+.{digits}f} ± {error:.{digits}f} ({low:+.{digits}f} .. {high:+.{digits}f})"


def report(args, machine, rows_by_seed):
    """The markdown report: header, one row a data set, the summary."""
    unit = "R²" if args.task == "reg" else "accuracy, points"
    scale = 1.0 if args.task == "reg" else 100.0
    digits = 4 if args.task == "reg" else 2
    depth = "full depth" if args.max_depth is None else f"max_depth={args.max_depth}"
    lines = [
        f"# Held-out score of histogram mode ({args.max_bins} bins) against exact mode and "
        f"scikit-learn: {args.task}, {args.rows:,} x {args.features}, {depth}",
        "",
        *machine_header(machine),
        "",
        f"Held-out {unit}; differences to scikit-learn's tree on the same data set.",
        "",
        "| data set | scikit-learn | exact | histogram | exact - sk | histogram - sk "
        "| leaves sk / exact / histogram |",
        "|---:|---:|---:|---:|---:|---:|---|",
    ]
    exact_minus, hist_minus = [], []
    for seed, result in rows_by_seed:
        sk, exact, hist = (result[name][0] * scale for name in ("sk", "exact", "hist"))
        exact_minus.append(exact - sk)
        hist_minus.append(hist - sk)
        leaves = " / ".join(f"{result[name][1]:,}" for name in ("sk", "exact", "hist"))
        lines.append(
            f"| {seed} | {sk:.{digits}f} | {exact:.{digits}f} | {hist:.{digits}f} "
            f"| {exact - sk:+.{digits}f} | {hist - sk:+.{digits}f} | {leaves} |"
        )
    hist_minus_exact = [h - e for h, e in zip(hist_minus, exact_minus, strict=True)]
    lines += [
        "",
        f"- exact - scikit-learn: {summary(exact_minus, digits + 1)}",
        f"- histogram - scikit-learn: {summary(hist_minus, digits + 1)}",
        f"- histogram - exact: {summary(hist_minus_exact, digits + 1)}",
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    """Grow the three trees on each data set and print (and write) the report."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    machine = machine_facts(argv)
    rows_by_seed = []
    for seed in range(args.seeds):
        result = held_out_scores(
            args.task, args.rows, args.features, args.max_depth, args.max_bins, seed
        )
        rows_by_seed.append((seed, result))
        print(f"data set {seed}: " + ", ".join(f"{k} {v[0]:.4f}" for k, v in result.items()),
              file=sys.stderr, flush=True)  # fmt: skip
    machine["load_after"] = load_average()
    emit_report(report(args, machine, rows_by_seed), args.out)


if __name__ == "__main__":
    main()
