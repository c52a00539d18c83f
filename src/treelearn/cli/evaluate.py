"""``treelearn evaluate``: k-fold cross-validation of one or more algorithms, side by side.

The folds are scikit-learn's: :class:`~sklearn.model_selection.StratifiedKFold`
for classes (each fold keeps the class proportions) and
:class:`~sklearn.model_selection.KFold` for numbers, both shuffled with
``--seed``, and every algorithm is scored on the same folds. Each fold's
scores come from :mod:`sklearn.metrics`; the table shows their mean ± standard
deviation over the folds (numpy's ``std``, ``ddof=0``, as
``cross_val_score(...).std()``).

Classification: accuracy, and per class precision and recall (a fold where
no row was predicted as a class has no precision for it and is left out of
that mean), then the confusion matrix summed over the folds. Regression: RMSE
and MAE. Both: the number of leaves and the time to fit and predict.

ID3 does not split numeric columns; when the data has some and
``--discretize`` is not given, ``evaluate`` passes ``--discretize mdl`` to ID3
(fitted on each training fold) and says so in a note, so that ID3 and CART
compare on the same data without extra options.
"""

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone

from treelearn.cli.algorithms import (
    ALGORITHMS,
    CLASSIFICATION,
    build_estimator,
    check_options,
    choose_task,
    describe_settings,
)
from treelearn.cli.options import (
    DATA_EPILOG,
    add_data_arguments,
    add_debug,
    add_tree_arguments,
    non_negative_int,
)
from treelearn.cli.output import Progress, format_table
from treelearn.cli.tables import CliError, feature_kinds, load_table, split_target
from treelearn.exceptions import TreelearnError

__all__ = ["add_parser", "class_labels", "cross_validate", "run_evaluate"]


def _folds(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"expected 2 or more folds, got {value}")
    return value


def add_parser(commands):
    """Add ``evaluate`` to the subcommands."""
    evaluate = commands.add_parser(
        "evaluate",
        help="cross-validate one or more algorithms side by side",
        description=(
            "k-fold cross-validation (stratified for classes, shuffled with --seed): "
            "accuracy, per-class precision and recall and the confusion matrix, or RMSE and "
            "MAE for numbers, as mean ± std over the folds; repeat --algorithm to compare "
            "several on the same folds. A progress bar runs on stderr when it is a terminal."
        ),
        epilog=DATA_EPILOG
        + " ID3 on numeric columns: without --discretize, evaluate cuts them with "
        "--discretize mdl on each training fold (and says so). Example: 'treelearn evaluate "
        "--dataset iris --algorithm cart --algorithm id3 --cv 10'.",
    )
    add_data_arguments(evaluate)
    add_tree_arguments(evaluate, repeat_algorithm=True)
    cv = evaluate.add_argument_group("cross-validation")
    cv.add_argument(
        "--cv", type=_folds, default=10, metavar="K", help="number of folds (default: 10)"
    )
    cv.add_argument(
        "--seed",
        type=non_negative_int,
        default=0,
        metavar="N",
        help="seed of the shuffle that makes the folds (default: 0)",
    )
    cv.add_argument(
        "--decimals",
        type=non_negative_int,
        default=3,
        metavar="N",
        help="digits after the decimal point (default: 3)",
    )
    add_debug(cv)
    evaluate.set_defaults(run=run_evaluate)


def class_labels(y):
    """The classes of ``y`` in order: declared order for a category column, else sorted."""
    present = pd.unique(y.dropna())
    if isinstance(y.dtype, pd.CategoricalDtype):
        return [c for c in y.cat.categories if c in set(present)]
    try:
        return sorted(present)
    except TypeError:
        return sorted(present, key=lambda v: (type(v).__name__, str(v)))


def make_folds(X, y, task, k, seed):
    """The (train, test) index arrays of the folds, and notes."""
    # Imported here: sklearn.model_selection (with sklearn.metrics) takes about 0.07 s to
    # import, which every other command (``fit`` above all) would pay at start-up.
    from sklearn.model_selection import KFold, StratifiedKFold

    n = len(y)
    if k > n:
        raise CliError(f"--cv {k} asks for more folds than the {n} rows; use --cv {n} or fewer.")
    notes = []
    if task == CLASSIFICATION:
        counts = y.astype(object).value_counts()
        if k > counts.max():
            raise CliError(
                f"--cv {k} needs at least {k} rows of some class, but the largest class of "
                f"{y.name!r} has {counts.max()}; use --cv {counts.max()} or fewer."
            )
        if counts.min() < k:
            notes.append(
                f"the smallest class ({counts.idxmin()!r}, {counts.min()} rows) has fewer rows "
                f"than --cv {k}; some test folds hold none of it."
            )
        splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
        labels = pd.factorize(y.astype(object))[0]  # codes: any label type stratifies
    else:
        splitter = KFold(n_splits=k, shuffle=True, random_state=seed)
        labels = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the smallest-class note above
        folds = list(splitter.split(np.zeros(n), labels))
    return folds, notes


def cross_validate(estimator, X, y, folds, task, classes, progress, name, source):
    """Fit and score ``estimator`` on every fold; a dict of per-fold arrays (and matrix)."""
    scores = {"leaves": [], "seconds": 0.0}
    if task == CLASSIFICATION:
        scores.update(accuracy=[], precision=[], recall=[])
        scores["confusion"] = np.zeros((len(classes), len(classes)), dtype=np.int64)
        index = {label: i for i, label in enumerate(classes)}
        truth = _codes(y.astype(object).to_numpy(), index)
    else:
        scores.update(rmse=[], mae=[])
        truth = y.to_numpy(np.float64)
    for i, (train, test) in enumerate(folds, start=1):
        model = clone(estimator)
        progress.show(f"{name} fold {i}/{len(folds)}")
        started = time.perf_counter()
        try:
            model.fit(X.iloc[train], y.iloc[train])
            predicted = model.predict(X.iloc[test])
        except TreelearnError as error:
            raise CliError(f"cannot evaluate {name} on {source} (fold {i}): {error}") from error
        scores["seconds"] += time.perf_counter() - started
        scores["leaves"].append(model.get_n_leaves())
        if task == CLASSIFICATION:
            predicted = _codes(predicted, index)
        _score_fold(scores, task, truth[test], predicted, len(classes or ()))
        progress.step(f"{name} fold {i}/{len(folds)}")
    return {key: np.asarray(value) if isinstance(value, list) else value
            for key, value in scores.items()}  # fmt: skip


def _codes(values, index):
    """Class labels as their positions in the class list (metrics then see plain integers)."""
    return np.array([index[value] for value in values], dtype=np.int64)


def _score_fold(scores, task, truth, predicted, n_classes):
    from sklearn.metrics import (  # (imported here: see make_folds)
        accuracy_score,
        confusion_matrix,
        mean_absolute_error,
        precision_recall_fscore_support,
        root_mean_squared_error,
    )

    if task != CLASSIFICATION:
        scores["rmse"].append(root_mean_squared_error(truth, predicted))
        scores["mae"].append(mean_absolute_error(truth, predicted))
        return
    labels = np.arange(n_classes)
    scores["accuracy"].append(accuracy_score(truth, predicted))
    precision, recall, _, _ = precision_recall_fscore_support(
        truth, predicted, labels=labels, zero_division=np.nan
    )
    scores["precision"].append(precision)
    scores["recall"].append(recall)
    scores["confusion"] += confusion_matrix(truth, predicted, labels=labels)


def _mean_std(values, decimals):
    values = np.asarray(values, dtype=np.float64)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return "n/a"
    return f"{np.mean(values):.{decimals}f} ± {np.std(values):.{decimals}f}"


def run_evaluate(args):
    """Cross-validate each --algorithm on the same folds and print the table."""
    table = load_table(args.data, args.dataset, args.nominal, args.numeric)
    X, y, notes = split_target(table, args.target, args.drop)
    task = choose_task(y, args.task, table.source)
    names = list(dict.fromkeys(args.algorithm or ["cart"]))
    algorithms = [ALGORITHMS[name] for name in names]
    check_options(algorithms, args)
    estimators = []
    for algorithm in algorithms:
        estimator, more = build_estimator(
            algorithm, task, args, X, str(y.name), auto_discretize=True
        )
        estimators.append(estimator)
        notes += more
    if task != CLASSIFICATION:
        y = y.astype(np.float64)
    folds, more = make_folds(X, y, task, args.cv, args.seed)
    notes += more
    classes = class_labels(y) if task == CLASSIFICATION else None
    progress = Progress(len(algorithms) * len(folds))
    try:
        results = [
            cross_validate(e, X, y, folds, task, classes, progress, a.name, table.source)
            for a, e in zip(algorithms, estimators, strict=True)
        ]
    finally:
        progress.close()
    _print_report(args, table, X, y, task, classes, algorithms, estimators, results, notes)
    return 0


def _print_report(args, table, X, y, task, classes, algorithms, estimators, results, notes):
    d = args.decimals
    kinds = feature_kinds(X)
    what = f"{len(classes)} classes" if task == CLASSIFICATION else "numeric"
    print(
        f"{args.cv}-fold cross-validation on {table.source}: {len(y)} rows, {X.shape[1]} "
        f"feature{'s' if X.shape[1] != 1 else ''} ({len(kinds['nominal'])} nominal, "
        f"{len(kinds['numeric'])} numeric), "
        f"target {y.name!s} ({what})"
    )
    folds = "stratified folds" if task == CLASSIFICATION else "folds"
    print(f"{folds} shuffled with seed {args.seed}; mean ± std over the {args.cv} folds\n")
    rows = [["", *[a.name for a in algorithms]]]
    if task == CLASSIFICATION:
        rows.append(["accuracy", *[_mean_std(r["accuracy"], d) for r in results]])
        for metric in ("precision", "recall"):
            for j, label in enumerate(classes):
                cells = [_mean_std(r[metric][:, j], d) for r in results]
                rows.append([f"{metric} {label}", *cells])
    else:
        rows.append(["RMSE", *[_mean_std(r["rmse"], d) for r in results]])
        rows.append(["MAE", *[_mean_std(r["mae"], d) for r in results]])
    rows.append(["leaves", *[_mean_std(r["leaves"], 1) for r in results]])
    rows.append(["time", *[f"{r['seconds']:.2f} s" for r in results]])
    print(format_table(rows))
    if task == CLASSIFICATION:
        for algorithm, result in zip(algorithms, results, strict=True):
            print(
                f"\nconfusion matrix of {algorithm.name} (rows: true class, columns: "
                f"predicted class; all {args.cv} folds)"
            )
            matrix = result["confusion"]
            lines = [["", *[str(c) for c in classes]]]
            lines += [[str(c), *[str(v) for v in matrix[i]]] for i, c in enumerate(classes)]
            print(format_table(lines, right=range(1, len(classes) + 1)))
    print()
    for algorithm, estimator in zip(algorithms, estimators, strict=True):
        print(f"{algorithm.name}: {describe_settings(algorithm, estimator)}")
    for note in notes:
        print(f"note: {note}")
