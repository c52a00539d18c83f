"""Split criteria: the impurity of a node's statistics, by name.

Each criterion is identified inside kernels by a small integer id; users name it
by string. The cost a kernel computes is ``W * impurity`` (the node's weight
times its impurity), so the gain of a split is
``cost(parent) - sum(cost(child))``:

``gini``
    ``1 - sum_k p_k^2`` (Breiman et al. 1984, *Classification and Regression Trees*).
``entropy``
    ``-sum_k p_k log2 p_k`` in bits (Quinlan 1986, *Induction of Decision Trees*).
``squared_error``
    weighted variance of y around the node mean (Breiman et al. 1984).
``absolute_error``
    weighted mean absolute deviation ``sum_i w_i |y_i - m| / W`` from the
    weighted median ``m`` (Breiman et al. 1984, ch. 8); leaves predict ``m``.
``huber``
    mean Huber loss ``sum_i w_i rho_delta(y_i - c) / W`` around the node's Huber
    M-estimate of location ``c`` (its minimiser), with ``rho_delta(r) = r^2 / 2``
    for ``|r| <= delta`` and ``delta (|r| - delta / 2)`` beyond (Huber 1964);
    leaves predict ``c``.

``absolute_error`` and ``huber`` are not sums over rows, so they are computed
by their own kernels over the node's rows sorted by target
(:mod:`treelearn.splitting._robust_kernels`), not from histograms.

The public information measures of the textbooks (entropy, Gini, conditional
and joint entropy, mutual information, information gain, split information,
gain ratio, the variation-of-information distance), from label arrays or count
tables, are in :mod:`treelearn.criteria.measures` and exported here.
"""

from treelearn.criteria._kernels import (
    ABSOLUTE_ERROR,
    ENTROPY,
    GINI,
    HUBER,
    SQUARED_ERROR,
)
from treelearn.criteria.measures import (
    conditional_entropy,
    conditional_gini,
    entropy,
    gain_ratio,
    gini,
    information_gain,
    joint_entropy,
    mutual_information,
    normalized_variation_of_information,
    split_information,
    variation_of_information,
)
from treelearn.exceptions import ParameterError

__all__ = [
    "ABSOLUTE_ERROR",
    "CLASSIFICATION_CRITERIA",
    "ENTROPY",
    "GINI",
    "HISTOGRAM_CRITERIA",
    "HUBER",
    "REGRESSION_CRITERIA",
    "SQUARED_ERROR",
    "conditional_entropy",
    "conditional_gini",
    "criterion_id",
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

CLASSIFICATION_CRITERIA = {"gini": GINI, "entropy": ENTROPY}
REGRESSION_CRITERIA = {
    "squared_error": SQUARED_ERROR,
    "absolute_error": ABSOLUTE_ERROR,
    "huber": HUBER,
}
#: Criteria that are sums over rows and so can be computed from histograms.
HISTOGRAM_CRITERIA = frozenset({GINI, ENTROPY, SQUARED_ERROR})


def criterion_id(name, classification):
    """Kernel id of the criterion called ``name``.

    Raises
    ------
    ParameterError
        If ``name`` is not a criterion of the task.
    """
    table = CLASSIFICATION_CRITERIA if classification else REGRESSION_CRITERIA
    if name not in table:
        task = "classification" if classification else "regression"
        raise ParameterError(
            f"criterion={name!r} is not a {task} criterion; choose one of "
            f"{', '.join(repr(k) for k in table)}."
        )
    return table[name]
