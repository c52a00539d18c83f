"""Node costs (weight x impurity) over one statistics row.

A statistics row is laid out as in :mod:`treelearn._dtypes`: channel 0 is the
row count; classification channels ``1..K`` are class weights; regression
channels ``1, 2, 3`` are ``sum(w), sum(w y), sum(w y^2)``.
"""

import numpy as np
from numba import njit

GINI = 0
ENTROPY = 1
SQUARED_ERROR = 2
ABSOLUTE_ERROR = 3
HUBER = 4


@njit(cache=True)
def stats_weight(stats, is_classification):
    """Total weight of a statistics row."""
    if not is_classification:
        return stats[1]
    total = 0.0
    for k in range(1, stats.shape[0]):
        total += stats[k]
    return total


@njit(cache=True)
def weighted_impurity(stats, criterion):
    """``W * impurity`` of a statistics row; 0 for an empty row."""
    if criterion == SQUARED_ERROR:
        w = stats[1]
        if w <= 0.0:
            return 0.0
        cost = stats[3] - stats[2] * stats[2] / w
        return cost if cost > 0.0 else 0.0
    total = 0.0
    for k in range(1, stats.shape[0]):
        if stats[k] > 0.0:
            total += stats[k]
    if total <= 0.0:
        return 0.0
    if criterion == GINI:
        squares = 0.0
        for k in range(1, stats.shape[0]):
            if stats[k] > 0.0:
                squares += stats[k] * stats[k]
        return total - squares / total
    cost = 0.0
    for k in range(1, stats.shape[0]):
        count = stats[k]
        if count > 0.0:
            cost -= count * np.log2(count / total)
    return cost
