"""A fitted tree as one self-contained HTML page (no network, no CDN: it opens offline).

The page
    The tree drawn top-down (nested boxes laid out by the browser, so that it
    re-flows when a subtree is collapsed), each edge labelled with its branch
    condition and missing-value route as in :func:`~treelearn.export.export_dot`,
    each box filled with its majority class's colour (regression: one hue)
    and showing its class distribution as a bar. A node's toggle collapses or
    expands its subtree (``+12`` says how many nodes it hides); nodes at
    ``collapse_depth`` and deeper start collapsed. Clicking a node shows its
    details: the path to it, samples, weight, impurity, prediction, the class
    distribution (bar and table), the split (feature, impurity decrease,
    branches with their missing-value routes and sizes, surrogate splits) and
    the node's explain table when one is given.
Impurity decrease
    ``impurity(node) - sum_c w_c / w * impurity(c)`` over the children ``c``
    (weights ``w_c``, ``w`` their sum): the information gain of the split
    when the impurity is entropy, the Gini gain when it is Gini. With C4.5's
    fractional missing values it is not Quinlan's gain (which discounts by the
    share of known values); the explain table shows the textbook numbers.
Safety
    The tree is embedded as JSON in a ``<script type="application/json">``
    block with ``<``, ``>`` and ``&`` written as ``\\u003c`` escapes (so that
    ``</script>`` or ``<!--`` in a label cannot end the block), and the page's
    script inserts every label as text, never as HTML. A
    Content-Security-Policy allows only the page's own style and script
    (by hash) and no network access at all.
"""

import base64
import hashlib
import json
import math
import numbers
import os
from collections.abc import Mapping

import numpy as np
import pandas as pd

from treelearn.exceptions import ParameterError
from treelearn.export._html_assets import SCRIPT, STYLE
from treelearn.export._labels import (
    branch_lines,
    check_decimals,
    condition_text,
    escape_html,
    format_number,
    label_text,
)
from treelearn.export.dot import _fill, _resolve_colours, _value_range
from treelearn.export.model_file import _write_atomic
from treelearn.tree.view import MISSING_NO, MISSING_WEIGHTED, TreeView

__all__ = ["export_html"]

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="generator" content="treelearn">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<div id="tl-app">
<header id="tl-header">
<h1 id="tl-title"></h1>
<span id="tl-summary"></span>
<button type="button" id="tl-expand">Expand all</button>
<button type="button" id="tl-collapse">Collapse all</button>
<button type="button" id="tl-zoom-out" title="Zoom out">&minus;</button>
<button type="button" id="tl-zoom-in" title="Zoom in">+</button>
<span id="tl-legend" class="tl-legend"></span>
</header>
<div id="tl-main">
<div id="tl-tree" class="tl-tree"></div>
<aside id="tl-details"><p class="tl-empty">Click a node to see its details.</p></aside>
</div>
</div>
<script type="application/json" id="treelearn-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""


def _hash(text):
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


_CSP = (
    f"default-src 'none'; style-src {_hash(STYLE)}; script-src {_hash(SCRIPT)}; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


def script_json(data):
    """``data`` as JSON that is safe inside a ``<script>`` element (module docstring)."""
    text = json.dumps(data, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def export_html(
    model,
    path=None,
    *,
    explain_tables=None,
    title=None,
    collapse_depth=4,
    feature_names=None,
    class_names=None,
    class_colors=None,
    decimals=3,
):
    """Write a fitted tree as one self-contained HTML page (see the module docstring).

    Parameters
    ----------
    model : fitted treelearn estimator, Tree or TreeView
    path : str or path-like, optional
        Where to write the page (UTF-8; replaced atomically if it exists).
        Without it, the page is returned as a string.
    explain_tables : mapping of int to pandas.DataFrame, optional
        Per node index, a table shown in that node's details (for example the
        table of :func:`treelearn.explain`). Cells are shown as text; floats
        with ``decimals`` digits. Default: for a model that keeps split
        records (ID3, C4.5), :func:`treelearn.explain`'s table of every node
        it searched; none otherwise.
    title : str, optional
        The page's title (default: the estimator's class name, or "Decision tree").
    collapse_depth : int or None, default=4
        Internal nodes at this depth and deeper start collapsed (the root has
        depth 0); None opens the whole tree.
    feature_names, class_names : sequence, optional
        Names to show instead of the fitted ones.
    class_colors : sequence or mapping of str, optional
        As in :func:`~treelearn.export.export_dot`.
    decimals : int, default=3
        Digits after the decimal point.

    Returns
    -------
    str or None
        The page when ``path`` is None.

    Examples
    --------
    >>> from treelearn import CARTClassifier
    >>> from treelearn.datasets import load_dataset
    >>> from treelearn.export import export_html
    >>> X, y = load_dataset("play_tennis")
    >>> page = export_html(CARTClassifier(max_depth=2).fit(X, y))
    >>> page.startswith("<!DOCTYPE html>")
    True
    """
    view = TreeView(model, feature_names, class_names, caller="export_html")
    decimals = check_decimals(decimals)
    if collapse_depth is not None and (
        isinstance(collapse_depth, bool)
        or not isinstance(collapse_depth, numbers.Integral)
        or collapse_depth < 0
    ):
        raise ParameterError(
            f"collapse_depth must be None or an integer >= 0, got {collapse_depth!r}."
        )
    if title is None:
        title = "Decision tree" if not hasattr(model, "tree_") else type(model).__name__
    if explain_tables is None:
        explain_tables = _recorded_explain_tables(model)
    tables = {k: table_data(v, decimals) for k, v in _check_tables(view, explain_tables).items()}
    data = _page_data(view, model, decimals, class_colors, tables)
    data["title"] = label_text(title)
    data["collapse_depth"] = None if collapse_depth is None else int(collapse_depth)
    page = _TEMPLATE.format(
        csp=_CSP,
        title=escape_html(label_text(title)),
        style=STYLE,
        data=script_json(data),
        script=SCRIPT,
    )
    if path is None:
        return page
    _write_atomic(os.fspath(path), page.encode("utf-8"))
    return None


# -- the data the page shows --------------------------------------------------------------


def _page_data(view, model, decimals, class_colors, tables):
    colours = _resolve_colours(view, class_colors)
    value_range = _value_range(view)
    sizes = _subtree_sizes(view)
    nodes = [
        _node_data(view, node, decimals, _fill(view, node, colours, value_range), sizes, tables)
        for node in view
    ]
    n_leaves = sum(node["leaf"] for node in nodes)
    summary = f"{view.node_count} nodes, {n_leaves} leaves, depth {max(n['depth'] for n in nodes)}"
    criterion = getattr(model, "criterion", None)
    if isinstance(criterion, str):
        summary += f", criterion: {label_text(criterion)}"
    classifier = view.is_classifier
    return {
        "summary": summary,
        "classes": [label_text(c) for c in view.classes] if classifier else None,
        "colours": list(colours) if classifier else [colours],
        "nodes": nodes,
    }


def _subtree_sizes(view):
    sizes = [1] * view.node_count
    for node in reversed(list(view.depth_first())):
        if node.parent >= 0:
            sizes[node.parent] += sizes[node.index]
    return sizes


def _num(value, decimals):
    return format_number(value, decimals) if math.isfinite(value) else str(value)


def _node_data(view, node, decimals, fill, sizes, tables):
    samples = f"samples = {node.n_samples}"
    weighted = abs(node.weight - node.n_samples) > 1e-9 * max(1.0, node.weight)
    if weighted:
        samples += f", weight = {_num(node.weight, decimals)}"
    lines = [samples]
    stats = [["samples", str(node.n_samples)], ["weight", _num(node.weight, decimals)]]
    stats.append(["impurity", _num(node.impurity, decimals)])
    stats.append(["depth", str(node.depth)])
    if view.is_classifier:
        head = label_text(node.feature_name) if not node.is_leaf else f"class = {_pred(node)}"
        if not node.is_leaf:
            lines.append(f"class = {_pred(node)}")
        stats.append(["prediction", _pred(node)])
        stats.append(["confidence", _num(node.confidence, decimals)])
        total = sum(node.value)
        counts = [_num(v, decimals) for v in node.value]
        shares = [format_number(v / total, decimals) if total > 0 else "" for v in node.value]
        value = [float(v) for v in node.value]
    else:
        prediction = _num(node.prediction, decimals)
        head = label_text(node.feature_name) if not node.is_leaf else f"value = {prediction}"
        if not node.is_leaf:
            lines.append(f"value = {prediction}")
        stats.append(["value", prediction])
        counts = shares = value = []
    if node.n_samples == 0:
        lines[0] += " (parent's counts)"
        stats.append(["note", "no training rows: it predicts its parent's distribution"])
    path = [_path_text(branch, decimals) for branch in view.path(node.index)]
    edge = branch_lines(view.branches(node.parent)[_position(view, node)], decimals) if path else []
    return {
        "id": node.index,
        "parent": node.parent,
        "children": list(node.children),
        "depth": node.depth,
        "size": sizes[node.index],
        "leaf": node.is_leaf,
        "kind": node.kind,
        "feature": None if node.is_leaf else label_text(node.feature_name),
        "head": head,
        "lines": lines,
        "edge": edge,
        "fill": fill,
        "value": value,
        "counts": counts,
        "shares": shares,
        "stats": stats,
        "path": path,
        "split": None if node.is_leaf else _split_data(view, node, decimals),
        "explain": tables.get(node.index),
    }


def _pred(node):
    return label_text(node.prediction)


def _position(view, node):
    return view.node(node.parent).children.index(node.index)


def _path_text(branch, decimals):
    text = condition_text(branch.condition, decimals)
    if branch.missing == MISSING_WEIGHTED:
        return f"{text} (+ missing, by weight: {format_number(branch.fraction, decimals)})"
    return f"{text} (+ missing)" if branch.takes_missing else text


def _split_data(view, node, decimals):
    branches = view.branches(node.index)
    kids = [view.node(b.child) for b in branches]
    total = sum(kid.weight for kid in kids)
    decrease = None
    if total > 0:
        decrease = node.impurity - sum(kid.weight / total * kid.impurity for kid in kids)
    rows = []
    for branch, kid in zip(branches, kids, strict=True):
        missing = {MISSING_NO: "", MISSING_WEIGHTED: "by weight"}.get(branch.missing, "yes")
        if branch.missing == MISSING_WEIGHTED:
            missing += f" ({format_number(branch.fraction, decimals)})"
        elif branch.takes_missing and branch.unseen:
            unseen = ", ".join(label_text(u) for u in branch.unseen)
            missing += f" (and unseen: {unseen})"
        rows.append(
            {
                "child": kid.index,
                "condition": condition_text(branch.condition, decimals),
                "missing": missing,
                "samples": str(kid.n_samples),
            }
        )
    surrogates = [
        f"{condition_text(s.condition, decimals)} (agreement "
        f"{format_number(s.agreement, decimals)}, adjusted {format_number(s.adjusted, decimals)})"
        for s in branches[0].surrogates
    ]
    stats = [
        ["feature", label_text(node.feature_name)],
        ["kind", node.kind],
        ["impurity decrease", "" if decrease is None else _num(decrease, decimals)],
    ]
    return {"stats": stats, "branches": rows, "surrogates": surrogates}


# -- explain tables -------------------------------------------------------------------------


def _recorded_explain_tables(model):
    """:func:`treelearn.explain`'s tables of the nodes a model kept split records of."""
    records = getattr(model, "split_records_", None)
    if not records:
        return None
    from treelearn.explain import explain

    return {node: explain(model, node) for node in sorted(records)}


def _check_tables(view, explain_tables):
    """{node index: table data} from the ``explain_tables`` mapping, checked."""
    if explain_tables is None:
        return {}
    if not isinstance(explain_tables, Mapping):
        raise ParameterError(
            "explain_tables must be a mapping {node index: pandas DataFrame}, got "
            f"{type(explain_tables).__name__}."
        )
    tables = {}
    for key, frame in explain_tables.items():
        if isinstance(key, bool) or not isinstance(key, (numbers.Integral, np.integer)):
            raise ParameterError(f"explain_tables keys must be node indices, got {key!r}.")
        if not 0 <= key < view.node_count:
            raise ParameterError(
                f"explain_tables names node {key}, but the tree has nodes 0 to "
                f"{view.node_count - 1}."
            )
        if not isinstance(frame, pd.DataFrame):
            raise ParameterError(
                f"explain_tables[{key}] must be a pandas DataFrame, got {type(frame).__name__}."
            )
        tables[int(key)] = frame
    return tables


def table_data(frame, decimals):
    """A DataFrame as strings: ``{"columns", "index" (None for a default index), "rows"}``."""
    default_index = isinstance(frame.index, pd.RangeIndex) and frame.index.equals(
        pd.RangeIndex(len(frame))
    )
    return {
        "columns": [_cell(c, decimals) for c in frame.columns],
        "index": None if default_index else [_cell(i, decimals) for i in frame.index],
        "rows": [[_cell(v, decimals) for v in row] for row in frame.itertuples(index=False)],
    }


def _cell(value, decimals):
    if isinstance(value, tuple):
        return " / ".join(_cell(v, decimals) for v in value)
    if value is None or value is pd.NA or value is pd.NaT:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (numbers.Integral, np.integer)):
        return str(int(value))
    if isinstance(value, (numbers.Real, np.floating)):
        value = float(value)
        return "" if math.isnan(value) else _num(value, decimals)
    return label_text(value)
