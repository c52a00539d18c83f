"""A read-only view of a fitted tree: what every exporter reads instead of the raw arrays.

:class:`TreeView` wraps a fitted estimator (or a bare :class:`~treelearn.tree.Tree`)
and answers, node by node, in small frozen records:

:class:`NodeInfo`
    index, depth, parent, children, whether it is a leaf, the kind of split
    (``"leaf"``, ``"threshold"``, ``"multiway"``, ``"subset"``), the feature
    tested and its name, ``n_samples``, ``weight``, ``impurity``, the node's
    value (weighted class counts, or the regression value) and its prediction.
:class:`Branch`
    per child of an internal node, the :class:`Condition` a row with a known
    value must meet to take it, and how missing values are routed.
:class:`Condition`
    machine-readable: feature, operator and operand. Operators: ``"<="`` and
    ``">"`` (threshold node, first and second child) with a ``threshold``;
    ``"in"`` (subset node; multiway child taking several categories) and
    ``"=="`` (multiway child taking one category) with ``categories`` (the
    labels) and ``codes`` (their category codes).

Missing values (``Branch.missing``)
    ``"yes"``: missing values take this branch (the direction learned at the
    node; at a node with surrogate splits, the branch a row takes when none of
    its surrogates decides). ``"no"``: they never take it directly.
    ``"by weight"``: C4.5's fractional cases, a row with a missing value goes
    down every branch, weighted by ``Branch.fraction`` (the child's share of
    the node's weight). At a nominal node, categories with no child (not seen
    at the node in training) are routed as missing values; they are listed as
    ``Branch.unseen`` on every branch that takes missing values. A node's
    surrogate splits (``missing="surrogate"``) are listed on each of its two
    branches, best first, each as a :class:`Surrogate` whose condition sends a
    row to *that* branch: a row missing the node's feature takes the branch of
    the first surrogate that decides for it (its feature known and, for a
    nominal surrogate, its category one of ``known_codes``).

Labels
    Feature names, category labels and class labels come from the estimator's
    ``feature_schema_`` and ``classes_``; a bare ``Tree`` has names ``x0, x1,
    ...``, categories are their codes and classes their indices. Both can be
    overridden (``feature_names``, ``class_names``). Formatting labels as text
    is left to the exporters (:mod:`treelearn.export._labels`).
"""

from dataclasses import dataclass

import numpy as np

from treelearn._dtypes import (
    MISSING_BY_WEIGHT,
    NO_CHILD,
    NODE_KIND_NAMES,
    NODE_LEAF,
    NODE_MULTIWAY,
    NODE_SUBSET,
    NODE_THRESHOLD,
)
from treelearn.exceptions import ParameterError
from treelearn.tree.structure import Tree

__all__ = ["Branch", "Condition", "NodeInfo", "Surrogate", "TreeView"]

#: ``Branch.missing`` values (see the module docstring).
MISSING_NO = "no"
MISSING_YES = "yes"
MISSING_WEIGHTED = "by weight"


@dataclass(frozen=True)
class Condition:
    """The test a row with a known value passes to take a branch.

    Attributes
    ----------
    feature : int
        Index of the feature tested.
    feature_name : str
    operator : {"<=", ">", "in", "=="}
    threshold : float or None
        Operand of ``"<="`` and ``">"``.
    categories : tuple
        Operand of ``"in"`` and ``"=="``: the category labels (codes for a bare Tree).
    codes : tuple of int
        The category codes of ``categories``.
    """

    feature: int
    feature_name: str
    operator: str
    threshold: float | None = None
    categories: tuple = ()
    codes: tuple = ()

    @property
    def is_nominal(self):
        """True for a test on categories (``"in"``, ``"=="``)."""
        return self.operator in ("in", "==")


@dataclass(frozen=True)
class Surrogate:
    """One surrogate split of a node, as seen from one of its branches.

    Attributes
    ----------
    rank : int
        0 for the best surrogate.
    condition : Condition
        The test on the surrogate's feature that sends a row to this branch.
    known_codes : tuple of int or None
        Nominal surrogate: the category codes on which it decides (any other
        category, like a missing value, passes the row to the next surrogate).
        None for a threshold surrogate (it decides whenever its feature is known).
    agreement, adjusted : float
        Agreement with the node's split and adjusted agreement (rpart's ``agree``, ``adj``).
    """

    rank: int
    condition: Condition
    known_codes: tuple | None
    agreement: float
    adjusted: float


@dataclass(frozen=True)
class Branch:
    """The edge from an internal node to one of its children.

    Attributes
    ----------
    node : int
        The parent node.
    position : int
        Index of the branch among the node's children (0-based).
    child : int
        The child node.
    condition : Condition
    missing : {"yes", "no", "by weight"}
        Whether rows with a missing value take this branch (module docstring).
    fraction : float
        The child's share of the node's weight (the share a missing value
        receives at a ``"by weight"`` node).
    unseen : tuple
        Category labels not seen at the node, routed as missing values; listed
        on the branches that take missing values, empty elsewhere.
    unseen_codes : tuple of int
    surrogates : tuple of Surrogate
        The node's surrogate splits, best first, each directed at this branch.
    """

    node: int
    position: int
    child: int
    condition: Condition
    missing: str
    fraction: float
    unseen: tuple = ()
    unseen_codes: tuple = ()
    surrogates: tuple = ()

    @property
    def takes_missing(self):
        """True when missing values take this branch (directly or by weight)."""
        return self.missing != MISSING_NO


@dataclass(frozen=True)
class NodeInfo:
    """One node of the tree.

    Attributes
    ----------
    index, depth, parent : int
        ``parent`` is -1 for the root.
    children : tuple of int
        In branch order; empty for a leaf.
    is_leaf : bool
    kind : {"leaf", "threshold", "multiway", "subset"}
    feature : int
        -1 for a leaf.
    feature_name : str or None
    n_samples : int
    weight, impurity : float
    value : tuple of float
        Weighted class counts (classification) or ``(value,)`` (regression).
    prediction : object
        The majority class label (ties: the first class, as ``predict`` does),
        or the regression value.
    class_index : int or None
        Index of ``prediction`` among the classes; None for regression.
    confidence : float or None
        The majority class's share of the node's weight (``1 / n_classes`` for
        a node of weight 0, as ``predict_proba`` does); None for regression.
    """

    index: int
    depth: int
    parent: int
    children: tuple
    is_leaf: bool
    kind: str
    feature: int
    feature_name: str | None
    n_samples: int
    weight: float
    impurity: float
    value: tuple
    prediction: object
    class_index: int | None
    confidence: float | None


def _python(value):
    return value.item() if isinstance(value, np.generic) else value


class TreeView:
    """Read-only view of a fitted tree (see the module docstring).

    Parameters
    ----------
    model_or_tree : fitted treelearn estimator, Tree or TreeView
        An estimator with ``tree_`` (and ``feature_schema_``, ``classes_`` when
        it has them).
    feature_names : sequence of str, optional
        Names to use instead of the fitted ones, one per feature.
    class_names : sequence, optional
        Class labels to use instead of ``classes_`` (classification only).
    caller : str, default="TreeView"
        Name shown in error messages (exporters pass their own).

    Attributes
    ----------
    tree : Tree
    feature_names : tuple of str
    categories : tuple
        Per feature, the tuple of category labels (nominal feature of a fitted
        model) or None.
    classes : tuple or None
        Class labels (indices for a bare Tree); None for regression.
    is_classifier : bool
    n_features, n_classes, node_count : int

    Examples
    --------
    >>> from treelearn import CARTClassifier
    >>> from treelearn.datasets import load_dataset
    >>> from treelearn.tree import TreeView
    >>> X, y = load_dataset("play_tennis")
    >>> view = TreeView(CARTClassifier(max_depth=1).fit(X, y))
    >>> [(b.condition.categories, b.missing) for b in view.branches(0)]
    [(('rainy', 'sunny'), 'yes'), (('overcast',), 'no')]
    >>> view.node(2).prediction, view.node(2).n_samples
    ('yes', 4)
    """

    def __init__(self, model_or_tree, feature_names=None, class_names=None, *, caller="TreeView"):
        tree, names, categories, classes = _read_model(model_or_tree, caller)
        if feature_names is not None:
            names = [str(name) for name in feature_names]
            if len(names) != tree.n_features:
                raise ParameterError(
                    f"feature_names has {len(names)} names but the tree has "
                    f"{tree.n_features} features; pass one name per feature."
                )
        if class_names is not None:
            if tree.n_classes == 0:
                raise ParameterError(
                    "class_names was given for a regression tree, which has no classes; "
                    "leave it out."
                )
            classes = [_python(c) for c in class_names]
            if len(classes) != tree.n_classes:
                raise ParameterError(
                    f"class_names has {len(classes)} names but the tree has "
                    f"{tree.n_classes} classes; pass one name per class."
                )
        self.tree = tree
        self.feature_names = tuple(names)
        self.categories = tuple(categories)
        self.is_classifier = tree.n_classes > 0
        if self.is_classifier and classes is None:
            classes = list(range(tree.n_classes))
        self.classes = tuple(classes) if self.is_classifier else None
        self._depth = tree.node_depth.tolist()
        self._parent = tree.parent().tolist()
        self._nodes = {}
        self._branches = {}
        self._n_categories = {}

    # -- shape ---------------------------------------------------------------
    @property
    def n_features(self):
        return self.tree.n_features

    @property
    def n_classes(self):
        return self.tree.n_classes

    @property
    def node_count(self):
        return self.tree.node_count

    def __len__(self):
        return self.node_count

    def __iter__(self):
        """Every node, in index order."""
        return (self.node(i) for i in range(self.node_count))

    def __repr__(self):
        task = f"{self.n_classes} classes" if self.is_classifier else "regression"
        return f"TreeView({self.node_count} nodes, {self.n_features} features, {task})"

    # -- labels ----------------------------------------------------------------
    def category_label(self, feature, code):
        """The label of category ``code`` of ``feature`` (the code itself for a bare Tree)."""
        categories = self.categories[feature]
        return int(code) if categories is None else categories[int(code)]

    def n_categories(self, feature):
        """Number of categories of a nominal ``feature`` (None when the view cannot tell).

        A bare Tree has no schema: the length of the feature's category maps
        (at its nodes and surrogate splits) tells.
        """
        if self.categories[feature] is not None:
            return len(self.categories[feature])
        if feature not in self._n_categories:
            self._n_categories[feature] = self._count_categories(feature)
        return self._n_categories[feature]

    def _count_categories(self, feature):
        tree = self.tree
        nominal = (tree.kind == NODE_SUBSET) | (tree.kind == NODE_MULTIWAY)
        nodes = np.flatnonzero((tree.feature == feature) & nominal)
        lengths = (tree.category_ptr[nodes + 1] - tree.category_ptr[nodes]).tolist()
        ptr = tree.surrogate_category_ptr
        surrogates = np.flatnonzero(
            (tree.surrogate_feature == feature) & (tree.surrogate_kind == NODE_SUBSET)
        )
        lengths += (ptr[surrogates + 1] - ptr[surrogates]).tolist()
        return max(lengths) if lengths else None

    # -- nodes -----------------------------------------------------------------
    def node(self, index):
        """The :class:`NodeInfo` of node ``index``."""
        index = self._check_index(index)
        if index not in self._nodes:
            self._nodes[index] = self._make_node(index)
        return self._nodes[index]

    def _check_index(self, index):
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise ParameterError(f"A node index must be an integer, got {index!r}.")
        if not 0 <= index < self.node_count:
            raise ParameterError(
                f"Node {index} does not exist; the tree has nodes 0 to {self.node_count - 1}."
            )
        return int(index)

    def _make_node(self, i):
        tree = self.tree
        kind = int(tree.kind[i])
        value = tuple(float(v) for v in tree.value[i])
        feature = int(tree.feature[i])
        if self.is_classifier:
            class_index = int(np.argmax(tree.value[i]))
            total = sum(value)
            confidence = value[class_index] / total if total > 0 else 1.0 / len(value)
            prediction = self.classes[class_index]
        else:
            class_index = confidence = None
            prediction = value[0]
        return NodeInfo(
            index=i,
            depth=self._depth[i],
            parent=self._parent[i],
            children=tuple(tree.children_of(i).tolist()),
            is_leaf=kind == NODE_LEAF,
            kind=NODE_KIND_NAMES[kind],
            feature=feature,
            feature_name=None if kind == NODE_LEAF else self.feature_names[feature],
            n_samples=int(tree.n_samples[i]),
            weight=float(tree.weight[i]),
            impurity=float(tree.impurity[i]),
            value=value,
            prediction=prediction,
            class_index=class_index,
            confidence=confidence,
        )

    @property
    def root(self):
        return self.node(0)

    def depth_first(self):
        """Every node, depth-first in branch order (the order ``export_text`` prints)."""
        stack = [0]
        while stack:
            node = self.node(stack.pop())
            yield node
            stack.extend(reversed(node.children))

    def leaves(self):
        """The leaves, depth-first in branch order."""
        return [node for node in self.depth_first() if node.is_leaf]

    def path(self, index):
        """The branches from the root down to node ``index`` (empty for the root)."""
        index = self._check_index(index)
        branches = []
        while self._parent[index] >= 0:
            parent = self._parent[index]
            position = self.node(parent).children.index(index)
            branches.append(self.branches(parent)[position])
            index = parent
        return tuple(reversed(branches))

    # -- branches --------------------------------------------------------------
    def branches(self, index):
        """The :class:`Branch` of each child of node ``index``, in order (empty for a leaf)."""
        index = self._check_index(index)
        if index not in self._branches:
            self._branches[index] = self._make_branches(index)
        return self._branches[index]

    def _category_map(self, i):
        tree = self.tree
        return tree.category_child[tree.category_ptr[i] : tree.category_ptr[i + 1]]

    def _conditions(self, i, n_children):
        tree = self.tree
        kind = int(tree.kind[i])
        feature = int(tree.feature[i])
        name = self.feature_names[feature]
        if kind == NODE_THRESHOLD:
            t = float(tree.threshold[i])
            return [Condition(feature, name, "<=", t), Condition(feature, name, ">", t)]
        codes = [[] for _ in range(n_children)]
        for code, child in enumerate(self._category_map(i).tolist()):
            if child != NO_CHILD:
                codes[child].append(code)
        conditions = []
        for group in codes:
            operator = "==" if kind == NODE_MULTIWAY and len(group) == 1 else "in"
            labels = tuple(self.category_label(feature, c) for c in group)
            conditions.append(Condition(feature, name, operator, None, labels, tuple(group)))
        return conditions

    def _make_branches(self, i):
        tree = self.tree
        if tree.kind[i] == NODE_LEAF:
            return ()
        children = tree.children_of(i).tolist()
        conditions = self._conditions(i, len(children))
        feature = int(tree.feature[i])
        unseen_codes = ()
        if tree.kind[i] in (NODE_SUBSET, NODE_MULTIWAY):
            unseen_codes = tuple(np.flatnonzero(self._category_map(i) == NO_CHILD).tolist())
        unseen = tuple(self.category_label(feature, c) for c in unseen_codes)
        route = int(tree.missing_child[i])
        weights = tree.weight[children]
        total = float(weights.sum())
        branches = []
        for position, child in enumerate(children):
            if route == MISSING_BY_WEIGHT:
                missing = MISSING_WEIGHTED
            else:
                missing = MISSING_YES if position == route else MISSING_NO
            takes = missing != MISSING_NO
            fraction = float(weights[position]) / total if total > 0 else 1.0 / len(children)
            branches.append(
                Branch(
                    node=i,
                    position=position,
                    child=child,
                    condition=conditions[position],
                    missing=missing,
                    fraction=fraction,
                    unseen=unseen if takes else (),
                    unseen_codes=unseen_codes if takes else (),
                    surrogates=self._surrogates(i, position),
                )
            )
        return tuple(branches)

    def _surrogates(self, i, position):
        tree = self.tree
        first, last = int(tree.surrogate_ptr[i]), int(tree.surrogate_ptr[i + 1])
        surrogates = []
        for s in range(first, last):
            feature = int(tree.surrogate_feature[s])
            name = self.feature_names[feature]
            if tree.surrogate_kind[s] == NODE_THRESHOLD:
                lower_here = (position == 0) == (tree.surrogate_reverse[s] == 0)
                threshold = float(tree.surrogate_threshold[s])
                condition = Condition(feature, name, "<=" if lower_here else ">", threshold)
                known = None
            else:
                ptr = tree.surrogate_category_ptr
                mapping = tree.surrogate_category_child[ptr[s] : ptr[s + 1]]
                codes = tuple(np.flatnonzero(mapping == position).tolist())
                labels = tuple(self.category_label(feature, c) for c in codes)
                condition = Condition(feature, name, "in", None, labels, codes)
                known = tuple(np.flatnonzero(mapping != NO_CHILD).tolist())
            surrogates.append(
                Surrogate(
                    rank=s - first,
                    condition=condition,
                    known_codes=known,
                    agreement=float(tree.surrogate_agreement[s]),
                    adjusted=float(tree.surrogate_adjusted[s]),
                )
            )
        return tuple(surrogates)


def _read_model(model, caller):
    """(tree, feature names, per-feature category labels or None, class labels or None)."""
    if isinstance(model, TreeView):
        return model.tree, list(model.feature_names), list(model.categories), model.classes
    if isinstance(model, Tree):
        names = [f"x{j}" for j in range(model.n_features)]
        return model, names, [None] * model.n_features, None
    tree = getattr(model, "tree_", None)
    if not isinstance(tree, Tree):
        raise ParameterError(
            f"{caller} needs a fitted treelearn estimator or a Tree, got "
            f"{type(model).__name__}{' (not fitted; call fit first)' if tree is None else ''}."
        )
    schema = getattr(model, "feature_schema_", None)
    if schema is not None:
        names = [str(name) for name in schema.names]
        categories = [
            None if c is None else tuple(_python(label) for label in c) for c in schema.categories
        ]
    else:
        names = [f"x{j}" for j in range(tree.n_features)]
        categories = [None] * tree.n_features
    classes = getattr(model, "classes_", None)
    if classes is not None:
        classes = [_python(c) for c in np.asarray(classes).tolist()]
    return tree, names, categories, classes
