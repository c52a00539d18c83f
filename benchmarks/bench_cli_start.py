"""Cold and warm start of the CLI's main job, beside what its imports cost alone.

Runs ``python -m treelearn fit --dataset watermelon2`` in fresh processes:

- cold: numba's cache in a new empty folder (``NUMBA_CACHE_DIR``), so every kernel
  the job needs is compiled, as on a first run after installing;
- warm: the same folder again, now filled, ``--repeat`` times;

and, as many times each, the interpreter alone and the imports that a start cannot
avoid (``sklearn.base``, ``numba``, ``pandas``) and ``import treelearn``, so that the
report says how much of a warm start is treelearn's own. Wall-clock seconds of
each process, start to exit. Run by hand; never in CI.

The processes run without ``PYTHONDONTWRITEBYTECODE`` (where the caller's environment
sets it, as some development environments do), so that Python's bytecode is cached
as an installed package's is: with it set, an editable install compiles treelearn's
modules from source in every process (0.1 s of each warm start here).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from bench_peers import emit_report, load_average, machine_facts, machine_header

CLI_JOB = ["-m", "treelearn", "fit", "--dataset", "watermelon2"]
IMPORTS = {
    "python -c pass": ["-c", "pass"],
    "import numba": ["-c", "import numba"],
    "import pandas": ["-c", "import pandas"],
    "import sklearn.base": ["-c", "import sklearn.base"],
    "import treelearn": ["-c", "import treelearn"],
}


def timed_run(arguments, env):
    """Seconds ``python <arguments>`` took; exits with its error output if it failed."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *arguments], env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(
            f"`python {' '.join(arguments)}` failed (exit status {done.returncode}):\n{done.stderr}"
        )
    return seconds


def measure(repeat):
    """``[(what, [seconds, ...])]``: the cold start, the warm starts, then the imports."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="treelearn-numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        rows.append(("`treelearn fit --dataset watermelon2`, cold", [timed_run(CLI_JOB, env)]))
        warm = [timed_run(CLI_JOB, env) for _ in range(repeat)]
        rows.append(("`treelearn fit --dataset watermelon2`, warm", warm))
        for name, arguments in IMPORTS.items():
            rows.append((f"`{name}`", [timed_run(arguments, env) for _ in range(repeat)]))
    return rows


def report(rows, machine):
    """The rows as a markdown table, after the command, date, machine and load
    (:func:`bench_peers.machine_facts`, its ``load_after`` added)."""
    lines = [
        *machine_header(machine, f"Python {sys.version.split()[0]}"),
        "",
        "| process | runs | min s | median s |",
        "|---|---|---|---|",
    ]
    for name, seconds in rows:
        lines.append(
            f"| {name} | {len(seconds)} | {min(seconds):.2f} | {statistics.median(seconds):.2f} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="warm runs and runs per import")
    parser.add_argument("--out", help="also write the markdown table to this file")
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    machine = machine_facts(argv)
    rows = measure(args.repeat)
    machine["load_after"] = load_average()
    emit_report(report(rows, machine), args.out)


if __name__ == "__main__":
    main()
