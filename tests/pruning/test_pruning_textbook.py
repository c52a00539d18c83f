"""The pruning example of Zhou, Machine Learning (2016), section 4.3 (shared/data/README.md).

Watermelon 2.0, ID3 (information gain) on the six attributes, training rows
编号 {1,2,3,6,7,10,14,15,16,17}, validation rows {4,5,8,9,11,12,13}. The book
breaks two ties, reproduced here through documented means only:

- 脐部 and 色泽 tie for the largest gain at the root (both 0.2755): ID3 gives
  equal gains to the attribute that comes first in ``X``, so the columns are
  passed with 脐部 before 色泽;
- the root holds 5 是 and 5 否 and the book labels it 是: a leaf predicts the
  first class of ``classes_`` among equal counts, and a pandas ``category``
  target keeps its declared order (:mod:`treelearn.data.target`), so the target
  is ``Categorical(categories=["是", "否"])``. The same rule labels the book's
  other 1-1 and 2-2 leaves 是, as the book does.
"""

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from treelearn import ID3Classifier
from treelearn.pruning import (
    is_subtree,
    prune_reduced_error,
    prune_tree,
    prune_validation,
)

DATA_DIR = Path(__file__).parent.parent / "data"
COLUMNS = ["脐部", "色泽", "根蒂", "敲声", "纹理", "触感"]
TRAIN = [1, 2, 3, 6, 7, 10, 14, 15, 16, 17]
VALIDATION = [4, 5, 8, 9, 11, 12, 13]


@pytest.fixture(scope="module")
def book():
    frame = pd.read_csv(DATA_DIR / "watermelon2.csv")
    train = frame[frame["编号"].isin(TRAIN)]
    valid = frame[frame["编号"].isin(VALIDATION)]
    y = pd.Series(pd.Categorical(train["好瓜"], categories=["是", "否"]), index=train.index)
    model = ID3Classifier().fit(train[COLUMNS], y)
    return model, valid[COLUMNS], valid["好瓜"]


def correct(model, X, y):
    """Number of validation rows classified correctly (of 7)."""
    return int((model.predict(X) == y.to_numpy()).sum())


def splits(model):
    """{node: attribute name} of the internal nodes."""
    tree = model.tree_
    names = model.feature_schema_.names
    return {int(i): names[tree.feature[i]] for i in np.flatnonzero(~tree.is_leaf)}


def branch(model, node, category):
    tree = model.tree_
    codes = model.feature_schema_.categories[tree.feature[node]]
    cats = tree.category_child[tree.category_ptr[node] : tree.category_ptr[node + 1]]
    return int(tree.children_of(node)[cats[list(codes).index(category)]])


def predicted(model, node):
    return model.classes_[np.argmax(model.tree_.value[node])]


def test_the_unpruned_tree_is_the_books_figure_4_5(book):
    model, X_val, y_val = book
    assert model.classes_.tolist() == ["是", "否"]
    assert sorted(splits(model).values()) == ["根蒂", "纹理", "脐部", "色泽", "色泽"]
    assert splits(model)[0] == "脐部"
    assert model.tree_.node_count == 16 and model.get_n_leaves() == 11
    slightly = branch(model, 0, "稍凹")
    assert splits(model)[slightly] == "根蒂"
    black = branch(model, branch(model, slightly, "稍蜷"), "乌黑")
    assert splits(model)[black] == "纹理"
    assert correct(model, X_val, y_val) == 3  # 42.9%


def test_pre_pruning_keeps_only_the_root_split(book):
    model, X_val, y_val = book
    pre = prune_validation(model, X_val, y_val)
    assert splits(pre) == {0: "脐部"}
    assert pre.tree_.node_count == 4
    assert [predicted(pre, branch(pre, 0, c)) for c in ("凹陷", "稍凹", "平坦")] == [
        "是",
        "是",
        "否",
    ]
    assert correct(pre, X_val, y_val) == 5  # 71.4%
    # the root alone would get 3/7; the 凹陷 split (色泽) would drop 2/3 to 1/3
    # and the 稍凹 split (根蒂) would keep 1/2: neither is strictly better
    assert is_subtree(pre.tree_, model.tree_)
    assert model.tree_.node_count == 16  # the original is unchanged


def test_cutting_the_lowest_split_lifts_3_to_4(book):
    model, X_val, y_val = book
    tree = model.tree_
    deepest = max(splits(model), key=lambda node: tree.node_depth[node])
    assert splits(model)[deepest] == "纹理"
    cut = copy.deepcopy(model)
    cut.tree_ = prune_tree(tree, [deepest])
    # the 纹理 node holds one 是 and one 否: as a leaf it says 是, the first class
    assert predicted(cut, deepest) == "是"
    assert correct(cut, X_val, y_val) == 4  # 57.1%


def test_post_pruning_is_the_books_figure_4_7(book):
    """Reduced-error pruning with the textbook's rule (prune only on strict improvement)."""
    model, X_val, y_val = book
    post = prune_reduced_error(model, X_val, y_val, ties="improve")
    assert correct(post, X_val, y_val) == 5  # 71.4%
    # 纹理 cut (4/7), 色泽 under 稍凹/稍蜷 kept (4/7 either way), 色泽 under
    # 凹陷 cut (5/7), 根蒂 kept (5/7 either way), the root kept (3/7 as a leaf)
    assert sorted(splits(post).values()) == ["根蒂", "脐部", "色泽"]
    assert post.tree_.node_count == 10 and post.get_n_leaves() == 7
    slightly = branch(post, 0, "稍凹")
    assert splits(post)[slightly] == "根蒂"
    assert splits(post)[branch(post, slightly, "稍蜷")] == "色泽"
    assert predicted(post, branch(post, 0, "凹陷")) == "是"
    assert is_subtree(post.tree_, model.tree_)


def test_quinlans_rule_prunes_the_ties_too(book):
    """With ``ties="keep_accuracy"`` (prune unless accuracy drops) the 根蒂 and
    稍蜷/色泽 splits, which do not change the validation accuracy, go too: the
    same tree as pre-pruning here."""
    model, X_val, y_val = book
    post = prune_reduced_error(model, X_val, y_val, ties="keep_accuracy")
    assert splits(post) == {0: "脐部"}
    assert correct(post, X_val, y_val) == 5
