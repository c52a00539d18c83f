"""A picture of a fitted tree in a file: SVG, PNG or PDF, chosen by the file's extension.

Engines
    ``"matplotlib"`` (default; ``pip install "treelearn[plot]"``) draws the
    picture of :func:`~treelearn.export.plot_tree`, the figure exactly as
    large as the tree needs at ``fontsize``. In an SVG file the text stays
    text (selectable, searchable; a viewer draws it with the first of the
    font family list it has, falling back to its own fonts for CJK), and every
    node is a group with the id ``node-<index>``. ``"graphviz"`` renders
    :func:`~treelearn.export.export_dot` with Graphviz's ``dot`` program,
    which must be on the ``PATH``. A ``.dot`` path gets the DOT text itself
    (no engine needed).
Writing
    The picture is made in memory, written to a temporary file in the target's
    folder and moved over the target (:func:`os.replace`): an existing file is
    replaced whole or left as it was, never half written.
"""

import io
import numbers
import os
import shutil
import subprocess

from treelearn.exceptions import ParameterError
from treelearn.export.dot import export_dot
from treelearn.export.model_file import _write_atomic
from treelearn.export.plot import draw_scene, new_figure, prepare, quiet_glyphs, require_matplotlib
from treelearn.tree.view import TreeView

__all__ = ["save_image"]

FORMATS = (".svg", ".png", ".pdf", ".dot")
_ENGINES = ("matplotlib", "graphviz")
_GRAPHVIZ_TIMEOUT = 120  # seconds
#: Options of the matplotlib picture that Graphviz has no counterpart for, with their defaults.
_MATPLOTLIB_ONLY = {
    "max_depth": None,
    "fontsize": 10,
    "impurity": True,
    "node_ids": False,
    "legend": True,
}


def _format(path):
    extension = os.path.splitext(os.fspath(path))[1].lower()
    if extension not in FORMATS:
        raise ParameterError(
            f"save_image cannot tell the picture format of {os.fspath(path)!r}: the file name "
            f"must end with one of {', '.join(FORMATS)} (got {extension or 'no extension'!r})."
        )
    return extension[1:]


def save_image(
    model,
    path,
    *,
    engine="matplotlib",
    dpi=150,
    feature_names=None,
    class_names=None,
    class_colors=None,
    decimals=3,
    max_depth=None,
    fontsize=10,
    impurity=True,
    node_ids=False,
    legend=True,
):
    """Write a picture of a fitted tree to ``path`` (see the module docstring).

    Parameters
    ----------
    model : fitted treelearn estimator, Tree or TreeView
    path : str or path-like
        Ends with ``.svg``, ``.png``, ``.pdf`` or ``.dot``; replaced if it exists.
    engine : {"matplotlib", "graphviz"}, default="matplotlib"
    dpi : float, default=150
        Resolution of a PNG made by matplotlib (pixels per inch; the text is
        ``fontsize`` points high).
    feature_names, class_names, class_colors, decimals
        As in :func:`~treelearn.export.plot_tree` and
        :func:`~treelearn.export.export_dot` (both engines).
    max_depth, fontsize, impurity, node_ids, legend
        As in :func:`~treelearn.export.plot_tree` (matplotlib only).

    Raises
    ------
    ParameterError
        For an extension other than those above, an unknown engine, or a
        matplotlib-only option given with ``engine="graphviz"``.
    ImportError
        For ``engine="matplotlib"`` without matplotlib installed.
    FileNotFoundError
        For ``engine="graphviz"`` without Graphviz's ``dot`` on the ``PATH``.
    RuntimeError
        When ``dot`` fails (its message is included).
    """
    fmt = _format(path)
    if engine not in _ENGINES:
        raise ParameterError(f"engine must be 'matplotlib' or 'graphviz', got {engine!r}.")
    plot_only = {
        "max_depth": max_depth,
        "fontsize": fontsize,
        "impurity": impurity,
        "node_ids": node_ids,
        "legend": legend,
    }
    if fmt == "dot" or engine == "graphviz":
        given = [name for name, value in plot_only.items() if value != _MATPLOTLIB_ONLY[name]]
        if given:
            raise ParameterError(
                f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to pictures "
                "drawn by matplotlib only; leave them out for a DOT file or engine='graphviz'."
            )
        view = TreeView(model, feature_names, class_names, caller="save_image")
        text = export_dot(view, decimals=decimals, class_colors=class_colors)
        data = text.encode("utf-8") if fmt == "dot" else _graphviz(text, fmt)
    else:
        data = _matplotlib(
            model, fmt, dpi, feature_names, class_names, class_colors, decimals, plot_only
        )
    _write_atomic(os.fspath(path), data)


def _matplotlib(model, fmt, dpi, feature_names, class_names, class_colors, decimals, options):
    require_matplotlib("save_image")
    if isinstance(dpi, bool) or not isinstance(dpi, numbers.Real) or not 0 < dpi < 10_000:
        raise ParameterError(f"dpi must be a positive number of pixels per inch, got {dpi!r}.")
    scene = prepare(
        model,
        "save_image",
        feature_names=feature_names,
        class_names=class_names,
        class_colors=class_colors,
        decimals=decimals,
        **options,
    )
    import matplotlib

    figure, ax = new_figure(scene, pyplot=False)
    draw_scene(ax, scene, fit=False)
    metadata = {"svg": {"Date": None}, "pdf": {"CreationDate": None}, "png": {}}[fmt]
    buffer = io.BytesIO()
    settings = {"svg.fonttype": "none", "svg.hashsalt": "treelearn", "pdf.fonttype": 42}
    with matplotlib.rc_context(settings), quiet_glyphs():
        figure.savefig(buffer, format=fmt, dpi=dpi, metadata=metadata)
    return buffer.getvalue()


def _graphviz(text, fmt):
    program = shutil.which("dot")
    if program is None:
        raise FileNotFoundError(
            "save_image(engine='graphviz') needs Graphviz's 'dot' program, which is not on the "
            "PATH; install Graphviz (https://graphviz.org, e.g. apt-get install graphviz) or use "
            "engine='matplotlib'."
        )
    try:
        result = subprocess.run(
            [program, f"-T{fmt}"],
            input=text.encode("utf-8"),
            capture_output=True,
            timeout=_GRAPHVIZ_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as error:
        raise RuntimeError(
            f"Graphviz's dot took more than {_GRAPHVIZ_TIMEOUT} s; draw fewer nodes or use "
            "engine='matplotlib' with max_depth."
        ) from error
    if result.returncode != 0 or not result.stdout:
        message = result.stderr.decode("utf-8", "replace").strip()
        raise RuntimeError(f"Graphviz's dot failed (exit status {result.returncode}): {message}")
    return result.stdout
