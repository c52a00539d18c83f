"""Information measures of the textbooks, from label arrays or count tables.

Every measure takes either label arrays or counts:

- label arrays: ``entropy(y)``, ``information_gain(x, y)``, where ``x`` is an
  attribute and ``y`` the class (any hashable labels: strings, numbers,
  booleans; each distinct value is one category, so a numeric attribute is
  used as it is, one branch per distinct value; discretise it first, or pass
  ``x <= t``, for a threshold split), with an optional ``sample_weight``;
- counts: ``entropy(counts=[9, 5])`` for one distribution, and for a pair of
  variables a contingency ``table`` whose rows are the values of ``x`` (the
  attribute, the branches of a split) and whose columns are the classes of
  ``y``: ``information_gain(table=[[2, 3], [4, 0], [3, 2]])``. Counts may be
  weights (any finite numbers >= 0).

Logarithms are to ``base=2`` by default, so entropies are in bits; pass
``base=np.e`` for nats. Every function returns a Python ``float``.

Notation: ``p(x, y)`` is the joint distribution of the table (counts divided
by their total), ``p(x)`` and ``p(y)`` its margins. With
``H(p) = -sum p log p`` (``0 log 0 = 0``):

- ``entropy``: ``H(Y)`` (Shannon 1948);
- ``gini``: ``1 - sum_k p_k^2`` (Breiman et al. 1984);
- ``joint_entropy``: ``H(X, Y)``;
- ``conditional_entropy``: ``H(Y|X) = sum_x p(x) H(Y | X = x)``;
- ``conditional_gini``: ``sum_x p(x) Gini(Y | X = x)``, the "Gini index" of
  an attribute after a split (Zhou 2016, eq. 4.6);
- ``mutual_information`` and ``information_gain``: ``I(X; Y) = H(Y) - H(Y|X)``
  (Quinlan 1986 calls it the gain of attribute ``X``);
- ``split_information``: ``H(X)``, Quinlan's split information or intrinsic
  value (Quinlan 1993);
- ``gain_ratio``: ``I(X; Y) / H(X)`` (Quinlan 1993);
- ``variation_of_information``: ``d(X, Y) = H(X, Y) - I(X; Y)
  = H(X|Y) + H(Y|X)``, a metric on partitions (Meilă 2007; López de Mántaras
  1991);
- ``normalized_variation_of_information``: ``D(X, Y) = d(X, Y) / H(X, Y)``,
  in ``[0, 1]`` (López de Mántaras 1991).

Missing values
    These are the plain measures: they have no rule for unknown values, so a
    missing label (``NaN``, ``None``, ``pd.NA``) in ``x`` or ``y`` raises a
    :class:`~treelearn.exceptions.DataError` naming the rows. Drop those rows,
    or fill them with a value of their own (``x.fillna("missing")``) to count
    "missing" as one more category. C4.5 treats unknown values differently: it
    computes the gain on the rows whose value is known and multiplies it by
    their fraction, and counts the unknown rows as one more branch in the
    split information (Quinlan 1993, ch. 3).

References
----------
Shannon, C. E. (1948). A mathematical theory of communication. *Bell System
Technical Journal* 27, 379-423.
Breiman, L., Friedman, J., Olshen, R., Stone, C. (1984). *Classification and
Regression Trees*. Wadsworth.
Quinlan, J. R. (1986). Induction of decision trees. *Machine Learning* 1, 81-106.
Quinlan, J. R. (1993). *C4.5: Programs for Machine Learning*. Morgan Kaufmann.
López de Mántaras, R. (1991). A distance-based attribute selection measure
for decision tree induction. *Machine Learning* 6, 81-92.
Meilă, M. (2007). Comparing clusterings: an information based distance.
*Journal of Multivariate Analysis* 98, 873-895.
Zhou, Z.-H. (2016). *Machine Learning* (机器学习). Tsinghua University Press.
"""

import numbers

import numpy as np
import pandas as pd
from scipy.special import entr

from treelearn.exceptions import DataError, ParameterError

__all__ = [
    "conditional_entropy",
    "conditional_gini",
    "entropy",
    "gain_ratio",
    "gini",
    "information_gain",
    "joint_entropy",
    "mutual_information",
    "normalized_variation_of_information",
    "split_information",
    "variation_of_information",
]

_MAX_LISTED = 10


# -- input -------------------------------------------------------------------
def _describe(items):
    items = list(items)
    shown = ", ".join(str(i) for i in items[:_MAX_LISTED])
    more = f", ... ({len(items)} in all)" if len(items) > _MAX_LISTED else ""
    return f"[{shown}{more}]"


def _check_base(base):
    if (
        isinstance(base, bool)
        or not isinstance(base, numbers.Real)
        or not np.isfinite(base)
        or base <= 0
        or base == 1
    ):
        raise ParameterError(
            f"base must be a positive number other than 1 (2 for bits, np.e for nats), "
            f"got {base!r}."
        )
    return float(np.log(base))


def _labels(values, name):
    """Codes ``0..k-1`` of a 1-d label array and the number ``k`` of distinct labels."""
    if isinstance(values, (list, tuple)):
        array = np.asarray(values, dtype=object)
    elif isinstance(values, (pd.Series, pd.Index)):
        array = values.to_numpy()
    else:
        array = np.asarray(values)
    if array.ndim != 1:
        raise DataError(
            f"{name} must be a 1-d array of labels (one per row), got shape {array.shape}."
        )
    if array.shape[0] == 0:
        raise DataError(f"{name} is empty; pass at least one label.")
    missing = np.asarray(pd.isna(array), dtype=bool)
    if missing.any():
        raise DataError(
            f"{name} has missing values (NaN/None) at rows "
            f"{_describe(np.flatnonzero(missing))}. These plain measures have no rule for "
            f"unknown values: drop those rows, or fill them with a value of their own "
            f"(e.g. {name}.fillna('missing')) to count 'missing' as one more category. "
            "(C4.5 handles unknown values its own way; see treelearn.criteria.measures.)"
        )
    try:
        codes, uniques = pd.factorize(array)
    except TypeError as exc:
        raise DataError(f"{name} holds labels that cannot be compared ({exc}).") from exc
    return codes.astype(np.int64), len(uniques)


def _weights(sample_weight, n_rows):
    if sample_weight is None:
        return None
    try:
        weight = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"sample_weight must hold numbers ({exc}).") from exc
    if weight.shape != (n_rows,):
        raise DataError(
            f"sample_weight has shape {weight.shape} but there are {n_rows} rows; pass one "
            "weight per row."
        )
    bad = ~np.isfinite(weight) | (weight < 0)
    if bad.any():
        raise DataError(
            f"sample_weight must be finite and >= 0; it is not at rows "
            f"{_describe(np.flatnonzero(bad))}."
        )
    if not weight.sum() > 0:
        raise DataError("sample_weight is zero for every row; at least one row needs weight.")
    return weight


def _counts(counts, name, ndim):
    """``counts`` as a float array of ``ndim`` dimensions, checked."""
    try:
        array = np.asarray(counts, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{name} must hold numbers (counts or weights): {exc}.") from exc
    if array.ndim != ndim:
        expected = "a 1-d list of counts" if ndim == 1 else "a 2-d table (rows x columns)"
        raise DataError(f"{name} must be {expected}, got shape {array.shape}.")
    if array.size == 0:
        raise DataError(f"{name} is empty; pass at least one count.")

    def where(mask):
        positions = np.argwhere(mask)
        if ndim == 1:
            return f"positions {_describe(int(p[0]) for p in positions)}"
        return f"(row, column) {_describe(tuple(int(i) for i in p) for p in positions)}"

    if not np.isfinite(array).all():
        raise DataError(f"{name} must be finite; it is not at {where(~np.isfinite(array))}.")
    if (array < 0).any():
        raise DataError(
            f"{name} holds negative counts at {where(array < 0)}; counts and weights must be >= 0."
        )
    if not array.sum() > 0:
        raise DataError(f"{name} sums to zero: there is nothing to measure.")
    return array


def _distribution(y, counts, sample_weight, function):
    """The (weighted) class counts of ``y``, or ``counts`` checked."""
    if counts is not None:
        if y is not None:
            raise ParameterError(f"{function}: pass either the labels y or counts=, not both.")
        if sample_weight is not None:
            raise ParameterError(
                f"{function}: sample_weight applies to labels; counts= already holds weights."
            )
        return _counts(counts, "counts", 1)
    if y is None:
        raise ParameterError(
            f"{function} needs the labels y, or counts= (e.g. {function}(counts=[9, 5]))."
        )
    codes, k = _labels(y, "y")
    weight = _weights(sample_weight, codes.shape[0])
    return np.bincount(codes, weights=weight, minlength=k).astype(np.float64)


def _table(x, y, table, sample_weight, function):
    """The (weighted) contingency table of ``x`` (rows) by ``y`` (columns), or ``table``."""
    if table is not None:
        if x is not None or y is not None:
            raise ParameterError(
                f"{function}: pass either the label arrays x and y or table=, not both."
            )
        if sample_weight is not None:
            raise ParameterError(
                f"{function}: sample_weight applies to label arrays; table= already holds weights."
            )
        return _counts(table, "table", 2)
    if x is None or y is None:
        raise ParameterError(
            f"{function} needs the label arrays x and y, or a count table "
            "table=[[...], ...] (rows: values of x; columns: classes of y)."
        )
    x_codes, n_x = _labels(x, "x")
    y_codes, n_y = _labels(y, "y")
    if x_codes.shape[0] != y_codes.shape[0]:
        raise DataError(
            f"x has {x_codes.shape[0]} values but y has {y_codes.shape[0]}; pass one x and "
            "one y per row."
        )
    weight = _weights(sample_weight, x_codes.shape[0])
    flat = np.bincount(x_codes * n_y + y_codes, weights=weight, minlength=n_x * n_y)
    return flat.astype(np.float64).reshape(n_x, n_y)


# -- kernels over checked counts ----------------------------------------------
def _h(counts, log_base):
    """Entropy of the distribution ``counts`` (any shape, total > 0)."""
    p = counts / counts.sum()
    return float(entr(p).sum() / log_base)


def _conditional(table, log_base):
    """``H(columns | rows)`` of ``table``: entropy of each row, weighted by the row's total."""
    rows = table.sum(axis=1, keepdims=True)
    p_cond = np.divide(table, rows, out=np.zeros_like(table), where=rows > 0)
    return float((rows[:, 0] / rows.sum()) @ entr(p_cond).sum(axis=1) / log_base)


def _gini(counts):
    p = counts / counts.sum()
    return float(1.0 - np.sum(p * p))


# -- one variable --------------------------------------------------------------
def entropy(y=None, *, counts=None, sample_weight=None, base=2):
    """Shannon entropy of a class distribution.

    ``H(Y) = -sum_k p_k log_b p_k``, with ``0 log 0 = 0`` (Shannon 1948;
    Quinlan 1986 uses it, in bits, as the information of a node).

    Parameters
    ----------
    y : array-like of shape (n_samples,), optional
        Class labels.
    counts : array-like of shape (n_classes,), optional
        Class counts (or weights) instead of ``y``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each label (only with ``y``).
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float

    Examples
    --------
    >>> round(entropy(counts=[9, 5]), 3)
    0.94
    """
    log_base = _check_base(base)
    return _h(_distribution(y, counts, sample_weight, "entropy"), log_base)


def gini(y=None, *, counts=None, sample_weight=None):
    """Gini impurity of a class distribution.

    ``Gini(Y) = 1 - sum_k p_k^2``: the chance that two rows drawn at random
    (with replacement) belong to different classes (Breiman et al. 1984).

    Parameters
    ----------
    y : array-like of shape (n_samples,), optional
        Class labels.
    counts : array-like of shape (n_classes,), optional
        Class counts (or weights) instead of ``y``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each label (only with ``y``).

    Returns
    -------
    float

    Examples
    --------
    >>> round(gini(counts=[9, 5]), 3)
    0.459
    """
    return _gini(_distribution(y, counts, sample_weight, "gini"))


def split_information(x=None, *, counts=None, table=None, sample_weight=None, base=2):
    """Split information (intrinsic value) of an attribute: the entropy of its values.

    ``SplitInfo(X) = -sum_v (|D_v| / |D|) log_b (|D_v| / |D|) = H(X)``, where
    ``D_v`` holds the rows with value ``v`` (Quinlan 1993; Zhou 2016 calls it
    the intrinsic value IV). It grows with the number of branches, which is
    what :func:`gain_ratio` divides by.

    Parameters
    ----------
    x : array-like of shape (n_samples,), optional
        Attribute values.
    counts : array-like of shape (n_values,), optional
        Rows (or weight) per value of the attribute, i.e. per branch.
    table : array-like of shape (n_values, n_classes), optional
        A contingency table; its row totals are used.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row (only with ``x``).
    base : float, default=2
        Base of the logarithm.

    Returns
    -------
    float
    """
    log_base = _check_base(base)
    if table is not None:
        if x is not None or counts is not None:
            raise ParameterError(
                "split_information: pass one of x, counts= and table=, not several."
            )
        if sample_weight is not None:
            raise ParameterError(
                "split_information: sample_weight applies to x; table= already holds weights."
            )
        return _h(_counts(table, "table", 2).sum(axis=1), log_base)
    return _h(_distribution(x, counts, sample_weight, "split_information"), log_base)


# -- two variables -------------------------------------------------------------
def joint_entropy(x=None, y=None, *, table=None, sample_weight=None, base=2):
    """Joint entropy of two variables.

    ``H(X, Y) = -sum_{x,y} p(x, y) log_b p(x, y)`` (Shannon 1948).

    Parameters
    ----------
    x : array-like of shape (n_samples,), optional
        Attribute values (the rows of the table).
    y : array-like of shape (n_samples,), optional
        Class labels (the columns of the table).
    table : array-like of shape (n_values, n_classes), optional
        Contingency table of counts (or weights) instead of ``x`` and ``y``:
        rows are the values of ``x``, columns the classes of ``y``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row (only with ``x`` and ``y``).
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
    """
    log_base = _check_base(base)
    return _h(_table(x, y, table, sample_weight, "joint_entropy"), log_base)


def conditional_entropy(x=None, y=None, *, table=None, sample_weight=None, base=2):
    """Conditional entropy ``H(Y|X)``: the class entropy left once ``x`` is known.

    ``H(Y|X) = sum_x p(x) H(Y | X = x) = H(X, Y) - H(X)`` (Shannon 1948). In a
    decision tree this is the weighted entropy of the children of a split on
    ``x``, Quinlan's ``E(A)`` (Quinlan 1986). Note the argument order: the
    attribute ``x`` first, as in :func:`information_gain`.

    Parameters
    ----------
    x : array-like of shape (n_samples,), optional
        Attribute values (the rows of the table).
    y : array-like of shape (n_samples,), optional
        Class labels (the columns of the table).
    table : array-like of shape (n_values, n_classes), optional
        Contingency table of counts (or weights) instead of ``x`` and ``y``:
        rows are the values of ``x``, columns the classes of ``y``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row (only with ``x`` and ``y``).
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
    """
    log_base = _check_base(base)
    return _conditional(_table(x, y, table, sample_weight, "conditional_entropy"), log_base)


def conditional_gini(x=None, y=None, *, table=None, sample_weight=None):
    """Gini impurity after a split on ``x``: the children's Gini, weighted by their size.

    ``Gini(Y|X) = sum_x p(x) (1 - sum_y p(y|x)^2)``: CART's impurity of a split
    (Breiman et al. 1984), the "Gini index" of an attribute in Zhou (2016, eq.
    4.6); lower is better.

    Parameters
    ----------
    x : array-like of shape (n_samples,), optional
        Attribute values (the rows of the table).
    y : array-like of shape (n_samples,), optional
        Class labels (the columns of the table).
    table : array-like of shape (n_values, n_classes), optional
        Contingency table of counts (or weights) instead of ``x`` and ``y``:
        rows are the values of ``x``, columns the classes of ``y``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row (only with ``x`` and ``y``).

    Returns
    -------
    float

    Examples
    --------
    >>> round(conditional_gini(table=[[2, 3], [4, 0], [3, 2]]), 3)
    0.343
    """
    counts = _table(x, y, table, sample_weight, "conditional_gini")
    rows = counts.sum(axis=1)
    keep = rows > 0
    p_cond = counts[keep] / rows[keep, None]
    return float((rows[keep] / rows.sum()) @ (1.0 - np.sum(p_cond * p_cond, axis=1)))


def _mutual_information(counts, log_base):
    gain = _h(counts.sum(axis=0), log_base) - _conditional(counts, log_base)
    return max(gain, 0.0)


def mutual_information(x=None, y=None, *, table=None, sample_weight=None, base=2):
    """Mutual information ``I(X; Y)``.

    ``I(X; Y) = sum_{x,y} p(x, y) log_b (p(x, y) / (p(x) p(y)))
    = H(Y) - H(Y|X) = H(X) + H(Y) - H(X, Y) >= 0`` (Shannon 1948); symmetric
    in ``x`` and ``y``. The same number as :func:`information_gain`; a value
    rounded below zero is reported as 0.

    Parameters
    ----------
    x : array-like of shape (n_samples,), optional
        Attribute values (the rows of the table).
    y : array-like of shape (n_samples,), optional
        Class labels (the columns of the table).
    table : array-like of shape (n_values, n_classes), optional
        Contingency table of counts (or weights) instead of ``x`` and ``y``:
        rows are the values of ``x``, columns the classes of ``y``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row (only with ``x`` and ``y``).
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
    """
    log_base = _check_base(base)
    counts = _table(x, y, table, sample_weight, "mutual_information")
    return _mutual_information(counts, log_base)


def information_gain(x=None, y=None, *, table=None, sample_weight=None, base=2):
    """Information gain of attribute ``x`` for the class ``y``.

    ``Gain(Y, X) = H(Y) - sum_v (|D_v| / |D|) H(D_v) = H(Y) - H(Y|X) = I(X; Y)``,
    where ``D_v`` holds the rows with value ``v`` of ``x`` (Quinlan 1986). This
    is a multiway split on every value of ``x``; for a binary split pass its
    branch (e.g. ``x <= t``) as ``x``. Unknown values are not handled (see the
    module docstring for C4.5's rule).

    Parameters
    ----------
    x : array-like of shape (n_samples,), optional
        Attribute values (the rows of the table).
    y : array-like of shape (n_samples,), optional
        Class labels (the columns of the table).
    table : array-like of shape (n_values, n_classes), optional
        Contingency table of counts (or weights) instead of ``x`` and ``y``:
        rows are the values of ``x``, columns the classes of ``y``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row (only with ``x`` and ``y``).
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float

    Examples
    --------
    >>> round(information_gain(table=[[2, 3], [4, 0], [3, 2]]), 3)
    0.247
    """
    log_base = _check_base(base)
    counts = _table(x, y, table, sample_weight, "information_gain")
    return _mutual_information(counts, log_base)


def gain_ratio(x=None, y=None, *, table=None, sample_weight=None, base=2):
    """Gain ratio of attribute ``x``: information gain per bit of split information.

    ``GainRatio(Y, X) = Gain(Y, X) / SplitInfo(X)`` (Quinlan 1993), which
    corrects information gain's preference for attributes with many values.
    An attribute with a single value has ``SplitInfo = 0`` and no gain; its
    gain ratio is reported as 0. C4.5 also requires the gain to be at least
    the average gain of the candidates; that rule belongs to the grower, not
    to this measure.

    Parameters
    ----------
    x : array-like of shape (n_samples,), optional
        Attribute values (the rows of the table).
    y : array-like of shape (n_samples,), optional
        Class labels (the columns of the table).
    table : array-like of shape (n_values, n_classes), optional
        Contingency table of counts (or weights) instead of ``x`` and ``y``:
        rows are the values of ``x``, columns the classes of ``y``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row (only with ``x`` and ``y``).
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float

    Examples
    --------
    >>> round(gain_ratio(table=[[2, 3], [4, 0], [3, 2]]), 3)
    0.156
    """
    log_base = _check_base(base)
    counts = _table(x, y, table, sample_weight, "gain_ratio")
    split_info = _h(counts.sum(axis=1), log_base)
    if split_info <= 0.0:
        return 0.0
    return _mutual_information(counts, log_base) / split_info


def _variation(counts, log_base):
    return _conditional(counts, log_base) + _conditional(counts.T, log_base)


def variation_of_information(x=None, y=None, *, table=None, sample_weight=None, base=2):
    """Variation of information, a distance between two partitions of the rows.

    ``d(X, Y) = H(X, Y) - I(X; Y) = H(X|Y) + H(Y|X)`` (Meilă 2007; the
    distance of López de Mántaras 1991). It is a metric: ``d >= 0``,
    symmetric, zero exactly when ``x`` and ``y`` determine each other, and
    it satisfies the triangle inequality.

    Parameters
    ----------
    x : array-like of shape (n_samples,), optional
        Attribute values (the rows of the table).
    y : array-like of shape (n_samples,), optional
        Class labels (the columns of the table).
    table : array-like of shape (n_values, n_classes), optional
        Contingency table of counts (or weights) instead of ``x`` and ``y``:
        rows are the values of ``x``, columns the classes of ``y``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row (only with ``x`` and ``y``).
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
    """
    log_base = _check_base(base)
    counts = _table(x, y, table, sample_weight, "variation_of_information")
    return _variation(counts, log_base)


def normalized_variation_of_information(x=None, y=None, *, table=None, sample_weight=None, base=2):
    """Normalised variation of information ``D(X, Y) = d(X, Y) / H(X, Y)``.

    ``D = 1 - I(X; Y) / H(X, Y)`` lies in ``[0, 1]`` and is still a metric
    (López de Mántaras 1991, who proposed choosing the attribute closest to
    the class partition, which is not biased towards many-valued attributes).
    When both variables are constant, ``H(X, Y) = 0`` and ``D`` is 0.

    Parameters
    ----------
    x : array-like of shape (n_samples,), optional
        Attribute values (the rows of the table).
    y : array-like of shape (n_samples,), optional
        Class labels (the columns of the table).
    table : array-like of shape (n_values, n_classes), optional
        Contingency table of counts (or weights) instead of ``x`` and ``y``:
        rows are the values of ``x``, columns the classes of ``y``.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row (only with ``x`` and ``y``).
    base : float, default=2
        Base of the logarithm: 2 gives bits, ``np.e`` nats.

    Returns
    -------
    float
    """
    log_base = _check_base(base)
    counts = _table(x, y, table, sample_weight, "normalized_variation_of_information")
    joint = _h(counts, log_base)
    if joint <= 0.0:
        return 0.0
    return min(_variation(counts, log_base) / joint, 1.0)
