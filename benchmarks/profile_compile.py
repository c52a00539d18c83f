"""Where a first run's compile time goes: numba's compile events of one job, by kernel.

Runs one job in this process with numba's cache in a new empty folder
(``NUMBA_CACHE_DIR``, set before numba is imported), so every kernel it needs is
compiled, as on a first run after installing, and reports:

- the job's wall-clock seconds, the seconds inside numba's compiler and those inside
  LLVM (numba's ``numba:compile`` and ``numba:llvm_lock`` events);
- per kernel: its compilations, the seconds of its own (exclusive: the kernels it
  calls, compiled while it is, left out) and in all (inclusive);
- the kernels compiled more than once, with the arguments whose types differ
  (often a constant passed as a literal, ``Literal[int](0)``, where another call
  passes a variable: numba compiles the kernel again for it).

Jobs: ``cli``, the CLI's main job (``treelearn fit --dataset watermelon2``);
``fit``, an estimator's fit on synthetic data (``--task``, ``--rows``, ``--nominal``
for a mix of numeric and nominal features, ...). Run by hand; never in CI.
"""

import argparse
import collections
import os
import sys
import tempfile
import time

from bench_peers import emit_report, load_average, machine_facts, machine_header


class CompileRecorder:
    """Times numba's compile events, nested ones apart from their callers."""

    def __init__(self):
        self.exclusive = collections.defaultdict(float)
        self.inclusive = collections.defaultdict(float)
        self.signatures = collections.defaultdict(list)
        self.compiler_seconds = 0.0
        self.llvm_seconds = 0.0
        self._open = []  # [name, start, seconds of nested compiles]
        self._llvm_depth = 0
        self._llvm_start = 0.0

    def listeners(self):
        """``{event kind: listener}`` for :func:`numba.core.event.install_listener`."""
        from numba.core import event

        recorder = self

        class Compile(event.Listener):
            def on_start(self, ev):
                recorder.compile_started(ev.data)

            def on_end(self, ev):
                recorder.compile_ended()

        class Llvm(event.Listener):
            def on_start(self, ev):
                recorder.llvm_started()

            def on_end(self, ev):
                recorder.llvm_ended()

        return {"numba:compile": Compile(), "numba:llvm_lock": Llvm()}

    def compile_started(self, data):
        function = data["dispatcher"].py_func
        name = f"{function.__module__}.{function.__qualname__}".removeprefix("treelearn.")
        self.signatures[name].append(tuple(str(t) for t in data["args"]))
        self._open.append([name, time.perf_counter(), 0.0])

    def compile_ended(self):
        name, start, nested = self._open.pop()
        seconds = time.perf_counter() - start
        self.inclusive[name] += seconds
        self.exclusive[name] += seconds - nested
        if self._open:
            self._open[-1][2] += seconds
        else:
            self.compiler_seconds += seconds

    def llvm_started(self):
        if self._llvm_depth == 0:
            self._llvm_start = time.perf_counter()
        self._llvm_depth += 1

    def llvm_ended(self):
        self._llvm_depth -= 1
        if self._llvm_depth == 0:
            self.llvm_seconds += time.perf_counter() - self._llvm_start


def signature_differences(signatures):
    """``"i: a / b"`` for each argument position whose types differ across ``signatures``."""
    differences = []
    for i, types in enumerate(zip(*signatures, strict=False)):
        distinct = list(dict.fromkeys(types))
        if len(distinct) > 1:
            shown = " / ".join(t if len(t) <= 40 else t[:37] + "..." for t in distinct)
            differences.append(f"{i}: {shown}")
    if len({len(s) for s in signatures}) > 1:
        differences.append("argument counts differ")
    return "; ".join(differences)


def run_job(args):
    """Run the job chosen by ``args`` (its output discarded)."""
    if args.job == "cli":
        import contextlib
        import io

        from treelearn.cli.main import main as cli_main

        with contextlib.redirect_stdout(io.StringIO()):
            status = cli_main(["fit", "--dataset", "watermelon2"])
        if status:
            raise SystemExit(f"the CLI job failed (exit status {status})")
        return
    from sklearn.datasets import make_classification, make_regression

    from treelearn import CARTClassifier, CARTRegressor

    if args.task == "reg":
        X, y = make_regression(args.rows, args.features, random_state=0)
        estimator = CARTRegressor
    else:
        n_classes = 10 if args.task == "clf10" else 2
        X, y = make_classification(
            args.rows, args.features, n_informative=10, n_classes=n_classes, random_state=0
        )
        estimator = CARTClassifier
    if args.nominal:
        import pandas as pd

        X = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
        for name in X.columns[: args.nominal]:
            X[name] = pd.qcut(X[name], 10, labels=[f"d{k}" for k in range(10)])
    estimator(max_depth=args.max_depth, max_bins=args.max_bins, n_jobs=args.n_jobs).fit(X, y)


def report(recorder, wall_seconds, machine, job, top):
    """The measurements as markdown."""
    import numba

    lines = [
        *machine_header(machine, f"Python {sys.version.split()[0]}, numba {numba.__version__}"),
        "",
        f"Job: {job}. Wall clock {wall_seconds:.1f} s, of which in numba's compiler "
        f"{recorder.compiler_seconds:.1f} s and in LLVM {recorder.llvm_seconds:.1f} s.",
        "",
        f"| kernel (top {top} by own seconds) | compilations | own s | in all s |",
        "|---|---|---|---|",
    ]
    ranked = sorted(recorder.exclusive, key=recorder.exclusive.get, reverse=True)
    for name in ranked[:top]:
        lines.append(
            f"| `{name}` | {len(recorder.signatures[name])} | {recorder.exclusive[name]:.2f} "
            f"| {recorder.inclusive[name]:.2f} |"
        )
    repeated = [name for name in ranked if len(recorder.signatures[name]) > 1]
    lines += [
        "",
        "Compiled more than once (argument position: the types that differ):",
        "",
        "| kernel | compilations | own s | arguments |",
        "|---|---|---|---|",
    ]
    for name in repeated:
        signatures = recorder.signatures[name]
        lines.append(
            f"| `{name}` | {len(signatures)} | {recorder.exclusive[name]:.2f} "
            f"| {signature_differences(signatures)} |"
        )
    return "\n".join(lines) + "\n"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("job", choices=["cli", "fit"], nargs="?", default="cli")
    parser.add_argument("--task", choices=["clf2", "clf10", "reg"], default="clf2")
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument(
        "--max-bins", type=lambda s: None if s == "none" else int(s), default=255,
        help="an int, or none for the exact mode",
    )  # fmt: skip
    parser.add_argument(
        "--max-depth", type=lambda s: None if s == "none" else int(s), default=None,
        help="an int, or none (the default) for a full tree",
    )  # fmt: skip
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument(
        "--nominal", type=int, default=0,
        help="make the first N features nominal (their deciles as categories): a mix of kinds",
    )  # fmt: skip
    parser.add_argument("--top", type=int, default=30, help="kernels listed by own seconds")
    parser.add_argument("--out", help="also write the markdown report to this file")
    return parser.parse_args(argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    machine = machine_facts(argv)
    job = (
        "`treelearn fit --dataset watermelon2`"
        if args.job == "cli"
        else f"fit {args.task}, {args.rows:,} x {args.features} ({args.nominal} nominal), "
        f"max_bins={args.max_bins}, max_depth={args.max_depth}, n_jobs={args.n_jobs}"
    )
    with tempfile.TemporaryDirectory(prefix="treelearn-numba-cache-") as cache:
        if "numba" in sys.modules:
            raise SystemExit("numba was imported before its cache folder could be set")
        os.environ["NUMBA_CACHE_DIR"] = cache
        from numba.core import event

        recorder = CompileRecorder()
        for kind, listener in recorder.listeners().items():
            event.register(kind, listener)
        start = time.perf_counter()
        run_job(args)
        wall_seconds = time.perf_counter() - start
    machine["load_after"] = load_average()
    emit_report(report(recorder, wall_seconds, machine, job, args.top), args.out)


if __name__ == "__main__":
    main()
