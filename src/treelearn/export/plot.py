"""A fitted tree drawn with matplotlib (Graphviz is not needed).

matplotlib is an optional dependency (``pip install "treelearn[plot]"``);
importing treelearn never imports it, :func:`plot_tree` does.

Layout
    Top-down, by :func:`treelearn.export._layout.tidy_layout` (a
    Reingold–Tilford-style layout): binary and multiway nodes alike, every
    subtree as narrow as its boxes and edge labels allow, nothing overlapping.
    Sizes are measured in points from the text itself, so a figure made by
    :func:`plot_tree` without ``ax`` is exactly as large as the tree needs at
    ``fontsize``; in a given ``ax`` the text is scaled to make the tree fit.
Boxes
    One per node: the feature tested (internal nodes), the impurity,
    ``samples`` (and ``weight`` when it differs), the weighted class counts
    (in the order of the legend) and the majority class, or the value
    (regression). Filled like :func:`~treelearn.export.export_dot`: the
    majority class's colour, stronger the purer the node; regression: one hue,
    stronger for higher values. A legend above the tree names the classes.
Edges
    Elbow connectors, each labelled with its branch condition without the
    feature name (``<= 2.5``, ``> 2.5``, ``in {a, b}``, ``= a``) and the
    missing-value route (``+ missing``, ``+ missing (by weight: 0.4)``), as
    :func:`~treelearn.export.export_dot` shows them.
Truncation
    ``max_depth`` draws the nodes down to that depth; a node whose children
    are cut off gets a ``(...)`` below it.
Fonts
    Labels are drawn with matplotlib's default font, falling back glyph by
    glyph to an installed CJK font (Noto Sans CJK, Source Han Sans, WenQuanYi,
    Microsoft YaHei, SimHei, PingFang, ...) when there is one, so that
    Chinese, Japanese and Korean feature names and categories render. Without
    one such labels show as boxes, and matplotlib's missing-glyph warnings
    are kept quiet while treelearn measures and draws. Text is never parsed as
    mathtext: ``$`` in a label is shown as it is.
Artists
    Every artist drawn has a ``gid`` (``node-3``, ``node-3-text``,
    ``edge-3``, ``edge-3-label`` for the edge into node 3, ``truncated-3``,
    ``legend-0``, ``legend-0-text``), which SVG files keep as element ids.
"""

import contextlib
import functools
import math
import numbers
import warnings

from treelearn.exceptions import ParameterError
from treelearn.export._labels import branch_lines, check_decimals, format_number, label_text
from treelearn.export._layout import tidy_layout
from treelearn.export.dot import _fill, _resolve_colours, _value_range
from treelearn.tree.view import TreeView

__all__ = ["plot_tree"]

#: CJK fonts to fall back on, best first (any other family with "CJK" in its name follows).
CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Sans CJK TC",
    "Noto Sans CJK KR",
    "Noto Sans CJK HK",
    "Noto Sans SC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "Source Han Sans",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Microsoft YaHei",
    "SimHei",
    "PingFang SC",
    "Hiragino Sans GB",
    "Heiti SC",
    "Sarasa Gothic SC",
    "Droid Sans Fallback",
    "Arial Unicode MS",
)
_EDGE_COLOUR = "#555555"
_LINE_SPACING = 1.2
_EDGE_FONT = 0.9  # edge labels' size relative to ``fontsize``


def require_matplotlib(caller):
    """Import matplotlib, or raise an ImportError that says how to install it."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise ImportError(
            f"{caller} needs matplotlib, an optional dependency of treelearn; install it "
            'with: pip install "treelearn[plot]"'
        ) from error


@functools.cache
def cjk_font():
    """The name of an installed CJK-capable font that matplotlib can use, or None."""
    from matplotlib import font_manager

    names = {entry.name for entry in font_manager.fontManager.ttflist}
    for name in CJK_FONTS:
        if name in names:
            return name
    others = sorted(n for n in names if "CJK" in n and "Mono" not in n)
    return others[0] if others else None


def font_family():
    """matplotlib's font family list, with a CJK font (when installed) to fall back on."""
    from matplotlib import rcParams

    family = list(rcParams["font.family"])
    cjk = cjk_font()
    if cjk is not None and cjk not in family:
        family.append(cjk)
    return family


@contextlib.contextmanager
def quiet_glyphs():
    """Silence matplotlib's per-glyph "missing from font" warnings (module docstring)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Glyph .* missing from font")
        warnings.filterwarnings("ignore", message=r".*[Ff]ont family .* not found")
        yield


class _Measure:
    """Width of a line of text in points, as matplotlib will draw it."""

    def __init__(self, family):
        from matplotlib.font_manager import FontProperties
        from matplotlib.textpath import TextToPath

        to_path = TextToPath()
        props = functools.cache(lambda size: FontProperties(family=family, size=size))

        @functools.cache
        def line_width(line, size):
            return to_path.get_text_width_height_descent(line, props(size), ismath=False)[0]

        self._line_width = line_width

    def width(self, lines, size):
        return max((self._line_width(line, size) for line in lines if line), default=0.0)


# -- what to draw ----------------------------------------------------------------------


def _node_lines(view, node, decimals, impurity, node_ids):
    lines = [f"node #{node.index}"] if node_ids else []
    if not node.is_leaf:
        lines.append(label_text(node.feature_name))
    if impurity:
        lines.append(f"impurity = {format_number(node.impurity, decimals)}")
    samples = f"samples = {node.n_samples}"
    if abs(node.weight - node.n_samples) > 1e-9 * max(1.0, node.weight):
        samples += f", weight = {format_number(node.weight, decimals)}"
    lines.append(samples)
    if view.is_classifier:
        counts = ", ".join(format_number(v, decimals) for v in node.value)
        lines.append(f"[{counts}]" if node.n_samples else f"[{counts}] (parent's)")
        lines.append(f"class = {label_text(node.prediction)}")
    else:
        lines.append(f"value = {format_number(node.prediction, decimals)}")
    return lines


def _visible(view, max_depth):
    """(the drawn nodes in depth-first order, children of each drawn internal node, the drawn
    nodes whose children are cut off)."""
    order, children, truncated = [], {}, []
    stack = [view.root]
    while stack:
        node = stack.pop()
        order.append(node)
        if node.children and max_depth is not None and node.depth >= max_depth:
            truncated.append(node.index)
        elif node.children:
            children[node.index] = node.children
            stack.extend(view.node(kid) for kid in reversed(node.children))
    return order, children, truncated


def _scene(view, options):
    """Everything to draw, in points at ``fontsize``: texts, sizes, colours and the layout."""
    fs, decimals = options["fontsize"], options["decimals"]
    measure = _Measure(font_family())
    line_height, edge_size = _LINE_SPACING * fs, _EDGE_FONT * fs
    pad_x, pad_y, edge_pad = 0.5 * fs, 0.4 * fs, 0.25 * fs
    order, children, truncated = _visible(view, options["max_depth"])
    colours = _resolve_colours(view, options["class_colors"])
    value_range = _value_range(view)
    nodes = {}
    for node in order:
        lines = _node_lines(view, node, decimals, options["impurity"], options["node_ids"])
        box_w = measure.width(lines, fs) + 2 * pad_x
        box_h = len(lines) * line_height + 2 * pad_y
        edge = []
        if node.parent >= 0:
            position = view.node(node.parent).children.index(node.index)
            edge = branch_lines(view.branches(node.parent)[position], decimals)
        edge_w = measure.width(edge, edge_size) + 2 * edge_pad if edge else 0.0
        edge_h = len(edge) * _LINE_SPACING * edge_size + 2 * edge_pad if edge else 0.0
        nodes[node.index] = {
            "lines": lines,
            "edge": edge,
            "size": (box_w, box_h),
            "slot": max(box_w, edge_w),
            "edge_h": edge_h,
            "fill": _fill(view, node, colours, value_range),
            "depth": node.depth,
        }
    layout = tidy_layout(
        children,
        {i: n["slot"] for i, n in nodes.items()},
        {i: n["size"][1] for i, n in nodes.items()},
        {i: n["edge_h"] for i, n in nodes.items()},
        gap=1.2 * fs,
        level_gap=0.8 * fs,
    )
    legend = _legend(view, colours, measure, fs, layout.width) if options["legend"] else None
    return {
        "nodes": nodes,
        "children": children,
        "truncated": truncated,
        "layout": layout,
        "legend": legend,
        "fontsize": fs,
        "edge_size": edge_size,
    }


def _legend(view, colours, measure, fs, tree_width):
    """Legend items (class index, x, row) and its size, wrapped to the tree's width."""
    if not view.is_classifier:
        return None
    square, spacing = 0.8 * fs, 1.2 * fs
    items, x, row, width = [], 0.0, 0, 0.0
    for k, label in enumerate(view.classes):
        text = label_text(label)
        item_w = square + 0.4 * fs + measure.width([text], fs)
        if x > 0 and x + item_w > tree_width:
            x, row = 0.0, row + 1
        items.append((k, text, colours[k], x, row))
        width = max(width, x + item_w)
        x += item_w + spacing
    height = (row + 1) * _LINE_SPACING * fs
    return {"items": items, "width": width, "height": height, "square": square}


# -- drawing ---------------------------------------------------------------------------


def _extent(scene):
    """(width, height, y offset of the tree) of the whole drawing, legend included."""
    layout, fs = scene["layout"], scene["fontsize"]
    legend = scene["legend"]
    top = legend["height"] + 0.8 * fs if legend else 0.0
    bottom = 1.6 * fs if scene["truncated"] else 0.0
    width = max(layout.width, legend["width"] if legend else 0.0)
    return width, top + layout.height + bottom, top


def _draw(ax, scene, scale):
    """Draw the scene on ``ax`` (data unit = one point at ``fontsize``, times ``scale``)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyBboxPatch, Rectangle

    layout, fs = scene["layout"], scene["fontsize"]
    family = font_family()
    width, height, y0 = _extent(scene)
    margin = 0.5 * fs
    text_options = {"fontfamily": family, "parse_math": False, "zorder": 3}
    for index, node in scene["nodes"].items():
        x, top = layout.x[index], layout.top[index] + y0
        box_w, box_h = node["size"]
        box = FancyBboxPatch(
            (x - box_w / 2, top),
            box_w,
            box_h,
            boxstyle=f"round,pad=0,rounding_size={0.35 * fs}",
            facecolor=node["fill"],
            edgecolor=_EDGE_COLOUR,
            linewidth=0.8,
            zorder=2,
            gid=f"node-{index}",
        )
        ax.add_artist(box)  # not add_patch: the limits are set once, at the end
        ax.text(
            x,
            top + box_h / 2,
            "\n".join(node["lines"]),
            ha="center",
            va="center",
            multialignment="center",
            fontsize=fs * scale,
            linespacing=_LINE_SPACING,
            gid=f"node-{index}-text",
            **text_options,
        )
    for parent, kids in scene["children"].items():
        bottom = layout.top[parent] + y0 + scene["nodes"][parent]["size"][1]
        for kid in kids:
            depth_top = layout.top[kid] + y0
            bar = layout.bar[scene["nodes"][kid]["depth"]] + y0
            xs = [layout.x[parent], layout.x[parent], layout.x[kid], layout.x[kid]]
            ys = [bottom, bar, bar, depth_top]
            ax.add_artist(
                Line2D(xs, ys, color=_EDGE_COLOUR, linewidth=0.9, zorder=1, gid=f"edge-{kid}")
            )
            ax.text(
                layout.x[kid],
                (bar + depth_top) / 2,
                "\n".join(scene["nodes"][kid]["edge"]),
                ha="center",
                va="center",
                multialignment="center",
                fontsize=scene["edge_size"] * scale,
                linespacing=_LINE_SPACING,
                color="#333333",
                bbox={"boxstyle": "round,pad=0.2", "facecolor": "white", "edgecolor": "none"},
                gid=f"edge-{kid}-label",
                **text_options,
            )
    for index in scene["truncated"]:
        bottom = layout.top[index] + y0 + scene["nodes"][index]["size"][1]
        ax.text(
            layout.x[index],
            bottom + 0.9 * fs,
            "(...)",
            ha="center",
            va="center",
            fontsize=fs * scale,
            color=_EDGE_COLOUR,
            gid=f"truncated-{index}",
            **text_options,
        )
    legend = scene["legend"]
    if legend:
        square = legend["square"]
        for k, text, colour, x, row in legend["items"]:
            y = row * _LINE_SPACING * fs + 0.5 * _LINE_SPACING * fs
            ax.add_artist(
                Rectangle(
                    (x, y - square / 2),
                    square,
                    square,
                    facecolor=colour,
                    edgecolor=_EDGE_COLOUR,
                    linewidth=0.6,
                    gid=f"legend-{k}",
                )
            )
            ax.text(
                x + square + 0.4 * fs,
                y,
                text,
                ha="left",
                va="center",
                fontsize=fs * scale,
                gid=f"legend-{k}-text",
                **text_options,
            )
    ax.set_xlim(-margin, width + margin)
    ax.set_ylim(height + margin, -margin)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()


# -- the public function -----------------------------------------------------------------


def _check_options(max_depth, decimals, fontsize, flags):
    if max_depth is not None and (
        isinstance(max_depth, bool) or not isinstance(max_depth, numbers.Integral) or max_depth < 0
    ):
        raise ParameterError(f"max_depth must be None or an integer >= 0, got {max_depth!r}.")
    if (
        isinstance(fontsize, bool)
        or not isinstance(fontsize, numbers.Real)
        or not math.isfinite(fontsize)
        or fontsize <= 0
    ):
        raise ParameterError(f"fontsize must be a positive number of points, got {fontsize!r}.")
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise ParameterError(f"{name} must be True or False, got {value!r}.")
    return {
        "max_depth": None if max_depth is None else int(max_depth),
        "decimals": check_decimals(decimals),
        "fontsize": float(fontsize),
        **flags,
    }


def prepare(model, caller, **options):
    """The scene for ``model``: the checked options turned into what to draw."""
    view = TreeView(
        model,
        feature_names=options.pop("feature_names"),
        class_names=options.pop("class_names"),
        caller=caller,
    )
    class_colors = options.pop("class_colors")
    checked = _check_options(
        options.pop("max_depth"), options.pop("decimals"), options.pop("fontsize"), options
    )
    checked["class_colors"] = class_colors
    with quiet_glyphs():
        return _scene(view, checked)


def new_figure(scene, pyplot):
    """A figure (and axes filling it) exactly as large as the scene at its font size."""
    width, height, _ = _extent(scene)
    margin = scene["fontsize"]
    size = ((width + 2 * margin) / 72.0, (height + 2 * margin) / 72.0)
    if pyplot:
        import matplotlib.pyplot as plt

        figure = plt.figure(figsize=size)
    else:
        from matplotlib.figure import Figure

        figure = Figure(figsize=size)
    return figure, figure.add_axes((0.0, 0.0, 1.0, 1.0))


def draw_scene(ax, scene, fit):
    """Draw on ``ax``; ``fit``: scale the text so that the tree fills the axes."""
    scale = 1.0
    if fit:
        width, height, _ = _extent(scene)
        margin = scene["fontsize"]
        box = ax.get_position()
        fig_w, fig_h = ax.figure.get_size_inches()
        scale = min(
            box.width * fig_w * 72.0 / (width + 2 * margin),
            box.height * fig_h * 72.0 / (height + 2 * margin),
        )
    with quiet_glyphs():
        _draw(ax, scene, scale)
    return ax


def plot_tree(
    model,
    ax=None,
    *,
    max_depth=None,
    feature_names=None,
    class_names=None,
    class_colors=None,
    decimals=3,
    fontsize=10,
    impurity=True,
    node_ids=False,
    legend=True,
):
    """Draw a fitted tree with matplotlib (see the module docstring).

    Parameters
    ----------
    model : fitted treelearn estimator, Tree or TreeView
    ax : matplotlib Axes, optional
        Where to draw; the text is scaled so that the tree fills it. Without
        one, a new figure (with pyplot) exactly as large as the tree needs.
    max_depth : int, optional
        Draw the nodes down to this depth (the root has depth 0); deeper
        subtrees are shown as ``(...)``.
    feature_names, class_names : sequence, optional
        Names to show instead of the fitted ones.
    class_colors : sequence or mapping of str, optional
        As in :func:`~treelearn.export.export_dot`: one ``"#rrggbb"`` per class,
        a mapping class -> colour, or one hue for a regression tree.
    decimals : int, default=3
        Digits after the decimal point for thresholds, values and impurities.
    fontsize : float, default=10
        Size of the node text in points (before scaling to ``ax``).
    impurity, node_ids, legend : bool
        Show each node's impurity (default), its index, and the class legend (default).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ImportError
        When matplotlib is not installed (``pip install "treelearn[plot]"``).

    Examples
    --------
    >>> from treelearn import CARTClassifier
    >>> from treelearn.datasets import load_dataset
    >>> from treelearn.export import plot_tree
    >>> X, y = load_dataset("iris")
    >>> ax = plot_tree(CARTClassifier(max_depth=2).fit(X, y))  # doctest: +SKIP
    """
    require_matplotlib("plot_tree")
    scene = prepare(
        model,
        "plot_tree",
        feature_names=feature_names,
        class_names=class_names,
        class_colors=class_colors,
        max_depth=max_depth,
        decimals=decimals,
        fontsize=fontsize,
        impurity=impurity,
        node_ids=node_ids,
        legend=legend,
    )
    if ax is None:
        _, ax = new_figure(scene, pyplot=True)
        return draw_scene(ax, scene, fit=False)
    return draw_scene(ax, scene, fit=True)
