"""scikit-learn estimators: one base, thin presets."""

from treelearn.estimators.cart import CARTClassifier, CARTRegressor

__all__ = ["CARTClassifier", "CARTRegressor"]
