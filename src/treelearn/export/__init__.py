"""Showing a fitted tree: text, if-then rules, Graphviz DOT, pictures and an HTML page.

Exporters read the fitted tree through its read-only view
(:class:`~treelearn.tree.TreeView`: feature names, category labels, branch
conditions, missing-value routes); they never change the model. Label
formatting (numbers, category sets, escaping) is shared in
:mod:`treelearn.export._labels`, node colours in :mod:`treelearn.export.dot`.
:func:`plot_tree` and :func:`save_image` need matplotlib (``pip install
"treelearn[plot]"``), imported only when they are called.
"""

from treelearn.export.dot import export_dot
from treelearn.export.html import export_html
from treelearn.export.image import save_image
from treelearn.export.plot import plot_tree
from treelearn.export.rules import export_rules
from treelearn.export.text import export_text

__all__ = ["export_dot", "export_html", "export_rules", "export_text", "plot_tree", "save_image"]
