"""CART with ``missing="surrogate"``: Breiman's surrogate splits, as rpart grows them.

* Agreement with rpart 4.1.19 on ``tests/data/surrogate_table.csv``: every
  node's primary split, its surrogates in rank order with thresholds,
  directions, agreements and adjusted agreements, the children's sizes, the
  improvement, and the predictions when the root's feature is missing. The
  numbers are what ``tests/data/surrogate_rpart.R`` printed (R is not needed
  here). Documented differences from rpart, none of which this table meets:
  rpart 4.1's code drops a nominal surrogate that agrees perfectly (its count
  of "two cases each way" counts agreeing and disagreeing rows; treelearn
  applies the stated rule); on a tie of the primary's two sides rpart has no
  majority direction and leaves the rows in the node (treelearn: left); at
  ``predict`` rpart's majority direction is the child with more training rows,
  treelearn's the heavier side of the primary split (rpart's training rule);
  ``maxsurrogate = 0`` makes rpart skip the majority direction in training;
  only ``surrogatestyle = 0`` exists; weights are case weights (rpart's
  ``weights``), and rpart's priors, losses and ``cp`` have no counterpart.
* A noisy copy of a feature stands in for it when it is missing at prediction.
* ``max_surrogates=0`` sends missing values the majority way; without missing
  values both modes grow the same tree.
* Prediction with surrogates matches a naive walk of the Tree's arrays, and
  ``Tree.validate`` checks the surrogate arrays.
"""

import pickle

import numpy as np
import pandas as pd
import pytest
from _oracles import apply_oracle, naive_cost

from treelearn import CARTClassifier, CARTRegressor
from treelearn._dtypes import NO_CHILD, NODE_SUBSET, NODE_THRESHOLD
from treelearn.exceptions import ModelFormatError, ParameterError
from treelearn.tree import TreeBuilder

FEATURES = ["x0", "x1", "x2", "c3", "x4"]
CATEGORIES = ["a", "b", "c", "d"]
RPART_SETTINGS = dict(max_depth=2, min_samples_split=10, min_samples_leaf=3, max_surrogates=5)

# What rpart printed (summary(fit) and fit$splits, full precision), node by node
# in rpart's numbering (2k, 2k + 1 are the sons of k). A split is (variable,
# rule, direction): a numeric rule "x < t" sent to the left or right son, a
# nominal rule one letter per category a..d (L, R, or - for absent). Surrogates:
# (variable, rule, direction, agree, adj, rows routed).
RPART_CLASS = {
    1: dict(
        split=("x1", 6.7, "left"), improve=21.6540404, known=72, sons=(50, 30),
        surrogates=[
            ("x2", 4.0, "right", 0.8611111111, 0.6428571429, 7),
            ("x0", 6.55, "left", 0.8472222222, 0.6071428571, 1),
            ("c3", "LLLR", None, 0.8055555556, 0.5, 0),
        ],
    ),
    2: dict(
        split=("x2", 6.55, "right"), improve=4.252563777, known=46, sons=(30, 20),
        surrogates=[
            ("x0", 3.3, "left", 0.7826086957, 0.4736842105, 4),
            ("c3", "LLRL", None, 0.7391304348, 0.3684210526, 0),
            ("x1", 3.15, "left", 0.7173913043, 0.3157894737, 0),
        ],
    ),
}  # fmt: skip
# For "anova" rpart prints improve = gain / (sum of squares of the node's rows).
RPART_ANOVA = {
    1: dict(
        split=("x1", 6.3, "left"), improve=0.6368187205, known=72, sons=(49, 31),
        surrogates=[
            ("x2", 4.0, "right", 0.875, 0.6896551724, 7),
            ("x0", 6.15, "left", 0.8472222222, 0.6206896552, 1),
            ("c3", "LLLR", None, 0.7916666667, 0.4827586207, 0),
        ],
    ),
    2: dict(
        split=("x0", 2.85, "left"), improve=0.5387815513, known=45, sons=(23, 26),
        surrogates=[
            ("c3", "LRRR", None, 0.8222222222, 0.6363636364, 4),
            ("x2", 6.55, "right", 0.7555555556, 0.5, 0),
            ("x1", 3.15, "left", 0.6888888889, 0.3636363636, 0),
            ("x4", -0.3, "left", 0.5333333333, 0.04545454545, 0),
        ],
    ),
    3: dict(split=("c3", "-RLR", None), improve=0.4719526292, known=28, sons=(5, 26),
            surrogates=[]),
}  # fmt: skip
# predict(fit, newdata) with x1 set to NA in every row: the class of each row
# (n/y), and the index of each regression value in RPART_ANOVA_LEAF_VALUES.
RPART_CLASS_PREDICTED = (
    "nnnynnyynnynnynnnynynnnnyyyynnnynnyynnnnnynynnyyyynnnynnyynnynynyynnnnynyynyynnn"
)
RPART_ANOVA_LEAF_VALUES = [2.536521739, 8.905769231, 11.67, 17.90192308]
RPART_ANOVA_PREDICTED = (
    "10131133003013010312001132331003013311100312002333011310321031213310003133023011"
)


@pytest.fixture(scope="module")
def table():
    from conftest import DATA_DIR

    return pd.read_csv(DATA_DIR / "surrogate_table.csv")


def lower_child(tree, node, s=None):
    """Child (0/1) that ``x < t`` goes to, for the node's split (``s`` None) or its
    surrogate ``s``."""
    if s is None:
        return 0
    return int(tree.surrogate_reverse[s])


def category_children(tree, node, s=None):
    if s is None:
        return tree.category_child[tree.category_ptr[node] : tree.category_ptr[node + 1]]
    cats = tree.surrogate_category_child
    return cats[tree.surrogate_category_ptr[s] : tree.surrogate_category_ptr[s + 1]]


def son_to_child(tree, node, split):
    """Map rpart's son ("left"/"right") to the node's child index."""
    _, rule, direction = split
    if isinstance(rule, str):  # nominal: the child of a category rpart sends left
        cats = category_children(tree, node)
        child_of_left = int(cats[rule.index("L")])
        return {"left": child_of_left, "right": 1 - child_of_left}
    return {direction: 0, ("right" if direction == "left" else "left"): 1}


def assert_rule(tree, node, s, variable, rule, direction, sons):
    feature = tree.feature[node] if s is None else tree.surrogate_feature[s]
    kind = tree.kind[node] if s is None else tree.surrogate_kind[s]
    assert FEATURES[feature] == variable
    if isinstance(rule, str):
        assert kind == NODE_SUBSET
        expected = [NO_CHILD if c == "-" else sons["left" if c == "L" else "right"] for c in rule]
        np.testing.assert_array_equal(category_children(tree, node, s), expected)
    else:
        assert kind == NODE_THRESHOLD
        threshold = tree.threshold[node] if s is None else tree.surrogate_threshold[s]
        assert threshold == pytest.approx(rule, abs=1e-9)
        assert lower_child(tree, node, s) == sons[direction]


def node_rows(model, X, node):
    rows, nodes = model.tree_.decision_path(model._prediction_matrix(X))
    return np.unique(rows[nodes == node])


def check_against_rpart(model, X, y, reference, task):
    tree = model.tree_
    ours = {1: 0}  # rpart node number -> treelearn node index
    for number in sorted(reference):
        expected = reference[number]
        node = ours[number]
        sons = son_to_child(tree, node, expected["split"])
        assert_rule(tree, node, None, *expected["split"], sons)
        kids = tree.children_of(node)
        for son, offset in (("left", 0), ("right", 1)):
            ours[2 * number + offset] = int(kids[sons[son]])
            assert tree.n_samples[kids[sons[son]]] == expected["sons"][offset]
        first, last = tree.surrogate_ptr[node], tree.surrogate_ptr[node + 1]
        assert last - first == len(expected["surrogates"])
        rows = node_rows(model, X, node)
        feature = FEATURES[tree.feature[node]]
        routed = rows[X[feature].iloc[rows].isna().to_numpy()]
        for s, (variable, rule, direction, agree, adj, n_routed) in zip(
            range(first, last), expected["surrogates"], strict=True
        ):
            assert_rule(tree, node, s, variable, rule, direction, sons)
            assert tree.surrogate_agreement[s] == pytest.approx(agree, rel=1e-9)
            assert tree.surrogate_adjusted[s] == pytest.approx(adj, rel=1e-9)
            knows = X[variable].iloc[routed].notna().to_numpy()
            assert knows.sum() == n_routed
            routed = routed[~knows]
        # The improvement: the gain of the split over the rows that know its feature.
        known = rows[X[feature].iloc[rows].notna().to_numpy()]
        assert known.shape[0] == expected["known"]
        leaves = tree.apply(model._prediction_matrix(X.iloc[known]))
        left = np.isin(leaves, descendants(tree, int(kids[0])))
        yk = np.asarray(y)[known]
        w = np.ones(known.shape[0])
        if task == "class":
            yk = (yk == "yes").astype(int)
            gain = naive_cost(yk, w, "gini", 2) - naive_cost(yk[left], w[left], "gini", 2)
            gain -= naive_cost(yk[~left], w[~left], "gini", 2)
            assert gain == pytest.approx(expected["improve"], rel=1e-9)
        else:
            gain = naive_cost(yk, w, "squared_error") - naive_cost(
                yk[left], w[left], "squared_error"
            )
            gain -= naive_cost(yk[~left], w[~left], "squared_error")
            node_ss = naive_cost(np.asarray(y)[rows], np.ones(rows.shape[0]), "squared_error")
            assert gain / node_ss == pytest.approx(expected["improve"], rel=1e-9)
    assert tree.node_count == len(ours)


def descendants(tree, node):
    found, stack = [], [node]
    while stack:
        n = stack.pop()
        found.append(n)
        stack.extend(tree.children_of(n).tolist())
    return found


def test_classification_tree_matches_rpart(table):
    X, y = table[FEATURES], table["y"]
    model = CARTClassifier(missing="surrogate", **RPART_SETTINGS).fit(X, y)
    check_against_rpart(model, X, y, RPART_CLASS, "class")
    no_x1 = X.assign(x1=np.nan)
    predicted = "".join(label[0] for label in model.predict(no_x1))
    assert predicted == RPART_CLASS_PREDICTED


def test_regression_tree_matches_rpart(table):
    X, y = table[FEATURES], table["yr"]
    model = CARTRegressor(missing="surrogate", **RPART_SETTINGS).fit(X, y)
    check_against_rpart(model, X, y, RPART_ANOVA, "anova")
    expected = np.array(RPART_ANOVA_LEAF_VALUES)[[int(c) for c in RPART_ANOVA_PREDICTED]]
    np.testing.assert_allclose(model.predict(X.assign(x1=np.nan)), expected, rtol=1e-9)


# ---------------------------------------------------------------------------
# Behaviour
# ---------------------------------------------------------------------------


def noisy_copy_data(n, seed, missing_in_training):
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(0, 10, n)
    X = np.column_stack([x0, x0 + rng.normal(0, 0.3, n), rng.normal(size=n), rng.normal(size=n)])
    y = (x0 + rng.normal(0, 0.5, n) > 5).astype(int)
    if missing_in_training:
        X[rng.random(n) < 0.2, 0] = np.nan
    return X, y


@pytest.mark.parametrize("missing_in_training", [False, True])
def test_a_noisy_copy_stands_in_for_a_missing_feature(missing_in_training):
    X, y = noisy_copy_data(3000, 0, missing_in_training)
    X_test, _ = noisy_copy_data(2000, 1, False)
    without_x0 = X_test.copy()
    without_x0[:, 0] = np.nan
    agreement = {}
    for missing in ("learn", "surrogate"):
        model = CARTClassifier(max_depth=3, missing=missing).fit(X, y)
        agreement[missing] = np.mean(model.predict(without_x0) == model.predict(X_test))
    assert agreement["surrogate"] > 0.93
    if not missing_in_training:
        # "learn" saw no missing x0: every such row goes the heavier way.
        assert agreement["learn"] < 0.75
        assert agreement["surrogate"] - agreement["learn"] > 0.2


def test_max_surrogates_zero_sends_missing_values_the_majority_way():
    rng = np.random.default_rng(3)
    n = 400
    x0 = rng.uniform(0, 10, n)
    # x1 is noisy enough that x0, even over its known rows only (rpart's
    # improvement is not rescaled for missing rows), makes the better split.
    X = np.column_stack([x0, x0 + rng.normal(0, 1.0, n)])
    y = (x0 > 3).astype(int)  # the split x0 <= 3 sends about 30% left
    missing = rng.random(n) < 0.25
    X[missing, 0] = np.nan
    model = CARTClassifier(max_depth=1, missing="surrogate", max_surrogates=0).fit(X, y)
    tree = model.tree_
    assert tree.feature[0] == 0 and tree.surrogate_ptr.tolist() == [0, 0, 0, 0]
    assert tree.surrogate_feature.shape == (0,)
    known_left = int(((X[:, 0] <= tree.threshold[0]) & ~missing).sum())
    majority = 0 if known_left >= (~missing).sum() - known_left else 1
    assert tree.missing_child[0] == majority == 1
    assert tree.n_samples[tree.children_of(0)].tolist() == [known_left, n - known_left]
    leaves = model.apply(np.array([[np.nan, 0.0], [np.nan, 9.0]]))
    assert leaves.tolist() == [tree.children_of(0)[majority]] * 2
    # With surrogates the copy decides instead.
    with_copy = CARTClassifier(max_depth=1, missing="surrogate").fit(X, y)
    assert with_copy.tree_.surrogate_feature.tolist() == [1]
    assert with_copy.predict(np.array([[np.nan, 0.0], [np.nan, 9.0]])).tolist() == [0, 1]


def mixed_complete_frame(n=500, seed=4):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.integers(0, 30, n).astype(float),
            "color": np.array(["red", "green", "blue", "grey"], dtype=object)[
                rng.integers(0, 4, n)
            ],
            "c": rng.normal(size=n),
        }
    )
    signal = frame["a"] + 0.1 * frame["b"] + (frame["color"] == "red") + 0.3 * rng.normal(size=n)
    return frame, signal


@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
def test_without_missing_values_both_modes_grow_the_same_tree(estimator):
    X, signal = mixed_complete_frame()
    y = (signal > 1.2).astype(int) if estimator is CARTClassifier else signal
    learn = estimator(min_samples_leaf=3).fit(X, y)
    surrogate = estimator(min_samples_leaf=3, missing="surrogate").fit(X, y)
    for name in (
        "feature", "kind", "threshold", "child_ptr", "children", "category_ptr",
        "category_child", "missing_child", "value", "n_samples", "weight", "impurity",
    ):  # fmt: skip
        np.testing.assert_array_equal(getattr(learn.tree_, name), getattr(surrogate.tree_, name))
    assert learn.tree_.surrogate_ptr.sum() == 0 and surrogate.tree_.surrogate_ptr[-1] > 0
    np.testing.assert_array_equal(learn.predict(X), surrogate.predict(X))


def holey_frame(n=400, seed=5):
    X, signal = mixed_complete_frame(n, seed)
    rng = np.random.default_rng(seed + 1)
    for column in X.columns:
        X.loc[rng.random(n) < 0.15, column] = None
    return X, signal


@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
def test_prediction_walks_the_surrogates_like_the_oracle(estimator):
    X, signal = holey_frame()
    y = (signal > 1.2).astype(int) if estimator is CARTClassifier else signal
    model = estimator(missing="surrogate", max_depth=6, max_surrogates=3).fit(X, y)
    tree = model.tree_
    assert tree.surrogate_ptr[-1] > 0 and (tree.surrogate_kind == NODE_SUBSET).any()
    X_new, _ = holey_frame(300, 11)
    X_new.loc[::7, "color"] = "purple"  # never seen: routed as missing
    matrix = model._prediction_matrix(X_new)
    leaves = tree.apply(matrix)
    np.testing.assert_array_equal(leaves, apply_oracle(tree, matrix))
    np.testing.assert_array_equal(model.apply(X_new), leaves)
    # The last node of each decision path is the leaf apply gives.
    rows, nodes = tree.decision_path(matrix)
    last = np.r_[np.flatnonzero(np.diff(rows)), rows.shape[0] - 1]
    np.testing.assert_array_equal(nodes[last], leaves)
    # The training rows reach the leaves they were grown into.
    counts = np.bincount(model.apply(X), minlength=tree.node_count)
    np.testing.assert_array_equal(counts[tree.is_leaf], tree.n_samples[tree.is_leaf])


def test_a_tree_with_surrogates_pickles():
    X, signal = holey_frame()
    model = CARTRegressor(missing="surrogate", max_depth=4).fit(X, signal)
    again = pickle.loads(pickle.dumps(model))
    for name in ("surrogate_ptr", "surrogate_feature", "surrogate_threshold",
                 "surrogate_category_child", "surrogate_agreement"):  # fmt: skip
        np.testing.assert_array_equal(getattr(again.tree_, name), getattr(model.tree_, name))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))


def test_robust_criteria_refuse_surrogates():
    X, signal = holey_frame(100)
    with pytest.raises(ParameterError, match=r"missing='surrogate'.*absolute_error"):
        CARTRegressor(criterion="absolute_error", missing="surrogate").fit(X, signal)


# ---------------------------------------------------------------------------
# The Tree's surrogate arrays
# ---------------------------------------------------------------------------


def small_tree(surrogates):
    builder = TreeBuilder(n_features=3, n_classes=2)
    root = builder.add_node([2.0, 2.0], 4, 4.0, 0.5)
    left = builder.add_node([2.0, 0.0], 2, 2.0, 0.0)
    right = builder.add_node([0.0, 2.0], 2, 2.0, 0.0)
    builder.set_split(
        root, 0, NODE_THRESHOLD, [left, right], 0, threshold=1.5, surrogates=surrogates
    )
    return builder.build()


def test_builder_lays_out_surrogates_and_apply_uses_them():
    tree = small_tree(
        [
            (2, NODE_SUBSET, np.nan, 0, [1, NO_CHILD, 0], 0.9, 0.6),
            (1, NODE_THRESHOLD, 10.0, 1, (), 0.8, 0.4),
        ]
    )
    assert tree.surrogate_ptr.tolist() == [0, 2, 2, 2]
    assert tree.surrogate_category_ptr.tolist() == [0, 3, 3]
    X = np.array(
        [
            [1.0, 0.0, 0.0],  # the primary decides: left
            [np.nan, 0.0, 0.0],  # category 0 -> right
            [np.nan, 0.0, 1.0],  # category 1 has no child: x1 <= 10, reversed -> right
            [np.nan, 20.0, np.nan],  # x1 > 10, reversed -> left
            [np.nan, np.nan, 1.0],  # nothing decides: missing_child (left)
        ]
    )
    assert tree.apply(X).tolist() == [1, 2, 2, 1, 1]
    np.testing.assert_array_equal(apply_oracle(tree, X), tree.apply(X))
    plain = small_tree(())
    assert plain.surrogate_ptr.tolist() == [0, 0, 0, 0]
    assert plain.apply(X).tolist() == [1, 1, 1, 1, 1]


@pytest.mark.parametrize(
    "surrogate, message",
    [
        ((0, NODE_THRESHOLD, 1.0, 0, (), 0.9, 0.5), "own feature"),
        ((5, NODE_THRESHOLD, 1.0, 0, (), 0.9, 0.5), "out of range"),
        ((1, NODE_THRESHOLD, np.nan, 0, (), 0.9, 0.5), "not finite"),
        ((1, NODE_THRESHOLD, 1.0, 2, (), 0.9, 0.5), "reverse"),
        ((1, NODE_SUBSET, np.nan, 0, [0, 3], 0.9, 0.5), "outside"),
        ((1, NODE_SUBSET, np.nan, 0, (), 0.9, 0.5), "category map"),
        ((1, NODE_THRESHOLD, 1.0, 0, (), 1.5, 0.5), "agreement"),
        ((1, NODE_THRESHOLD, 1.0, 0, (), 0.9, 0.0), "agreement"),
    ],
)
def test_validate_rejects_broken_surrogates(surrogate, message):
    with pytest.raises(ModelFormatError, match=message):
        small_tree([surrogate])


def test_validate_rejects_surrogates_on_a_leaf():
    tree = small_tree(())
    arrays = {name: getattr(tree, name) for name in tree.__dataclass_fields__ if name != "_depth"}
    arrays.update(
        surrogate_ptr=[0, 0, 1, 1], surrogate_feature=[1], surrogate_kind=[NODE_THRESHOLD],
        surrogate_threshold=[1.0], surrogate_reverse=[0], surrogate_category_ptr=[0, 0],
        surrogate_category_child=[], surrogate_agreement=[0.9], surrogate_adjusted=[0.5],
    )  # fmt: skip
    with pytest.raises(ModelFormatError, match="not a binary split has surrogates"):
        type(tree)(**arrays).validate()
