"""ID3 (Quinlan 1986, "Induction of Decision Trees", Machine Learning 1: 81-106)."""

import warnings
from dataclasses import replace

import numpy as np
from sklearn.base import ClassifierMixin

from treelearn.data.discretize import Discretizer
from treelearn.data.schema import NOMINAL, NUMERIC, RawTable, infer_schema
from treelearn.estimators.base import BaseTree, _check_float, _check_int, _check_n_jobs
from treelearn.estimators.classifier import TreeClassifierMixin
from treelearn.exceptions import DataError, ParameterError
from treelearn.growing.spec import ID3
from treelearn.pruning._estimator import PruningMixin


class ID3Classifier(PruningMixin, TreeClassifierMixin, ClassifierMixin, BaseTree):
    """ID3: information gain and one branch per category of a nominal attribute.

    At each node ID3 chooses the attribute of largest information gain
    (``criterion="entropy"``, in bits; ``"gini"`` is accepted for comparison)
    and makes one branch per category of it, so an attribute is used at most
    once on a path. A node stops when it is pure, when no attribute splits it
    (every attribute is constant there: the leaf takes the majority class), at
    ``max_depth``, or when the best gain is below ``min_gain``. A branch for a
    category with no training rows at the node is a leaf that predicts its
    parent's class distribution (its majority class), as the textbooks do.
    Equal gains go to the attribute that comes first in ``X``.

    ID3 learns from nominal attributes only and has no rule for missing
    values: numeric columns are refused unless ``discretize`` turns them into
    intervals (fitted on the training rows, applied again at prediction), and
    missing values are refused, in training and at prediction; the messages
    say what to do. At prediction, a category never seen in training follows
    the branch that held the most training rows.

    Parameters
    ----------
    criterion : {"entropy", "gini"}, default="entropy"
    max_depth : int or None, default=None
        Nodes at this depth are not split (the root has depth 0).
    min_gain : float, default=0.0
        A split needs at least this gain (bits for entropy): pre-pruning.
    discretize : {None, "mdl", "quantile"}, default=None
        Make numeric columns nominal: ``"mdl"``, Fayyad & Irani's entropy/MDL
        intervals (1993; may keep a column as one interval); ``"quantile"``,
        at most ``n_bins`` equal-frequency intervals
        (:mod:`treelearn.data.discretize`).
    n_bins : int, default=5
        Intervals per column for ``discretize="quantile"``.
    n_jobs : int or None, default=None
        Threads that search the attributes of large nodes (None or -1: all of
        numba's threads). The tree is the same whatever ``n_jobs`` is.
        Prediction runs on ``n_jobs`` threads too (None: numba's current number).
    categorical_features : list of str or int, boolean mask, or None
        Columns to treat as nominal (numpy input with numeric codes, for example).
    pruning : {None, "validation", "reduced_error", "pessimistic", "error_based"}, default=None
        Pruning after growing (:mod:`treelearn.pruning`). ``"validation"``:
        keep a split only if it strictly raises the accuracy on held-out rows
        (the textbook's pre-pruning); ``"reduced_error"``: Quinlan's (1987)
        reduced-error pruning on held-out rows; both hold out
        ``validation_fraction`` of the rows, per class, drawn with
        ``random_state``. ``"pessimistic"`` (Quinlan 1987) and
        ``"error_based"`` (C4.5, confidence factor ``cf``, subtree raising)
        use the training rows.
    validation_fraction : float in (0, 1), default=0.25
        Rows held out of growing with ``pruning="validation"`` or ``"reduced_error"``.
    cf : float in (0, 0.5], default=0.25
        C4.5's confidence factor for ``pruning="error_based"`` (smaller prunes more).
    random_state : int, RandomState, Generator or None, default=None
        Seeds the draw of the held-out rows.

    Attributes
    ----------
    tree_ : treelearn.tree.Tree
    classes_ : ndarray
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame whose column names are strings.
    feature_importances_ : ndarray
    discretizer_ : treelearn.data.discretize.Discretizer
        Only when numeric columns were discretized; ``input_schema_`` then
        holds the columns as given and ``feature_schema_`` as learned from.
    """

    _preset = ID3

    def __init__(self, criterion="entropy", *, max_depth=None, min_gain=0.0,
                 discretize=None, n_bins=5, categorical_features=None, n_jobs=None,
                 pruning=None, validation_fraction=0.25, cf=0.25, random_state=None):  # fmt: skip
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_gain = min_gain
        self.discretize = discretize
        self.n_bins = n_bins
        self.categorical_features = categorical_features
        self.n_jobs = n_jobs
        self.pruning = pruning
        self.validation_fraction = validation_fraction
        self.cf = cf
        self.random_state = random_state

    def _check_params(self):
        if self.criterion not in ("entropy", "gini"):
            raise ParameterError(
                f"criterion must be 'entropy' (information gain) or 'gini', got {self.criterion!r}."
            )
        _check_int("max_depth", self.max_depth, 1, allow_none=True)
        _check_float("min_gain", self.min_gain, 0.0, float("inf"))
        if self.discretize not in (None, "mdl", "quantile"):
            raise ParameterError(
                f"discretize must be None, 'mdl' or 'quantile', got {self.discretize!r}."
            )
        _check_int("n_bins", self.n_bins, 2)
        _check_n_jobs(self.n_jobs)
        self._check_pruning_params()

    def _growth_spec(self, n_rows, total_weight, n_features):
        return self._preset.replace(
            criterion=self.criterion, max_depth=self.max_depth, min_gain=float(self.min_gain)
        )

    def _prepare_table(self, table, y_encoded, weight):
        _refuse_missing(table.columns)
        numeric = [c.name for c in table.columns if c.kind == NUMERIC]
        for name in ("discretizer_", "input_schema_"):
            self.__dict__.pop(name, None)
        if not numeric:
            return table
        if self.discretize is None:
            raise DataError(
                f"ID3 cannot split numeric columns ({_names(numeric)}); pass "
                "discretize='mdl' or 'quantile', declare them nominal "
                "(categorical_features=...) if they hold categories, or use CARTClassifier, "
                "which splits numeric columns at thresholds."
            )
        self.input_schema_ = infer_schema(table.columns, table.from_frame)
        self.discretizer_ = Discretizer(self.discretize, self.n_bins).fit(
            [c.values for c in table.columns if c.kind == NUMERIC],
            y_encoded,
            weight,
            names=numeric,
        )
        return RawTable(self._prepare_columns(table.columns), table.n_rows, table.from_frame)

    def _check_dataset(self, dataset):
        warn_id_like_columns(dataset, type(self).__name__)

    def _prepare_columns(self, columns):
        """Numeric columns as their fitted intervals (nominal), when discretizing."""
        _refuse_missing(columns)
        if not hasattr(self, "discretizer_"):
            return columns
        numeric = [j for j, c in enumerate(columns) if c.kind == NUMERIC]
        labels = self.discretizer_.transform([columns[j].values for j in numeric])
        columns = list(columns)
        for k, j in enumerate(numeric):
            columns[j] = replace(
                columns[j], kind=NOMINAL, values=labels[k],
                categories=self.discretizer_.categories_[k],
            )  # fmt: skip
        return columns

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags


#: A nominal column with at least this many distinct values is probably an identifier.
ID_LIKE_VALUES = 10_000


def warn_id_like_columns(dataset, estimator_name):
    """Warn about nominal columns of the encoded ``dataset`` with ``ID_LIKE_VALUES`` or
    more categories (distinct values).

    A multiway split on such a column makes a branch per value: information
    gain favours it, and the tree learns row identities rather than a rule.
    """
    many = dataset.is_nominal & (dataset.n_codes >= ID_LIKE_VALUES)
    for f in np.flatnonzero(many):
        warnings.warn(
            f"{estimator_name}: nominal column {dataset.schema.names[f]!r} has "
            f"{int(dataset.n_codes[f])} distinct values, probably an identifier; a multiway "
            "split on it would make a branch per value. Drop it, or declare it numeric if its "
            "values are numbers.",
            UserWarning,
            stacklevel=4,
        )


def _refuse_missing(columns):
    missing = [f"{c.name!r} ({int(c.missing.sum())} rows)" for c in columns if c.has_missing]
    if missing:
        raise DataError(
            f"ID3 has no rule for missing values (NaN), and columns {', '.join(missing)} hold "
            "some; fill them in or drop those rows, or use CARTClassifier, which learns "
            "where missing values go."
        )


def _names(names, limit=10):
    shown = ", ".join(repr(n) for n in names[:limit])
    return shown + (f", ... ({len(names)} columns)" if len(names) > limit else "")
