"""A fitted tree as Graphviz DOT text (Graphviz itself is not needed to write it).

Render the text with Graphviz (``dot -Tsvg tree.dot -o tree.svg``) or any
DOT viewer.

Nodes
    One box per node, its label (top to bottom): the feature tested (internal
    nodes), the impurity, ``samples`` (and ``weight`` when it differs), the
    class distribution and the majority class (classification) or the value
    (regression). A node with surrogate splits lists their features.
Colours
    Classification: each class has a colour from a fixed qualitative palette
    (Tableau 10, repeated beyond ten classes) or from ``class_colors``; a node
    is filled with its majority class's colour, the lighter the less pure it is
    (white-ish when its classes are balanced). Regression: one hue, lighter
    for lower values.
Edges
    Labelled with the branch condition without the feature name (``<= 2.5``,
    ``> 2.5``, ``in {a, b}``, ``= a``); a multiway node has one edge per
    child. The edge taken by missing values says ``+ missing`` (with the
    categories not seen at the node that are routed as missing), or ``+
    missing (by weight: 0.4)`` on every edge of a C4.5 node that splits missing
    values by weight; at a node with surrogates, ``+ missing`` marks the edge
    taken when no surrogate decides.
Escaping
    Every label is a Graphviz HTML-like label whose text is escaped with
    :func:`treelearn.export._labels.escape_html`: feature names, categories
    and class labels cannot break out of the label, whatever they contain
    (quotes, backslashes, newlines, ``< > { } |``). Colours are checked to be
    ``#rrggbb``.
"""

import re
from collections.abc import Mapping, Sequence

from treelearn.exceptions import ParameterError
from treelearn.export._labels import (
    branch_lines,
    check_decimals,
    escape_html,
    format_number,
    label_text,
)
from treelearn.tree.view import TreeView

__all__ = ["PALETTE", "export_dot"]

#: Tableau 10, the default class colours.
PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#bab0ac",
)
_REGRESSION_HUE = "#4e79a7"
_COLOUR = re.compile(r"#[0-9a-fA-F]{6}")
#: The lightest and the strongest tint of a node's colour (0 = white, 1 = the colour).
_MIN_TINT, _MAX_TINT = 0.08, 0.85
_FONT = "Helvetica"


def export_dot(model, decimals=3, class_colors=None):
    """Render a fitted tree as Graphviz DOT text (see the module docstring).

    Parameters
    ----------
    model : fitted treelearn estimator, Tree or TreeView
        Pass a :class:`~treelearn.tree.TreeView` to rename features or classes.
    decimals : int, default=3
        Digits after the decimal point for thresholds, values, weights and impurities.
    class_colors : sequence or mapping of str, optional
        Colours ``"#rrggbb"``: one per class in the order of ``classes_``, or a
        mapping from class label to colour (classes left out keep the palette's
        colour). For a regression tree, a single colour (the hue).

    Returns
    -------
    str
        The DOT text of a ``digraph``.

    Examples
    --------
    >>> from treelearn import CARTClassifier
    >>> from treelearn.datasets import load_dataset
    >>> from treelearn.export import export_dot
    >>> X, y = load_dataset("play_tennis")
    >>> dot = export_dot(CARTClassifier(max_depth=1).fit(X, y))
    >>> print(dot.splitlines()[0])
    digraph Tree {
    """
    view = TreeView(model, caller="export_dot")
    decimals = check_decimals(decimals)
    colours = _resolve_colours(view, class_colors)
    lines = [
        "digraph Tree {",
        f'graph [fontname="{_FONT}", ranksep=0.35, nodesep=0.25];',
        f'node [shape=box, style="filled,rounded", color="#555555", fontname="{_FONT}", '
        "fontsize=11];",
        f'edge [fontname="{_FONT}", fontsize=10, color="#555555"];',
    ]
    value_range = _value_range(view)
    for node in view.depth_first():
        fill = _fill(view, node, colours, value_range)
        label = _node_label(view, node, decimals)
        lines.append(f'{node.index} [label=<{label}>, fillcolor="{fill}"];')
        for branch in view.branches(node.index):
            edge = _edge_label(branch, decimals)
            lines.append(f"{node.index} -> {branch.child} [label=<{edge}>];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- labels ----------------------------------------------------------------------------


def _node_label(view, node, decimals):
    lines = []
    if not node.is_leaf:
        lines.append(f"<B>{escape_html(label_text(node.feature_name))}</B>")
        surrogates = view.branches(node.index)[0].surrogates
        if surrogates:
            names = ", ".join(label_text(s.condition.feature_name) for s in surrogates)
            lines.append(escape_html(f"surrogates: {names}"))
    lines.append(f"impurity = {format_number(node.impurity, decimals)}")
    samples = f"samples = {node.n_samples}"
    if abs(node.weight - node.n_samples) > 1e-9 * max(1.0, node.weight):
        samples += f", weight = {format_number(node.weight, decimals)}"
    lines.append(samples)
    if view.is_classifier:
        counts = ", ".join(
            f"{label_text(c)}: {format_number(v, decimals)}"
            for c, v in zip(view.classes, node.value, strict=True)
        )
        lines.append(escape_html(f"value = [{counts}]"))
        lines.append(escape_html(f"class = {label_text(node.prediction)}"))
    else:
        lines.append(f"value = {format_number(node.prediction, decimals)}")
    return "<BR/>".join(lines)


def _edge_label(branch, decimals):
    return "<BR/>".join(escape_html(line) for line in branch_lines(branch, decimals))


# -- colours ---------------------------------------------------------------------------


def _check_colour(colour, where):
    if not isinstance(colour, str) or not _COLOUR.fullmatch(colour):
        raise ParameterError(f"class_colors{where} must be a colour '#rrggbb', got {colour!r}.")
    return colour.lower()


def _resolve_colours(view, class_colors):
    """One ``#rrggbb`` per class (classification) or the hue (regression)."""
    if not view.is_classifier:
        if class_colors is None:
            return _REGRESSION_HUE
        if not isinstance(class_colors, str):
            raise ParameterError(
                "class_colors for a regression tree must be one colour '#rrggbb' (the hue), "
                f"got {class_colors!r}."
            )
        return _check_colour(class_colors, "")
    colours = [PALETTE[k % len(PALETTE)] for k in range(view.n_classes)]
    if class_colors is None:
        return colours
    if isinstance(class_colors, Mapping):
        index = {c: k for k, c in enumerate(view.classes)}
        for label, colour in class_colors.items():
            if label not in index:
                raise ParameterError(
                    f"class_colors names {label!r}, which is not a class; the classes are "
                    f"{list(view.classes)!r}."
                )
            colours[index[label]] = _check_colour(colour, f"[{label!r}]")
        return colours
    if isinstance(class_colors, str) or not isinstance(class_colors, Sequence):
        raise ParameterError(
            "class_colors must be a sequence of colours (one per class) or a mapping "
            f"{{class: colour}}, got {class_colors!r}."
        )
    if len(class_colors) != view.n_classes:
        raise ParameterError(
            f"class_colors has {len(class_colors)} colours but the tree has "
            f"{view.n_classes} classes; pass one per class, or a mapping."
        )
    return [_check_colour(c, f"[{k}]") for k, c in enumerate(class_colors)]


def _value_range(view):
    if view.is_classifier:
        return None
    values = [node.prediction for node in view]
    return min(values), max(values)


def _tint(colour, amount):
    """``colour`` mixed with white: ``amount`` 0 is white, 1 the colour itself."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    mixed = [round(255 - (255 - c) * amount) for c in rgb]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def _fill(view, node, colours, value_range):
    if view.is_classifier:
        k = view.n_classes
        purity = (node.confidence - 1.0 / k) / (1.0 - 1.0 / k) if k > 1 else 1.0
        colour = colours[node.class_index]
    else:
        low, high = value_range
        purity = (node.prediction - low) / (high - low) if high > low else 1.0
        colour = colours
    purity = min(1.0, max(0.0, purity))
    return _tint(colour, _MIN_TINT + (_MAX_TINT - _MIN_TINT) * purity)
