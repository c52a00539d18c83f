"""CART estimators (Breiman, Friedman, Olshen & Stone 1984)."""

import numbers

from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from treelearn.data.target import validate_regression_target
from treelearn.estimators.base import BaseTree
from treelearn.estimators.classifier import TreeClassifierMixin
from treelearn.exceptions import ParameterError
from treelearn.growing.spec import CART
from treelearn.pruning._estimator import PruningMixin

_COMMON_PARAMETERS = """
    max_depth : int or None, default=None
        Nodes at this depth are not split (the root has depth 0).
    min_samples_split : int or float, default=2
        A node with fewer rows is not split (a float is a fraction of the rows).
    min_samples_leaf : int or float, default=1
        Each child of a split needs at least this many rows.
    min_weight_fraction_leaf : float, default=0.0
        Each child needs at least this fraction of the total sample weight.
    max_features : int, float, {"sqrt", "log2"} or None, default=None
        Features drawn at random at each node (random forests use this).
    random_state : int, RandomState, Generator or None, default=None
        Seeds the feature draws.
    max_leaf_nodes : int or None, default=None
        Grow best-first (largest gain first) up to this many leaves.
    min_impurity_decrease : float, default=0.0
        A split must lower ``weight * impurity``, divided by the total weight,
        by at least this much.
    categorical_features : list of str or int, boolean mask, or None
        Columns to treat as nominal (needed for numpy input; DataFrame
        ``category``, string and bool columns are nominal already).
    missing : {"learn", "surrogate"}, default="learn"
        ``"learn"``: each split learns which child takes missing values (the
        child that lowers impurity most; with no missing value at a node in
        training, the heavier child). ``"surrogate"``: Breiman's surrogate splits.
    max_surrogates : int, default=5
        Surrogate splits kept per node with ``missing="surrogate"``.
    max_bins : int or None, default=255
        An int: histogram mode, each numeric column with more distinct values
        than ``max_bins`` is cut into at most this many quantile bins once, and a
        split's threshold lies midway across the bins between its node's two
        sides (:mod:`treelearn.data.binning`); a column with at most ``max_bins``
        distinct values is not binned, so its splits and thresholds are the
        exact tree's. 255 or fewer keeps
        codes in one byte. None: exact mode, every distinct value of a numeric
        column is a candidate threshold (the midpoint between neighbouring
        values at the node), as scikit-learn's trees; slower on large data.
        Nominal columns are never binned: each category keeps its own code.
        Columns with more than 200,000 known values take their quantiles from
        a fixed-seed sample of 200,000 rows (still exact when they have at most
        ``max_bins`` distinct values).
    n_jobs : int or None, default=None
        Threads that search the features of large nodes (None or -1: all of
        numba's threads; 1: one). The tree is the same whatever ``n_jobs`` is.
        Prediction runs on ``n_jobs`` threads too, over blocks of rows (None:
        numba's current number of threads); the predictions do not depend on it.
"""

_PRUNING_PARAMETERS = """    ccp_alpha : float, default=0.0
        Cost-complexity pruning after growing (Breiman et al. 1984), as
        scikit-learn's ``ccp_alpha``: the subtree minimising ``R(T) + ccp_alpha
        * |leaves|``, ``R`` the leaves' impurity weighted by their share of the
        training weight; 0 keeps the tree as grown
        (:func:`treelearn.pruning.prune_cost_complexity`).
    pruning : str or None, default=None
        Another pruning method, applied after growing instead of ``ccp_alpha``
        (:mod:`treelearn.pruning`). ``"validation"``: keep a split only if it
        strictly lowers the loss on held-out rows (pre-pruning);
        ``"reduced_error"``: Quinlan's (1987) reduced-error pruning on held-out
        rows. Both hold out ``validation_fraction`` of the rows (drawn with
        ``random_state``, per class for a classifier).
    validation_fraction : float in (0, 1), default=0.25
        Rows held out of growing with ``pruning="validation"`` or ``"reduced_error"``.
"""

_CLASSIFIER_PRUNING_PARAMETERS = """    cf : float in (0, 0.5], default=0.25
        C4.5's confidence factor for ``pruning="error_based"`` (smaller prunes
        more). Classifiers also take ``pruning="pessimistic"`` (Quinlan 1987)
        and ``"error_based"`` (C4.5, with subtree raising), on the training rows.
"""

_NOTES = """
    Nominal features split into two sets of categories. With two classes or in
    regression the best set is found exactly by sorting the categories by
    class-1 fraction / mean target (Breiman et al. 1984; Fisher 1958); with
    more classes all subsets are tried up to 12 categories at a node, beyond
    that the best prefix of the categories sorted by each class's fraction.
    A category never seen in training, or not seen at a node, is routed like a
    missing value.

    Input: numpy arrays, and pandas, polars or pyarrow DataFrames (see
    :mod:`treelearn.data.schema`). String, ``category``, ``bool`` and
    ``object``-of-strings columns are nominal without any encoding; NaN, None
    and ``pd.NA`` are missing values in every kind of column. A model fitted on
    a DataFrame with string column names matches predict-time columns by name,
    in any order. At predict a nominal column must hold the same type of
    values as in training (strings, numbers or booleans): numbers where
    strings were trained, or the other way round, raise
    :class:`~treelearn.exceptions.SchemaMismatchError` rather than being
    silently routed as missing. Rows of ``sample_weight`` 0 are left out, so a
    weight of 0 equals removing the row and an integer weight ``k`` equals
    repeating it ``k`` times.
"""


class CARTClassifier(PruningMixin, TreeClassifierMixin, ClassifierMixin, BaseTree):
    __doc__ = (
        """A CART classification tree: binary splits chosen by Gini or entropy.

    Parameters
    ----------
    criterion : {"gini", "entropy"}, default="gini"
"""
        + _COMMON_PARAMETERS
        + """    class_weight : dict, "balanced" or None, default=None
        Weights per class, multiplied into ``sample_weight``.
"""
        + _PRUNING_PARAMETERS
        + _CLASSIFIER_PRUNING_PARAMETERS
        + """
    Attributes
    ----------
    tree_ : treelearn.tree.Tree
    classes_ : ndarray
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame whose column names are strings.
    feature_importances_ : ndarray

    Notes
    -----"""
        + _NOTES
    )

    _preset = CART

    def __init__(
        self,
        criterion="gini",
        *,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features=None,
        random_state=None,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        class_weight=None,
        categorical_features=None,
        missing="learn",
        max_surrogates=5,
        max_bins=255,
        n_jobs=None,
        ccp_alpha=0.0,
        pruning=None,
        validation_fraction=0.25,
        cf=0.25,
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.class_weight = class_weight
        self.categorical_features = categorical_features
        self.missing = missing
        self.max_surrogates = max_surrogates
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.ccp_alpha = ccp_alpha
        self.pruning = pruning
        self.validation_fraction = validation_fraction
        self.cf = cf


class CARTRegressor(PruningMixin, RegressorMixin, BaseTree):
    __doc__ = (
        """A CART regression tree.

    Parameters
    ----------
    criterion : {"squared_error", "absolute_error", "huber"}, default="squared_error"
        Leaf values are the weighted mean, the weighted median, or Huber's
        M-estimate of location.
    huber_delta : float, default=1.0
        Where Huber's loss turns from quadratic to linear (``criterion="huber"``).
"""
        + _COMMON_PARAMETERS
        + _PRUNING_PARAMETERS
        + """
    Attributes
    ----------
    tree_ : treelearn.tree.Tree
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame whose column names are strings.
    feature_importances_ : ndarray

    Notes
    -----"""
        + _NOTES
    )

    _preset = CART.replace(criterion="squared_error")

    def __init__(
        self,
        criterion="squared_error",
        *,
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        min_weight_fraction_leaf=0.0,
        max_features=None,
        random_state=None,
        max_leaf_nodes=None,
        min_impurity_decrease=0.0,
        huber_delta=1.0,
        categorical_features=None,
        missing="learn",
        max_surrogates=5,
        max_bins=255,
        n_jobs=None,
        ccp_alpha=0.0,
        pruning=None,
        validation_fraction=0.25,
    ):
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.max_features = max_features
        self.random_state = random_state
        self.max_leaf_nodes = max_leaf_nodes
        self.min_impurity_decrease = min_impurity_decrease
        self.huber_delta = huber_delta
        self.categorical_features = categorical_features
        self.missing = missing
        self.max_surrogates = max_surrogates
        self.max_bins = max_bins
        self.n_jobs = n_jobs
        self.ccp_alpha = ccp_alpha
        self.pruning = pruning
        self.validation_fraction = validation_fraction

    _classification = False

    def _extra_spec(self):
        delta = self.huber_delta
        if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not delta > 0:
            raise ParameterError(f"huber_delta must be a positive number, got {delta!r}.")
        return {"huber_delta": float(delta)}

    def _encode_target(self, y, n_rows):
        target = validate_regression_target(y, n_rows, type(self).__name__)
        return target, 0, None, {"n_outputs_": 1}

    def predict(self, X):
        """The value of each row's leaf."""
        check_is_fitted(self, "tree_")
        return self._walk_tree(X, "value")
