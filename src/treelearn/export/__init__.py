"""Showing a fitted tree: text (more formats arrive later: rules, DOT, plots, HTML, JSON).

Exporters read the fitted :class:`~treelearn.tree.Tree` and the estimator's
``feature_schema_`` (names, category labels); they never change the model.
"""

from treelearn.export.text import export_text

__all__ = ["export_text"]
