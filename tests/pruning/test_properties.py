"""Properties of every pruning method, on trees grown from random data (hypothesis).

- every pruned tree is a valid rooted subtree of the original (C4.5's subtree
  raising excepted: it moves a branch up), and the original is not modified;
- reduced-error pruning never lowers the validation accuracy;
- cost-complexity subtrees are nested as alpha grows;
- pruning is idempotent (Quinlan's top-down pessimistic pruning excepted, see
  tests/pruning/test_pessimistic.py).
"""

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification, make_regression

from treelearn import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.pruning import (
    cost_complexity_pruning_path,
    is_subtree,
    prune_collapse,
    prune_cost_complexity,
    prune_error_based,
    prune_pessimistic,
    prune_reduced_error,
    prune_validation,
)

ARRAYS = (
    "feature", "kind", "threshold", "child_ptr", "children", "category_ptr", "category_child",
    "missing_child", "value", "n_samples", "weight", "impurity", "surrogate_ptr",
    "surrogate_feature", "surrogate_threshold", "surrogate_category_child",
)  # fmt: skip


def same_tree(a, b):
    return all(
        np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True) for name in ARRAYS
    )


@st.composite
def grown(draw):
    """A fitted classifier (CART; CART with surrogates, or C4.5 with its
    fractional cases, on data with missing values; ID3 on nominal columns) with
    its training and validation rows."""
    seed = draw(st.integers(0, 10_000))
    n_train = draw(st.integers(20, 200))
    kind = draw(st.sampled_from(["cart", "surrogate", "id3", "c45"]))
    X, y = make_classification(
        n_train + 100,
        5,
        n_informative=3,
        n_redundant=0,
        n_classes=draw(st.integers(2, 3)),
        flip_y=draw(st.floats(0.0, 0.4)),
        random_state=seed,
    )
    depth = draw(st.integers(1, 8))
    if kind == "id3":
        X = pd.DataFrame(np.digitize(X, [-0.7, 0.0, 0.7]).astype(str), columns=list("abcde"))
        model = ID3Classifier(max_depth=depth)
    elif kind in ("surrogate", "c45"):
        X[np.random.default_rng(seed).random(X.shape) < 0.15] = np.nan
        model = (
            C45Classifier(max_depth=depth, pruning=None, collapse=False)
            if kind == "c45"
            else CARTClassifier(max_depth=depth, missing="surrogate")
        )
    else:
        model = CARTClassifier(max_depth=depth, min_samples_leaf=draw(st.integers(1, 4)))
    X_train, X_val = (
        (X.iloc[:n_train], X.iloc[n_train:]) if kind == "id3" else (X[:n_train], X[n_train:])
    )
    model.fit(X_train, y[:n_train])
    seen = np.isin(y[n_train:], model.classes_)  # a small sample may miss a class
    X_val = X_val[seen] if kind != "id3" else X_val.iloc[seen]
    return model, X_train, y[:n_train], X_val, y[n_train:][seen]


def check(model, pruned, subtree=True, idempotent=None):
    tree = pruned.tree_.validate()
    assert model.tree_.node_count >= tree.node_count
    if subtree:
        assert is_subtree(tree, model.tree_)
    if idempotent is not None:
        assert same_tree(idempotent(pruned).tree_, tree)


@settings(max_examples=40, deadline=None)
@given(grown())
def test_validation_methods(case):
    model, _, _, X_val, y_val = case
    before = {name: getattr(model.tree_, name).copy() for name in ARRAYS}
    accuracy = model.score(X_val, y_val)
    for ties in ("keep_accuracy", "improve"):
        pruned = prune_reduced_error(model, X_val, y_val, ties=ties)
        check(
            model, pruned, idempotent=lambda m, t=ties: prune_reduced_error(m, X_val, y_val, ties=t)
        )
        assert pruned.score(X_val, y_val) >= accuracy
    if model.tree_.missing_child.min() > -2:  # every row ends in one leaf
        # both tie rules reach the smallest validation loss; Quinlan's the smaller tree
        strict = prune_reduced_error(model, X_val, y_val, ties="improve")
        quinlan = prune_reduced_error(model, X_val, y_val)
        assert quinlan.score(X_val, y_val) == strict.score(X_val, y_val)
        assert is_subtree(quinlan.tree_, strict.tree_)
    pre = prune_validation(model, X_val, y_val)
    check(model, pre, idempotent=lambda m: prune_validation(m, X_val, y_val))
    for name, array in before.items():  # the original is untouched
        np.testing.assert_array_equal(getattr(model.tree_, name), array)


@settings(max_examples=40, deadline=None)
@given(grown())
def test_training_data_methods(case):
    model, X, y, _, _ = case
    check(model, prune_pessimistic(model))
    check(model, prune_pessimistic(model, traversal="bottom_up"),
          idempotent=lambda m: prune_pessimistic(m, traversal="bottom_up"))  # fmt: skip
    check(model, prune_collapse(model), idempotent=prune_collapse)
    check(model, prune_error_based(model, X, y, subtree_raising=False),
          idempotent=lambda m: prune_error_based(m, X, y, subtree_raising=False))  # fmt: skip
    raised = prune_error_based(model, X, y)
    check(model, raised, subtree=False, idempotent=lambda m: prune_error_based(m, X, y))
    # raising can only leave the tree smaller or equal, and never worse on
    # C4.5's estimate than replacing by leaves alone; at least it stays valid
    assert raised.tree_.n_samples[0] == model.tree_.n_samples[0]


@settings(max_examples=40, deadline=None)
@given(grown(), st.data())
def test_cost_complexity_subtrees_are_nested(case, data):
    model = case[0]
    alphas, _ = cost_complexity_pruning_path(model)
    inside = np.unique(np.sqrt(alphas[:-1] * alphas[1:]))
    chosen = sorted(
        data.draw(st.lists(st.sampled_from([*inside.tolist(), alphas[-1]]), min_size=1))
    )
    previous = model
    for alpha in chosen:
        pruned = prune_cost_complexity(model, alpha)
        check(model, pruned, idempotent=lambda m, a=alpha: prune_cost_complexity(m, a))
        assert is_subtree(pruned.tree_, previous.tree_)
        previous = pruned


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(30, 300), st.integers(1, 8))
def test_regression_methods(seed, n_train, depth):
    X, y = make_regression(n_train + 100, 4, noise=20.0, random_state=seed)
    model = CARTRegressor(max_depth=depth).fit(X[:n_train], y[:n_train])
    X_val, y_val = X[n_train:], y[n_train:]
    sse = ((model.predict(X_val) - y_val) ** 2).sum()
    pruned = prune_reduced_error(model, X_val, y_val)
    check(model, pruned, idempotent=lambda m: prune_reduced_error(m, X_val, y_val))
    assert ((pruned.predict(X_val) - y_val) ** 2).sum() <= sse * (1 + 1e-12)
    check(model, prune_validation(model, X_val, y_val),
          idempotent=lambda m: prune_validation(m, X_val, y_val))  # fmt: skip
    alphas, _ = cost_complexity_pruning_path(model)
    subtrees = [prune_cost_complexity(model, a) for a in np.sqrt(alphas[:-1] * alphas[1:])]
    for small, large in zip(subtrees[1:], subtrees[:-1], strict=True):
        assert is_subtree(small.tree_, large.tree_)
