"""Fit and predict speed of treelearn's CART against scikit-learn's decision trees.

One run, the same data for both libraries:

- classification: ``make_classification(n_samples, n_features, random_state=0)``;
- regression: ``make_regression(n_samples, n_features, noise=1.0, random_state=0)``;

cast to float32 (scikit-learn's trees work in float32 internally). The first
``1 - test_size`` of the rows train, the rest are held out (the generators
shuffle their rows). Every tree is grown at each ``--max-depth`` (default: full
depth and 10) with the same settings on both sides (gini / squared error,
``min_samples_leaf=1``, all features at every node).

Timings are the best of ``--repeat`` runs, single-threaded (``numba.set_num_threads(1)``
and ``threadpoolctl.threadpool_limits(1)``), after a warm-up that compiles or
loads treelearn's numba kernels (its time is reported separately).
Predictions are timed on all ``n_samples`` rows; treelearn's prediction is
also timed with all numba threads. Ratios are treelearn / scikit-learn, so
below 1 means treelearn is faster. Nothing here is asserted: run it by hand::

    python benchmarks/bench_fit_predict.py                      # 1,000,000 rows
    python benchmarks/bench_fit_predict.py --n-samples 200000 --max-depth 10
"""

import argparse
import os
import platform
import time
from dataclasses import dataclass

import numba
import numpy as np
import sklearn
from sklearn.datasets import make_classification, make_regression
from sklearn.metrics import accuracy_score, r2_score
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from threadpoolctl import threadpool_limits

import treelearn
from treelearn import CARTClassifier, CARTRegressor


@dataclass
class Result:
    """Timings and tree sizes of one library on one task and depth."""

    fit: float
    predict: float
    nodes: int
    score: float
    predict_all_threads: float | None = None
    fit_all_threads: float | None = None


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-samples", type=int, default=1_000_000, help="rows generated")
    parser.add_argument("--n-features", type=int, default=20, help="columns generated")
    parser.add_argument(
        "--max-depth",
        nargs="+",
        default=["none", "10"],
        help="depths to grow ('none' = full depth); default: none 10",
    )
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per step; best is kept")
    parser.add_argument("--test-size", type=float, default=0.2, help="held-out fraction")
    parser.add_argument("--no-regression", action="store_true", help="skip the regression rows")
    parser.add_argument(
        "--max-bins",
        type=int,
        default=None,
        help="treelearn's histogram mode (default: exact mode, as scikit-learn)",
    )
    args = parser.parse_args(argv)
    args.max_depth = [None if d.lower() == "none" else int(d) for d in args.max_depth]
    return args


def best_time(function, repeat):
    """(smallest wall time over ``repeat`` calls, the last call's result)."""
    best, result = np.inf, None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - started)
    return best, result


def single_thread():
    """Context: one numba thread and one BLAS/OpenMP thread."""
    numba.set_num_threads(1)
    return threadpool_limits(limits=1)


def all_threads():
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def warm_up(n_features):
    """Compile (or load from numba's cache) every kernel the timed runs use; seconds taken.

    Kernels are compiled per code dtype: 2,000 rows give two-byte codes, 70,000 rows
    (more than 65,535 distinct values per column) the four-byte codes of the timed data.
    """
    started = time.perf_counter()
    for n in (2000, 70_000):
        X, y = make_classification(n, n_features, random_state=1)
        Xr, yr = make_regression(n, n_features, random_state=1)
        X, Xr = X.astype(np.float32), Xr.astype(np.float32)
        for single in (True, False):
            limits = single_thread() if single else None
            jobs = 1 if single else None
            CARTClassifier(n_jobs=jobs).fit(X, y).predict(X)
            CARTClassifier(max_depth=3, n_jobs=jobs).fit(X, y).predict(X)
            CARTRegressor(max_depth=3 if n > 2000 else None, n_jobs=jobs).fit(Xr, yr).predict(Xr)
            if limits is not None:
                limits.restore_original_limits()
            all_threads()
    return time.perf_counter() - started


def run_library(estimator, X_train, y_train, X_all, y_test, n_train, score, repeat, treelearn_):
    if treelearn_:
        estimator.set_params(n_jobs=1)
    with single_thread():
        fit_time, model = best_time(lambda: estimator.fit(X_train, y_train), repeat)
        predict_time, predicted = best_time(lambda: model.predict(X_all), repeat)
    all_threads()
    predict_all = fit_all = None
    if treelearn_:
        predict_all, _ = best_time(lambda: model.predict(X_all), repeat)
        estimator.set_params(n_jobs=None)
        fit_all, parallel_model = best_time(lambda: estimator.fit(X_train, y_train), repeat)
        # The tree must not depend on the thread count.
        assert np.array_equal(parallel_model.tree_.threshold, model.tree_.threshold, equal_nan=True)
    nodes = model.tree_.node_count
    score_ = score(y_test, predicted[n_train:])
    return Result(fit_time, predict_time, nodes, score_, predict_all, fit_all)


def make_data(task, n_samples, n_features, test_size):
    if task == "classification":
        X, y = make_classification(n_samples, n_features, random_state=0)
    else:
        X, y = make_regression(n_samples, n_features, noise=1.0, random_state=0)
    X = X.astype(np.float32)
    n_train = round(n_samples * (1 - test_size))
    return X, y, n_train


def benchmark(args):
    rows = []
    tasks = ["classification"] + ([] if args.no_regression else ["regression"])
    for task in tasks:
        X, y, n_train = make_data(task, args.n_samples, args.n_features, args.test_size)
        X_train, y_train, y_test = X[:n_train], y[:n_train], y[n_train:]
        for depth in args.max_depth:
            if task == "classification":
                ours, theirs = (
                    CARTClassifier(max_depth=depth, max_bins=args.max_bins),
                    DecisionTreeClassifier(max_depth=depth, random_state=0),
                )
                score = accuracy_score
            else:
                ours, theirs = (
                    CARTRegressor(max_depth=depth, max_bins=args.max_bins),
                    DecisionTreeRegressor(max_depth=depth, random_state=0),
                )
                score = r2_score
            common = (X_train, y_train, X, y_test, n_train, score, args.repeat)
            tl = run_library(ours, *common, treelearn_=True)
            sk = run_library(theirs, *common, treelearn_=False)
            rows.append((task, depth, tl, sk))
            print(f"  done: {task}, max_depth={depth}", flush=True)
    return rows


def format_table(rows, n_threads):
    header = [
        "task",
        "max_depth",
        "fit tl (s)",
        "fit sk (s)",
        "fit tl/sk",
        "predict tl (s)",
        "predict sk (s)",
        "predict tl/sk",
        f"predict tl {n_threads} thr (s)",
        f"fit tl {n_threads} thr (s)",
        "nodes tl",
        "nodes sk",
        "held-out tl",
        "held-out sk",
    ]
    lines = [header]
    for task, depth, tl, sk in rows:
        metric = "acc" if task == "classification" else "R2"
        lines.append(
            [
                task,
                "full" if depth is None else str(depth),
                f"{tl.fit:.2f}",
                f"{sk.fit:.2f}",
                f"{tl.fit / sk.fit:.2f}",
                f"{tl.predict:.3f}",
                f"{sk.predict:.3f}",
                f"{tl.predict / sk.predict:.2f}",
                f"{tl.predict_all_threads:.3f}",
                f"{tl.fit_all_threads:.2f}",
                f"{tl.nodes}",
                f"{sk.nodes}",
                f"{metric} {tl.score:.4f}",
                f"{metric} {sk.score:.4f}",
            ]
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = []
    for k, line in enumerate(lines):
        out.append("| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |")
        if k == 0:
            out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(out)


def main(argv=None):
    args = parse_args(argv)
    n_threads = numba.config.NUMBA_NUM_THREADS
    print(
        f"treelearn {treelearn.__version__}, scikit-learn {sklearn.__version__}, "
        f"numba {numba.__version__}, numpy {np.__version__}, Python {platform.python_version()}"
    )
    print(
        f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} CPUs; "
        f"numba threads: {n_threads}"
    )
    n_train = round(args.n_samples * (1 - args.test_size))
    print(
        f"data: {args.n_samples} rows x {args.n_features} features (float32); "
        f"{n_train} train, {args.n_samples - n_train} held out; predict timed on all rows; "
        f"best of {args.repeat}; treelearn "
        + ("exact mode" if args.max_bins is None else f"max_bins={args.max_bins}")
    )
    print(f"warm-up (numba compile or cache load): {warm_up(args.n_features):.1f} s", flush=True)
    rows = benchmark(args)
    print()
    print(format_table(rows, n_threads))
    print(
        "\ntl = treelearn, sk = scikit-learn; single-threaded unless marked; ratio < 1: tl faster"
    )


if __name__ == "__main__":
    main()
