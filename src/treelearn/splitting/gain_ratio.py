"""C4.5's choice of a split: gain ratio among the attributes of above-average gain.

Quinlan (1993), *C4.5: Programs for Machine Learning*, section 2.2, and
Release 8's ``FormTree``: every attribute is evaluated at the node
(:mod:`treelearn.splitting._gain_ratio_kernels`); the *average gain* is taken
over the attributes that can split it, leaving out nominal attributes with at
least ``0.3 * N`` values (``N`` the training rows), unless every attribute has
that many; the chosen attribute is the one of largest

    gain ratio = gain / split information

among those whose gain is at least the average minus ``EPSILON`` and whose
split information exceeds ``EPSILON``. Ratios equal up to rounding go to the
attribute that comes first: a later one wins only with a ratio larger by more
than ``GAIN_TOLERANCE`` (1e-6, as Weka's J48 compares). Release 8 may choose
an attribute of zero gain; the collapse rule (a subtree no better than a leaf
on the training data becomes one) removes such splits afterwards.
"""

from dataclasses import dataclass

import numpy as np

from treelearn.splitting._gain_ratio_kernels import (
    CAND_GAIN,
    CAND_SPLIT_INFO,
    CAND_STATUS,
    GAIN_TOLERANCE,
    STATUS_SPLIT,
)

#: C4.5's tolerance in the gain and split-information tests (``Epsilon``, 1e-3).
EPSILON = 1e-3
#: A nominal attribute with at least this fraction of the training rows as values
#: is left out of the average gain.
MANY_VALUES_FRACTION = 0.3
#: Average gain when no attribute counts towards it (Release 8's 1E6).
NO_AVERAGE = 1e6


@dataclass(frozen=True)
class SplitRecord:
    """What a grower weighed at one node, kept so the split can be explained.

    Attributes
    ----------
    table : ndarray of shape (n_features, N_CAND)
        The candidate table (:mod:`treelearn.splitting._gain_ratio_kernels`):
        C4.5's own numbers for a C4.5 tree, the textbook numbers otherwise.
    feature : int
        The feature the node was split on, or -1.
    rule : str
        How the split was chosen: ``"gain_ratio"`` (C4.5's rule), or the
        criterion whose decrease was maximised (``"entropy"``: information
        gain; ``"gini"``).
    average_gain : float
        C4.5's average gain (NaN for other rules).
    in_average, above_average : ndarray of bool or None
        C4.5's rule, per feature (None for other rules).
    pruned : bool
        The node was split on ``feature`` when the tree was grown, and pruning
        made it a leaf.
    """

    table: np.ndarray
    feature: int
    rule: str
    average_gain: float = float("nan")
    in_average: np.ndarray | None = None
    above_average: np.ndarray | None = None
    pruned: bool = False


def many_valued(n_values, n_rows):
    """Per feature: a nominal attribute with very many values (``>= 0.3 N``).

    ``n_values`` holds the number of values of each nominal feature and 0 for
    numeric ones. When *every* feature has very many values none is left out
    (Release 8's ``MultiVal``), so the result is then all False.
    """
    many = np.asarray(n_values) >= MANY_VALUES_FRACTION * n_rows
    return np.zeros_like(many) if many.all() else many


def choose_gain_ratio(table, excluded_from_average):
    """C4.5's choice from a candidate table (see the module docstring).

    Parameters
    ----------
    table : ndarray of shape (n_features, N_CAND)
        From :func:`~treelearn.splitting._gain_ratio_kernels.evaluate_candidates`.
    excluded_from_average : ndarray of bool
        :func:`many_valued` of the features.

    Returns
    -------
    SplitRecord
        The table with C4.5's choice (``feature`` -1 when no attribute may split).
    """
    possible = table[:, CAND_STATUS] == STATUS_SPLIT
    gain = np.where(possible, table[:, CAND_GAIN], np.nan)
    info = np.where(possible, table[:, CAND_SPLIT_INFO], np.nan)
    in_average = possible & ~excluded_from_average
    average = float(gain[in_average].mean()) if in_average.any() else NO_AVERAGE
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(possible & (info > 0), gain / info, np.nan)  # NaN: cannot split
    above = possible & (gain >= average - EPSILON)
    eligible = above & (info > EPSILON)
    feature = -1
    for f in np.flatnonzero(eligible & (ratio > -EPSILON)):
        # A later attribute wins only with a ratio larger by more than GAIN_TOLERANCE.
        if feature < 0 or ratio[f] - ratio[feature] > GAIN_TOLERANCE:
            feature = int(f)
    return SplitRecord(table, feature, "gain_ratio", average, in_average, above)
