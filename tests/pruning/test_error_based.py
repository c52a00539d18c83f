"""C4.5's error-based pruning: U_CF, the book's example, subtree raising, fractional cases.

Numbers pinned here were computed by hand from C4.5's ``AddErrs`` (stats.c):
``N U(0, N) = N (1 - CF^(1/N))``; for ``E >= 1`` the normal approximation with
continuity correction ``U = (E + 1/2 + z^2/2 + z sqrt((E + 1/2)(1 - (E + 1/2)/N)
+ z^2/4)) / (N + z^2)``, with ``z = 0.6744897501960817`` (exact, CF = 0.25)
or ``z = 0.84 + (0.25 - 0.84) (0.25 - 0.20) / 0.20 = 0.6925`` (C4.5's table).
"""

import numpy as np
import pandas as pd
import pytest
from _oracles import _oracle_branch, c45_prune_oracle
from sklearn.datasets import make_classification

from treelearn import CARTClassifier, CARTRegressor, ID3Classifier
from treelearn._dtypes import MISSING_BY_WEIGHT, NODE_MULTIWAY, NODE_THRESHOLD
from treelearn.exceptions import DataError, ParameterError, SchemaMismatchError
from treelearn.pruning import (
    added_errors,
    is_subtree,
    prune_collapse,
    prune_error_based,
    upper_error_limit,
)
from treelearn.pruning.error_based import deviate_squared
from treelearn.tree import Tree, TreeBuilder


@pytest.mark.parametrize(
    ("errors", "n", "exact", "c45"),
    [
        (0, 6, 0.2062994740159002, 0.2062994740159002),  # Quinlan 1993: 0.206
        (0, 9, 0.1427560171469272, 0.1427560171469272),  # 0.143
        (0, 1, 0.75, 0.75),  # 0.750
        (1, 16, 0.154732164489829, 0.1566808723990975),  # 0.157 (tabled z)
        (1, 2, 0.8957465216186346, 0.8981205658865041),
        (1.5, 2, 0.9175, 0.9175),  # E + 1/2 >= N: 0.67 (N - E) added
        (0.5, 10, 0.1853527934024124, 0.18675556149862366),  # 0 < E < 1: interpolated
        (10, 100, 0.12749611451189868, 0.12814705318468766),
        (1.75, 7.5, 0.42162202809871296, 0.42500225091707927),  # fractional cases
    ],
)
def test_upper_error_limit(errors, n, exact, c45):
    assert upper_error_limit(errors, n) == pytest.approx(exact, rel=1e-12)
    assert upper_error_limit(errors, n, deviate="c45_table") == pytest.approx(c45, rel=1e-12)
    assert errors + added_errors(n, errors) == pytest.approx(n * exact, rel=1e-12)


def test_deviates_and_degenerate_counts():
    assert deviate_squared(0.25) == pytest.approx(0.6744897501960817**2, rel=1e-12)
    assert deviate_squared(0.25, "c45_table") == pytest.approx(0.6925**2, rel=1e-12)
    # exactly on a table entry: C4.5's deviate for 0.10 is 1.28 (exact: 1.2816)
    assert deviate_squared(0.1, "c45_table") == pytest.approx(1.28**2)
    assert added_errors(0, 0) == 0.0 and upper_error_limit(0, 0) == 0.0
    # smaller cf, larger upper limit
    assert (
        upper_error_limit(1, 16, cf=0.1)
        > upper_error_limit(1, 16)
        > upper_error_limit(1, 16, cf=0.5)
    )


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 0.6, 1, "0.25", np.nan, None, True])
def test_cf_outside_zero_half_is_refused(bad):
    with pytest.raises(ParameterError, match=r"cf must be a number in \(0.0, 0.5\]"):
        upper_error_limit(1, 10, cf=bad)
    with pytest.raises(ParameterError, match="cf"):
        ID3Classifier(pruning="error_based", cf=bad).fit([["a"], ["b"]], [0, 1])


def _nominal_model(frame, y):
    """An ID3 model of ``frame`` (to carry the schema and classes)."""
    return ID3Classifier().fit(frame, y)


def test_quinlans_book_example():
    """C4.5 (1993), chapter 4: a subtree whose leaves hold 6, 9 and 1 cases, no
    error each, predicts 6 x 0.206 + 9 x 0.143 + 1 x 0.750 = 3.273 errors; as one
    leaf of 16 cases and 1 error, 16 x U(1, 16) = 2.507 (the book rounds U to
    0.157: 2.512). The subtree is replaced by the leaf."""
    values = ["n"] * 6 + ["y"] * 9 + ["u"]
    classes = ["democrat"] * 15 + ["republican"]
    frame = pd.DataFrame({"education spending": values})
    model = _nominal_model(frame, classes)
    assert model.tree_.node_count == 4 and model.tree_.kind[0] == NODE_MULTIWAY
    subtree = sum(n * upper_error_limit(0, n) for n in (6, 9, 1))
    assert subtree == pytest.approx(3.2726009984177464, rel=1e-12)
    leaf = 16 * upper_error_limit(1, 16, deviate="c45_table")
    assert leaf == pytest.approx(2.50689395838556, rel=1e-12)
    pruned = prune_error_based(model, frame, classes, deviate="c45_table")
    assert pruned.tree_.node_count == 1
    np.testing.assert_array_equal(pruned.tree_.value, [[15, 1]])
    assert model.tree_.node_count == 4  # the original is unchanged
    # Ten times the cases: 60 x U(0, 60) + 90 x U(0, 90) + 10 x U(0, 10) = 4.04
    # against 160 x U(10, 160) = 14.3: the subtree stays.
    big = pd.DataFrame({"education spending": values * 10})
    kept = prune_error_based(_nominal_model(big, classes * 10), big, classes * 10)
    assert kept.tree_.node_count == 4


@pytest.fixture
def raising_case():
    """Attribute A (p: 20 rows, q: 2 rows) at the root, B below on both sides; the
    class is B's value. Hand-built, since ID3 would put B at the root."""
    frame = pd.DataFrame({"A": ["p"] * 20 + ["q"] * 2, "B": ["s"] * 10 + ["t"] * 10 + ["s", "t"]})
    y = np.array([0] * 10 + [1] * 10 + [0, 1])
    model = _nominal_model(frame, y)
    b = TreeBuilder(n_features=2, n_classes=2)
    root = b.add_node([11, 11], 22, 22.0, 1.0)
    p = b.add_node([10, 10], 20, 20.0, 1.0)
    q = b.add_node([1, 1], 2, 2.0, 1.0)
    b.set_split(root, 0, NODE_MULTIWAY, [p, q], 0, category_child=[0, 1])
    for node, n in ((p, 10), (q, 1)):
        s = b.add_node([n, 0], n, float(n), 0.0)
        t = b.add_node([0, n], n, float(n), 0.0)
        b.set_split(node, 1, NODE_MULTIWAY, [s, t], 0, category_child=[0, 1])
    model.tree_ = b.build()
    return model, frame, y


def test_subtree_raising(raising_case):
    """Bottom-up: the q subtree stays (leaf 2 x U(1, 2) = 1.79 > 1.5 + 0.1, its own
    subtree). At the root, the tree predicts 2 x 10 U(0, 10) + 1.5 = 4.09; the
    largest branch (p) with all 22 cases sent down it, 2 x 11 U(0, 11) = 2.61:
    it replaces the root, with the q cases moved into its leaves."""
    model, frame, y = raising_case
    assert 2 * 10 * upper_error_limit(0, 10) + 1.5 == pytest.approx(4.0889887, rel=1e-7)
    assert 2 * 11 * upper_error_limit(0, 11) == pytest.approx(2.6049924, rel=1e-7)
    raised = prune_error_based(model, frame, y)
    tree = raised.tree_
    assert tree.node_count == 3 and tree.feature[0] == 1  # B at the root
    np.testing.assert_array_equal(tree.value, [[11, 11], [11, 0], [0, 11]])
    np.testing.assert_array_equal(tree.n_samples, [22, 11, 11])
    np.testing.assert_array_equal(tree.weight, [22, 11, 11])
    np.testing.assert_array_equal(tree.impurity, [1.0, 0.0, 0.0])
    assert raised.score(frame, y) == 1.0
    assert not is_subtree(tree, model.tree_)
    # without raising, nothing is pruned
    kept = prune_error_based(model, frame, y, subtree_raising=False)
    assert kept.tree_.node_count == 7 and is_subtree(kept.tree_, model.tree_)
    assert is_subtree(model.tree_, kept.tree_)


def test_fractional_cases_are_shared_by_known_weight():
    """A by-weight node (C4.5's missing values): known x0 <= 0.5 holds 5 of class
    0 and 1 of class 1, x0 > 0.5 holds 2 of class 1, and two rows (one per class)
    miss x0. They go down both branches with 6/8 and 2/8 of their weight: the
    leaves recount to [5.75, 1.75] (N = 7.5) and [0.25, 2.25] (N = 2.5), each
    missing row counted in both. Leaf estimates 7.5 U(1.75, 7.5) = 3.162 and
    2.5 U(0.25, 2.5) = 1.284 sum to 4.446 against 10 U(4, 10) = 5.560 for the
    root as a leaf: the split stays."""
    X = np.array([[0.0]] * 6 + [[1.0]] * 2 + [[np.nan]] * 2)
    y = np.array([0] * 5 + [1] * 3 + [0, 1])
    model = CARTClassifier().fit(np.nan_to_num(X, nan=0.0), y)
    b = TreeBuilder(n_features=1, n_classes=2)
    root = b.add_node([6, 4], 10, 10.0, 0.971)
    left = b.add_node([6.0, 1.5], 8, 7.5, 0.7)  # stale counts, recounted by the pruner
    right = b.add_node([0.0, 2.5], 4, 2.5, 0.0)
    b.set_split(root, 0, NODE_THRESHOLD, [left, right], MISSING_BY_WEIGHT, threshold=0.5)
    model.tree_ = b.build()
    pruned = prune_error_based(model, X, y)
    tree = pruned.tree_
    assert tree.node_count == 3
    np.testing.assert_allclose(tree.value, [[6, 4], [5.75, 1.75], [0.25, 2.25]])
    np.testing.assert_allclose(tree.weight, [10, 7.5, 2.5])
    np.testing.assert_array_equal(tree.n_samples, [10, 8, 4])
    # a recounted node's impurity is recomputed with the model's criterion (Gini)
    assert tree.impurity[1] == pytest.approx(1 - (5.75 / 7.5) ** 2 - (1.75 / 7.5) ** 2)
    assert tree.impurity[0] == 0.971  # unchanged counts keep their impurity
    assert 7.5 * upper_error_limit(1.75, 7.5) + 2.5 * upper_error_limit(0.25, 2.5) == (
        pytest.approx(4.4461627, rel=1e-7)
    )
    assert 10 * upper_error_limit(4, 10) == pytest.approx(5.5597578, rel=1e-7)
    shape, _ = c45_prune_oracle(model.tree_, X, y, np.ones(10), added_errors)
    assert shape == (0, (6.0, 4.0), ((1, (5.75, 1.75), None), (2, (0.25, 2.25), None)))


def frozen(tree, node=0):
    """A Tree as the nested tuples of :func:`c45_prune_oracle`, without node ids."""
    kids = None
    if not tree.is_leaf[node]:
        kids = tuple(frozen(tree, int(c)) for c in tree.children_of(node))
    return (tuple(np.round(tree.value[node], 9).tolist()), kids)


def strip_ids(shape):
    dist, kids = shape[1], shape[2]
    return (dist, None if kids is None else tuple(strip_ids(k) for k in kids))


@pytest.mark.parametrize("raising", [True, False])
@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_a_transcription_of_prune_c(seed, raising):
    """Noisy data grown without pruning by ID3 (nominal) and by CART (numeric,
    with a hand-made by-weight root), pruned by prune_error_based and by the
    oracle written on nested dicts like C4.5's records."""
    X, y = make_classification(
        300, 6, n_informative=3, n_redundant=0, n_classes=3, flip_y=0.2, random_state=seed
    )
    frame = pd.DataFrame(np.digitize(X, [-0.5, 0.5]).astype(str), columns=list("abcdef"))
    id3 = ID3Classifier(max_depth=4).fit(frame, y)
    matrix = id3._prediction_matrix(frame)
    expected, _ = c45_prune_oracle(id3.tree_, matrix, y, np.ones(300), added_errors, raising)
    pruned = prune_error_based(id3, frame, y, subtree_raising=raising)
    assert frozen(pruned.tree_) == strip_ids(expected)
    assert pruned.tree_.node_count < id3.tree_.node_count


def _by_weight_copy(tree, X, y):
    """``tree``'s splits, every one splitting missing values by weight, with the
    class counts, weights and row counts C4.5's training would give them (a row
    missing the tested value goes down every branch with the branch's share of
    the known weight, and counts as a row in each)."""
    structure = {
        name: getattr(tree, name)
        for name in ("feature", "kind", "threshold", "child_ptr", "children", "category_ptr",
                     "category_child", "n_features", "n_classes")
    }  # fmt: skip
    missing = np.where(tree.is_leaf, -1, MISSING_BY_WEIGHT)
    n = tree.node_count
    blank = {"value": tree.value, "n_samples": tree.n_samples, "weight": tree.weight}
    routing = Tree(**structure, missing_child=missing, impurity=tree.impurity, **blank)
    value, weight, rows = np.zeros((n, tree.n_classes)), np.zeros(n), np.zeros(n, np.int64)
    stack = [(0, [(i, 1.0) for i in range(X.shape[0])])]
    while stack:
        node, cases = stack.pop()
        for i, w in cases:
            value[node, y[i]] += w
        weight[node], rows[node] = sum(w for _, w in cases), len(cases)
        if routing.is_leaf[node]:
            continue
        groups = [[] for _ in routing.children_of(node)]
        unknown = []
        for i, w in cases:
            b = _oracle_branch(routing, node, X[i])
            (unknown if b is None else groups[b]).append((i, w))
        known = sum(w for g in groups for _, w in g)
        for kid, g in zip(routing.children_of(node), groups, strict=True):
            share = sum(w for _, w in g) / known if known else 0.0
            stack.append((int(kid), g + [(i, w * share) for i, w in unknown if share > 0]))
    counted = {"value": value, "n_samples": rows, "weight": weight}
    return Tree(**structure, missing_child=missing, impurity=tree.impurity, **counted).validate()


@pytest.mark.parametrize("seed", range(3))
def test_missing_values_agree_with_the_transcription(seed):
    """A CART tree's splits made by-weight splits (C4.5's missing values), with
    the counts C4.5's training gives, on data with 20% missing values."""
    X, y = make_classification(
        400, 5, n_informative=3, n_redundant=0, flip_y=0.15, random_state=seed
    )
    X[np.random.default_rng(seed).random(X.shape) < 0.2] = np.nan
    model = CARTClassifier(max_depth=5, min_samples_leaf=5).fit(X, y)
    model.tree_ = _by_weight_copy(model.tree_, X, y)
    for raising in (True, False):
        expected, _ = c45_prune_oracle(model.tree_, X, y, np.ones(400), added_errors, raising)
        pruned = prune_error_based(model, X, y, subtree_raising=raising)
        assert frozen(pruned.tree_) == strip_ids(expected)
        assert pruned.tree_.node_count < model.tree_.node_count
    # pruning without raising recounts nothing on the training data: a subtree
    assert is_subtree(prune_error_based(model, X, y, subtree_raising=False).tree_, model.tree_)


def test_collapse_rule():
    """FormTree: a split that does not lower the training errors (within 1e-3) goes."""
    b = TreeBuilder(n_features=2, n_classes=2)
    root = b.add_node([6, 4], 10, 10.0, 0.97)
    useless = b.add_node([3, 1], 4, 4.0, 0.81)  # errors 1 = 1 + 0 below
    useful = b.add_node([3, 3], 6, 6.0, 1.0)  # errors 3 > 0 + 0 below
    b.set_split(root, 0, NODE_THRESHOLD, [useless, useful], 0, threshold=0.5)
    kids = [b.add_node([2, 1], 3, 3.0, 0.92), b.add_node([1, 0], 1, 1.0, 0.0)]
    b.set_split(useless, 1, NODE_THRESHOLD, kids, 0, threshold=0.5)
    kids = [b.add_node([3, 0], 3, 3.0, 0.0), b.add_node([0, 3], 3, 3.0, 0.0)]
    b.set_split(useful, 1, NODE_THRESHOLD, kids, 0, threshold=0.5)
    model = CARTClassifier().fit([[0, 0], [1, 1]], [0, 1])
    model.tree_ = b.build()
    collapsed = prune_collapse(model).tree_
    np.testing.assert_array_equal(collapsed.feature, [0, -1, 1, -1, -1])
    np.testing.assert_array_equal(collapsed.value[1], [3, 1])
    assert is_subtree(collapsed, model.tree_)
    # the root's subtree keeps 1 + 0 errors < its own 4: it stays
    assert prune_collapse(prune_collapse(model)).tree_.node_count == 5


def test_bad_input():
    frame = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": ["u", "u", "v", "v"]})
    y = ["no", "yes", "no", "yes"]
    model = ID3Classifier().fit(frame, y)
    with pytest.raises(DataError, match=r"classes \['maybe'\] that the model did not see"):
        prune_error_based(model, frame, ["no", "yes", "maybe", "yes"])
    with pytest.raises(SchemaMismatchError):
        prune_error_based(model, frame.rename(columns={"b": "c"}), y)
    with pytest.raises(ParameterError, match="subtree_raising"):
        prune_error_based(model, frame, y, subtree_raising="yes")
    with pytest.raises(ParameterError, match="deviate"):
        prune_error_based(model, frame, y, deviate="t")
    regressor = CARTRegressor().fit([[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(ParameterError, match="classification tree"):
        prune_error_based(regressor, [[0.0], [1.0]], [0.0, 1.0])
    with pytest.raises(ParameterError, match="classification tree"):
        prune_collapse(regressor)
