"""treelearn: decision-tree learning (ID3, C4.5, CART, ...), fast and explainable."""

import importlib.metadata as _metadata

from treelearn.estimators import CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.export.model_file import load_model as load
from treelearn.tree import Tree

try:
    __version__ = _metadata.version("treelearn")
except _metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

__all__ = ["CARTClassifier", "CARTRegressor", "ID3Classifier", "Tree", "__version__", "load"]
