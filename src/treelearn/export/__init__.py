"""Showing a fitted tree: text, if-then rules and Graphviz DOT (plots, HTML, JSON arrive later).

Exporters read the fitted tree through its read-only view
(:class:`~treelearn.tree.TreeView`: feature names, category labels, branch
conditions, missing-value routes); they never change the model. Label
formatting (numbers, category sets, escaping) is shared in
:mod:`treelearn.export._labels`.
"""

from treelearn.export.dot import export_dot
from treelearn.export.rules import export_rules
from treelearn.export.text import export_text

__all__ = ["export_dot", "export_rules", "export_text"]
