"""The pruning kernels against the numpy code they replace, to the bit.

C4.5's error-based pruning runs in numba (:func:`treelearn.pruning._kernels.c45_prune`,
an explicit stack for the recursion of prune.c). Here it is checked against a
numpy transcription of the same recursion (the implementation it replaced):
the same leaves, raised branches, and recounted class counts, weights and row
counts to the last bit, on C4.5 trees with many missing values (fractional
cases) and weighted rows.
"""

import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification

from treelearn import C45Classifier
from treelearn._dtypes import MISSING_BY_WEIGHT, NODE_LEAF, NODE_THRESHOLD
from treelearn.pruning import added_errors, prune_error_based
from treelearn.pruning.error_based import _c45_estimate, deviate_squared
from treelearn.tree import TreeBuilder
from treelearn.tree.structure import _kernel_matrix


class _NumpyPruner:
    """prune.c's ``EstimateErrors`` with numpy arrays (the code c45_prune replaced)."""

    def __init__(self, tree, X, y, cf, raising):
        self.tree, self.X, self.y, self.cf, self.raising = tree, X, y, cf, raising
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

    def branch(self, t, row):
        x = self.X[row, self.tree.feature[t]]
        if np.isnan(x):
            return self.tree.missing_child[t]
        if self.tree.kind[t] == NODE_THRESHOLD:
            return 0 if x <= self.tree.threshold[t] else 1
        return self.tree.category_child[self.tree.category_ptr[t] + int(x)]

    def estimate(self, t, rows, w, update):
        tree = self.tree
        dist = np.bincount(self.y[rows], weights=w, minlength=tree.n_classes)
        cases = float(dist.sum())
        best = self.leaf_class[t]
        if dist.max() > dist[best]:
            best = int(np.argmax(dist))
        leaf_total = cases - dist[best] + added_errors(cases, cases - dist[best], self.cf)
        if update:
            if cases > 0:
                self.value[t] = dist
            self.weight[t], self.n_samples[t] = cases, np.count_nonzero(w > 0)
            self.leaf_class[t] = best
        if self.pruned[t] or tree.kind[t] == NODE_LEAF:
            if update:
                self.errors[t] = leaf_total
            return leaf_total
        branch = np.array([self.branch(t, r) for r in rows], dtype=np.int64)
        known = branch != MISSING_BY_WEIGHT
        kids = tree.children_of(t)
        known_w = np.bincount(branch[known], weights=w[known], minlength=kids.shape[0])
        assert known_w.sum() > 0  # (the data below make sure of it)
        factor = known_w / known_w.sum()
        visit = np.bincount(branch[known], minlength=kids.shape[0]) > 0
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
                np.concatenate([rows[sel], rows[~known]]),
                np.concatenate([w[sel], w[~known] * factor[v]]),
                update,
            )
        if not update:
            return tree_errors
        largest = self.resolve(int(kids[largest]))
        branch_errors = self.estimate(largest, rows, w, False) if self.raising else np.inf
        if leaf_total <= branch_errors + 0.1 and leaf_total <= tree_errors + 0.1:
            self.pruned[t] = True
            self.errors[t] = leaf_total
        elif branch_errors <= tree_errors + 0.1:
            self.estimate(largest, rows, w, True)
            self.raised[t] = largest
            return self.errors[self.resolve(largest)]
        else:
            self.errors[t] = tree_errors
        return self.errors[t]

    def clear(self, node):
        stack = [node]
        while stack:
            n = stack.pop()
            self.weight[n], self.n_samples[n] = 0.0, 0
            stack.extend(self.tree.children_of(n).tolist())
            if n in self.raised:
                stack.append(self.raised[n])


@pytest.mark.parametrize("raising", [True, False])
@pytest.mark.parametrize("seed", range(4))
def test_c45_prune_is_the_numpy_recursion(seed, raising):
    rng = np.random.default_rng(seed)
    X, y = make_classification(
        600, 6, n_informative=4, n_redundant=0, n_classes=4, flip_y=0.2, random_state=seed
    )
    if seed % 2:  # nominal attributes: multiway splits
        X = np.digitize(X, [-0.8, -0.2, 0.4, 1.0]).astype(float)
    X[rng.random(X.shape) < 0.3] = np.nan
    frame = pd.DataFrame(X, columns=list("abcdef"))
    if seed % 2:
        frame = frame.astype("category")
    weight = rng.uniform(0.2, 2.0, 600)
    model = C45Classifier(pruning=None, collapse=False, min_samples_leaf=1)
    model.fit(frame, y, sample_weight=weight)
    tree = model.tree_
    matrix = _kernel_matrix(np.asarray(model._prediction_matrix(frame)))
    rows = np.arange(600)
    expected = _NumpyPruner(tree, matrix, y, 0.25, raising)
    expected.estimate(0, rows, weight, True)
    pruned, raised, value, counted, n_samples = _c45_estimate(
        tree, matrix, y.astype(np.int64), rows, weight, 0.25, deviate_squared(0.25), raising
    )
    assert pruned.any()
    assert raising or not raised
    np.testing.assert_array_equal(pruned, expected.pruned)
    assert raised == expected.raised
    for got, want in ((value, expected.value), (counted, expected.weight)):
        assert np.array_equal(got, want)  # to the bit
    np.testing.assert_array_equal(n_samples, expected.n_samples)


def test_a_tree_deeper_than_pythons_recursion_limit():
    """A chain of 1500 threshold nodes (numba's pruning has no recursion)."""
    depth = 1500
    x = np.arange(depth + 1, dtype=float)
    y = np.where(np.arange(depth + 1) % 3 == 0, "a", "b")
    b = TreeBuilder(n_features=1, n_classes=2)

    def counts(lo):
        labels = y[lo:]
        return [float((labels == "a").sum()), float((labels == "b").sum())]

    node = b.add_node(counts(0), depth + 1, depth + 1.0, 0.0)
    root = node
    for k in range(depth):
        left = b.add_node([1.0, 0.0] if y[k] == "a" else [0.0, 1.0], 1, 1.0, 0.0)
        right = b.add_node(counts(k + 1), depth - k, depth - k + 0.0, 0.0)
        b.set_split(node, 0, NODE_THRESHOLD, [left, right], 0, threshold=k + 0.5)
        node = right
    model = C45Classifier(pruning=None, collapse=False).fit(x.reshape(-1, 1), y)
    model.tree_ = b.build()
    assert model.tree_.max_depth == depth and root == 0
    # the numpy recursion, given the stack it needs
    target = (y == "b").astype(np.int64)
    rows, weight = np.arange(depth + 1), np.ones(depth + 1)
    expected = _NumpyPruner(model.tree_, x.reshape(-1, 1), target, 0.25, True)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10 * depth + 200)
    try:
        expected.estimate(0, rows, weight, True)
    finally:
        sys.setrecursionlimit(limit)
    pruned, raised, value, counted, n_samples = _c45_estimate(
        model.tree_, x.reshape(-1, 1), target, rows, weight, 0.25, deviate_squared(0.25), True
    )
    np.testing.assert_array_equal(pruned, expected.pruned)
    assert raised == expected.raised
    assert np.array_equal(value, expected.value) and np.array_equal(counted, expected.weight)
    np.testing.assert_array_equal(n_samples, expected.n_samples)
    # the root's split stays, its right branch (1500 rows, 500 of them "a") is one leaf
    tree = prune_error_based(model, x.reshape(-1, 1), y).tree_
    assert tree.node_count == 3
    np.testing.assert_array_equal(tree.value, [counts(0), [1.0, 0.0], counts(1)])
