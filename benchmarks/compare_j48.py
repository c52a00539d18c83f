"""treelearn's C45Classifier side by side with Weka's J48 (C4.5 Release 8), on the same folds.

Needs Weka 3.6 (Debian: ``apt-get install --no-install-recommends weka``), which
brings ``/usr/share/java/weka.jar`` and the ARFF files under
``/usr/share/doc/weka/examples``; no data file is kept in this repository.

For every dataset:

- the same stratified folds (``StratifiedKFold(shuffle=True, random_state=seed)``)
  for both tools: each fold's train/test rows are written as ARFF (the original
  header and data lines of the Weka file, so J48 reads exactly the file's values)
  into a temporary folder, and J48 is run from its command line
  (``-U -M 2``: unpruned, and ``-C 0.25 -M 2``: Weka's default) twice, once for
  its test accuracy and tree size, once for its per-row predictions (``-p 0``);
- ``C45Classifier`` is fitted on the same rows three ways: as grown
  (``pruning=None, collapse=False``), after C4.5's collapse step (what J48 -U
  gives, since Weka 3.6 always collapses), and pruned (error-based, ``cf=0.25``,
  subtree raising, after collapsing). Each through the estimator's parameters
  (``collapse``, ``pruning="error_based"``) where it has them, else through
  :mod:`treelearn.pruning` (``prune_collapse``, ``prune_error_based``) applied to
  the grown tree, else "n/a" (the report says which);
- accuracy (mean and standard deviation over the folds), mean leaves, and the
  share of test rows on which treelearn and J48 predict the same class;
- treelearn's tree printed in J48's format (attribute names, ``<=``/``>``
  thresholds to six decimals, leaves as ``class (weight/errors)``, the class being
  the one treelearn predicts there) against J48's printed tree: the number of folds
  where they are identical line for line, and on all rows (no cross-validation)
  the leaves of both, their root attributes and the first line that differs;
  ``--show-diff`` prints the diff of every tree that differs.

Usage::

    python benchmarks/compare_j48.py                    # every dataset, 10 folds
    python benchmarks/compare_j48.py --datasets vote soybean --folds 5 --seed 1
    python benchmarks/compare_j48.py --out results.md --show-diff
"""

import argparse
import difflib
import math
import re
import subprocess
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.model_selection import StratifiedKFold

import treelearn
from treelearn import C45Classifier
from treelearn.tree.view import TreeView

WEKA_JAR = "/usr/share/java/weka.jar"
WEKA_EXAMPLES = "/usr/share/doc/weka/examples"
J48 = "weka.classifiers.trees.J48"
#: Faster start-up for many short runs.
JAVA_FLAGS = ["-Xmx1g", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]
J48_OPTIONS = {"unpruned": ["-U", "-M", "2"], "pruned": ["-C", "0.25", "-M", "2"]}

#: name -> (source, file or loader, drop rows with a missing value)
DATASETS = {
    "weather.nominal": ("weka", "weather.nominal.arff", False),
    "weather.numeric": ("weka", "weather.numeric.arff", False),
    "contact-lenses": ("weka", "contact-lenses.arff", False),
    "labor": ("weka", "labor.arff", False),
    "iris": ("weka", "iris.arff", False),
    "vote": ("weka", "vote.arff", False),
    "vote-complete": ("weka", "vote.arff", True),
    "breast-cancer": ("weka", "breast-cancer.arff", False),
    "breast-cancer-complete": ("weka", "breast-cancer.arff", True),
    "soybean": ("weka", "soybean.arff", False),
    "soybean-complete": ("weka", "soybean.arff", True),
    "credit-g": ("weka", "credit-g.arff", False),
    "diabetes": ("weka", "diabetes.arff", False),
    "glass": ("weka", "glass.arff", False),
    "ionosphere": ("weka", "ionosphere.arff", False),
    "sk-iris": ("sklearn", "load_iris", False),
    "sk-wine": ("sklearn", "load_wine", False),
    "sk-breast_cancer": ("sklearn", "load_breast_cancer", False),
}


# -- data --------------------------------------------------------------------------------


@dataclass
class Data:
    name: str
    X: pd.DataFrame
    y: pd.Series
    header: str  # ARFF text up to and including @data
    rows: list  # one ARFF data line per row of X
    folds: int = 0
    kind: str = field(init=False)
    missing: bool = field(init=False)

    def __post_init__(self):
        nominal = sum(isinstance(t, pd.CategoricalDtype) for t in self.X.dtypes)
        numeric = self.X.shape[1] - nominal
        self.kind = f"{nominal} nom / {numeric} num"
        self.missing = bool(self.X.isna().any().any())

    @property
    def nominal_only(self):
        return all(isinstance(t, pd.CategoricalDtype) for t in self.X.dtypes)


def _read_frame(path):
    """The ARFF file as a DataFrame: treelearn's reader, else scipy's."""
    try:
        from treelearn.data.readers import read_arff

        return read_arff(path)
    except ImportError:
        from scipy.io import arff

        data, meta = arff.loadarff(path)
        frame = pd.DataFrame(data)
        for name in meta.names():
            if meta[name][0] == "nominal":
                values = frame[name].str.decode("utf-8").replace("?", None)
                frame[name] = pd.Categorical(values, categories=list(meta[name][1]))
        return frame


def _split_arff_text(path):
    header, rows, in_data = [], [], False
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if in_data:
            if stripped and not stripped.startswith("%"):
                rows.append(stripped)
            continue
        header.append(line)
        if stripped.lower().startswith("@data"):
            in_data = True
    return "\n".join(header) + "\n", rows


def load_weka(name, file, complete, examples):
    path = Path(examples) / file
    frame = _read_frame(path)
    header, rows = _split_arff_text(path)
    if len(rows) != len(frame):
        raise RuntimeError(f"{path}: {len(rows)} data lines but {len(frame)} rows read")
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1]
    if complete:
        keep = ~X.isna().any(axis=1).to_numpy()
        X, y = X[keep].reset_index(drop=True), y[keep].reset_index(drop=True)
        rows = [r for r, k in zip(rows, keep, strict=True) if k]
    return Data(name, X.reset_index(drop=True), y.reset_index(drop=True), header, rows)


def load_sklearn(name, loader):
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, loader)()
    names = [re.sub(r"\W+", "_", str(n)).strip("_") for n in bunch.feature_names]
    X = pd.DataFrame(np.asarray(bunch.data, dtype=np.float64), columns=names)
    labels = [str(t) for t in bunch.target_names]
    y = pd.Series(pd.Categorical.from_codes(bunch.target, categories=labels), name="class")
    lines = [f"@relation {name}", ""]
    lines += [f"@attribute {n} numeric" for n in names]
    lines += ["@attribute class {" + ",".join(labels) + "}", "", "@data"]
    rows = [
        ",".join(repr(float(v)) for v in X.iloc[i].to_numpy()) + "," + labels[bunch.target[i]]
        for i in range(len(X))
    ]
    return Data(name, X, y, "\n".join(lines) + "\n", rows)


def load(name, examples):
    source, what, complete = DATASETS[name]
    if source == "weka":
        return load_weka(name, what, complete, examples)
    return load_sklearn(name, what)


# -- J48 ---------------------------------------------------------------------------------


def run_j48(jar, options, train, test=None, predictions=False):
    """J48's output for one call (test: evaluate on it; else on the training file)."""
    cmd = ["java", *JAVA_FLAGS, "-cp", jar, J48, "-t", str(train)]
    if test is not None:
        cmd += ["-T", str(test)]
    else:
        cmd += ["-no-cv"]
    cmd += ["-p", "0"] if predictions else ["-v"]
    cmd += options
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{done.stderr}{done.stdout}")
    return done.stdout


def parse_j48(text):
    """(tree lines, leaves, size, correct, total) from J48's output (no -p)."""
    tree = re.search(r"J48 (?:un)?pruned tree\n-+\n\n(.*?)\n\nNumber of Leaves", text, re.S)
    leaves = re.search(r"Number of Leaves\s*:\s*(\d+)", text)
    size = re.search(r"Size of the tree\s*:\s*(\d+)", text)
    correct = re.search(r"Correctly Classified Instances\s+(\d+)", text)
    total = re.search(r"Total Number of Instances\s+(\d+)", text)
    if not (tree and leaves and size):
        raise RuntimeError(f"cannot read J48's output:\n{text}")
    return (
        tree.group(1).splitlines(),
        int(leaves.group(1)),
        int(size.group(1)),
        int(correct.group(1)) if correct else None,
        int(total.group(1)) if total else None,
    )


def parse_predictions(text, n_test):
    """J48's predicted class index (0-based, in declaration order) per test row (-p 0)."""
    # "inst#  actual  predicted ...", labels as "index:label" (cut short, may hold spaces).
    found = re.findall(r"^\s*(\d+)\s+\d+:.*?\s(\d+):", text, re.M)
    out = np.full(n_test, -1)
    for inst, predicted in found:
        out[int(inst) - 1] = int(predicted) - 1
    if (out < 0).any():
        raise RuntimeError(f"cannot read J48's predictions:\n{text}")
    return out


# -- treelearn ---------------------------------------------------------------------------


def _estimator(**wanted):
    """``C45Classifier`` with those of ``wanted`` it has as parameters (older ones lack some)."""
    params = C45Classifier().get_params()
    return C45Classifier(**{k: v for k, v in wanted.items() if k in params})


def _pruning_functions():
    try:
        from treelearn.pruning import prune_collapse, prune_error_based
    except ImportError:
        return None, None
    return prune_collapse, prune_error_based


def model_routes():
    """How this treelearn gives each variant: {"collapsed" | "pruned": (route, note)}.

    Routes: "estimator" (a parameter of ``C45Classifier``), "functions"
    (:mod:`treelearn.pruning` applied to the grown tree), None (not available).
    """
    params = C45Classifier().get_params()
    prune_collapse, prune_error_based = _pruning_functions()
    if "collapse" in params:
        collapsed = ("estimator", "C45Classifier(pruning=None, collapse=True)")
    elif prune_collapse is not None:
        collapsed = ("functions", "prune_collapse(grown)")
    else:
        collapsed = (None, "n/a: no collapse step in this treelearn")
    if "pruning" in params:
        pruned = ("estimator", 'C45Classifier(pruning="error_based", cf=0.25, collapse=True)')
    elif prune_error_based is not None:
        pruned = ("functions", "prune_error_based(collapsed, X, y, cf=0.25)")
    else:
        pruned = (None, "n/a: no error-based pruning in this treelearn")
    return {"collapsed": collapsed, "pruned": pruned}


def treelearn_models(X, y, routes):
    """{"grown", "collapsed", "pruned"}: fitted models (None where not available).

    "grown" is C4.5's tree before the collapse step and pruning.
    """
    prune_collapse, prune_error_based = _pruning_functions()
    grown = _estimator(pruning=None, collapse=False).fit(X, y)
    route = routes["collapsed"][0]
    collapsed = None
    if route == "estimator":
        collapsed = _estimator(pruning=None, collapse=True).fit(X, y)
    elif route == "functions":
        collapsed = prune_collapse(grown)
    route = routes["pruned"][0]
    pruned = None
    if route == "estimator":
        pruned = _estimator(pruning="error_based", cf=0.25, collapse=True).fit(X, y)
    elif route == "functions":
        pruned = prune_error_based(collapsed if collapsed is not None else grown, X, y, cf=0.25)
    return {"grown": grown, "collapsed": collapsed, "pruned": pruned}


def _weka_number(x):
    """Weka's Utils.doubleToString(x, 6) (approximately: Python rounds half to even)."""
    text = f"{x:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _weka_round(x):
    """Weka's Utils.roundDouble(x, 2): Java's Math.round (half up) of 100 x, over 100."""
    return math.floor(float(x) * 100 + 0.5) / 100


def _leaf_label(view, node):
    if node.weight <= 0:
        # An empty leaf: J48 prints (and predicts) its parent's majority class; treelearn's
        # class is the one it predicts, so a difference between the two shows here.
        return f"{node.prediction} (0.0)"
    value = np.asarray(node.value, dtype=float)
    scale = node.weight / value.sum() if value.sum() > 0 else 0.0
    errors = (value.sum() - value[node.class_index]) * scale
    text = f"{node.prediction} ({_weka_round(node.weight)!r}"
    if errors > 1e-6:
        text += f"/{_weka_round(errors)!r}"
    return text + ")"


def j48_style_text(model):
    """treelearn's tree printed as J48 prints its trees (for a line-by-line diff)."""
    view = TreeView(model)
    root = view.root
    if root.is_leaf:
        return [f": {_leaf_label(view, root)}"]
    lines = []

    def walk(index, depth):
        for branch in view.branches(index):
            cond = branch.condition
            if cond.operator in ("<=", ">"):
                test = f"{cond.feature_name} {cond.operator} {_weka_number(cond.threshold)}"
            else:
                test = f"{cond.feature_name} = {','.join(str(c) for c in cond.categories)}"
            child = view.node(branch.child)
            prefix = "|   " * depth
            if child.is_leaf:
                lines.append(f"{prefix}{test}: {_leaf_label(view, child)}")
            else:
                lines.append(prefix + test)
                walk(branch.child, depth + 1)

    walk(0, 0)
    return lines


def n_leaves(model):
    return int(model.tree_.n_leaves)


def root_attribute(lines):
    first = lines[0]
    return "(leaf)" if first.startswith(":") else re.split(r" (?:=|<=|>) ", first)[0]


# -- the comparison ----------------------------------------------------------------------

VARIANTS = ("grown", "collapsed", "pruned")
#: The treelearn tree compared with each J48 configuration.
COUNTERPART = {"unpruned": "collapsed", "pruned": "pruned"}


@dataclass
class FoldResult:
    j48_acc: dict = field(default_factory=dict)  # J48 config -> accuracy
    j48_leaves: dict = field(default_factory=dict)
    tl_acc: dict = field(default_factory=dict)  # treelearn variant -> accuracy (NaN: n/a)
    tl_leaves: dict = field(default_factory=dict)
    agree: dict = field(default_factory=dict)  # (variant, config) -> share predicted alike
    trees: dict = field(default_factory=dict)  # config -> (J48's lines, treelearn's or None)


def counterpart_text(models, config):
    """treelearn's tree to set against J48's ``config`` (collapsed, else grown; pruned)."""
    model = models[COUNTERPART[config]]
    if model is None and config == "unpruned":
        model = models["grown"]
    return None if model is None else j48_style_text(model)


def write_arff(path, data, index):
    with open(path, "w", encoding="utf-8") as f:
        f.write(data.header)
        f.write("\n".join(data.rows[i] for i in index))
        f.write("\n")


def make_folds(data, folds, seed):
    """Stratified folds; fewer when no class has ``folds`` rows (weather: 9 of 14)."""
    y_codes = data.y.cat.codes.to_numpy()
    data.folds = min(folds, int(np.bincount(y_codes[y_codes >= 0]).max()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # classes smaller than the number of folds
        kfold = StratifiedKFold(data.folds, shuffle=True, random_state=seed)
        return list(kfold.split(data.X, y_codes))


def submit_j48(data, splits, jar, pool, tmp):
    """Start every J48 run of the folds: {(fold, config, "model" | "pred"): future}."""
    jobs = {}
    for k, (train, test) in enumerate(splits):
        train_path = tmp / f"{data.name}-{k}-train.arff"
        test_path = tmp / f"{data.name}-{k}-test.arff"
        write_arff(train_path, data, train)
        write_arff(test_path, data, test)
        for config, options in J48_OPTIONS.items():
            jobs[k, config, "model"] = pool.submit(run_j48, jar, options, train_path, test_path)
            jobs[k, config, "pred"] = pool.submit(
                run_j48, jar, options, train_path, test_path, True
            )
    return jobs


def fold_result(data, k, train, test, jobs, routes):
    labels = np.asarray(data.y.cat.categories, dtype=object)
    X_test, y_test = data.X.iloc[test], data.y.iloc[test].to_numpy()
    models = treelearn_models(data.X.iloc[train], data.y.iloc[train], routes)
    tl_pred = {v: (None if m is None else m.predict(X_test)) for v, m in models.items()}
    res = FoldResult()
    for v, m in models.items():
        res.tl_acc[v] = np.nan if m is None else float(np.mean(tl_pred[v] == y_test))
        res.tl_leaves[v] = np.nan if m is None else n_leaves(m)
    for config in J48_OPTIONS:
        j48_tree, leaves, _, correct, total = parse_j48(jobs[k, config, "model"].result())
        res.trees[config] = (j48_tree, counterpart_text(models, config))
        res.j48_acc[config] = correct / total
        res.j48_leaves[config] = leaves
        j48_pred = labels[parse_predictions(jobs[k, config, "pred"].result(), len(test))]
        if not np.isclose(np.mean(j48_pred == y_test), correct / total):
            raise RuntimeError(f"{data.name} fold {k}: J48's predictions and accuracy disagree")
        for v in VARIANTS:
            if tl_pred[v] is not None:
                res.agree[v, config] = float(np.mean(tl_pred[v].astype(object) == j48_pred))
    return res


def cross_validate(data, folds, seed, jar, pool, routes, tmp):
    splits = make_folds(data, folds, seed)
    jobs = submit_j48(data, splits, jar, pool, tmp)
    return [fold_result(data, k, tr, te, jobs, routes) for k, (tr, te) in enumerate(splits)]


def full_data(data, jar, routes, tmp):
    """J48's and treelearn's trees on all rows: (J48 parsed per config, models, texts)."""
    path = tmp / f"{data.name}-all.arff"
    write_arff(path, data, range(len(data.rows)))
    j48 = {c: parse_j48(run_j48(jar, o, path)) for c, o in J48_OPTIONS.items()}
    models = treelearn_models(data.X, data.y, routes)
    texts = {v: (None if m is None else j48_style_text(m)) for v, m in models.items()}
    texts.update({c: counterpart_text(models, c) for c in J48_OPTIONS})
    return j48, models, texts


# -- tables ------------------------------------------------------------------------------


def _mean_std(values):
    values = np.asarray(values, dtype=float)
    if np.isnan(values).all():
        return "n/a"
    return f"{100 * values.mean():.1f} ± {100 * values.std():.1f}"


def _mean(values, scale=1.0):
    values = np.asarray(values, dtype=float)
    return "n/a" if np.isnan(values).all() else f"{scale * values.mean():.1f}"


def _column(results, attr, key):
    return [getattr(r, attr).get(key, np.nan) for r in results]


def same_trees(results, config):
    """``k/n``: the folds whose treelearn tree prints exactly as J48's."""
    pairs = [r.trees[config] for r in results]
    if any(mine is None for _, mine in pairs):
        return "n/a"
    return f"{sum(theirs == mine for theirs, mine in pairs)}/{len(pairs)}"


def _row(cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


UNPRUNED_HEAD = (
    "| dataset | rows | attributes | missing | J48 -U acc | tl grown acc | tl collapsed acc "
    "| J48 -U leaves | tl grown leaves | tl collapsed leaves | same pred. | same tree |\n"
    "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
)
PRUNED_HEAD = (
    "| dataset | J48 acc | tl pruned acc | Δ acc | J48 leaves | tl pruned leaves "
    "| same pred. | same tree |\n|---|---:|---:|---:|---:|---:|---:|---:|"
)


def unpruned_row(data, results, folds):
    rows = f"{len(data.y)}" + (f" ({data.folds} folds)" if data.folds != folds else "")
    return _row(
        [
            data.name,
            rows,
            data.kind,
            "yes" if data.missing else "no",
            _mean_std(_column(results, "j48_acc", "unpruned")),
            _mean_std(_column(results, "tl_acc", "grown")),
            _mean_std(_column(results, "tl_acc", "collapsed")),
            _mean(_column(results, "j48_leaves", "unpruned")),
            _mean(_column(results, "tl_leaves", "grown")),
            _mean(_column(results, "tl_leaves", "collapsed")),
            _mean(_column(results, "agree", ("collapsed", "unpruned")), 100) + "%",
            same_trees(results, "unpruned"),
        ]
    )


def pruned_row(data, results):
    diff = np.mean(_column(results, "tl_acc", "pruned")) - np.mean(
        _column(results, "j48_acc", "pruned")
    )
    return _row(
        [
            data.name,
            _mean_std(_column(results, "j48_acc", "pruned")),
            _mean_std(_column(results, "tl_acc", "pruned")),
            "n/a" if np.isnan(diff) else f"{100 * diff:+.1f}",
            _mean(_column(results, "j48_leaves", "pruned")),
            _mean(_column(results, "tl_leaves", "pruned")),
            _mean(_column(results, "agree", ("pruned", "pruned")), 100) + "%",
            same_trees(results, "pruned"),
        ]
    )


def _first_difference(a, b):
    """1-based number of the first line where ``a`` and ``b`` differ (None: identical)."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i + 1
    return min(len(a), len(b)) + 1 if len(a) != len(b) else None


def _same(mine, theirs):
    if mine is None:
        return "n/a"
    line = _first_difference(mine, theirs)
    return "yes" if line is None else f"no (line {line})"


FULL_HEAD = (
    "| dataset | nominal only, no missing | J48 -U leaves | tl grown | tl collapsed "
    "| root J48 / tl | -U tree identical | J48 leaves | tl pruned | pruned tree identical |\n"
    "|---|---|---:|---:|---:|---|---|---:|---:|---|"
)


def full_row(data, j48, models, texts):
    def leaves(variant):
        return "n/a" if models[variant] is None else n_leaves(models[variant])

    j48_u, j48_p = j48["unpruned"], j48["pruned"]
    return _row(
        [
            data.name,
            "yes" if data.nominal_only and not data.missing else "no",
            j48_u[1],
            leaves("grown"),
            leaves("collapsed"),
            f"{root_attribute(j48_u[0])} / {root_attribute(texts['grown'])}",
            _same(texts["unpruned"], j48_u[0]),
            j48_p[1],
            leaves("pruned"),
            _same(texts["pruned"], j48_p[0]),
        ]
    )


def _diff(theirs, mine, title, max_lines=None):
    lines = list(difflib.unified_diff(theirs, mine, "J48", "treelearn", n=2, lineterm=""))
    if max_lines is not None and len(lines) > max_lines:
        lines = [*lines[:max_lines], f"... ({len(lines) - max_lines} more diff lines)"]
    return [f"### {title}", "", "```diff", *lines, "```", ""]


def diffs(cv, full, max_lines=40):
    """Every tree that differs from J48's: all rows first, then each fold (diffs cut short)."""
    out = []
    for (data, results), (_, (j48, _, texts)) in zip(cv, full, strict=True):
        for config in J48_OPTIONS:
            label = f"J48 {' '.join(J48_OPTIONS[config])} vs treelearn {COUNTERPART[config]}"
            mine = texts[config]
            if mine is not None and mine != j48[config][0]:
                out += _diff(j48[config][0], mine, f"{data.name}, all rows: {label}")
            for k, r in enumerate(results):
                theirs, mine = r.trees[config]
                if mine is not None and mine != theirs:
                    out += _diff(theirs, mine, f"{data.name}, fold {k}: {label}", max_lines)
    return "\n".join(out)


def report(args, cv, full, routes, seconds):
    java = subprocess.run(["java", "-version"], capture_output=True, text=True, check=False)
    weka = Path(args.weka_jar).resolve().name
    lines = [
        f"# treelearn C45Classifier vs Weka J48 ({weka}, {java.stderr.splitlines()[0]})",
        "",
        f"{args.folds}-fold stratified cross-validation (seed {args.seed}), the same folds for "
        f"both; treelearn {treelearn.__version__}. Accuracy in % (mean ± std over the folds); "
        "leaves: mean over the folds; 'same pred.': share of test rows on which treelearn and "
        "J48 predict the same class; 'same tree': folds where treelearn's tree, printed in "
        "J48's format, is J48's line for line.",
        "treelearn's trees: grown = `C45Classifier(pruning=None, collapse=False)` (C4.5's tree "
        f"before collapsing and pruning); collapsed = {routes['collapsed'][1]}; "
        f"pruned = {routes['pruned'][1]}.",
        "",
        "## Unpruned: J48 -U -M 2 (collapse on) vs C45Classifier as grown and collapsed",
        "",
        "'same pred.' and 'same tree' compare the collapsed tree with J48 -U.",
        "",
        UNPRUNED_HEAD,
        *(unpruned_row(data, results, args.folds) for data, results in cv),
        "",
        "## Pruned: J48 -C 0.25 -M 2 vs C45Classifier pruned (cf=0.25)",
        "",
        PRUNED_HEAD,
        *(pruned_row(data, results) for data, results in cv),
        "",
        "## All rows: tree sizes, and the trees printed in J48's format",
        "",
        FULL_HEAD,
        *(full_row(data, *result) for data, result in full),
        "",
        f"Run time: {seconds:.0f}s.",
    ]
    if args.show_diff:
        lines += ["", "## Trees that differ from J48's", "", diffs(cv, full)]
    return "\n".join(lines)


# -- main --------------------------------------------------------------------------------


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0, help="seed of the folds")
    parser.add_argument(
        "--jobs", type=int, default=2, help="J48 processes run at once (default: 2)"
    )
    parser.add_argument("--weka-jar", default=WEKA_JAR)
    parser.add_argument("--examples", default=WEKA_EXAMPLES, help="folder of Weka's ARFF files")
    parser.add_argument("--out", help="also write the report (markdown) to this file")
    parser.add_argument(
        "--show-diff",
        action="store_true",
        help="print the diff of every tree (all rows, and each fold) that differs from J48's",
    )
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if not Path(args.weka_jar).exists():
        sys.exit(f"{args.weka_jar} not found: apt-get install --no-install-recommends weka")
    routes = model_routes()
    started = time.perf_counter()
    cv, full = [], []
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(args.jobs) as pool:
        tmp = Path(tmp)
        for name in args.datasets:
            t0 = time.perf_counter()
            data = load(name, args.examples)
            results = cross_validate(data, args.folds, args.seed, args.weka_jar, pool, routes, tmp)
            cv.append((data, results))
            full.append((data, full_data(data, args.weka_jar, routes, tmp)))
            print(f"{name}: {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    text = report(args, cv, full, routes, time.perf_counter() - started)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
