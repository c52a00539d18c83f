"""Where a treelearn fit spends its time, kernel by kernel (Linux ``perf``).

Python profilers (cProfile, py-spy, line_profiler) stop at the call into a numba
kernel: a whole depth-first loop is one opaque frame. This script samples the
fit with ``perf record`` and names the machine code numba compiled, so that the
report says which kernel (``_local_kernels._partition_orders``,
``stats._kernels.build_histogram``, ...) the samples fell in:

1. the parent runs this script again (hidden ``--child`` option) under
   ``perf record -F <frequency> -k CLOCK_MONOTONIC``, with ``NUMBA_CACHE_DIR`` a
   new empty folder: numba compiles every kernel afresh, so each compiled library
   still holds its LLVM module (one loaded from numba's cache does not, and its
   functions cannot be named);
2. the child generates the data (``bench_peers.make_data``: the same data sets as
   the peer benchmark), fits on the training rows once (compiling), then again
   between two readings of ``CLOCK_MONOTONIC``, and writes
   ``/tmp/perf-<pid>.map`` (where ``perf`` looks for the symbols of code generated
   at run time): the start and size of every function of every compiled library;
3. the parent reports the samples taken between the two readings (the timed fit
   only: not the data, not the compiling), self time per function, numba's
   mangled names shortened to ``module.function``. Kernels that numba inlined
   into their caller count as the caller.

With ``--annotate FUNCTION`` the child also copies that function's machine code
out of its memory (every copy: numba links a kernel into each caller's library),
and the parent lists the instructions of the copy that took the most samples,
disassembled by ``objdump``, each with its samples.

Shares within one run are what to read: the machine's speed moves the seconds
from run to run, much less the split between kernels. The compiling takes
minutes (the cache is empty by design).

Run by hand; needs ``perf`` (``linux-perf`` / ``linux-tools``) allowed to
sample this user's processes (``/proc/sys/kernel/perf_event_paranoid`` at most 2).
"""

import argparse
import collections
import ctypes
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_peers import TASKS, make_data, n_train_rows, parse_depth, parse_size

#: numba escapes each character of a name that a symbol cannot hold as ``_XX``
#: (hex): ``<dynamic>`` is ``_3cdynamic_3e``.
_ESCAPED = re.compile(r"_([0-9a-f]{2})")


def _unescaped(match):
    """The character an ``_XX`` escape stands for, when numba would have escaped it
    (printable ASCII, not a letter, digit or underscore); otherwise the text as it
    is (``evaluate_numeric_feature`` keeps its ``_fe``)."""
    char = chr(int(match.group(1), 16))
    escapable = " " <= char <= "~" and not char.isalnum() and char != "_"
    return char if escapable else match.group(0)


def parse_max_bins(text):
    """``--max-bins``: a bin count, or ``none`` (exact mode) as None."""
    if text.lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a bin count or 'none': {text!r}") from None


def parse_args(argv=None):
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", choices=TASKS, default="reg")
    parser.add_argument("--size", type=parse_size, default=(250_000, 20),
                        help="rows x features of the data set (default 250000x20)")  # fmt: skip
    parser.add_argument("--max-depth", type=parse_depth, default=None,
                        help="'none' (default: full depth) or a depth")  # fmt: skip
    parser.add_argument("--max-bins", type=parse_max_bins, default=255,
                        help="255 (default), another bin count, or 'none': exact mode")  # fmt: skip
    parser.add_argument("--threads", type=int, default=1, help="n_jobs of the fit (default 1)")
    parser.add_argument("--frequency", type=int, default=999, help="samples per second")
    parser.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    parser.add_argument(
        "--annotate", metavar="FUNCTION",
        help="also list one function's machine code (as named in the report: "
        "'_local_kernels._search_local') with each instruction's samples (needs objdump)",
    )  # fmt: skip
    parser.add_argument("--annotate-lines", type=int, default=40, metavar="N",
                        help="the N instructions of most samples, in address order (default "
                        "40); 0: every instruction")  # fmt: skip
    parser.add_argument("--child", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def estimator(args):
    """The treelearn estimator the arguments describe."""
    from treelearn import CARTClassifier, CARTRegressor

    kind = CARTRegressor if args.task == "reg" else CARTClassifier
    return kind(max_depth=args.max_depth, max_bins=args.max_bins, n_jobs=args.threads)


def compiled_functions():
    """``(address, name)`` of every function numba compiled in this process, by
    address. Only libraries compiled here (not loaded from a cache) keep the LLVM
    module that lists their functions."""
    from numba.core.registry import CPUDispatcher

    by_address = {}
    for dispatcher in (obj for obj in gc.get_objects() if isinstance(obj, CPUDispatcher)):
        for result in dispatcher.overloads.values():
            library = result.library
            module = getattr(library, "_final_module", None)
            if module is None:
                continue
            for function in module.functions:
                if function.is_declaration:
                    continue
                address = library.get_pointer_to_function(function.name)
                if address:
                    by_address.setdefault(address, function.name)
    return sorted(by_address.items())


def function_spans(functions):
    """``(start, end, name)`` of each of ``functions`` (by address): a function
    reaches to the next one's start (the last one 64 KB)."""
    for i, (address, name) in enumerate(functions):
        end = functions[i + 1][0] if i + 1 < len(functions) else address + 0x10000
        yield address, end, name


def write_perf_map(functions, path):
    """``perf``'s map of run-time code: ``start size name`` per line (hex), each
    function reaching to the next one's start."""
    spans = function_spans(functions)
    Path(path).write_text(
        "".join(f"{start:x} {end - start:x} {name}\n" for start, end, name in spans)
    )


def mapped_end(address):
    """The end of this process's memory mapping that holds ``address``
    (``/proc/self/maps``), so that a read from ``address`` stops inside it."""
    for line in Path("/proc/self/maps").read_text().splitlines():
        first, last = (int(bound, 16) for bound in line.split()[0].split("-"))
        if first <= address < last:
            return last
    raise ValueError(f"address {address:#x} is not mapped")


def dump_function_code(functions, name, folder):
    """Write the machine code of every copy of the function ``name`` (short name)
    to ``folder/code-<address>.bin``: numba links a kernel into the library of each
    kernel that calls it, so one function can run from several addresses. A copy
    reaches to the next function's start, at most to the end of its mapping (the
    next function can lie in another library's)."""
    for address, end, symbol in function_spans(functions):
        if short_name(symbol) == name:
            end = min(end, mapped_end(address))
            (folder / f"code-{address}.bin").write_bytes(ctypes.string_at(address, end - address))


def run_child(args):
    """Fit under ``perf`` (see the module's docstring); the timed window, this
    process's id (its map's name) and the tree's leaves go to the JSON file
    ``args.child``, the code of ``--annotate``'s function beside it."""
    X, y = make_data(args.task, *args.size)
    n_train = n_train_rows(args.size[0])
    # The first fit compiles every kernel the timed one runs (a smaller problem
    # can leave some out: the large-node and threaded paths).
    estimator(args).fit(X[:n_train], y[:n_train])
    start = time.clock_gettime(time.CLOCK_MONOTONIC)
    model = estimator(args).fit(X[:n_train], y[:n_train])
    end = time.clock_gettime(time.CLOCK_MONOTONIC)
    functions = compiled_functions()
    write_perf_map(functions, f"/tmp/perf-{os.getpid()}.map")
    if args.annotate:
        dump_function_code(functions, args.annotate, Path(args.child).parent)
    record = {"start": start, "end": end, "pid": os.getpid(), "leaves": int(model.get_n_leaves())}
    Path(args.child).write_text(json.dumps(record))


def short_name(symbol):
    """``module.function`` of a numba symbol (``_ZN9treelearn7growing14_local_kernels
    10grow_localB4v456...`` -> ``_local_kernels.grow_local``); other symbols as given."""
    if not symbol.startswith("_ZN"):
        return symbol
    names, i = [], 3
    while i < len(symbol) and symbol[i].isdigit():
        j = i
        while symbol[j].isdigit():
            j += 1
        length = int(symbol[i:j])
        names.append(_ESCAPED.sub(_unescaped, symbol[j : j + length]))
        i = j + length
    return ".".join(names[-2:]) if names else symbol


def self_samples(perf_data, start, end):
    """``{(shared object, function): samples}`` of the samples taken in ``[start, end]``."""
    report = subprocess.run(
        ["perf", "report", "-i", str(perf_data), "--time", f"{start:.6f},{end:.6f}",
         "--no-children", "--sort", "dso,symbol", "--stdio", "-g", "none", "-n"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    samples = {}
    for line in report.splitlines():
        match = re.match(r"\s*[\d.]+%\s+(\d+)\s+(.+?)\s+\[[.k]\]\s+(\S+)", line)
        if match:
            dso = "numba (JIT)" if "JIT" in match.group(2) else match.group(2).strip()
            key = (dso, short_name(match.group(3)))
            samples[key] = samples.get(key, 0) + int(match.group(1))
    return samples


def sampled_addresses(perf_data, start, end):
    """``{instruction address: samples}`` of the samples taken in ``[start, end]``."""
    script = subprocess.run(
        ["perf", "script", "-i", str(perf_data), "--time", f"{start:.6f},{end:.6f}", "-F", "ip"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    return collections.Counter(int(line, 16) for line in script.split())


def annotated_code(folder, addresses):
    """``(samples, [(samples, offset, instruction)])`` of the copy of the dumped
    function (:func:`dump_function_code`) that took the most samples, its
    instructions disassembled by ``objdump``; None when no copy was dumped."""
    copies = []
    for path in folder.glob("code-*.bin"):
        start = int(path.stem.removeprefix("code-"))
        end = start + path.stat().st_size
        inside = {ip: n for ip, n in addresses.items() if start <= ip < end}
        copies.append((sum(inside.values()), start, path, inside))
    if not copies:
        return None
    total, start, path, inside = max(copies, key=lambda copy: copy[0])
    listing = subprocess.run(
        ["objdump", "-D", "-b", "binary", "-m", "i386:x86-64", "--no-show-raw-insn",
         f"--adjust-vma={start}", str(path)],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    instructions = []
    for line in listing.splitlines():
        match = re.match(r"\s*([0-9a-f]+):\s+(.+)", line)
        if match:
            address = int(match.group(1), 16)
            instructions.append((inside.get(address, 0), address - start, match.group(2).strip()))
    return total, instructions


def print_annotation(name, annotation, n_lines, all_samples):
    """The ``n_lines`` instructions of ``annotation`` with the most samples (all
    when 0), in address order, each with its samples and share of the function's."""
    if annotation is None:
        print(f"\n{name}: no compiled function of that name (see the report's names)")
        return
    total, instructions = annotation
    print(f"\n{name}: {total:,} samples ({100 * total / all_samples:.1f}% of the fit's), "
          "offset from the function's start, objdump's disassembly")  # fmt: skip
    shown = instructions
    if n_lines:
        hottest = sorted(instructions, key=lambda item: -item[0])[:n_lines]
        shown = sorted(hottest, key=lambda item: item[1])
    for samples, offset, text in shown:
        share = 100 * samples / total if total else 0.0
        print(f"{samples:7d} {share:5.1f}% {offset:6x}: {text}")


def main(argv=None):
    """Profile one fit and print its kernels' shares of the samples."""
    args = parse_args(argv)
    if args.child:
        run_child(args)
        return 0
    if shutil.which("perf") is None:
        sys.exit("perf is not on PATH: install linux-perf (Debian) or linux-tools (Ubuntu)")
    if args.annotate and shutil.which("objdump") is None:
        sys.exit("objdump is not on PATH (--annotate): install binutils")
    with tempfile.TemporaryDirectory(prefix="treelearn-profile-") as folder:
        folder = Path(folder)
        window = folder / "window.json"
        child = [sys.executable, __file__, "--child", str(window)] + (argv or sys.argv[1:])
        env = dict(os.environ, NUMBA_CACHE_DIR=str(folder / "numba-cache"))
        perf = ["perf", "record", "-q", "-F", str(args.frequency), "-k", "CLOCK_MONOTONIC",
                "-o", str(folder / "perf.data"), "--"]  # fmt: skip
        print("compiling treelearn's kernels afresh, then fitting under perf (minutes) ...")
        completed = subprocess.run(perf + child, env=env)
        if completed.returncode != 0 or not window.exists():
            sys.exit(f"the profiled fit failed (exit status {completed.returncode}); see above")
        record = json.loads(window.read_text())
        try:
            samples = self_samples(folder / "perf.data", record["start"], record["end"])
            annotation = None
            if args.annotate:
                addresses = sampled_addresses(folder / "perf.data", record["start"], record["end"])
                annotation = annotated_code(folder, addresses)
        finally:
            Path(f"/tmp/perf-{record['pid']}.map").unlink(missing_ok=True)
    total = sum(samples.values())
    if total == 0:
        sys.exit("perf took no sample during the fit: raise --frequency or --size")
    seconds = record["end"] - record["start"]
    n_rows, n_features = args.size
    print(
        f"\n{args.task} {n_rows:,} x {n_features} (train {n_train_rows(n_rows):,}), "
        f"max_depth={args.max_depth}, max_bins={args.max_bins}, n_jobs={args.threads}: "
        f"fit {seconds:.2f} s, {record['leaves']:,} leaves, {total:,} samples"
    )
    print("\n| share | samples | where | function |\n|---:|---:|---|---|")
    for (dso, name), count in sorted(samples.items(), key=lambda item: -item[1])[: args.top]:
        print(f"| {100 * count / total:.1f}% | {count} | {Path(dso).name} | `{name}` |")
    if args.annotate:
        print_annotation(args.annotate, annotation, args.annotate_lines, total)
    return 0


if __name__ == "__main__":
    sys.exit(main())
