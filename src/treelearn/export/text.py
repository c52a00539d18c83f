"""A fitted tree as indented plain text.

Every branch is one line, indented by its depth, in the tree's branch order
(scikit-learn's ``export_text`` layout)::

    |--- outlook in {rainy, sunny}  (+ missing)
    |   |--- humidity in {high}  (+ missing)
    |   |   |--- class: no  (no: 4, yes: 1)
    |   |--- humidity in {normal}
    |   |   |--- class: yes  (no: 1, yes: 4)
    |--- outlook in {overcast}
    |   |--- class: yes  (no: 0, yes: 4)

Branch conditions
    threshold node: ``x <= t`` (first child) and ``x > t`` (second child);
    subset node: ``x in {a, b}`` per child, with the categories of the node's
    map that lead to that child; multiway node: ``x = a`` (one category) or
    ``x in {a, b}``.

Missing values
    The branch a row with a missing value takes is marked ``(+ missing)`` on
    every split (the model does not record whether the node saw missing values
    in training; when it did not, the route was chosen by the grower's
    default rule). At a nominal node, categories mapped to no child (never seen
    at that node in training) are routed as missing values and are listed in
    the marker: ``(+ missing, 浅白)``. A C4.5 node that sends missing values down
    every branch by weight is marked ``(+ missing, by weight)`` on each branch.

Leaves
    Classification: ``class: <majority class>  (<class>: <weighted count>, ...)``
    (ties go to the first class, as ``predict`` does); regression:
    ``value: <leaf value>  (<n> rows)``.
"""

import numpy as np

from treelearn._dtypes import (
    MISSING_BY_WEIGHT,
    NO_CHILD,
    NODE_LEAF,
    NODE_MULTIWAY,
    NODE_SUBSET,
    NODE_THRESHOLD,
)
from treelearn.exceptions import ParameterError
from treelearn.tree import Tree

__all__ = ["export_text"]

_INDENT = "|   "
_BRANCH = "|--- "


def export_text(model, feature_names=None, decimals=3):
    """Render a fitted tree as indented text (see the module docstring).

    Parameters
    ----------
    model : fitted treelearn estimator or :class:`~treelearn.tree.Tree`
        An estimator with ``tree_`` (its ``feature_schema_`` gives the feature
        names and category labels, ``classes_`` the class labels). A bare
        ``Tree`` prints names ``x0, x1, ...``, category codes and class indices.
    feature_names : sequence of str, optional
        Names to print instead of the fitted ones, one per feature.
    decimals : int, default=3
        Digits after the decimal point for thresholds, values and weights
        (trailing zeros are dropped: ``4`` rather than ``4.000``).

    Returns
    -------
    str
        The text, one line per branch, ending with a newline.

    Raises
    ------
    ParameterError
        For a model that is not fitted, ``feature_names`` of the wrong length, or
        a negative ``decimals``.

    Examples
    --------
    >>> from treelearn import CARTClassifier
    >>> from treelearn.datasets import load_dataset
    >>> from treelearn.export import export_text
    >>> X, y = load_dataset("play_tennis")
    >>> print(export_text(CARTClassifier(max_depth=1).fit(X, y)), end="")
    |--- outlook in {rainy, sunny}  (+ missing)
    |   |--- class: no  (no: 5, yes: 5)
    |--- outlook in {overcast}
    |   |--- class: yes  (no: 0, yes: 4)
    """
    tree, names, categories, classes = _read_model(model)
    if feature_names is not None:
        feature_names = [str(name) for name in feature_names]
        if len(feature_names) != tree.n_features:
            raise ParameterError(
                f"feature_names has {len(feature_names)} names but the tree has "
                f"{tree.n_features} features; pass one name per feature."
            )
        names = feature_names
    if isinstance(decimals, bool) or not isinstance(decimals, int) or decimals < 0:
        raise ParameterError(f"decimals must be an integer >= 0, got {decimals!r}.")
    writer = _Writer(tree, names, categories, classes, decimals)
    return writer.render()


def _read_model(model):
    """(tree, feature names, per-feature category labels or None, class labels or None)."""
    if isinstance(model, Tree):
        tree = model
        names = [f"x{j}" for j in range(tree.n_features)]
        return tree, names, [None] * tree.n_features, None
    tree = getattr(model, "tree_", None)
    if not isinstance(tree, Tree):
        raise ParameterError(
            f"export_text needs a fitted treelearn estimator or a Tree, got "
            f"{type(model).__name__}{' (not fitted; call fit first)' if tree is None else ''}."
        )
    schema = getattr(model, "feature_schema_", None)
    if schema is not None:
        names = [str(name) for name in schema.names]
        categories = list(schema.categories)
    else:
        names = [f"x{j}" for j in range(tree.n_features)]
        categories = [None] * tree.n_features
    classes = getattr(model, "classes_", None)
    return tree, names, categories, classes


def format_number(value, decimals):
    """``value`` rounded to ``decimals`` digits, without trailing zeros (``4``, ``0.382``)."""
    text = f"{float(value):.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


class _Writer:
    """Walks the tree depth-first and collects the lines."""

    def __init__(self, tree, names, categories, classes, decimals):
        self.tree = tree
        self.names = names
        self.categories = categories
        self.classes = classes
        self.decimals = decimals
        self.lines = []

    def render(self):
        tree = self.tree
        if tree.kind[0] == NODE_LEAF:
            return _BRANCH + self._leaf(0) + "\n"
        # Depth-first, children in branch order; a stack rather than recursion,
        # so that deep trees do not hit Python's recursion limit.
        stack = [("node", 0, 0)]
        while stack:
            item, node, depth = stack.pop()
            if item == "line":
                self.lines.append(node)
                continue
            if tree.kind[node] == NODE_LEAF:
                self.lines.append(_INDENT * depth + _BRANCH + self._leaf(node))
                continue
            children = tree.children_of(node)
            conditions = self._conditions(node, len(children))
            markers = self._missing_markers(node, len(children))
            prefix = _INDENT * depth + _BRANCH
            pending = []
            for position, child in enumerate(children.tolist()):
                pending.append(("line", prefix + conditions[position] + markers[position], depth))
                pending.append(("node", child, depth + 1))
            stack.extend(reversed(pending))
        return "\n".join(self.lines) + "\n"

    # -- branch conditions ----------------------------------------------------
    def _conditions(self, node, n_children):
        tree = self.tree
        name = self.names[tree.feature[node]]
        kind = tree.kind[node]
        if kind == NODE_THRESHOLD:
            threshold = format_number(tree.threshold[node], self.decimals)
            return [f"{name} <= {threshold}", f"{name} > {threshold}"]
        if kind in (NODE_SUBSET, NODE_MULTIWAY):
            groups = self._category_groups(node, n_children)
            conditions = []
            for labels in groups:
                if kind == NODE_MULTIWAY and len(labels) == 1:
                    conditions.append(f"{name} = {labels[0]}")
                else:
                    conditions.append(f"{name} in {{{', '.join(labels)}}}")
            return conditions
        raise ParameterError(f"Node {node} has unknown kind {kind}; the tree is not valid.")

    def _category_map(self, node):
        tree = self.tree
        return tree.category_child[tree.category_ptr[node] : tree.category_ptr[node + 1]]

    def _category_label(self, feature, code):
        categories = self.categories[feature]
        if categories is None:
            return str(code)
        return str(categories[code])

    def _category_groups(self, node, n_children):
        feature = self.tree.feature[node]
        groups = [[] for _ in range(n_children)]
        for code, child in enumerate(self._category_map(node).tolist()):
            if child != NO_CHILD:
                groups[child].append(self._category_label(feature, code))
        return groups

    def _missing_markers(self, node, n_children):
        tree = self.tree
        route = int(tree.missing_child[node])
        if route == MISSING_BY_WEIGHT:
            return ["  (+ missing, by weight)"] * n_children
        markers = [""] * n_children
        if 0 <= route < n_children:
            unmapped = []
            if tree.kind[node] in (NODE_SUBSET, NODE_MULTIWAY):
                feature = tree.feature[node]
                unmapped = [
                    self._category_label(feature, code)
                    for code in np.flatnonzero(self._category_map(node) == NO_CHILD).tolist()
                ]
            markers[route] = "  (+ missing" + "".join(", " + u for u in unmapped) + ")"
        return markers

    # -- leaves -----------------------------------------------------------------
    def _leaf(self, node):
        value = self.tree.value[node]
        if self.tree.n_classes == 0:
            rows = int(self.tree.n_samples[node])
            return f"value: {format_number(value[0], self.decimals)}  ({rows} rows)"
        labels = (
            [str(c) for c in self.classes]
            if self.classes is not None
            else [str(k) for k in range(value.shape[0])]
        )
        best = labels[int(np.argmax(value))]
        counts = ", ".join(
            f"{label}: {format_number(count, self.decimals)}"
            for label, count in zip(labels, value, strict=True)
        )
        return f"class: {best}  ({counts})"
