"""C4.5's error-based pruning (Quinlan 1993, Release 8), and FormTree's collapse rule.

A leaf covering ``N`` training cases, ``E`` of them misclassified, is
predicted to make ``N * U_CF(E, N)`` errors on unseen cases, ``U_CF`` being
the upper limit of the binomial confidence interval for the error rate at
confidence ``CF`` (C4.5's ``AddErrs``, from the Documenta Geigy tables; see
:func:`added_errors`). A subtree's predicted errors are the sum of its
leaves'. Bottom-up, C4.5 replaces a subtree by a leaf, or by its largest
branch (*subtree raising*), when that does not predict more errors.
"""

import sys

import numpy as np
from scipy.stats import norm
from sklearn.utils.class_weight import compute_sample_weight

from treelearn._dtypes import MISSING_BY_WEIGHT, NODE_LEAF
from treelearn.data.target import validate_sample_weight
from treelearn.exceptions import DataError, ParameterError
from treelearn.pruning._common import (
    check_choice,
    check_real,
    encode_target_like,
    fitted_tree,
    postorder_internal,
    require_classifier,
    training_errors,
    with_tree,
)
from treelearn.pruning._kernels import branch_of_rows
from treelearn.pruning._subtree import prune_tree
from treelearn.tree.structure import _kernel_matrix

DEVIATES = ("normal", "c45_table")
#: C4.5's table of confidence levels and normal deviates (stats.c), interpolated linearly.
_C45_LEVELS = np.array([0, 0.001, 0.005, 0.01, 0.05, 0.10, 0.20, 0.40, 1.00])
_C45_DEVIATES = np.array([4.0, 3.09, 2.58, 2.33, 1.65, 1.28, 0.84, 0.25, 0.00])
#: C4.5 (prune.c) prefers the simpler tree when it predicts at most 0.1 more errors.
_SLACK = 0.1
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


def _added_errors(n, e, cf, coeff):
    if n <= 0:
        return 0.0
    if e < 1e-6:
        return n * (1.0 - np.exp(np.log(cf) / n))
    if e < 0.9999:
        base = n * (1.0 - np.exp(np.log(cf) / n))
        return base + e * (_added_errors(n, 1.0, cf, coeff) - base)
    if e + 0.5 >= n:
        return 0.67 * (n - e)
    p = (e + 0.5 + coeff / 2 + np.sqrt(coeff * ((e + 0.5) * (1 - (e + 0.5) / n) + coeff / 4))) / (
        n + coeff
    )
    return n * p - e


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
    return float(_added_errors(float(n), float(errors), float(cf), coeff))


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


class _C45Pruner:
    """C4.5's ``EstimateErrors`` (prune.c) over a Tree and the training rows.

    State changes as C4.5 rewrites its tree in place: ``pruned`` nodes became
    leaves, ``raised[t] = b`` means node ``t`` was replaced by its branch
    ``b``; ``leaf_class`` is C4.5's ``T->Leaf``; ``value``, ``weight``,
    ``n_samples`` are recounted for every node the cases reach.
    """

    def __init__(self, tree, X, y, cf, coeff, raising):
        self.tree, self.X, self.y, self.cf, self.coeff = tree, X, y, cf, coeff
        self.raising = raising
        self.nodes, self.surrogates = tree._kernel_args()
        self.pruned = np.zeros(tree.node_count, dtype=bool)
        self.raised = {}
        self.leaf_class = np.argmax(tree.value, axis=1)
        self.value = tree.value.copy()
        self.weight = np.zeros(tree.node_count)
        self.n_samples = np.zeros(tree.node_count, dtype=np.int64)
        self.errors = np.zeros(tree.node_count)

    def resolve(self, node):
        while node in self.raised:
            node = self.raised[node]
        return node

    def is_leaf(self, node):
        return self.pruned[node] or self.tree.kind[node] == NODE_LEAF

    def leaf_estimate(self, t, rows, w, update):
        dist = np.bincount(self.y[rows], weights=w, minlength=self.tree.n_classes)
        cases = float(dist.sum())
        best = self.leaf_class[t]
        if dist.max() > dist[best]:
            best = int(np.argmax(dist))
        leaf_errors = cases - dist[best]
        if update:
            if cases > 0:
                self.value[t] = dist
            self.weight[t] = cases
            self.n_samples[t] = int(np.count_nonzero(w > 0))
            self.leaf_class[t] = best
        return leaf_errors + _added_errors(cases, leaf_errors, self.cf, self.coeff)

    def clear(self, node):
        """No case reaches ``node``'s subtree: no weight, no rows (values kept)."""
        stack = [node]
        while stack:
            n = stack.pop()
            self.weight[n] = 0.0
            self.n_samples[n] = 0
            stack.extend(self.tree.children_of(n).tolist())
            if n in self.raised:
                stack.append(self.raised[n])

    def shares(self, t, branch, known, w):
        """C4.5's ``Factor`` per branch (known cases' share) and which branches get cases."""
        n_kids = self.tree.children_of(t).shape[0]
        known_w = np.bincount(branch[known], weights=w[known], minlength=n_kids)
        if known_w.sum() > 0:
            return known_w / known_w.sum(), np.bincount(branch[known], minlength=n_kids) > 0
        # No case here knows the tested value (C4.5 would divide by zero): the
        # children's training weights share out the cases.
        kid_w = self.tree.weight[self.tree.children_of(t)]
        factor = kid_w / kid_w.sum() if kid_w.sum() > 0 else np.full(n_kids, 1.0 / n_kids)
        return factor, factor > 0

    def estimate(self, t, rows, w, update):
        leaf_total = self.leaf_estimate(t, rows, w, update)
        if self.is_leaf(t):
            if update:
                self.errors[t] = leaf_total
            return leaf_total
        branch = np.empty(rows.shape[0], dtype=np.int64)
        branch_of_rows(self.X, rows, t, self.nodes, self.surrogates, branch)
        known = branch != MISSING_BY_WEIGHT
        factor, visit = self.shares(t, branch, known, w)
        unknown = ~known
        kids = self.tree.children_of(t)
        tree_errors, max_factor, largest = 0.0, 0.0, -1
        for v in range(kids.shape[0]):
            if not visit[v]:
                if update:
                    self.clear(self.resolve(int(kids[v])))
                continue
            if factor[v] >= max_factor:
                largest, max_factor = v, factor[v]
            sel = known & (branch == v)
            tree_errors += self.estimate(
                self.resolve(int(kids[v])),
                np.concatenate([rows[sel], rows[unknown]]),
                np.concatenate([w[sel], w[unknown] * factor[v]]),
                update,
            )
        if not update:
            return tree_errors
        return self.decide(t, rows, w, leaf_total, tree_errors, int(kids[largest]))

    def decide(self, t, rows, w, leaf_total, tree_errors, largest):
        """Keep ``t``, make it a leaf, or raise its largest branch (prune.c)."""
        largest = self.resolve(largest)
        branch_errors = self.estimate(largest, rows, w, False) if self.raising else np.inf
        if leaf_total <= branch_errors + _SLACK and leaf_total <= tree_errors + _SLACK:
            self.pruned[t] = True
            self.errors[t] = leaf_total
        elif branch_errors <= tree_errors + _SLACK:
            self.estimate(largest, rows, w, True)
            self.raised[t] = largest
            return self.errors[self.resolve(largest)]
        else:
            self.errors[t] = tree_errors
        return self.errors[t]


def _impurity(value, criterion):
    total = value.sum(axis=1, keepdims=True)
    p = np.divide(value, total, out=np.zeros_like(value), where=total > 0)
    if criterion == "gini":
        return 1.0 - (p * p).sum(axis=1)
    logs = np.log2(p, out=np.zeros_like(p), where=p > 0)
    return -(p * logs).sum(axis=1)


def _recounted_stats(tree, pruner, criterion):
    changed = ~np.all(np.isclose(pruner.value, tree.value, rtol=1e-12, atol=0), axis=1)
    impurity = np.where(changed, _impurity(pruner.value, criterion), tree.impurity)
    return {
        "value": pruner.value,
        "n_samples": pruner.n_samples,
        "weight": pruner.weight,
        "impurity": impurity,
    }


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
    pruner = _C45Pruner(tree, matrix, target, cf, coeff, bool(subtree_raising))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 8 * tree.max_depth + 200))
    try:
        pruner.estimate(0, rows, weight[rows], True)
    finally:
        sys.setrecursionlimit(limit)
    stats = _recounted_stats(tree, pruner, getattr(model, "criterion", "entropy"))
    return prune_tree(tree, pruner.pruned, raised=pruner.raised, stats=stats)


def collapse_leaves(tree):
    """Nodes FormTree's rule collapses (see :func:`prune_collapse`)."""
    errors = training_errors(tree)
    subtree = errors.copy()
    leaves = np.zeros(tree.node_count, dtype=bool)
    for node in postorder_internal(tree):
        below = subtree[tree.children_of(node)].sum()
        leaves[node] = below >= errors[node] - _EPSILON
        subtree[node] = below
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
