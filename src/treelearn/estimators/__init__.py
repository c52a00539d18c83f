"""scikit-learn estimators: one base, thin presets."""

from treelearn.estimators.c45 import C45Classifier
from treelearn.estimators.cart import CARTClassifier, CARTRegressor
from treelearn.estimators.id3 import ID3Classifier

__all__ = ["C45Classifier", "CARTClassifier", "CARTRegressor", "ID3Classifier"]
