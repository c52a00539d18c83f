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
    At a node with surrogate splits (``missing="surrogate"``), a missing value
    takes the branch of the first surrogate whose feature it knows; the marked
    branch is the one taken when none does, and the marker names the
    surrogates' features in order: ``(+ missing; surrogates first: 色泽, 脐部)``.

Labels
    Feature names, categories and class labels are printed with ``str``, a
    newline or other control character in one shown as its escape (``\\n``),
    so that every branch stays on its line.

Leaves
    Classification: ``class: <majority class>  (<class>: <weighted count>, ...)``
    (ties go to the first class, as ``predict`` does); a leaf without training
    rows (ID3's branch for a category absent at its parent) shows
    ``(no training rows; parent's <class>: <count>, ...)``; regression:
    ``value: <leaf value>  (<n> rows)``.
"""

from treelearn.export._labels import (
    check_decimals,
    condition_text,
    format_number,
    label_text,
)
from treelearn.tree.view import MISSING_WEIGHTED, TreeView

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
    view = TreeView(model, feature_names=feature_names, caller="export_text")
    decimals = check_decimals(decimals)
    lines = []
    # Depth-first, children in branch order; a stack rather than recursion, so
    # that deep trees do not hit Python's recursion limit.
    stack = [(0, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            lines.append(item)
            continue
        node = view.node(item)
        prefix = _INDENT * depth + _BRANCH
        if node.is_leaf:
            lines.append(prefix + _leaf_text(view, node, decimals))
            continue
        pending = []
        for branch in view.branches(node.index):
            line = prefix + condition_text(branch.condition, decimals) + _missing_marker(branch)
            pending.append((line, depth))
            pending.append((branch.child, depth + 1))
        stack.extend(reversed(pending))
    return "\n".join(lines) + "\n"


def _missing_marker(branch):
    """``  (+ missing)``, with the unseen categories and the surrogates, or ``by weight``."""
    if branch.missing == MISSING_WEIGHTED:
        return "  (+ missing, by weight)"
    if not branch.takes_missing:
        return ""
    unseen = "".join(", " + label_text(u) for u in branch.unseen)
    surrogates = ""
    if branch.surrogates:
        names = ", ".join(label_text(s.condition.feature_name) for s in branch.surrogates)
        surrogates = f"; surrogates first: {names}"
    return f"  (+ missing{unseen}{surrogates})"


def _leaf_text(view, node, decimals):
    if not view.is_classifier:
        return f"value: {format_number(node.prediction, decimals)}  ({node.n_samples} rows)"
    labels = [label_text(c) for c in view.classes]
    counts = ", ".join(
        f"{label}: {format_number(count, decimals)}"
        for label, count in zip(labels, node.value, strict=True)
    )
    if node.n_samples == 0:
        # A multiway branch for a category absent at its parent (ID3) predicts the
        # parent's distribution; showing it as this leaf's counts would mislead.
        return f"class: {labels[node.class_index]}  (no training rows; parent's {counts})"
    return f"class: {labels[node.class_index]}  ({counts})"
