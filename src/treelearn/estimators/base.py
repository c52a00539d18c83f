"""The one base of every treelearn tree estimator.

An estimator turns its parameters into a :class:`~treelearn.growing.GrowthSpec`
(its algorithm's preset with the user's values), encodes ``X``, runs the
grower and keeps the resulting :class:`~treelearn.tree.Tree` as ``tree_``.

Fit, step by step: check the parameters; read ``X`` (:mod:`treelearn.data.schema`)
and refuse empty data; check ``y`` and ``sample_weight`` against the rows of
``X``; drop the rows of weight zero (they change no statistic, and dropping
them makes a weight of 0 the same as removing the row and a weight of ``k``
the same as repeating it ``k`` times, thresholds included, as in
scikit-learn); encode the columns; grow.
"""

import contextlib
import numbers
import warnings

import numba
import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from treelearn.criteria import criterion_id
from treelearn.data.dataset import encode_table
from treelearn.data.encoding import prediction_matrix
from treelearn.data.schema import align_columns, check_not_empty, has_feature_names, read_table
from treelearn.data.target import validate_sample_weight
from treelearn.exceptions import DataError, ParameterError
from treelearn.growing import Grower


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_int(name, value, low, allow_none=False, hint=""):
    if value is None and allow_none:
        return None
    if not _is_int(value) or value < low:
        expected = f"an integer >= {low}" + (" or None" if allow_none else "")
        raise ParameterError(f"{name} must be {expected}, got {value!r}.{hint}")
    return int(value)


def _check_float(name, value, low, high):
    if not _is_real(value) or not (low <= value <= high):
        raise ParameterError(f"{name} must be a number in [{low}, {high}], got {value!r}.")
    return float(value)


def resolve_min_samples(name, value, n_rows, low):
    """An int count, or a float fraction of ``n_rows`` (rounded up), as scikit-learn does."""
    if _is_int(value):
        return _check_int(name, value, low)
    if _is_real(value) and 0.0 < value <= 1.0:
        return max(low, int(np.ceil(value * n_rows)))
    raise ParameterError(
        f"{name} must be an integer >= {low} (a number of rows) or a fraction in (0, 1] "
        f"of the rows, got {value!r}."
    )


def resolve_max_features(value, n_features):
    """Number of features drawn per node from ``max_features``.

    With ``n_features=None`` only the kind of ``value`` is checked.
    """
    if value is None:
        return n_features
    if isinstance(value, str) and value in ("sqrt", "log2"):
        if n_features is None:
            return None
        root = np.sqrt(n_features) if value == "sqrt" else np.log2(n_features)
        return max(1, int(root))
    if _is_int(value):
        if value >= 1 and (n_features is None or value <= n_features):
            return None if n_features is None else int(value)
    elif _is_real(value) and 0.0 < value <= 1.0:
        return None if n_features is None else max(1, int(value * n_features))
    upper = "n_features" if n_features is None else f"n_features={n_features}"
    raise ParameterError(
        f"max_features must be None, 'sqrt', 'log2', an integer in [1, {upper}] "
        f"or a fraction in (0, 1], got {value!r}."
    )


class BaseTree(BaseEstimator):
    """Shared fit/predict machinery; subclasses set the preset and the task."""

    #: The algorithm's :class:`GrowthSpec` preset; subclasses set it.
    _preset = None
    #: True for classifiers (chooses the criteria a ``criterion`` may name).
    _classification = True
    #: The values ``missing`` may take.
    _missing_policies = ("learn", "surrogate")

    def _check_params(self):
        """Check every parameter that does not depend on the data (before reading it)."""
        criterion_id(self.criterion, self._classification)
        if self.missing not in self._missing_policies:
            raise ParameterError(
                f"missing must be one of {', '.join(repr(m) for m in self._missing_policies)}, "
                f"got {self.missing!r}."
            )
        _check_int(
            "max_depth",
            self.max_depth,
            1,
            allow_none=True,
            hint=" The root has depth 0; use None for no limit.",
        )
        resolve_min_samples("min_samples_leaf", self.min_samples_leaf, 1, 1)
        resolve_min_samples("min_samples_split", self.min_samples_split, 2, 2)
        _check_float("min_weight_fraction_leaf", self.min_weight_fraction_leaf, 0.0, 0.5)
        _check_float("min_impurity_decrease", self.min_impurity_decrease, 0.0, np.inf)
        _check_int("max_leaf_nodes", self.max_leaf_nodes, 2, allow_none=True)
        resolve_max_features(self.max_features, None)
        _check_int("max_surrogates", self.max_surrogates, 0)
        _check_int("max_bins", self.max_bins, 2, allow_none=True)
        _check_n_jobs(self.n_jobs)
        state = self.random_state
        if not (state is None or _is_int(state)) and not isinstance(
            state, (np.random.RandomState, np.random.Generator)
        ):
            raise ParameterError(
                f"random_state must be None, an integer, a numpy RandomState or Generator, "
                f"got {state!r}."
            )
        self._extra_spec()

    def _growth_spec(self, n_rows, total_weight, n_features):
        min_samples_leaf = resolve_min_samples("min_samples_leaf", self.min_samples_leaf, n_rows, 1)
        min_samples_split = resolve_min_samples(
            "min_samples_split", self.min_samples_split, n_rows, 2
        )
        fraction = _check_float("min_weight_fraction_leaf", self.min_weight_fraction_leaf, 0, 0.5)
        return self._preset.replace(
            criterion=self.criterion,
            max_depth=_check_int("max_depth", self.max_depth, 1, allow_none=True),
            min_samples_split=min_samples_split,
            min_samples_leaf=min_samples_leaf,
            min_weight_leaf=fraction * total_weight,
            min_impurity_decrease=_check_float(
                "min_impurity_decrease", self.min_impurity_decrease, 0.0, np.inf
            ),
            max_leaf_nodes=_check_int("max_leaf_nodes", self.max_leaf_nodes, 2, allow_none=True),
            max_features=resolve_max_features(self.max_features, n_features),
            missing=self.missing,
            max_surrogates=_check_int("max_surrogates", self.max_surrogates, 0),
            **self._extra_spec(),
        )

    def _extra_spec(self):
        return {}

    def _check_dataset(self, dataset):
        """Look at the encoded columns before growing (warnings); default: nothing."""

    def _keep_growth_details(self, grower):
        """Keep the grower's split records (``split_records_``) when it made any."""
        if grower.split_records:
            self.split_records_ = grower.split_records
        else:
            self.__dict__.pop("split_records_", None)

    def _prepare_table(self, table, y_encoded, weight):
        """The table the tree learns from: subclasses refuse what their algorithm
        cannot learn from, or transform columns (ID3's discretization). Default: as is.
        ``weight``: the rows' weights, or None where every row weighs 1."""
        return table

    def _prepare_columns(self, columns):
        """Predict-time counterpart of :meth:`_prepare_table`, on aligned columns."""
        return columns

    @property
    def _input_schema(self):
        """The schema predict-time input is checked against (before ``_prepare_columns``)."""
        return getattr(self, "input_schema_", self.feature_schema_)

    def _encode_target(self, y, n_rows):
        """Subclasses: ``(y_encoded, n_classes, row_factor, fitted_attributes)``.

        ``row_factor`` multiplies ``sample_weight`` (class weights) or is None;
        ``fitted_attributes`` are set on the estimator once the tree is grown.
        """
        raise NotImplementedError

    def fit(self, X, y, sample_weight=None):
        """Grow the tree on ``X`` and ``y``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Class labels (classifiers) or numbers (regressors).
        sample_weight : array-like of shape (n_samples,), optional
            Rows of weight 0 are left out, as if they were not there.

        Returns
        -------
        self
        """
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight):
        """Validate everything, drop zero-weight rows, encode ``X`` and grow ``tree_``."""
        self._check_params()
        # Everything from reading X on runs on n_jobs's threads (the scan of a large
        # matrix for NaN and infinities, the binning and encoding, the growing).
        with _numba_threads(getattr(self, "n_jobs", 1)) as n_threads:
            table = read_table(X, self.categorical_features)
            check_not_empty(table)
            y_encoded, n_classes, row_factor, fitted = self._encode_target(y, table.n_rows)
            # None: every row weighs 1, and no array of ones is made (the grower stores
            # none where it can: 8 bytes a row of the fit's memory).
            weight = None
            if sample_weight is not None:
                weight = validate_sample_weight(sample_weight, table.n_rows)
            if row_factor is not None:
                weight = row_factor.astype(np.float64) if weight is None else weight * row_factor
                if not weight.any():
                    raise DataError(
                        "sample_weight times class_weight is zero for every row; at least one "
                        "row needs a positive weight (check class_weight)."
                    )
            if weight is not None:
                positive = weight > 0
                if not positive.all():
                    table = table.take(positive)
                    y_encoded = y_encoded[positive]
                    weight = weight[positive]
                del positive
            table = self._prepare_table(table, y_encoded, weight)
            dataset = encode_table(table, getattr(self, "max_bins", None))
            # Let go of what the table holds beyond what the dataset keeps (object
            # columns of nominal values; copies, but for an exact numeric column the
            # dataset keeps in place of its distinct values: see Dataset.exact_columns).
            del table
            self._check_dataset(dataset)
            total_weight = float(dataset.n_samples if weight is None else weight.sum())
            spec = self._growth_spec(dataset.n_samples, total_weight, dataset.n_features)
            rng = np.random.default_rng(self.random_state_seed())
            grower = Grower(dataset, y_encoded, weight, n_classes, spec, rng, n_threads)
            tree = grower.grow()
        self._keep_growth_details(grower)
        for name, value in fitted.items():
            setattr(self, name, value)
        self.tree_ = tree
        self.feature_schema_ = dataset.schema
        self.n_features_in_ = dataset.n_features
        if dataset.schema.from_frame:
            self.feature_names_in_ = np.array(dataset.schema.names, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return self

    def random_state_seed(self):
        """A seed for numpy's Generator from ``random_state`` (int, RandomState or None)."""
        state = getattr(self, "random_state", None)
        if isinstance(state, np.random.RandomState):
            return int(state.randint(np.iinfo(np.int32).max))
        if isinstance(state, np.random.Generator):
            return int(state.integers(np.iinfo(np.int32).max))
        return state

    def _read_prediction_matrix(self, X):
        """``(matrix, unchecked)``: the matrix the prediction kernels read.

        A float numpy array of the fitted width, or a pandas DataFrame of
        float columns, with every feature numeric, is read as it is (no copy,
        no encoding pass; a DataFrame's columns in the fitted order):
        ``unchecked`` is then True, and the caller must check that it holds no
        infinite value (the walk of :meth:`_walk_tree` does, on the way). Any
        other input is read and checked column by column (``unchecked`` False).
        """
        check_is_fitted(self, "tree_")
        schema = self.feature_schema_
        named = has_feature_names(X)
        if named and not schema.from_frame:
            warnings.warn(
                f"X has feature names, but {type(self).__name__} was fitted without feature "
                "names; columns are taken by position.",
                UserWarning,
                stacklevel=4,
            )
        elif not named and schema.from_frame:
            warnings.warn(
                f"X does not have valid feature names, but {type(self).__name__} was fitted "
                "with feature names; columns are taken in the fitted order.",
                UserWarning,
                stacklevel=4,
            )
        if _is_plain_numeric_matrix(X, schema):
            return X, True
        matrix = _float_frame_matrix(X, schema, by_name=named and schema.from_frame)
        if matrix is not None:
            return matrix, True
        return self._encoded_prediction_matrix(X), False

    def _encoded_prediction_matrix(self, X):
        """The prediction matrix read column by column (every check, with messages
        that name the column)."""
        columns = align_columns(X, self._input_schema, estimator_name=type(self).__name__)
        return prediction_matrix(self._prepare_columns(columns), self.feature_schema_)

    def _prediction_matrix(self, X):
        """The checked matrix the prediction kernels read (see
        :meth:`_read_prediction_matrix`)."""
        matrix, unchecked = self._read_prediction_matrix(X)
        if unchecked and np.isinf(matrix).any():
            return self._encoded_prediction_matrix(X)  # raises, naming the column
        return matrix

    def _walk_tree(self, X, payload):
        """What the leaf each row of ``X`` reaches holds: ``payload`` is ``"node"``
        (the leaf's index), ``"class"`` (its most weighted class index) or
        ``"value"`` (a regression value); see ``Tree._payload``. Runs on
        ``n_jobs`` threads (None: numba's current number)."""
        matrix, unchecked = self._read_prediction_matrix(X)  # raises NotFittedError first
        tree = self.tree_
        with _prediction_threads(getattr(self, "n_jobs", None)):
            out, bad = tree._walk(matrix, tree._payload(payload), check_finite=unchecked)
            if bad >= 0:  # an infinite value: the column-by-column reading names it
                matrix = self._encoded_prediction_matrix(X)
                out, _ = tree._walk(matrix, tree._payload(payload))
        return out

    def apply(self, X):
        """Index of the leaf each row of ``X`` ends up in.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        ndarray of int64, shape (n_samples,)
        """
        return self._walk_tree(X, "node")

    def decision_path(self, X):
        """Sparse indicator (n_samples, n_nodes) of the nodes each row passes through.

        Returns
        -------
        scipy.sparse.csr_matrix
        """
        from scipy.sparse import csr_matrix

        matrix = self._prediction_matrix(X)
        rows, nodes = self.tree_.decision_path(matrix)
        data = np.ones(rows.shape[0], dtype=np.int64)
        return csr_matrix((data, (rows, nodes)), shape=(matrix.shape[0], self.tree_.node_count))

    def explain(self, node=0, X=None, y=None, sample_weight=None):
        """The textbook table of the split at ``node``; see :func:`treelearn.explain`."""
        from treelearn.explain import explain

        return explain(self, node, X, y, sample_weight)

    def get_depth(self):
        """Depth of the tree (a lone root has depth 0)."""
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves."""
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    def save(self, path):
        """Write the fitted model to a JSON model file (read it back with :func:`treelearn.load`).

        The file is data, never code, and is written atomically; see
        :mod:`treelearn.export.model_file` for its layout and checks.

        Parameters
        ----------
        path : str or os.PathLike
        """
        from treelearn.export.model_file import save_model

        save_model(self, path)

    @property
    def feature_importances_(self):
        """Normalised total impurity decrease per feature (sums to 1 unless the tree is a leaf)."""
        check_is_fitted(self, "tree_")
        return self.tree_.feature_importances()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


def _is_plain_numeric_matrix(X, schema):
    """True when ``X`` can be handed to the prediction kernels as it is: a 2D float
    array of the fitted width, all features numeric (it may still hold infinite
    values: see :meth:`BaseTree._read_prediction_matrix`)."""
    return (
        isinstance(X, np.ndarray)
        and X.dtype in (np.float32, np.float64)
        and X.ndim == 2
        and X.shape[1] == schema.n_features
        and X.shape[0] > 0
        and not schema.is_nominal.any()
    )


def _float_frame_matrix(X, schema, by_name):
    """A pandas DataFrame whose columns are all numpy float32/float64 as one float
    matrix in the fitted column order (``by_name``: matched by name, else by
    position), when every fitted feature is numeric; else None (the general path
    reads it, and raises where it does not fit)."""
    if not isinstance(X, pd.DataFrame) or schema.is_nominal.any() or X.shape[0] == 0:
        return None
    if X.shape[1] != schema.n_features:
        return None
    if not all(isinstance(d, np.dtype) and d in (np.float32, np.float64) for d in X.dtypes):
        return None
    if by_name:
        names = list(schema.names)
        if X.columns.tolist() != names:
            if set(X.columns.tolist()) != set(names):
                return None
            X = X[names]
    return X.to_numpy()


def _check_n_jobs(n_jobs):
    if n_jobs is not None and (not _is_int(n_jobs) or n_jobs == 0):
        raise ParameterError(
            f"n_jobs must be None (all cores), a positive number of threads, or -1 "
            f"(all cores), got {n_jobs!r}."
        )


@contextlib.contextmanager
def _numba_threads(n_jobs):
    """numba's thread count for the duration of a fit: ``n_jobs`` threads (None or
    a negative value: all of numba's threads), restored afterwards."""
    available = numba.config.NUMBA_NUM_THREADS
    wanted = available if n_jobs is None or n_jobs < 0 else min(int(n_jobs), available)
    previous = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(previous)


@contextlib.contextmanager
def _prediction_threads(n_jobs):
    """numba's thread count while predicting: ``n_jobs`` threads (-1: all of
    numba's threads); None leaves numba's current count as it is."""
    if n_jobs is None:
        yield
        return
    with _numba_threads(n_jobs):
        yield
