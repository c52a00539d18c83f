"""Fit time of treelearn's C4.5 and ID3 against Weka's J48 (and Id3) and chefboost.

The datasets are generated (no data file is downloaded or kept):

- ``letter``: like UCI letter, 20,000 rows, 16 integer attributes 0..15, 26
  classes: ``make_classification(20000, 16, n_informative=12, n_classes=26,
  n_clusters_per_class=1, random_state=0)``, each column scaled linearly onto
  0..15 and rounded;
- ``letter-float``: the same rows before rounding (16 continuous attributes,
  about 20,000 distinct values each);
- ``splice``: like the UCI splice-junction (DNA) data, 3,000 rows, 180 nominal
  attributes with values A, C, G, T, 3 classes (EI 25%, IE 25%, N 50%); the class
  plants a motif at a handful of positions (EI: ``GT`` at 91-92 and a purine at
  93; IE: ``AG`` at 89-90 and a pyrimidine-rich stretch before it), each planted
  letter kept with probability 0.9, and 5% of the labels are redrawn at random.

Each is written as ARFF into a temporary folder and learned by

- Weka's J48 from its command line (``java -cp weka.jar weka.classifiers.trees.J48
  -t train.arff -no-cv``), unpruned ``-U -M 2`` and pruned ``-C 0.25 -M 2``; the
  time is the one Weka prints ("Time taken to build model", JVM start-up
  excluded), best of ``--j48-repeat`` runs (each run is a new JVM, so its
  just-in-time compiler warms up inside the build);
- treelearn's ``C45Classifier``: ``pruning=None`` (C4.5's collapse step on, which
  J48 -U also applies) against J48 -U, the default (error-based pruning, cf 0.25,
  subtree raising) against J48, and as grown (``collapse=False``) for reference;
  numba's kernels are compiled (or loaded from its cache) on a small fit first,
  then the best of ``--repeat`` fits;
- ID3: treelearn's ``ID3Classifier`` and Weka's ``Id3`` on the nominal data
  (splice, and letter with its 16 integer values declared nominal: ID3 has no
  numeric splits; ``letter-float`` is left out of ID3);
- chefboost (``pip install chefboost``), C4.5 and ID3, unlimited depth (its
  ``max_depth`` is set to 1000; its default of 5 would stop the trees early), on
  the first ``--chefboost-rows`` rows of each dataset (it is far slower: its
  "size"), against treelearn grown on the same rows (``C45Classifier(pruning=None,
  collapse=False)``, ``ID3Classifier()``); chefboost's time is its tree building
  (``Training.buildDecisionTree``), not the training-set evaluation its ``fit`` adds.

The table: seconds to fit, treelearn / other ratios (below 1: treelearn is faster),
leaves, training accuracy, and whether treelearn's tree is J48's (leaf counts,
and the tree printed in J48's format line for line, as ``compare_j48.py`` does).

Usage::

    python benchmarks/bench_c45_speed.py                       # everything: about 10 minutes
    python benchmarks/bench_c45_speed.py --no-chefboost --repeat 3 --j48-repeat 3
    python benchmarks/bench_c45_speed.py --datasets splice --out c45-speed.md
"""

import argparse
import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification

import treelearn
from treelearn import C45Classifier, ID3Classifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_j48 import j48_style_text, parse_j48

WEKA_JAR = "/usr/share/java/weka.jar"
JAVA_FLAGS = ["-Xmx2g"]
J48_OPTIONS = {"unpruned": ["-U", "-M", "2"], "pruned": ["-C", "0.25", "-M", "2"]}
DATASETS = ("letter", "letter-float", "splice")
#: treelearn's C4.5 variants: (label, estimator parameters, J48 configuration or None).
C45_VARIANTS = (
    ("grown", {"pruning": None, "collapse": False}, None),
    ("collapsed", {"pruning": None}, "unpruned"),
    ("pruned", {}, "pruned"),
)


# -- data ----------------------------------------------------------------------------------


def make_letter(n_samples=20000, integer=True):
    """Letter-like data: 16 attributes (integers 0..15, or floats), 26 classes A..Z."""
    X, y = make_classification(
        n_samples,
        16,
        n_informative=12,
        n_classes=26,
        n_clusters_per_class=1,
        random_state=0,
    )
    if integer:
        low, high = X.min(axis=0), X.max(axis=0)
        X = np.rint((X - low) / (high - low) * 15).astype(np.int64)
    names = [f"x{j + 1}" for j in range(16)]
    labels = np.array([chr(ord("A") + k) for k in range(26)], dtype=object)
    return pd.DataFrame(X, columns=names), pd.Series(labels[y], name="class")


def make_splice(n_samples=3000, n_positions=180, seed=0):
    """Splice-like DNA data: 180 nominal attributes (A, C, G, T), classes EI, IE, N."""
    rng = np.random.default_rng(seed)
    X = rng.choice(np.array(list("ACGT")), size=(n_samples, n_positions))
    y = rng.choice(np.array(["EI", "IE", "N"]), size=n_samples, p=[0.25, 0.25, 0.5])
    keep = 0.9  # each planted letter is kept with this probability

    def plant(rows, position, letters):
        hit = rows & (rng.random(n_samples) < keep)
        X[hit, position - 1] = rng.choice(np.array(list(letters)), size=int(hit.sum()))

    ei, ie = y == "EI", y == "IE"
    plant(ei, 91, "G")
    plant(ei, 92, "T")
    plant(ei, 93, "AG")
    plant(ie, 89, "A")
    plant(ie, 90, "G")
    for position in range(75, 88):
        plant(ie, position, "CT")
    noise = rng.random(n_samples) < 0.05
    y[noise] = rng.choice(np.array(["EI", "IE", "N"]), size=int(noise.sum()))
    names = [f"p{j + 1}" for j in range(n_positions)]
    frame = pd.DataFrame(X, columns=names).astype(pd.CategoricalDtype(list("ACGT")))
    return frame, pd.Series(y, name="class", dtype=object)


def load(name):
    if name == "letter":
        return make_letter(integer=True)
    if name == "letter-float":
        return make_letter(integer=False)
    return make_splice()


def write_arff(path, X, y, nominal=False):
    """``X`` and ``y`` as ARFF; ``nominal``: every attribute nominal (its values as listed)."""
    lines = [f"@relation {Path(path).stem}", ""]
    for column in X.columns:
        col = X[column]
        if nominal or isinstance(col.dtype, pd.CategoricalDtype):
            values = (
                list(col.cat.categories)
                if isinstance(col.dtype, pd.CategoricalDtype)
                else sorted(col.unique())
            )
            lines.append(f"@attribute {column} {{{','.join(str(v) for v in values)}}}")
        else:
            lines.append(f"@attribute {column} numeric")
    classes = sorted(y.unique())
    lines += [f"@attribute class {{{','.join(classes)}}}", "", "@data"]
    text = X.astype(str) if X.dtypes.map(lambda t: t.kind == "i").all() else None
    if text is None:
        text = X.apply(lambda c: c.map(repr) if c.dtype.kind == "f" else c.astype(str))
    body = text.apply(lambda row: ",".join(row), axis=1) + "," + y.astype(str)
    Path(path).write_text("\n".join(lines) + "\n" + "\n".join(body) + "\n", encoding="utf-8")


# -- Weka ----------------------------------------------------------------------------------


def run_weka(jar, classifier, options, train):
    cmd = ["java", *JAVA_FLAGS, "-cp", jar, classifier, "-t", str(train), "-no-cv", *options]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr}{done.stdout}")
    return done.stdout


def weka_time(text):
    found = re.search(r"Time taken to build model:\s*([\d.]+)\s*seconds", text)
    if not found:
        raise RuntimeError(f"no build time in Weka's output:\n{text[:2000]}")
    return float(found.group(1))


def weka_training_accuracy(text):
    """Accuracy on the training data (the section ``-no-cv`` prints)."""
    section = text.split("=== Error on training data ===", 1)[-1]
    correct = re.search(r"Correctly Classified Instances\s+(\d+)", section)
    total = re.search(r"Total Number of Instances\s+(\d+)", section)
    return int(correct.group(1)) / int(total.group(1))


def id3_leaves(text):
    """Leaves of Weka's Id3 tree (lines ending ``: class``; ``null`` for empty branches)."""
    tree = text.split("Id3", 1)[1].split("Time taken", 1)[0]
    return len(re.findall(r"^(?:\|\s+)*\S+ = [^:\n]*: \S+\s*$", tree, re.M))


def best_weka(jar, classifier, options, train, repeat):
    """(best build seconds, output of that run)."""
    best = None
    for _ in range(repeat):
        text = run_weka(jar, classifier, options, train)
        seconds = weka_time(text)
        if best is None or seconds < best[0]:
            best = (seconds, text)
    return best


# -- treelearn ------------------------------------------------------------------------------


def best_fit(make, X, y, repeat):
    """(best seconds of ``repeat`` fits, last model); a small fit first warms numba up."""
    make().fit(X.iloc[:300], y.iloc[:300])
    best, model = np.inf, None
    for _ in range(repeat):
        model = make()
        start = time.perf_counter()
        model.fit(X, y)
        best = min(best, time.perf_counter() - start)
    return best, model


def best_reading(X, repeat, categorical_features=None):
    """Best seconds of reading and encoding ``X`` as every fit does (part of its time)."""
    from treelearn.data.dataset import build_dataset

    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        build_dataset(X, categorical_features)
        best = min(best, time.perf_counter() - start)
    return best


def accuracy(model, X, y):
    return float(np.mean(model.predict(X) == y.to_numpy()))


# -- chefboost ------------------------------------------------------------------------------


@contextlib.contextmanager
def _in_folder(path):
    """chefboost writes ``outputs/`` into the working folder and imports its rules from there."""
    old = os.getcwd()
    os.chdir(path)
    sys.path.insert(0, str(path))
    try:
        yield
    finally:
        sys.path.remove(str(path))
        os.chdir(old)


def chefboost_fit(X, y, algorithm, folder):
    """(build seconds, fit seconds, leaves, training accuracy) of one chefboost tree."""
    from chefboost import Chefboost as chef
    from chefboost.training import Training

    build = Training.buildDecisionTree
    timing = {"depth": 0, "seconds": 0.0}

    def timed(*args, **kwargs):  # the outermost call is the whole tree
        timing["depth"] += 1
        start = time.perf_counter()
        try:
            return build(*args, **kwargs)
        finally:
            timing["depth"] -= 1
            if timing["depth"] == 0:
                timing["seconds"] += time.perf_counter() - start

    # chefboost tests for dtype "object" to tell nominal columns (and a class) from numbers;
    # Series of dtype object, since pandas 3 would infer its string dtype from an array.
    columns = {
        column: X[column]
        if pd.api.types.is_numeric_dtype(X[column])
        else pd.Series(X[column].astype(str).to_numpy(), dtype=object, index=X.index)
        for column in X.columns
    }
    columns["Decision"] = pd.Series(y.astype(str).to_numpy(), dtype=object, index=X.index)
    frame = pd.DataFrame(columns)
    Training.buildDecisionTree = timed
    try:
        with _in_folder(folder):
            start = time.perf_counter()
            model = chef.fit(frame, {"algorithm": algorithm, "max_depth": 1000}, silent=True)
            fit_seconds = time.perf_counter() - start
            rules = (Path(folder) / "outputs" / "rules" / "rules.py").read_text()
    finally:
        Training.buildDecisionTree = build
    leaves = len(re.findall(r"^\s*return ", rules, re.M))
    return timing["seconds"], fit_seconds, leaves, model["evaluation"]["train"]["Accuracy"] / 100


# -- the benchmark -------------------------------------------------------------------------


def _row(cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _ratio(a, b):
    return f"{a / b:.2f}" if b > 0 else "n/a"


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _same_line(a, b):
    """Equal, or equal but for numbers that differ in their last printed (6th) decimal:
    Weka rounds halves away from zero, Python's formatting to even."""
    if a == b:
        return True
    if _NUMBER.split(a) != _NUMBER.split(b):
        return False
    pairs = zip(_NUMBER.findall(a), _NUMBER.findall(b), strict=False)
    return all(abs(float(x) - float(y)) <= 1.5e-6 for x, y in pairs)


def _same_tree(model, j48_text):
    lines, leaves = parse_j48(j48_text)[:2]
    mine = j48_style_text(model)
    same = len(mine) == len(lines) and all(map(_same_line, mine, lines))
    return f"{'yes' if same else 'no'} ({model.tree_.n_leaves} / {leaves} leaves)"


def bench_c45(name, X, y, args, tmp, log):
    """Rows of the J48 table for one dataset."""
    path = tmp / f"{name}.arff"
    write_arff(path, X, y)
    rows = []
    j48 = {}
    if not args.no_j48:
        for config, options in J48_OPTIONS.items():
            j48[config] = best_weka(
                args.weka_jar, "weka.classifiers.trees.J48", options, path, args.j48_repeat
            )
            log(f"{name}: J48 {' '.join(options)} {j48[config][0]:.2f}s")
    reading = best_reading(X, args.repeat)
    for label, params, config in C45_VARIANTS:
        seconds, model = best_fit(lambda p=params: C45Classifier(**p), X, y, args.repeat)
        log(f"{name}: C45Classifier {label} {seconds:.3f}s")
        cells = [name, f"C4.5 {label}", f"{seconds:.3f}", f"{reading:.3f}"]
        if config is not None and config in j48:
            j48_seconds, text = j48[config]
            cells += [
                f"J48 {' '.join(J48_OPTIONS[config])}",
                f"{j48_seconds:.2f}",
                _ratio(seconds, j48_seconds),
                model.tree_.n_leaves,
                parse_j48(text)[1],
                f"{100 * accuracy(model, X, y):.2f} / {100 * weka_training_accuracy(text):.2f}",
                _same_tree(model, text),
            ]
        else:
            cells += [
                "",
                "",
                "",
                model.tree_.n_leaves,
                "",
                f"{100 * accuracy(model, X, y):.2f}",
                "",
            ]
        rows.append(_row(cells))
    return rows


def bench_id3(name, X, y, args, tmp, log):
    """Rows of the ID3 table for one dataset (nominal attributes only)."""
    nominal = X
    if name == "letter":  # categories in numeric order, as the ARFF header lists them
        nominal = X.apply(
            lambda c: pd.Categorical(c.astype(str), categories=[str(v) for v in sorted(c.unique())])
        )
    path = tmp / f"{name}-nominal.arff"
    write_arff(path, nominal, y, nominal=True)
    seconds, model = best_fit(ID3Classifier, nominal, y, args.repeat)
    log(f"{name}: ID3Classifier {seconds:.3f}s")
    cells = [name, "ID3", f"{seconds:.3f}", f"{best_reading(nominal, args.repeat):.3f}"]
    if not args.no_j48:
        weka_seconds, text = best_weka(
            args.weka_jar, "weka.classifiers.trees.Id3", [], path, args.j48_repeat
        )
        log(f"{name}: Weka Id3 {weka_seconds:.2f}s")
        cells += [
            "Weka Id3",
            f"{weka_seconds:.2f}",
            _ratio(seconds, weka_seconds),
            model.tree_.n_leaves,
            id3_leaves(text),
            f"{100 * accuracy(model, nominal, y):.2f} / {100 * weka_training_accuracy(text):.2f}",
            "",
        ]
    else:
        cells += [
            "",
            "",
            "",
            model.tree_.n_leaves,
            "",
            f"{100 * accuracy(model, nominal, y):.2f}",
            "",
        ]
    return [_row(cells)]


def bench_chefboost(name, X, y, n_rows, args, tmp, log):
    """Rows of the chefboost table: C4.5 and ID3 on the first ``n_rows`` rows."""
    Xs, ys = X.iloc[:n_rows].reset_index(drop=True), y.iloc[:n_rows].reset_index(drop=True)
    rows = []
    for algorithm in ("C4.5", "ID3"):
        if algorithm == "ID3" and name == "letter-float":
            continue
        if algorithm == "C4.5":
            make, data = (lambda: C45Classifier(pruning=None, collapse=False)), Xs
        else:
            make, data = ID3Classifier, Xs
            if name == "letter":  # treelearn's ID3: the 16 values as categories
                data = Xs.astype(str).astype("category")
        seconds, model = best_fit(make, data, ys, args.repeat)
        folder = Path(tempfile.mkdtemp(dir=tmp))
        build, fit_total, leaves, acc = chefboost_fit(Xs, ys, algorithm, folder)
        log(f"{name}[:{n_rows}]: chefboost {algorithm} {build:.1f}s, treelearn {seconds:.4f}s")
        rows.append(
            _row(
                [
                    name,
                    n_rows,
                    algorithm,
                    f"{seconds:.4f}",
                    f"{build:.1f}",
                    f"{fit_total:.1f}",
                    f"{build / seconds:,.0f}x",
                    model.tree_.n_leaves,
                    leaves,
                    f"{100 * accuracy(model, data, ys):.2f} / {100 * acc:.2f}",
                ]
            )
        )
    return rows


J48_HEAD = (
    "| dataset | treelearn | fit s | of which reading X | Weka | Weka s | ratio tl/Weka "
    "| tl leaves | Weka leaves | train acc % tl / Weka | same tree as J48 (leaves) |\n"
    "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|"
)
CHEF_HEAD = (
    "| dataset | rows | algorithm | treelearn s | chefboost build s | chefboost fit() s "
    "| chefboost / treelearn | tl leaves | chefboost leaves | train acc % tl / chefboost |\n"
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    parser.add_argument("--repeat", type=int, default=5, help="treelearn fits (best taken)")
    parser.add_argument("--j48-repeat", type=int, default=5, help="Weka runs (best taken)")
    parser.add_argument(
        "--chefboost-rows",
        nargs=3,
        type=int,
        default=[500, 500, 300],
        metavar=("LETTER", "LETTER_FLOAT", "SPLICE"),
        help="rows chefboost learns from, per dataset (default: 500 500 300)",
    )
    parser.add_argument("--no-j48", action="store_true", help="skip Weka")
    parser.add_argument("--no-chefboost", action="store_true", help="skip chefboost")
    parser.add_argument("--weka-jar", default=WEKA_JAR)
    parser.add_argument("--out", help="also write the report (markdown) to this file")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if not args.no_j48 and not Path(args.weka_jar).exists():
        sys.exit(f"{args.weka_jar} not found: apt-get install --no-install-recommends weka")

    def log(message):
        print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    c45_rows, chef_rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name in args.datasets:
            X, y = load(name)
            c45_rows += bench_c45(name, X, y, args, tmp, log)
            if name != "letter-float":
                c45_rows += bench_id3(name, X, y, args, tmp, log)
            if not args.no_chefboost:
                n_rows = args.chefboost_rows[DATASETS.index(name)]
                chef_rows += bench_chefboost(name, X, y, n_rows, args, tmp, log)
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    lines = [
        f"# treelearn {treelearn.__version__} C4.5 / ID3 fit time vs Weka "
        f"({Path(args.weka_jar).resolve().name}, {java.stderr.splitlines()[0]}) and chefboost",
        "",
        f"Best of {args.repeat} treelearn fits and {args.j48_repeat} Weka runs (Weka's own "
        "'Time taken to build model', JVM start-up and reading the ARFF file excluded); ratio "
        "below 1: treelearn is faster. 'of which reading X': the part of treelearn's fit that "
        "reads and encodes the DataFrame (`build_dataset`). 'same tree': treelearn's tree "
        "printed in J48's format is J48's line for line.",
        "",
        J48_HEAD,
        *c45_rows,
    ]
    if chef_rows:
        lines += [
            "",
            "chefboost (unlimited depth) on the first rows of each dataset; treelearn grows "
            "the unpruned tree on the same rows (C4.5: `pruning=None, collapse=False`).",
            "",
            CHEF_HEAD,
            *chef_rows,
        ]
    lines += ["", f"Run time: {time.perf_counter() - started:.0f}s."]
    text = "\n".join(lines)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
