"""C4.5's error-based pruning (Quinlan 1993, Release 8), and FormTree's collapse rule.

A leaf covering ``N`` training cases, ``E`` of them misclassified, is
predicted to make ``N * U_CF(E, N)`` errors on unseen cases, ``U_CF`` being
the upper limit of the binomial confidence interval for the error rate at
confidence ``CF`` (C4.5's ``AddErrs``, from the Documenta Geigy tables; see
:func:`added_errors`). A subtree's predicted errors are the sum of its
leaves'. Bottom-up, C4.5 replaces a subtree by a leaf, or by its largest
branch (*subtree raising*), when that does not predict more errors.
"""

import numpy as np
from scipy.stats import norm
from sklearn.utils.class_weight import compute_sample_weight

from treelearn.data.target import validate_sample_weight
from treelearn.exceptions import DataError, ParameterError
from treelearn.pruning._common import (
    check_choice,
    check_real,
    encode_target_like,
    fitted_tree,
    require_classifier,
    training_errors,
    with_tree,
)
from treelearn.pruning._kernels import added_errors_kernel, c45_prune, collapse_nodes
from treelearn.pruning._subtree import prune_tree
from treelearn.tree.structure import _kernel_matrix

DEVIATES = ("normal", "c45_table")
#: C4.5's table of confidence levels and normal deviates (stats.c), interpolated linearly.
_C45_LEVELS = np.array([0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00])
_C45_DEVIATES = np.array([4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00])
#: FormTree's tolerance (defns.i, ``Epsilon``).
_EPSILON = 1e-3


def _check_cf(cf):
    return check_real(
        "cf",
        cf,
        0.0,
        0.5,
        low_open=True,
        hint=" It is the confidence factor of C4.5's pruning (default 0.25); smaller values "
        "prune more, and above 0.5 the upper confidence limit would be below the observed "
        "error rate.",
    )


def deviate_squared(cf, deviate="normal"):
    """``z**2`` for confidence ``cf``: ``z`` is the normal deviate exceeded with probability ``cf``.

    ``deviate="normal"``: ``z = Phi^-1(1 - cf)`` exactly (scipy; Weka's J48
    does the same). ``deviate="c45_table"``: C4.5's linear interpolation in
    its table of (confidence, deviate) pairs, e.g. ``z = 0.6925`` at 0.25
    where the exact value is 0.6745.
    """
    cf = _check_cf(cf)
    check_choice("deviate", deviate, DEVIATES)
    if deviate == "normal":
        z = float(norm.ppf(1.0 - cf))
    else:
        i = int(np.searchsorted(_C45_LEVELS, cf, side="left"))
        low, high = _C45_LEVELS[i - 1], _C45_LEVELS[i]
        z = _C45_DEVIATES[i - 1] + (_C45_DEVIATES[i] - _C45_DEVIATES[i - 1]) * (cf - low) / (
            high - low
        )
    return z * z


def added_errors(n, errors, cf=0.25, deviate="normal"):
    """C4.5's ``AddErrs(N, E)``: the errors to add to ``E`` observed errors among ``N`` cases.

    ``N * U_CF(E, N) = E + AddErrs(N, E)``, where ``U_CF(E, N)`` is the upper
    limit of the confidence interval, at confidence ``CF``, of the error
    probability of a binomial with ``E`` errors in ``N`` trials. C4.5 (stats.c)
    computes it, with ``z**2`` from :func:`deviate_squared`, as

    - ``E < 1e-6``: ``N (1 - CF^(1/N))`` (exact: ``(1 - U)^N = CF``);
    - ``E < 0.9999``: linear interpolation between ``E = 0`` and ``E = 1``;
    - ``E + 0.5 >= N``: ``0.67 (N - E)``;
    - otherwise the normal approximation with continuity correction:
      ``N p - E`` with ``p = (E + 1/2 + z^2/2 + z sqrt((E + 1/2)(1 - (E + 1/2)/N)
      + z^2/4)) / (N + z^2)``.

    ``N = 0`` adds nothing.

    Parameters
    ----------
    n : float
        Cases (a sum of weights; fractional with C4.5's missing values).
    errors : float
    cf : float in (0, 0.5], default=0.25
    deviate : {"normal", "c45_table"}, default="normal"

    References
    ----------
    Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, ch. 4 and
    the Release 8 sources (stats.c, prune.c). Morgan Kaufmann.
    """
    coeff = deviate_squared(cf, deviate)
    return float(added_errors_kernel(float(n), float(errors), float(np.log(cf)), coeff))


def upper_error_limit(errors, n, cf=0.25, deviate="normal"):
    """``U_CF(E, N) = (E + AddErrs(N, E)) / N``: the pessimistic error rate of a leaf.

    Quinlan (1993, ch. 4): ``U_0.25(0, 6) = 0.206``, ``U_0.25(0, 9) = 0.143``,
    ``U_0.25(0, 1) = 0.750``, ``U_0.25(1, 16) = 0.157`` (the last with C4.5's
    tabled deviate, ``deviate="c45_table"``; 0.155 with the exact one).
    See :func:`added_errors`.
    """
    n = float(n)
    if n <= 0:
        return 0.0
    return (float(errors) + added_errors(n, errors, cf, deviate)) / n


def _c45_estimate(tree, X, y, rows, row_weight, cf, coeff, raising):
    """C4.5's ``EstimateErrors`` (prune.c) over ``tree`` and the training rows
    (:func:`~treelearn.pruning._kernels.c45_prune`). Returns the state C4.5
    leaves in its tree: ``pruned`` (nodes made leaves), ``raised`` ({node:
    the branch that replaced it}) and the recounted ``value``, ``weight`` and
    ``n_samples`` of every node the cases reach (the others keep theirs)."""
    n = tree.node_count
    nodes, surrogates = tree._kernel_args()
    pruned = np.zeros(n, dtype=bool)
    raised = np.full(n, -1, dtype=np.int64)
    value = np.array(tree.value, dtype=np.float64, order="C")
    weight = np.zeros(n)
    n_samples = np.zeros(n, dtype=np.int64)
    c45_prune(
        X,
        y,
        rows.astype(np.int64),
        np.ascontiguousarray(row_weight, dtype=np.float64),
        nodes,
        surrogates,
        float(np.log(cf)),
        float(coeff),
        bool(raising),
        np.argmax(tree.value, axis=1).astype(np.int64),
        value,
        weight,
        n_samples,
        pruned,
        raised,
        np.zeros(n),
    )
    where = np.flatnonzero(raised >= 0)
    raised = dict(zip(where.tolist(), raised[where].tolist(), strict=True))
    return pruned, raised, value, weight, n_samples


def _impurity(value, criterion):
    total = value.sum(axis=1, keepdims=True)
    p = np.divide(value, total, out=np.zeros_like(value), where=total > 0)
    if criterion == "gini":
        return 1.0 - (p * p).sum(axis=1)
    logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logs).sum(axis=1)


def _recounted_stats(tree, value, weight, n_samples, criterion):
    changed = ~np.all(np.isclose(value, tree.value, rtol=1e-12, atol=0), axis=1)
    impurity = np.where(changed, _impurity(value, criterion), tree.impurity)
    return {"value": value, "n_samples": n_samples, "weight": weight, "impurity": impurity}


def prune_error_based(
    model, X, y, *, cf=0.25, subtree_raising=True, sample_weight=None, deviate="normal"
):
    """C4.5's error-based pruning (Quinlan 1993, Release 8), with subtree raising.

    The training cases are sent down the tree; a case missing the tested value
    at a by-weight node goes down every branch with its weight times the
    branch's share of the node's known cases (C4.5's ``Factor``). At a node
    with ``N`` cases of which ``E`` are not of its majority class, the leaf
    estimate is ``N * U_CF(E, N)`` (:func:`upper_error_limit`), a subtree's
    estimate is the sum of its leaves'. Every node is handled after its
    branches (bottom-up), and C4.5's rule decides:

    1. leaf, if its estimate is at most both the subtree's and the largest
       branch's, plus 0.1;
    2. otherwise, with ``subtree_raising``, the largest branch (the one with
       most known cases; the last of equal ones) replaces the node if its
       estimate, with *all* the node's cases sent down it, is at most the
       subtree's plus 0.1: the cases of the other branches move into it, its
       class distributions are recounted and it is pruned again;
    3. otherwise the subtree stays.

    Class distributions, weights and row counts of the result are those of
    the cases that reach each node (a node no case reaches keeps its
    distribution, so its class, with weight 0, as C4.5 keeps an empty leaf's
    class). ``n_samples`` counts the rows that reach a node with some weight
    (a row split by weight counts in every branch it reaches). The predicted
    class is the argmax of the recounted distribution (ties: the first class);
    C4.5 keeps the node's previous class on a tie.

    Parameters
    ----------
    model : fitted treelearn tree classifier
    X, y : the training data the tree was grown on
        (Pruning with other data is allowed and recounts the tree on them.)
    cf : float in (0, 0.5], default=0.25
        Confidence factor; smaller prunes more.
    subtree_raising : bool, default=True
    sample_weight : array-like, optional
        The weights of the fit (class weights of the model are applied too).
    deviate : {"normal", "c45_table"}, default="normal"
        The normal deviate of ``cf``: exact, or C4.5's tabled interpolation
        (:func:`deviate_squared`).

    Returns
    -------
    estimator
        A deep copy of ``model`` with the pruned ``tree_``.

    References
    ----------
    Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, ch. 4.
    Morgan Kaufmann; Release 8 sources, prune.c (``EstimateErrors``).
    """
    fitted_tree(model, "prune_error_based")
    pruned = error_based_tree(model, X, y, cf, subtree_raising, sample_weight, deviate)
    return with_tree(model, pruned)


def error_based_tree(
    model, X, y, cf=0.25, subtree_raising=True, sample_weight=None, deviate="normal", tree=None
):
    """The Tree :func:`prune_error_based` gives the fitted ``model`` (or gives
    ``tree``, a tree of ``model``'s features and classes, in its place)."""
    tree = model.tree_ if tree is None else tree
    require_classifier(model, "Error-based pruning")
    cf = _check_cf(cf)
    coeff = deviate_squared(cf, deviate)
    if not isinstance(subtree_raising, (bool, np.bool_)):
        raise ParameterError(f"subtree_raising must be True or False, got {subtree_raising!r}.")
    matrix = _kernel_matrix(np.asarray(model._prediction_matrix(X)))
    n = matrix.shape[0]
    if n == 0:
        raise DataError("X has no rows; error-based pruning needs the training rows.")
    target = encode_target_like(model, y, n, "")
    weight = validate_sample_weight(sample_weight, n)
    class_weight = getattr(model, "class_weight", None)
    if class_weight is not None:
        weight = weight * compute_sample_weight(class_weight, model.classes_[target])
    rows = np.flatnonzero(weight > 0)
    pruned, raised, value, counted, n_samples = _c45_estimate(
        tree, matrix, target, rows, weight[rows], cf, coeff, subtree_raising
    )
    criterion = getattr(model, "criterion", "entropy")
    stats = _recounted_stats(tree, value, counted, n_samples, criterion)
    return prune_tree(tree, pruned, raised=raised, stats=stats)


def collapse_leaves(tree):
    """Nodes FormTree's rule collapses (see :func:`prune_collapse`)."""
    leaves = np.zeros(tree.node_count, dtype=bool)
    collapse_nodes(
        training_errors(tree), tree.kind, tree.child_ptr, tree.children, _EPSILON, leaves
    )
    return leaves


def prune_collapse(model):
    """C4.5's collapse rule (FormTree, build.c): cut subtrees no better than a leaf in training.

    Bottom-up, a subtree whose training errors (the sum of its leaves'
    errors, each leaf's being its weight outside its majority class) are at
    least the node's own errors as a leaf, less ``1e-3``, becomes a leaf. As in
    C4.5, a collapsed node still counts its subtree's errors for the test of
    its parent. C4.5 applies it to every tree it grows, before error-based
    pruning (Weka's J48: ``collapseTree``).

    Parameters
    ----------
    model : fitted treelearn tree classifier
        Only the tree's own statistics are read.

    Returns
    -------
    estimator
        A deep copy of ``model`` with the collapsed ``tree_``.

    References
    ----------
    Quinlan, J. R. (1993). C4.5: Programs for Machine Learning. Release 8
    sources, build.c (``FormTree``).
    """
    tree = fitted_tree(model, "prune_collapse")
    require_classifier(model, "The collapse rule")
    return with_tree(model, prune_tree(tree, collapse_leaves(tree)))
