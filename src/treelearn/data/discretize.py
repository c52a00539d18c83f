"""Turning numeric columns into ordered intervals, for learners that need nominal data (ID3).

Two methods, one numeric column at a time (rows whose value is NaN are ignored, and so are
rows of weight 0, which count as absent):

``"quantile"``
    Equal-frequency binning into at most ``n_bins`` intervals. Cut points lie at midpoints
    between neighbouring distinct training values, so no interval is empty on the training
    data. They are placed greedily from the left: each cut goes to the gap between distinct
    values whose cumulative weight is closest to an equal share of the weight not yet binned
    (``binned + remaining / bins_left``; on a tie the lower gap). Heavy ties can leave fewer
    than ``n_bins`` intervals; a column with one distinct value gets none.

``"mdl"``
    Fayyad & Irani's entropy/MDL method (Fayyad, U. M. and Irani, K. B. 1993,
    "Multi-interval discretization of continuous-valued attributes for classification
    learning", *IJCAI-93*, 1022-1027). The set ``S`` is cut in two at the candidate ``T``
    that minimises the class-information entropy
    ``E(T; S) = |S1|/|S| Ent(S1) + |S2|/|S| Ent(S2)``, and the cut is kept iff::

        Gain(T; S) > log2(N - 1) / N + Delta(T; S) / N
        Gain(T; S) = Ent(S) - E(T; S)
        Delta(T; S) = log2(3^k - 2) - [k Ent(S) - k1 Ent(S1) - k2 Ent(S2)]

    with ``N`` the size of ``S`` and ``k``, ``k1``, ``k2`` the numbers of classes present in
    ``S``, ``S1``, ``S2`` (entropies in bits). Both halves of a kept cut are cut again the same
    way; a set with no gain (``Gain <= 0``) is not cut. The method may return no cut point.
    Only *boundary points* are tried (midpoints between neighbouring distinct values where
    the class changes: unless both values carry one and the same single class), since
    Fayyad & Irani (1992, "On the handling of continuous-valued attributes in decision tree
    generation", *Machine Learning* 8) prove the minimum of ``E`` lies at one; that gives the
    same cut points as trying every midpoint, as Weka's supervised ``Discretize`` does (its
    default, ``-E`` unset, is this criterion with ``N - 1`` as the number of candidate cuts).
    Among cuts of equal entropy (within ``1e-12`` bits) the lowest is taken, as in Weka.

Sample weights (both methods) are *frequency* weights: class counts are sums of weights and
``N`` is the total weight of ``S``, in ``log2(N - 1)`` and in the divisor alike, so a row of
weight 2 acts exactly as two copies of the row (integer weights give the same cut points as
repeated rows). Their scale therefore matters: weights multiplied by ``c`` behave as ``c``
times as many rows, and MDL accepts more cuts; pass weights whose sum is the effective number
of rows (for instance with mean 1) if only relative weights are meant. Where ``N - 1 < 1``
(fractional weights only), ``log2(N - 1)`` is taken as 0, the value for two rows. With unit
weights every number is Fayyad & Irani's (and Weka's: Weka puts the total weight in the
divisor but the row count in ``log2(N - 1)``).

Cost: one sort per column (``O(n log n)``), then class counts per distinct value; each MDL
cut is chosen by prefix sums over the distinct values of its subset, so one level of the
recursion costs ``O(d K)`` for ``d`` distinct values and ``K`` classes. No loop runs over rows
in Python.

:class:`Discretizer` applies either method to a list of columns and turns values into
interval labels that the estimators take as nominal columns (see its docstring for the label
format).
"""

import itertools
import math
from typing import NamedTuple

import numpy as np

from treelearn.data.schema import describe_rows
from treelearn.exceptions import DataError, ParameterError

__all__ = [
    "METHODS",
    "Discretizer",
    "MDLTest",
    "assign_bins",
    "fayyad_irani_test",
    "fit_cut_points",
    "interval_labels",
    "label_decimals",
]

#: The discretization methods, by name.
METHODS = ("mdl", "quantile")
#: Candidate cuts whose entropies differ by at most this (bits) count as tied.
TIE_TOLERANCE = 1e-12
#: Label decimals: the fewest from MIN_DECIMALS that describe the cuts faithfully, at most
#: MAX_DECIMALS, beyond which the shortest exact ``repr`` of each cut point is used.
MIN_DECIMALS = 3
MAX_DECIMALS = 15


# ---------------------------------------------------------------------------
# The Fayyad-Irani criterion
# ---------------------------------------------------------------------------


class MDLTest(NamedTuple):
    """Fayyad & Irani's test of one binary cut.

    ``accepted`` is ``gain > threshold`` with
    ``threshold = (log2(N - 1) + delta) / N``.
    """

    gain: float
    threshold: float
    delta: float
    accepted: bool


def _entropy_rows(counts):
    """Entropy in bits of each row of a (weighted) count table; 0 for an empty row."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(total > 0, counts / total, 0.0)
        terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return -terms.sum(axis=-1)


def _mdl_threshold(n, k, k1, k2, ent, ent1, ent2):
    delta = math.log2(3.0**k - 2.0) - (k * ent - k1 * ent1 - k2 * ent2)
    log_term = math.log2(n - 1.0) if n - 1.0 > 1.0 else 0.0
    return (log_term + delta) / n, delta


def fayyad_irani_test(left_counts, right_counts):
    """Fayyad & Irani's MDL test of cutting a set into ``left`` and ``right``.

    Parameters
    ----------
    left_counts, right_counts : array-like of shape (n_classes,)
        (Weighted) class counts of the two halves.

    Returns
    -------
    MDLTest
        ``gain = Ent(S) - |S1|/N Ent(S1) - |S2|/N Ent(S2)``,
        ``delta = log2(3^k - 2) - [k Ent(S) - k1 Ent(S1) - k2 Ent(S2)]``,
        ``threshold = (log2(N - 1) + delta) / N`` and ``accepted = gain > threshold``
        (Fayyad & Irani 1993; ``N`` = total weight, see the module docstring).
    """
    left = np.asarray(left_counts, dtype=np.float64)
    right = np.asarray(right_counts, dtype=np.float64)
    if left.shape != right.shape or left.ndim != 1:
        raise ParameterError(
            f"left_counts and right_counts must be 1-D class counts of the same length, "
            f"got shapes {left.shape} and {right.shape}."
        )
    whole = left + right
    n_left, n_right = left.sum(), right.sum()
    n = n_left + n_right
    if n_left <= 0 or n_right <= 0:
        raise ParameterError("both halves of a cut need a positive total count.")
    ent, ent1, ent2 = _entropy_rows(np.stack([whole, left, right]))
    gain = float(ent - (n_left * ent1 + n_right * ent2) / n)
    k, k1, k2 = (int(np.count_nonzero(c > 0)) for c in (whole, left, right))
    threshold, delta = _mdl_threshold(n, k, k1, k2, ent, ent1, ent2)
    return MDLTest(gain, float(threshold), float(delta), bool(gain > threshold))


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def _check_method(method, n_bins):
    if not isinstance(method, str) or method not in METHODS:
        raise ParameterError(
            f"method={method!r} is not a discretization method; choose 'mdl' "
            "(Fayyad-Irani, supervised) or 'quantile' (equal-frequency, with n_bins)."
        )
    is_integer = isinstance(n_bins, (int, np.integer)) and not isinstance(n_bins, bool)
    if method == "quantile" and not (is_integer and n_bins >= 2):
        raise ParameterError(
            f"n_bins must be an integer >= 2 for method='quantile', got {n_bins!r}; "
            "pass for instance n_bins=5."
        )


def _check_values(values, name):
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{name} must hold numbers ({exc}).") from exc
    if array.ndim != 1:
        raise DataError(f"{name} must be 1-D (one column), got shape {array.shape}.")
    infinite = np.isinf(array)
    if infinite.any():
        raise DataError(
            f"{name} is infinite at rows {describe_rows(np.flatnonzero(infinite))}; "
            "cut points need finite values. Replace them or mark them missing (NaN)."
        )
    return array


def _check_weight(sample_weight, n_rows, name):
    if sample_weight is None:
        return np.ones(n_rows)
    try:
        weight = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"sample_weight must hold numbers ({exc}).") from exc
    if weight.shape != (n_rows,):
        raise DataError(
            f"sample_weight has shape {weight.shape} but {name} has {n_rows} rows; pass one "
            f"weight per row, shape ({n_rows},)."
        )
    bad = ~np.isfinite(weight) | (weight < 0)
    if bad.any():
        raise DataError(
            f"sample_weight must be finite and >= 0, but is not at rows "
            f"{describe_rows(np.flatnonzero(bad))}."
        )
    return weight


def _check_classes(y, n_rows, name):
    if y is None:
        raise ParameterError(
            "method='mdl' needs the class labels: pass y (class indices 0..K-1, one per "
            "row), or use method='quantile'."
        )
    array = np.asarray(y)
    if array.shape != (n_rows,):
        raise DataError(
            f"y has shape {array.shape} but {name} has {n_rows} rows; pass one class "
            f"index per row, shape ({n_rows},)."
        )
    if array.dtype.kind not in "iub":
        try:
            as_float = array.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise DataError(f"y must hold class indices 0..K-1 ({exc}).") from exc
        bad = ~np.isfinite(as_float) | (as_float != np.round(as_float))
        if bad.any():
            raise DataError(
                f"y must hold class indices 0..K-1 (integers), not at rows "
                f"{describe_rows(np.flatnonzero(bad))}; encode the classes first."
            )
        array = as_float
    classes = array.astype(np.int64)
    negative = classes < 0
    if negative.any():
        raise DataError(
            f"y must hold class indices 0..K-1, but is negative at rows "
            f"{describe_rows(np.flatnonzero(negative))}."
        )
    return classes


# ---------------------------------------------------------------------------
# Cut points
# ---------------------------------------------------------------------------


def _midpoints(lower, upper):
    """Midpoints of neighbouring values, never equal to the upper one (so ``<= cut`` holds)."""
    mid = 0.5 * lower + 0.5 * upper
    return np.where((mid >= upper) | (mid < lower), lower, mid)


def _distinct(values, weight):
    """Sorted distinct values of the rows that count, with their inverse index."""
    keep = ~np.isnan(values) & (weight > 0)
    distinct, inverse = np.unique(values[keep], return_inverse=True)
    return distinct, inverse, keep


def _quantile_cuts(distinct, value_weight, n_bins):
    cumulative = np.cumsum(value_weight)[:-1]  # weight up to each gap
    total = float(value_weight.sum())
    chosen = []
    start, binned = 0, 0.0
    for bins_left in range(n_bins, 1, -1):
        if start >= cumulative.shape[0]:
            break
        target = binned + (total - binned) / bins_left
        gap = start + int(np.searchsorted(cumulative[start:], target, side="left"))
        if gap >= cumulative.shape[0] or (
            gap > start and target - cumulative[gap - 1] <= cumulative[gap] - target
        ):
            gap -= 1
        chosen.append(gap)
        binned = float(cumulative[gap])
        start = gap + 1
    gaps = np.asarray(chosen, dtype=np.int64)
    return _midpoints(distinct[gaps], distinct[gaps + 1])


def _class_table(inverse, classes, weight, n_distinct):
    n_classes = int(classes.max()) + 1
    flat = inverse * n_classes + classes
    table = np.bincount(flat, weights=weight, minlength=n_distinct * n_classes)
    return table.reshape(n_distinct, n_classes)


def _boundaries(table):
    """Gaps between distinct values where the class changes (Fayyad & Irani's boundary points)."""
    present = table > 0
    single = present.sum(axis=1) == 1
    only = np.where(single, np.argmax(present, axis=1), -1)
    return (only[:-1] < 0) | (only[1:] < 0) | (only[:-1] != only[1:])


def _best_cut(table, start, stop, boundary):
    """Best boundary gap among distinct values ``start..stop-1`` and its two class counts.

    Returns None when no gap is a boundary point.
    """
    gaps = np.flatnonzero(boundary[start : stop - 1])
    if gaps.shape[0] == 0:
        return None
    block = table[start:stop]
    left = np.cumsum(block[:-1], axis=0)[gaps]
    right = np.cumsum(block[:0:-1], axis=0)[::-1][gaps]
    n_left, n_right = left.sum(axis=1), right.sum(axis=1)
    ent_left, ent_right = _entropy_rows(left), _entropy_rows(right)
    entropy = (n_left * ent_left + n_right * ent_right) / (n_left + n_right)
    best = int(np.flatnonzero(entropy <= entropy.min() + TIE_TOLERANCE)[0])
    return start + int(gaps[best]), left[best], right[best]


def _mdl_gaps(table):
    """Gaps (index ``i``: between distinct values ``i`` and ``i + 1``) that MDL cuts."""
    boundary = _boundaries(table)
    accepted = []
    pending = [(0, table.shape[0])]
    while pending:
        start, stop = pending.pop()
        if stop - start < 2:
            continue
        found = _best_cut(table, start, stop, boundary)
        if found is None:
            continue
        gap, left, right = found
        test = fayyad_irani_test(left, right)
        if test.gain > 0 and test.accepted:
            accepted.append(gap)
            pending.append((gap + 1, stop))
            pending.append((start, gap + 1))
    return np.sort(np.asarray(accepted, dtype=np.int64))


def fit_cut_points(values, y=None, method="mdl", n_bins=None, sample_weight=None):
    """Cut points of one numeric column.

    Parameters
    ----------
    values : array-like of shape (n_rows,)
        The column; NaN marks a missing value (the row is ignored).
    y : array-like of int, shape (n_rows,), optional
        Class indices ``0..K-1``; required by ``method="mdl"``, ignored by ``"quantile"``.
    method : {"mdl", "quantile"}
        See the module docstring.
    n_bins : int >= 2, optional
        Most intervals for ``"quantile"`` (required there); ignored by ``"mdl"``.
    sample_weight : array-like of shape (n_rows,), optional
        Frequency weights (see the module docstring); rows of weight 0 are ignored.

    Returns
    -------
    ndarray of float64
        Sorted, distinct cut points, each a midpoint between two neighbouring distinct
        training values. A value ``v`` falls in interval ``j`` = number of cut points
        ``< v`` (intervals are closed on the right: ``(c[j-1], c[j]]``). May be empty.

    Raises
    ------
    ParameterError
        Unknown ``method``, ``n_bins`` not an integer >= 2 for ``"quantile"``, or ``y``
        missing for ``"mdl"``.
    DataError
        Non-numeric or infinite ``values``; ``y`` or ``sample_weight`` of another length
        than ``values``, or out of their domain.
    """
    _check_method(method, n_bins)
    return _cut_points(_check_values(values, "values"), y, method, n_bins, sample_weight, "values")


def _cut_points(values, y, method, n_bins, sample_weight, name):
    n_rows = values.shape[0]
    weight = _check_weight(sample_weight, n_rows, name)
    classes = _check_classes(y, n_rows, name) if method == "mdl" else None
    distinct, inverse, keep = _distinct(values, weight)
    if distinct.shape[0] < 2:
        return np.empty(0)
    if method == "quantile":
        value_weight = np.bincount(inverse, weights=weight[keep], minlength=distinct.shape[0])
        return _quantile_cuts(distinct, value_weight, int(n_bins))
    table = _class_table(inverse, classes[keep], weight[keep], distinct.shape[0])
    gaps = _mdl_gaps(table)
    return _midpoints(distinct[gaps], distinct[gaps + 1])


# ---------------------------------------------------------------------------
# Intervals and labels
# ---------------------------------------------------------------------------


def assign_bins(values, cut_points):
    """Interval index of each value: the number of cut points ``< v``; -1 where ``v`` is NaN."""
    values = np.asarray(values, dtype=np.float64)
    codes = np.searchsorted(np.asarray(cut_points, dtype=np.float64), values, side="left")
    return np.where(np.isnan(values), -1, codes).astype(np.int64)


def _format(value, decimals):
    text = repr(float(value)) if decimals is None else f"{value:.{decimals}f}"
    return text.lstrip("-") if float(text) == 0 else text


def label_decimals(cut_points, lower=None, upper=None):
    """Decimals for the labels of ``cut_points`` (None: shortest exact ``repr``).

    The fewest decimals from :data:`MIN_DECIMALS` to :data:`MAX_DECIMALS` at which the
    rounded cut points stay distinct and each lies in ``[lower, upper)``, the training
    values it separates (where given), so a label read back splits the training data as the
    cut point does.
    """
    cuts = np.asarray(cut_points, dtype=np.float64)
    lower = np.full_like(cuts, -np.inf) if lower is None else np.asarray(lower, dtype=float)
    upper = np.full_like(cuts, np.inf) if upper is None else np.asarray(upper, dtype=float)
    for decimals in range(MIN_DECIMALS, MAX_DECIMALS + 1):
        rounded = np.array([float(_format(c, decimals)) for c in cuts])
        separates = np.all((lower <= rounded) & (rounded < upper))
        if separates and np.all(np.diff(rounded) > 0):
            return decimals
    return None


def interval_labels(cut_points, decimals=MIN_DECIMALS):
    """Labels of the intervals cut by ``cut_points``, in order.

    ``"<= a"``, ``"(a, b]"``, ..., ``"> z"`` with each cut point written with ``decimals``
    decimals (None: its shortest exact ``repr``); ``("(-inf, inf)",)`` without cut points.
    """
    texts = [_format(c, decimals) for c in np.asarray(cut_points, dtype=np.float64)]
    if not texts:
        return ("(-inf, inf)",)
    middle = [f"({a}, {b}]" for a, b in itertools.pairwise(texts)]
    return (f"<= {texts[0]}", *middle, f"> {texts[-1]}")


# ---------------------------------------------------------------------------
# Several columns
# ---------------------------------------------------------------------------


class Discretizer:
    """Cut numeric columns into intervals labelled as strings, for nominal-only learners.

    Parameters
    ----------
    method : {"mdl", "quantile"}, default="mdl"
        Fayyad-Irani MDL (supervised) or equal-frequency bins; see the module docstring.
    n_bins : int >= 2, default=5
        Most intervals per column for ``"quantile"``; ignored by ``"mdl"``.

    Attributes
    ----------
    cut_points_ : list of ndarray
        Per column, its sorted cut points (possibly none).
    categories_ : list of tuple of str
        Per column, its interval labels in increasing order: ``"<= a"``, ``"(a, b]"``, ...,
        ``"> z"``, or ``("(-inf, inf)",)`` for a column without cut points. Each cut point
        is written with the same number of decimals within a column: the fewest, from 3 to
        15, at which the written cut points stay distinct and each still lies between the
        two training values it separates (so ``"<= 0.381"`` splits the training data as the
        cut point does); beyond 15, the shortest exact ``repr``. An interval is closed on
        the right: a value equal to a cut point goes to the interval below it.
    decimals_ : list of int or None
        Per column, the decimals used in its labels (None: ``repr``).

    Examples
    --------
    Feeding the result to an estimator as nominal columns, in interval order::

        disc = Discretizer("mdl").fit(numeric_columns, y_codes, sample_weight)
        labels = disc.transform(numeric_columns)  # object arrays, None where NaN
        # column j: values labels[j], categories disc.categories_[j] (already ordered)
    """

    def __init__(self, method="mdl", n_bins=5):
        self.method = method
        self.n_bins = n_bins

    def __repr__(self):
        return f"Discretizer(method={self.method!r}, n_bins={self.n_bins!r})"

    def fit(self, columns, y=None, sample_weight=None, names=None):
        """Find the cut points of each column.

        Parameters
        ----------
        columns : list of array-like, each of shape (n_rows,)
            The numeric columns; NaN marks a missing value.
        y : array-like of int, shape (n_rows,), optional
            Class indices ``0..K-1``; required by ``"mdl"``.
        sample_weight : array-like of shape (n_rows,), optional
            Frequency weights, shared by all columns.
        names : list of str, optional
            Column names for error messages (default ``"column 0"``, ...).

        Returns
        -------
        self
        """
        _check_method(self.method, self.n_bins)
        columns = list(columns)
        names = self._names(names, len(columns))
        cut_points, categories, decimals = [], [], []
        n_rows = None
        for column, name in zip(columns, names, strict=True):
            values = _check_values(column, name)
            if n_rows is None:
                n_rows = values.shape[0]
            elif values.shape[0] != n_rows:
                raise DataError(
                    f"{name} has {values.shape[0]} rows but {names[0]} has {n_rows}; "
                    "every column needs one value per row."
                )
            cuts = _cut_points(values, y, self.method, self.n_bins, sample_weight, name)
            places = self._decimals(values, cuts)
            cut_points.append(cuts)
            decimals.append(places)
            categories.append(interval_labels(cuts, places))
        self.cut_points_ = cut_points
        self.categories_ = categories
        self.decimals_ = decimals
        self.names_ = names
        return self

    @staticmethod
    def _names(names, n_columns):
        if names is None:
            return [f"column {j}" for j in range(n_columns)]
        names = [str(name) for name in names]
        if len(names) != n_columns:
            raise ParameterError(
                f"names has {len(names)} entries but there are {n_columns} columns; pass "
                "one name per column."
            )
        return names

    @staticmethod
    def _decimals(values, cuts):
        if cuts.shape[0] == 0:
            return MIN_DECIMALS
        known = np.unique(values[~np.isnan(values)])
        above = np.searchsorted(known, cuts, side="right")
        return label_decimals(cuts, known[above - 1], known[above])

    def transform(self, columns):
        """Interval labels of each column's values.

        Returns
        -------
        list of ndarray of object
            Per column, the label (a str from ``categories_[j]``) of each row, None where
            the value is NaN.
        """
        if not hasattr(self, "cut_points_"):
            raise ParameterError("This Discretizer is not fitted yet; call fit first.")
        columns = list(columns)
        if len(columns) != len(self.cut_points_):
            raise DataError(
                f"transform got {len(columns)} columns but fit saw "
                f"{len(self.cut_points_)}; pass the same columns in the same order."
            )
        result = []
        for column, cuts, labels, name in zip(
            columns, self.cut_points_, self.categories_, self.names_, strict=True
        ):
            try:
                values = np.asarray(column, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise DataError(f"{name} must hold numbers ({exc}).") from exc
            codes = assign_bins(values, cuts)
            table = np.array([*labels, None], dtype=object)
            result.append(table[codes])  # code -1 (missing) picks the trailing None
        return result

    def fit_transform(self, columns, y=None, sample_weight=None, names=None):
        """:meth:`fit`, then :meth:`transform` of the same columns."""
        columns = list(columns)
        return self.fit(columns, y, sample_weight, names).transform(columns)
