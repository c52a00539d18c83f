"""The learning algorithms the command offers: a small registry, name -> estimator.

Each :class:`Algorithm` names its estimator classes (classification and, if
any, regression), the tree options it takes, and whether it splits numeric
columns itself. Adding an algorithm is one entry in :data:`ALGORITHMS`;
``--algorithm`` choices, help, option checks, ``fit`` and ``evaluate`` read
the registry.

Options are checked against the algorithm: an option it does not take is an
error naming the algorithms that do (with several ``--algorithm`` in
``evaluate``, an option applies to those that take it, and is an error only
when none does).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from treelearn.cli.tables import CliError, feature_kinds
from treelearn.estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier

__all__ = [
    "ALGORITHMS",
    "CLASSIFICATION",
    "CLASSIFICATION_CRITERIA",
    "MAX_CLASSES_AUTO",
    "REGRESSION",
    "REGRESSION_CRITERIA",
    "TREE_OPTIONS",
    "Algorithm",
    "build_estimator",
    "choose_task",
    "criterion_choices",
    "describe_settings",
]

CLASSIFICATION = "classification"
REGRESSION = "regression"
CLASSIFICATION_CRITERIA = ("gini", "entropy")
REGRESSION_CRITERIA = ("squared_error", "absolute_error", "huber")
#: A numeric target with more distinct values than this is a regression target.
MAX_CLASSES_AUTO = 20
#: Tree options of the command: argparse ``dest`` -> flag. The estimator
#: parameter has the ``dest``'s name.
TREE_OPTIONS = {
    "criterion": "--criterion",
    "max_depth": "--max-depth",
    "min_samples_leaf": "--min-samples-leaf",
    "discretize": "--discretize",
    "pruning": "--pruning",
    "cf": "--cf",
    "ccp_alpha": "--ccp-alpha",
    "validation_fraction": "--validation-fraction",
}
#: The options CART takes.
CART_OPTIONS = frozenset(
    {"criterion", "max_depth", "min_samples_leaf", "pruning", "cf", "ccp_alpha"}
    | {"validation_fraction"}
)
#: ``--pruning`` choices: the estimators' ``pruning`` values, "none" for None.
PRUNING_CHOICES = ("none", "error_based", "pessimistic", "reduced_error", "validation")
#: ``--pruning`` methods that count misclassifications (classification trees only).
CLASSIFICATION_PRUNING = ("error_based", "pessimistic")


@dataclass(frozen=True)
class Algorithm:
    """One ``--algorithm`` choice.

    Attributes
    ----------
    name : str
        As typed after ``--algorithm``.
    label : str
        As printed (``"CART"``).
    classifier, regressor : callable or None
        Estimator factories (classes) taking the tree options as keywords;
        None when the algorithm does not grow that kind of tree.
    options : frozenset of str
        The :data:`TREE_OPTIONS` (``dest`` names) it takes.
    criteria : tuple of str
        The ``--criterion`` values it takes (the default first).
    splits_numeric : bool
        False when numeric columns must be discretized first (``--discretize``).
    summary : str
        One line for ``--help``.
    """

    name: str
    label: str
    classifier: object
    regressor: object
    options: frozenset
    criteria: tuple = ()
    splits_numeric: bool = True
    summary: str = ""


ALGORITHMS = {
    algorithm.name: algorithm
    for algorithm in (
        Algorithm(
            "cart",
            "CART",
            CARTClassifier,
            CARTRegressor,
            CART_OPTIONS,
            criteria=CLASSIFICATION_CRITERIA + REGRESSION_CRITERIA,
            summary="binary splits; classes or numbers",
        ),
        Algorithm(
            "id3",
            "ID3",
            ID3Classifier,
            None,
            frozenset(
                {"criterion", "max_depth", "discretize", "pruning", "cf", "validation_fraction"}
            ),
            criteria=("entropy", "gini"),
            splits_numeric=False,
            summary="multiway splits on nominal columns; classes only",
        ),
        Algorithm(
            "c4.5",
            "C4.5",
            C45Classifier,
            None,
            frozenset({"max_depth", "min_samples_leaf", "pruning", "cf", "validation_fraction"}),
            summary="gain ratio; multiway and threshold splits; missing values; pruned by "
            "C4.5's error-based pruning unless --pruning says otherwise; classes only",
        ),
    )
}


def criterion_choices():
    """Every ``--criterion`` value some algorithm takes, in registry order."""
    return list(dict.fromkeys(c for a in ALGORITHMS.values() for c in a.criteria))


def _article(label):
    return "an" if label[:1].upper() in "AEFHILMNORSX8" else "a"


def _owners(option):
    labels = [a.label for a in ALGORITHMS.values() if option in a.options]
    if len(labels) > 2:
        return ", ".join(labels[:-1]) + " and " + labels[-1]
    return " and ".join(labels) if labels else "no"


def choose_task(y, requested, source):
    """``"classification"`` or ``"regression"`` for the target ``y``.

    ``auto``: regression when ``y`` is numeric (not bool) and has non-integer
    values or more than :data:`MAX_CLASSES_AUTO` distinct values.
    """
    numeric = pd.api.types.is_numeric_dtype(y.dtype) and not pd.api.types.is_bool_dtype(y.dtype)
    if requested == REGRESSION:
        if not numeric:
            raise CliError(
                f"--task regression needs a numeric target, but column {y.name!r} of {source} "
                "holds text; drop --task regression to grow a classification tree."
            )
        return REGRESSION
    if requested == CLASSIFICATION or not numeric:
        return CLASSIFICATION
    values = y.to_numpy(dtype=np.float64)
    fractional = bool(np.any(values != np.round(values)))
    if fractional or np.unique(values).shape[0] > MAX_CLASSES_AUTO:
        return REGRESSION
    return CLASSIFICATION


def check_options(algorithms, args):
    """Refuse tree options that none of ``algorithms`` takes (one: that one does not)."""
    for option, flag in TREE_OPTIONS.items():
        if getattr(args, option, None) is None:
            continue
        if any(option in algorithm.options for algorithm in algorithms):
            continue
        owners = _owners(option)
        names = " and ".join(a.label for a in algorithms)
        raise CliError(
            f"{flag} is {_article(owners)} {owners} option; {names} "
            f"{'does' if len(algorithms) == 1 else 'do'} not take it."
        )


def check_criterion(criterion, task, target):
    """Refuse a criterion of the other task."""
    if criterion is None:
        return
    allowed = CLASSIFICATION_CRITERIA if task == CLASSIFICATION else REGRESSION_CRITERIA
    if criterion not in allowed:
        raise CliError(
            f"--criterion {criterion} is not for a {task} tree (target {target!r}); "
            f"use one of {', '.join(allowed)}, or set --task."
        )


def build_estimator(algorithm, task, args, X, target, auto_discretize=False):
    """The estimator for ``algorithm`` with the options of ``args``, and notes for the user.

    Parameters
    ----------
    algorithm : Algorithm
    task : {"classification", "regression"}
    args : argparse.Namespace
        The tree options (:data:`TREE_OPTIONS`); None means "not given".
    X : DataFrame
        The features (to see whether numeric columns need discretizing).
    target : str
        The target's name, for messages.
    auto_discretize : bool, default=False
        For an algorithm that does not split numeric columns: discretize them
        with ``mdl`` when ``--discretize`` is not given (``evaluate``), instead
        of refusing (``fit``).

    Returns
    -------
    estimator, list of str
    """
    factory = algorithm.classifier if task == CLASSIFICATION else algorithm.regressor
    if factory is None:
        others = [a.name for a in ALGORITHMS.values() if a.regressor is not None]
        raise CliError(
            f"--algorithm {algorithm.name} grows classification trees, but target {target!r} "
            f"is numeric; use --algorithm {' or '.join(others)}, or --task classification "
            "if its values are classes."
        )
    criterion = getattr(args, "criterion", None)
    check_criterion(criterion, task, target)
    if criterion is not None and criterion not in algorithm.criteria:
        raise CliError(
            f"{algorithm.label} does not take --criterion {criterion}; it takes "
            f"{', '.join(algorithm.criteria)}."
        )
    params = {
        option: getattr(args, option)
        for option in algorithm.options
        if getattr(args, option, None) is not None
    }
    if task != CLASSIFICATION and "cf" in params:
        raise CliError(
            f"--cf is the confidence factor of --pruning error_based, which prunes "
            f"classification trees; target {target!r} is numeric."
        )
    if params.get("pruning") == "none":
        params["pruning"] = None
    elif task != CLASSIFICATION and params.get("pruning") in CLASSIFICATION_PRUNING:
        raise CliError(
            f"--pruning {params['pruning']} counts misclassifications, so it prunes "
            f"classification trees; target {target!r} is numeric: use --pruning "
            "reduced_error, validation, or --ccp-alpha."
        )
    notes = []
    numeric = feature_kinds(X)["numeric"]
    if not algorithm.splits_numeric and numeric and params.get("discretize") is None:
        if not auto_discretize:
            raise CliError(
                f"{algorithm.label} cannot split numeric columns ({', '.join(numeric[:5])}"
                f"{', ...' if len(numeric) > 5 else ''}); pass --discretize mdl (or quantile) "
                "to cut them into intervals, --nominal COLS if they hold categories, or use "
                "--algorithm cart."
            )
        params["discretize"] = "mdl"
        notes.append(
            f"{algorithm.name}: numeric columns are cut into intervals (--discretize mdl, "
            "Fayyad-Irani) on each training fold; pass --discretize quantile for quantile bins."
        )
    return factory(**params), notes


def describe_settings(algorithm, estimator):
    """``criterion gini, max_depth 3``: the tree options in effect for ``estimator``."""
    params = estimator.get_params()
    method = params.get("pruning")
    relevant = {
        "cf": method == "error_based",
        "validation_fraction": method in ("reduced_error", "validation"),
        "ccp_alpha": bool(params.get("ccp_alpha")),
    }
    parts = [
        f"{option} {params[option]}"
        for option in TREE_OPTIONS
        if option in algorithm.options
        and params.get(option) is not None
        and relevant.get(option, True)
    ]
    return ", ".join(parts)
