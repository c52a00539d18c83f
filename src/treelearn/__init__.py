"""treelearn: decision-tree learning (ID3, C4.5, CART, ...), fast and explainable."""

import importlib.metadata as _metadata

from treelearn.estimators import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.explain import explain, explain_prediction
from treelearn.export import (
    export_dot,
    export_html,
    export_rules,
    export_text,
    plot_tree,
    save_image,
)
from treelearn.export.model_file import load_model as load
from treelearn.tree import Tree

try:
    __version__ = _metadata.version("treelearn")
except _metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

__all__ = [
    "C45Classifier",
    "CARTClassifier",
    "CARTRegressor",
    "ID3Classifier",
    "Tree",
    "__version__",
    "explain",
    "explain_prediction",
    "export_dot",
    "export_html",
    "export_rules",
    "export_text",
    "load",
    "plot_tree",
    "save_image",
]
