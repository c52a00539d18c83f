"""Fit and predict speed of treelearn's CART against scikit-learn, LightGBM and XGBoost.

One run, the same data for every library:

- ``clf2``: ``make_classification(n_samples, n_features, random_state=0)`` (2 classes);
- ``clf10``: the same with ``n_classes=10, n_informative=10``;
- ``reg``: ``make_regression(n_samples, n_features, noise=1.0, random_state=0)``;

cast to float32; the first 80% of the rows train, the last 20% are held out (the
generators shuffle their rows). The parent process generates each data set once
and saves it as ``.npy`` files in a temporary folder; every (library, mode,
threads) then runs in a child process of its own (this script with the hidden
``--child`` option), so that no library's threads, caches or freed memory
affect another's timing. Before the first of them, one child per treelearn mode
compiles treelearn's numba kernels into numba's cache (no timeout; its time is in
the report's header). What a child does:

1. loads the arrays, caps numba (``numba.set_num_threads``) and every BLAS/OpenMP
   pool (``threadpoolctl.threadpool_limits``) to its thread count;
2. warms up on a small problem of the same task (treelearn's numba kernels are
   compiled or loaded from numba's cache; the other libraries load their native
   code). That time is reported on its own (``warm-up s``), never in ``fit s``;
3. fits on the training rows (best of ``--repeat``; with ``--repeat-seconds``, a fit
   is repeated only while the child's fits have taken less than that in all, so that
   short fits are timed several times and long ones once: ``fits`` in the report).
   Binning is part of the fit for every library: treelearn's quantile bins,
   LightGBM's ``Dataset`` construction and XGBoost's ``QuantileDMatrix``
   construction are inside the timer;
4. measures the peak memory the (first) fit added: on Linux it writes ``5`` to
   ``/proc/self/clear_refs`` (which resets the peak resident size, ``VmHWM``),
   reads ``VmRSS`` just before the fit and ``VmHWM`` just after. Where that file is
   not writable, the increase of ``getrusage``'s lifetime peak is used instead;
5. predicts all ``n_samples`` rows (best of ``--repeat``, as the fits) and scores the held-out
   rows: accuracy (LightGBM/XGBoost binary: probability > 0.5; multiclass: argmax)
   or R².

The trees, as alike as each library allows:

- scikit-learn: ``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` (gini /
  squared error), exact thresholds, single-threaded (run once, at 1 thread);
- treelearn: ``CARTClassifier`` / ``CARTRegressor`` with ``max_bins=None`` (exact,
  ``treelearn-exact``) and ``max_bins=255`` (histogram, ``treelearn-hist``),
  ``n_jobs`` = the thread count;
- LightGBM: ``lgb.train`` for one round with ``learning_rate=1``,
  ``num_leaves`` = the leaves scikit-learn grew (at most 131,072, LightGBM's
  limit), ``min_data_in_leaf=1``, ``min_sum_hessian_in_leaf=0``, ``max_bin=255``,
  ``max_depth`` as the tree's (-1 for full depth), ``num_threads``;
- XGBoost: ``xgb.train`` for one round with ``tree_method="hist"``,
  ``grow_policy="lossguide"``, ``max_leaves`` = the same leaves,
  ``min_child_weight=0``, ``reg_lambda=0`` (as LightGBM's default, so that a leaf's
  value is its rows' mean in regression), ``learning_rate=1``, ``max_bin=255``,
  ``max_depth`` as the tree's (0 for full depth), ``nthread``.

scikit-learn runs first for each task, size and depth so that its leaf count is
known; where it was not run or failed, treelearn's exact tree's leaves are used
(the ``leaves asked`` column says whose). For 10 classes LightGBM and XGBoost grow
one tree per class in their one round: ``leaves`` is then the mean over those trees
("mean of 10").

Ratios are the library's fit time, predict time and fit memory over
scikit-learn's, so below 1 means faster or leaner than scikit-learn (three
decimals below 1: 0.097 and 0.104 are either side of a 10x goal); ``vs 1 thr``
is the library's one-thread fit time over this row's (the speed-up of its
threads). Times under a second have three decimals. A child that
runs longer than ``--timeout`` seconds is killed and becomes a ``timeout`` row;
one that fails becomes a row with its error; the run goes on. Nothing here is
asserted: run it by hand (the default grid takes hours on two cores)::

    pip install ".[bench]"
    python benchmarks/bench_peers.py                                    # writes RESULTS.md
    python benchmarks/bench_peers.py --sizes 20000x20 --out /tmp/peers.md --timeout 120
"""

import argparse
import contextlib
import ctypes
import datetime
import gc
import json
import os
import platform
import re
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification, make_regression
from sklearn.metrics import accuracy_score, r2_score
from threadpoolctl import threadpool_limits

TASKS = ("clf2", "clf10", "reg")
LIBRARIES = ("sklearn", "treelearn-exact", "treelearn-hist", "lightgbm", "xgboost")
DEFAULT_SIZES = ("100000x20", "1000000x20", "1000000x50")
TRAIN_FRACTION = 0.8
MAX_BINS = 255
#: LightGBM refuses ``num_leaves`` above this.
LIGHTGBM_MAX_LEAVES = 131_072
#: Libraries whose tree is grown to a leaf count taken from another library's tree.
LEAF_TARGETED = ("lightgbm", "xgboost")
#: Where the leaf count for LightGBM and XGBoost comes from, in order of preference.
LEAF_SOURCES = ("sklearn", "treelearn-exact", "treelearn-hist")
MODES = {
    "sklearn": "exact",
    "treelearn-exact": "exact",
    "treelearn-hist": f"{MAX_BINS} bins",
    "lightgbm": f"{MAX_BINS} bins",
    "xgboost": f"{MAX_BINS} bins",
}
DEFAULT_OUT = Path(__file__).resolve().parent / "RESULTS.md"


# --------------------------------------------------------------------------- options


def parse_size(text):
    """``"100000x20"`` -> ``(100000, 20)``."""
    rows, _, columns = text.lower().partition("x")
    try:
        return int(rows), int(columns)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ROWSxCOLUMNS, got {text!r}") from None


def parse_depth(text):
    """``"none"`` -> None (full depth), ``"10"`` -> 10."""
    return None if text.lower() in ("none", "full") else int(text)


def parse_args(argv=None):
    """The command-line options (``--child`` is the hidden child mode)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", nargs="+", choices=TASKS, default=list(TASKS))
    parser.add_argument(
        "--sizes",
        nargs="+",
        type=parse_size,
        default=[parse_size(s) for s in DEFAULT_SIZES],
        metavar="ROWSxCOLUMNS",
        help=f"data sizes (default: {' '.join(DEFAULT_SIZES)})",
    )
    parser.add_argument(
        "--depths",
        nargs="+",
        type=parse_depth,
        default=[None, 10],
        help="max_depth values ('none' = full depth); default: none 10",
    )
    parser.add_argument("--libraries", nargs="+", choices=LIBRARIES, default=list(LIBRARIES))
    parser.add_argument(
        "--threads",
        nargs="+",
        type=int,
        default=[1, 2],
        help="thread counts (scikit-learn always runs once, at 1); default: 1 2",
    )
    parser.add_argument(
        "--timeout", type=float, default=1800, help="seconds one child may run (default 1800)"
    )
    parser.add_argument(
        "--max-memory",
        type=float,
        default=None,
        help="GiB of address space one child may take (default: 3/4 of the machine's "
        "memory; 0: no limit); beyond it the fit fails with an error row",
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="timed fits and predictions per child; best is kept"
    )
    parser.add_argument(
        "--repeat-seconds",
        type=float,
        default=None,
        help="repeat a child's fit (prediction) only while its fits (predictions) have "
        "taken less than this many seconds in all (default: always --repeat times)",
    )
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help="markdown report (default: RESULTS.md here)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# --------------------------------------------------------------------------- data


def make_data(task, n_samples, n_features, random_state=0):
    """The data set of one task as ``(X float32, y)``."""
    if task == "clf2":
        X, y = make_classification(n_samples, n_features, random_state=random_state)
    elif task == "clf10":
        X, y = make_classification(
            n_samples, n_features, n_classes=10, n_informative=10, random_state=random_state
        )
    else:
        X, y = make_regression(n_samples, n_features, noise=1.0, random_state=random_state)
    return X.astype(np.float32), y


def save_data(folder, X, y):
    """Write ``X.npy`` and ``y.npy`` into ``folder`` (the children load them)."""
    np.save(folder / "X.npy", X)
    np.save(folder / "y.npy", y)


def n_train_rows(n_samples):
    """Rows that train: the first 80%."""
    return round(n_samples * TRAIN_FRACTION)


# --------------------------------------------------------------------------- child: libraries


@dataclass
class Runner:
    """How one library fits, predicts and counts leaves.

    Attributes
    ----------
    fit : callable
        ``fit(X, y) -> model``, binning included.
    predict : callable
        ``predict(model, X) -> labels or values``.
    leaves : callable
        ``leaves(model) -> (mean leaves per tree, number of trees)``.
    """

    fit: object
    predict: object
    leaves: object


def labels_from_scores(task, scores):
    """Class labels from LightGBM/XGBoost outputs: probability > 0.5, or argmax."""
    if task == "clf2":
        return (scores > 0.5).astype(np.int64)
    if task == "clf10":
        return scores.argmax(axis=1)
    return scores


def sklearn_runner(task, depth, threads, leaves):
    """scikit-learn's decision tree (single-threaded: ``threads`` is not used).

    Parameters
    ----------
    task : {"clf2", "clf10", "reg"}
    depth : int or None
        ``max_depth`` (None: full depth).
    threads : int
        Threads of the fit and the prediction.
    leaves : int or None
        Leaves to grow (LightGBM and XGBoost only).

    Returns
    -------
    Runner
    """
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    estimator = DecisionTreeRegressor if task == "reg" else DecisionTreeClassifier
    return Runner(
        fit=lambda X, y: estimator(max_depth=depth, random_state=0).fit(X, y),
        predict=lambda model, X: model.predict(X),
        leaves=lambda model: (model.get_n_leaves(), 1),
    )


def treelearn_runner(max_bins):
    """Runner factory of treelearn's CART with ``max_bins`` (None: exact mode)."""

    def make(task, depth, threads, leaves):
        """Runner of ``CARTClassifier``/``CARTRegressor`` (see :func:`sklearn_runner`)."""
        from treelearn import CARTClassifier, CARTRegressor

        estimator = CARTRegressor if task == "reg" else CARTClassifier
        return Runner(
            fit=lambda X, y: estimator(max_depth=depth, max_bins=max_bins, n_jobs=threads).fit(
                X, y
            ),
            predict=lambda model, X: model.predict(X),
            leaves=lambda model: (model.get_n_leaves(), 1),
        )

    return make


def lightgbm_objective(task):
    """LightGBM's objective parameters for ``task``."""
    return {
        "clf2": {"objective": "binary"},
        "clf10": {"objective": "multiclass", "num_class": 10},
        "reg": {"objective": "regression"},
    }[task]


def lightgbm_leaves(booster):
    """(mean leaves per tree, trees) from LightGBM's model text."""
    counts = [
        int(line.partition("=")[2])
        for line in booster.model_to_string().splitlines()
        if line.startswith("num_leaves=")
    ]
    return float(np.mean(counts)), len(counts)


def lightgbm_runner(task, depth, threads, leaves):
    """One boosting round of LightGBM grown like a CART tree (see :func:`sklearn_runner`)."""
    import lightgbm as lgb

    params = {
        **lightgbm_objective(task),
        "learning_rate": 1.0,
        "num_leaves": leaves,
        "min_data_in_leaf": 1,
        "min_sum_hessian_in_leaf": 0.0,
        "max_bin": MAX_BINS,
        "max_depth": -1 if depth is None else depth,
        "num_threads": threads,
        "verbose": -1,
    }

    def fit(X, y):
        """Bin (the Dataset is built lazily, inside ``lgb.train``) and grow."""
        return lgb.train(params, lgb.Dataset(X, label=y), num_boost_round=1)

    return Runner(
        fit=fit,
        predict=lambda model, X: labels_from_scores(task, model.predict(X, num_threads=threads)),
        leaves=lightgbm_leaves,
    )


def xgboost_objective(task):
    """XGBoost's objective parameters for ``task``."""
    return {
        "clf2": {"objective": "binary:logistic"},
        "clf10": {"objective": "multi:softprob", "num_class": 10},
        "reg": {"objective": "reg:squarederror"},
    }[task]


def xgboost_leaves(booster):
    """(mean leaves per tree, trees) from XGBoost's text dump."""
    counts = [tree.count("leaf=") for tree in booster.get_dump()]
    return float(np.mean(counts)), len(counts)


def xgboost_runner(task, depth, threads, leaves):
    """One boosting round of XGBoost grown like a CART tree (see :func:`sklearn_runner`)."""
    import xgboost as xgb

    params = {
        **xgboost_objective(task),
        "tree_method": "hist",
        "grow_policy": "lossguide",
        "max_leaves": leaves,
        "min_child_weight": 0.0,
        "reg_lambda": 0.0,
        "learning_rate": 1.0,
        "max_bin": MAX_BINS,
        "max_depth": 0 if depth is None else depth,
        "nthread": threads,
        "verbosity": 0,
    }

    def fit(X, y):
        """Bin (``QuantileDMatrix``) and grow."""
        data = xgb.QuantileDMatrix(X, label=y, max_bin=MAX_BINS, nthread=threads)
        return xgb.train(params, data, num_boost_round=1)

    return Runner(
        fit=fit,
        predict=lambda model, X: labels_from_scores(task, model.inplace_predict(X)),
        leaves=xgboost_leaves,
    )


RUNNERS = {
    "sklearn": sklearn_runner,
    "treelearn-exact": treelearn_runner(None),
    "treelearn-hist": treelearn_runner(MAX_BINS),
    "lightgbm": lightgbm_runner,
    "xgboost": xgboost_runner,
}


# --------------------------------------------------------------------------- child: measuring


def proc_status_kb(key):
    """A ``VmRSS``/``VmHWM`` line of ``/proc/self/status`` in kB (None off Linux)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def reset_peak_rss():
    """Reset the kernel's peak resident size (``VmHWM``); False where not allowed."""
    try:
        with open("/proc/self/clear_refs", "w") as clear_refs:
            clear_refs.write("5")
    except OSError:
        return False
    return proc_status_kb("VmHWM") is not None


def lifetime_peak_kb():
    """``getrusage``'s peak resident size of this process in kB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024 if sys.platform == "darwin" else peak


def release_free_memory():
    """Collect garbage and hand freed heap pages back to the system (glibc)."""
    gc.collect()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def measured_fit(fit, X, y):
    """Fit once; (seconds, model, MB of peak memory the fit added, method)."""
    release_free_memory()
    if reset_peak_rss():
        method, before = "VmHWM", proc_status_kb("VmRSS")
    else:
        method, before = "getrusage", lifetime_peak_kb()
    started = time.perf_counter()
    model = fit(X, y)
    seconds = time.perf_counter() - started
    after = proc_status_kb("VmHWM") if method == "VmHWM" else lifetime_peak_kb()
    return seconds, model, max(after - before, 0) / 1024, method


def more_runs(n_done, spent, repeat, repeat_seconds):
    """Whether to time another run after ``n_done`` runs that took ``spent`` seconds
    in all: up to ``repeat`` runs, and (``repeat_seconds`` not None) only while
    ``spent`` is below it."""
    return n_done < repeat and (repeat_seconds is None or spent < repeat_seconds)


def best_time(function, repeat, repeat_seconds=None):
    """(smallest wall time over the calls, the last call's result, the calls made):
    at least one call, more while :func:`more_runs`."""
    best, spent, n_calls, result = np.inf, 0.0, 0, None
    while n_calls == 0 or more_runs(n_calls, spent, repeat, repeat_seconds):
        started = time.perf_counter()
        result = function()
        seconds = time.perf_counter() - started
        best, spent, n_calls = min(best, seconds), spent + seconds, n_calls + 1
    return best, result, n_calls


def warm_up(library, task, threads, n_features):
    """Compile or load every kernel the timed run needs, on small data; seconds taken.

    treelearn's kernels are compiled per code dtype: 2,000 rows give two-byte codes
    in exact mode, 70,000 rows (more than 65,535 distinct values per column) the
    four-byte codes of large data, and nodes of 20,000 rows or more take the
    parallel split search. That tree is grown to full depth: on several threads
    its subtrees are grown on threads and stitched, kernels a shallow tree never
    calls, which would otherwise be loaded inside the first timed fit.
    """
    started = time.perf_counter()
    sizes = [(2000, None)]
    if library.startswith("treelearn"):
        sizes.append((70_000, None))
    for n_samples, depth in sizes:
        X, y = make_data(task, n_samples, n_features, random_state=1)
        runner = RUNNERS[library](task, depth, threads, 31)
        runner.predict(runner.fit(X, y), X)
    return time.perf_counter() - started


def score(task, y_true, predicted):
    """Held-out R² (regression) or accuracy."""
    return r2_score(y_true, predicted) if task == "reg" else accuracy_score(y_true, predicted)


def run_child(spec):
    """Everything one child measures; ``spec`` says which library, task and threads."""
    threads = spec["threads"]
    X = np.load(Path(spec["data"]) / "X.npy")
    y = np.load(Path(spec["data"]) / "y.npy")
    n_train = spec["n_train"]
    X_train, y_train = X[:n_train], y[:n_train]
    library = spec["library"]
    with threadpool_limits(limits=threads):
        if library.startswith("treelearn"):
            import numba

            numba.set_num_threads(threads)
        warm = warm_up(library, spec["task"], threads, X.shape[1])
        runner = RUNNERS[library](spec["task"], spec["depth"], threads, spec["leaves"])
        repeat, repeat_seconds = spec["repeat"], spec["repeat_seconds"]
        fit_time, model, memory, method = measured_fit(runner.fit, X_train, y_train)
        n_fits, fits_spent = 1, fit_time
        while more_runs(n_fits, fits_spent, repeat, repeat_seconds):
            del model
            release_free_memory()
            seconds, model, _, _ = measured_fit(runner.fit, X_train, y_train)
            fit_time, fits_spent, n_fits = min(fit_time, seconds), fits_spent + seconds, n_fits + 1
        predict_time, predicted, n_predicts = best_time(
            lambda: runner.predict(model, X), repeat, repeat_seconds
        )
    leaves, trees = runner.leaves(model)
    return {
        "warm_up": warm,
        "fit": fit_time,
        "predict": predict_time,
        "fits": n_fits,
        "predicts": n_predicts,
        "memory_mb": float(memory),
        "memory_method": method,
        "leaves": float(leaves),
        "trees": int(trees),
        "score": float(score(spec["task"], y[n_train:], predicted[n_train:])),
    }


def limit_memory(gib):
    """Cap this process's address space at ``gib`` GiB (no cap for 0 or None).

    An allocation beyond it fails (MemoryError, std::bad_alloc) in this child
    instead of waking the kernel's out-of-memory killer, which could pick any
    process on the machine.
    """
    if gib:
        limit = int(gib * 1024**3)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def prime_child(spec):
    """Only warm up, on every task of the run: fills numba's cache before the timed children."""
    import numba

    threads = spec["threads"]
    numba.set_num_threads(threads)
    with threadpool_limits(limits=threads):
        started = time.perf_counter()
        for task in spec["tasks"]:
            warm_up(spec["library"], task, threads, n_features=20)
    return {"warm_up": time.perf_counter() - started}


def child_main(spec_path):
    """Entry point of ``--child``: run the spec, write the result JSON next to it."""
    spec = json.loads(Path(spec_path).read_text())
    limit_memory(spec["max_memory"])
    result = prime_child(spec) if spec.get("prime") else run_child(spec)
    Path(spec["result"]).write_text(json.dumps(result))


# --------------------------------------------------------------------------- parent


@dataclass
class Row:
    """One (library, threads) measurement of one configuration, or why it has none."""

    library: str
    threads: int
    result: dict | None = None
    error: str | None = None
    leaves_asked: str = ""


@dataclass
class Config:
    """One task, data size and depth, with the rows of every library."""

    task: str
    n_samples: int
    n_features: int
    depth: int | None
    rows: list = field(default_factory=list)

    @property
    def title(self):
        """``"clf2, 100,000 x 20, full depth"``."""
        depth = "full depth" if self.depth is None else f"max_depth={self.depth}"
        return f"{self.task}, {self.n_samples:,} x {self.n_features}, {depth}"

    def measured(self, library):
        """The rows of ``library`` that have a result."""
        return [r for r in self.rows if r.library == library and r.result is not None]


def child_environment(threads):
    """The parent's environment with numba's and OpenMP's pools sized to ``threads``."""
    env = dict(os.environ)
    env["NUMBA_NUM_THREADS"] = str(threads)
    env["OMP_NUM_THREADS"] = str(threads)
    return env


def last_error_line(stderr):
    """The last ``SomethingError: message`` line of a child's stderr (else its last line)."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"[\w.]+(Error|Exception)\b", line)]
    line = (errors or lines or ["no message"])[-1]
    return line[:200]


def run_in_child(spec, folder, timeout):
    """Run ``spec`` in a child process; (result dict, None) or (None, error text)."""
    name = f"{spec['library']}-{spec['threads']}"
    spec_path, result_path = folder / f"{name}.json", folder / f"{name}.result.json"
    result_path.unlink(missing_ok=True)
    spec_path.write_text(json.dumps({**spec, "result": str(result_path)}))
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(spec_path)]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=child_environment(spec["threads"]),
        )
    except subprocess.TimeoutExpired:
        return None, f"timeout > {timeout:g} s"
    if done.returncode < 0:
        name = signal.Signals(-done.returncode).name
        cap = f" (at the {spec['max_memory']:.1f} GiB cap?)" if spec["max_memory"] else ""
        return None, f"killed by {name}{cap}"
    if done.returncode > 0:
        return None, f"error: {last_error_line(done.stderr)}"
    return json.loads(result_path.read_text()), None


def leaf_target(config, library):
    """(leaves for LightGBM/XGBoost, label of whose count it is), or (None, reason)."""
    for source in LEAF_SOURCES:
        rows = config.measured(source)
        if rows:
            leaves = round(rows[0].result["leaves"])
            break
    else:
        return None, "no leaf count (scikit-learn and treelearn did not run)"
    label = {"sklearn": "sk", "treelearn-exact": "tl exact", "treelearn-hist": "tl hist"}[source]
    if library == "lightgbm" and leaves > LIGHTGBM_MAX_LEAVES:
        return LIGHTGBM_MAX_LEAVES, f"{LIGHTGBM_MAX_LEAVES} (max; {label} {leaves})"
    return leaves, f"{leaves} ({label})"


def thread_counts(library, threads):
    """The thread counts ``library`` runs at (scikit-learn: 1 only)."""
    return [1] if library == "sklearn" else threads


def run_config(config, folder, args, progress):
    """Run every library and thread count of one configuration, scikit-learn first."""
    base = {
        "data": str(folder),
        "n_train": n_train_rows(config.n_samples),
        "task": config.task,
        "depth": config.depth,
        "repeat": args.repeat,
        "repeat_seconds": args.repeat_seconds,
        "max_memory": args.max_memory,
    }
    for library in [lib for lib in LIBRARIES if lib in args.libraries]:
        for threads in thread_counts(library, args.threads):
            row = Row(library, threads)
            leaves = None
            if library in LEAF_TARGETED:
                leaves, row.leaves_asked = leaf_target(config, library)
            if library in LEAF_TARGETED and leaves is None:
                row.error, row.leaves_asked = row.leaves_asked, ""
            else:
                spec = {**base, "library": library, "threads": threads, "leaves": leaves}
                row.result, row.error = run_in_child(spec, folder, args.timeout)
            config.rows.append(row)
            progress(config, row)


def print_progress(config, row):
    """One line per finished child, so that a long run shows where it is."""
    if row.result is None:
        outcome = row.error
    else:
        outcome = (
            f"fit {format_seconds(row.result['fit'])} s, predict {row.result['predict']:.3f} s"
        )
    print(f"  {config.title}: {row.library}, {row.threads} thr: {outcome}", flush=True)


def prime_numba_cache(args):
    """Compile treelearn's kernels into numba's cache, one child per mode, without a timeout.

    The timed children then only load them (their ``warm-up s``), so that a first
    compilation, which can take minutes, does not count against ``--timeout``.

    Returns
    -------
    dict
        Seconds (or the error) per treelearn library, for the report.
    """
    primed = {}
    libraries = [lib for lib in LIBRARIES if lib.startswith("treelearn") and lib in args.libraries]
    with tempfile.TemporaryDirectory(prefix="bench_peers_") as tmp:
        for library in libraries:
            spec = {
                "prime": True,
                "library": library,
                "threads": max(args.threads),
                "tasks": args.tasks,
                "max_memory": args.max_memory,
            }
            result, error = run_in_child(spec, Path(tmp), timeout=None)
            primed[library] = error or f"{result['warm_up']:.0f} s"
            print(f"  {library}: numba compile or cache load: {primed[library]}", flush=True)
    return primed


def benchmark(args):
    """Every configuration of the grid, measured (data generated once per task and size)."""
    configs = []
    for task in args.tasks:
        for n_samples, n_features in args.sizes:
            with tempfile.TemporaryDirectory(prefix="bench_peers_") as tmp:
                folder = Path(tmp)
                save_data(folder, *make_data(task, n_samples, n_features))
                for depth in args.depths:
                    config = Config(task, n_samples, n_features, depth)
                    run_config(config, folder, args, print_progress)
                    configs.append(config)
    return configs


# --------------------------------------------------------------------------- report


def ratio(value, reference, minimum=0.0):
    """``value / reference`` as text (three decimals below 1, two above); "–" without
    a reference above ``minimum``."""
    if reference is None or reference <= minimum or value is None:
        return "–"
    quotient = value / reference
    return f"{quotient:.3f}" if quotient < 1 else f"{quotient:.2f}"


def repeats(args):
    """How many times each fit and prediction was timed, in words."""
    if args.repeat_seconds is None or args.repeat <= 1:
        return f"{args.repeat}"
    return (
        f"up to {args.repeat}, repeated only while a child's fits (predictions) had taken "
        f"under {args.repeat_seconds:g} s in all (`fits`: the fits / predictions timed)"
    )


def format_seconds(seconds):
    """Seconds as text: three decimals under a second, two above."""
    return f"{seconds:.3f}" if seconds < 1 else f"{seconds:.2f}"


def format_leaves(result):
    """Leaves of one tree, or the mean per tree and the number of trees."""
    if result["trees"] == 1:
        return f"{result['leaves']:.0f}"
    return f"{result['leaves']:.1f} (mean of {result['trees']})"


def format_score(task, value):
    """``"acc 0.9123"`` or ``"R² 0.9123"``."""
    return f"{'R²' if task == 'reg' else 'acc'} {value:.4f}"


def table_lines(cells):
    """A markdown table with padded columns from a list of rows of strings."""
    widths = [max(len(row[i]) for row in cells) for i in range(len(cells[0]))]
    lines = []
    for k, row in enumerate(cells):
        lines.append("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |")
        if k == 0:
            lines.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return lines


HEADER = [
    "library",
    "mode",
    "thr",
    "fit s",
    "predict s",
    "fit MB",
    "leaves",
    "leaves asked",
    "held-out",
    "fit/sk",
    "predict/sk",
    "MB/sk",
    "vs 1 thr",
    "warm-up s",
    "fits",
]


def row_cells(config, row, reference):
    """The table cells of one row; ``reference`` is scikit-learn's result or None."""
    start = [row.library, MODES[row.library], str(row.threads)]
    if row.result is None:
        return [*start, row.error, *["–"] * 3, row.leaves_asked or "–", *["–"] * 7]
    r, ref = row.result, reference or {}
    one_thread = [o.result["fit"] for o in config.measured(row.library) if o.threads == 1]
    speed_up = "–"
    if row.threads > 1 and one_thread:
        speed_up = f"{one_thread[0] / r['fit']:.2f}"
    return [
        *start,
        format_seconds(r["fit"]),
        f"{r['predict']:.3f}",
        ("" if r["memory_method"] == "VmHWM" else "≥") + f"{r['memory_mb']:.0f}",
        format_leaves(r),
        row.leaves_asked or "–",
        format_score(config.task, r["score"]),
        ratio(r["fit"], ref.get("fit")),
        ratio(r["predict"], ref.get("predict")),
        ratio(r["memory_mb"], ref.get("memory_mb"), minimum=1.0),
        speed_up,
        f"{r['warm_up']:.1f}",
        f"{r['fits']} / {r['predicts']}",
    ]


def format_config(config):
    """The heading and table of one task, size and depth."""
    sklearn_rows = config.measured("sklearn")
    reference = sklearn_rows[0].result if sklearn_rows else None
    cells = [HEADER] + [row_cells(config, row, reference) for row in config.rows]
    return [f"### {config.title}", "", *table_lines(cells)]


def memory_methods(configs):
    """The memory measures the children used (``VmHWM``, ``getrusage``)."""
    return sorted({r.result["memory_method"] for c in configs for r in c.rows if r.result})


def cpu_model():
    """The CPU model from ``/proc/cpuinfo`` (else what ``platform`` says)."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_total_gib():
    """The machine's memory in GiB (0 where ``/proc/meminfo`` cannot tell)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 1024**2
    except OSError:
        pass
    return 0.0


def versions():
    """Python's and every measured library's version, as one line."""
    names = ["treelearn", "scikit-learn", "lightgbm", "xgboost", "numba", "numpy", "threadpoolctl"]
    found = [f"Python {platform.python_version()}"]
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} not installed")
    return ", ".join(found)


def load_average():
    """The 1, 5 and 15 minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def format_report(configs, args, machine):
    """The whole markdown report: how it was made, then one table per configuration."""
    methods = memory_methods(configs)
    memory_note = {
        "VmHWM": "`VmHWM` after the fit minus `VmRSS` before it (peak reset through "
        "`/proc/self/clear_refs`)",
        "getrusage": "marked ≥: increase of `getrusage`'s lifetime peak "
        "(`/proc/self/clear_refs` not writable; a lower bound)",
    }
    lines = [
        "# treelearn vs scikit-learn, LightGBM and XGBoost",
        "",
        f"Command: `{machine['command']}`  ",
        f"Date: {machine['date']}  ",
        f"Machine: {machine['cpu']}, {machine['cores']} cores, {machine['memory']} memory; "
        f"load average (1, 5, 15 min) before {machine['load_before']}, "
        f"after {machine['load_after']}  ",
        f"Versions: {versions()}",
        "",
        "- Data: first 80% of the rows train, last 20% held out (float32); `clf2` = "
        "`make_classification` with 2 classes, `clf10` = with 10 classes and 10 informative "
        "features, `reg` = `make_regression(noise=1.0)`.",
        f"- Each row is one child process; times are the best of {repeats(args)}. `fit s` "
        "includes binning (treelearn's bins, LightGBM's `Dataset`, XGBoost's "
        "`QuantileDMatrix`); `predict s` predicts all rows; `warm-up s` (numba cache load, "
        "first calls on a small problem) is not in either. treelearn's kernels were compiled "
        "into numba's cache before the grid: "
        + (", ".join(f"{lib} {t}" for lib, t in machine["primed"].items()) or "not run")
        + ".",
        "- `fit MB`: peak memory the fit added, "
        + "; ".join(memory_note[m] for m in methods or ["VmHWM"])
        + ".",
        "- `leaves asked`: LightGBM's `num_leaves` / XGBoost's `max_leaves`, the leaves of "
        "scikit-learn's tree (`sk`) or, where it did not run, of treelearn's exact tree "
        f"(`tl exact`); LightGBM takes at most {LIGHTGBM_MAX_LEAVES:,}. With 10 classes "
        "LightGBM and XGBoost grow one tree per class in their one round: `leaves` is the "
        "mean over those trees.",
        "- Each child's address space is capped at "
        + (f"{args.max_memory:.1f} GiB" if args.max_memory else "no limit (`--max-memory 0`)")
        + " (`--max-memory`): a fit that needs more fails with an error row instead of "
        "waking the out-of-memory killer.",
        "- Ratios: fit time, predict time and fit memory over scikit-learn's (single-threaded); "
        "below 1 is faster or leaner. scikit-learn runs once, at one thread.",
        "",
    ]
    for config in configs:
        lines += [*format_config(config), ""]
    return "\n".join(lines)


def emit_report(text, out):
    """Print the report ``text`` and, where ``out`` is given, write it there
    atomically (a reader never finds half a report)."""
    from treelearn.cli.output import write_atomic

    print(text, end="")
    if out:
        write_atomic(out, text)


def machine_facts(argv):
    """Command, date, CPU, cores, memory and load average for the report's header."""
    return {
        "command": "python " + " ".join(shlex.quote(a) for a in [sys.argv[0], *argv]),
        "date": datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "memory": f"{memory_total_gib():.1f} GiB",
        "load_before": load_average(),
    }


def machine_header(machine, software=""):
    """The report's first lines: command, date, and the machine with its load average
    before and after (:func:`machine_facts`, its ``load_after`` added); ``software``
    (``"Python 3.11.7"``, say) goes after the machine."""
    software = f"{software}; " if software else ""
    return [
        f"Command: `{machine['command']}`  ",
        f"Date: {machine['date']}  ",
        f"Machine: {machine['cpu']}, {machine['cores']} cores, {machine['memory']}; {software}"
        f"load average (1, 5, 15 min) before {machine['load_before']}, "
        f"after {machine['load_after']}",
    ]


def main(argv=None):
    """Run the grid and write the report, or, with ``--child``, one measurement."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args.child:
        child_main(args.child)
        return
    if args.max_memory is None:
        args.max_memory = 0.75 * memory_total_gib()
    machine = machine_facts(argv)
    print(f"{versions()}\n{machine['cpu']}, {machine['cores']} cores", flush=True)
    machine["primed"] = prime_numba_cache(args)
    configs = benchmark(args)
    machine["load_after"] = load_average()
    report = format_report(configs, args, machine)
    print()
    emit_report(report, args.out)
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
