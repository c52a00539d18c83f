"""scikit-learn estimators: one base, thin presets."""

from treelearn.estimators.cart import CARTClassifier, CARTRegressor
from treelearn.estimators.id3 import ID3Classifier

__all__ = ["CARTClassifier", "CARTRegressor", "ID3Classifier"]
