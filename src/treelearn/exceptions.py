"""Errors raised by treelearn.

Every error names what was wrong (the parameter, column or row), what was
expected, what was received, and what to do. The hierarchy::

    TreelearnError
    ├── DataError (ValueError)          input data that cannot be learned from or predicted on
    │   ├── SchemaMismatchError         predict-time columns differ from the fitted schema
    │   └── TargetError                 a target that does not fit the task
    ├── ParameterError (ValueError)     an estimator or function parameter out of its domain
    └── ModelFormatError (ValueError)   a tree or model file that fails validation

``NotFittedError`` is scikit-learn's own
(:class:`sklearn.exceptions.NotFittedError`), so scikit-learn tools recognise it.
"""

from sklearn.exceptions import NotFittedError

__all__ = [
    "DataError",
    "ModelFormatError",
    "NotFittedError",
    "ParameterError",
    "SchemaMismatchError",
    "TargetError",
    "TreelearnError",
]


class TreelearnError(Exception):
    """Base class of every error treelearn raises on purpose."""


class DataError(TreelearnError, ValueError):
    """Input data that cannot be learned from or predicted on."""


class SchemaMismatchError(DataError):
    """Columns given at predict time differ from those seen at fit time."""


class TargetError(DataError):
    """A target ``y`` that does not fit the task (NaN, wrong kind, wrong length)."""


class ParameterError(TreelearnError, ValueError):
    """A parameter outside its domain."""


class ModelFormatError(TreelearnError, ValueError):
    """A tree or model file that fails validation."""
