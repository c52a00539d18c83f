"""C4.5's fractional cases: how a node's rows and weights pass to its children.

Quinlan (1993), section 3.1: a row whose value of the split's attribute is
known goes to its branch with its weight; a row missing it goes down *every*
branch, its weight multiplied by the branch's share of the known weight
(``K_v / K``). A branch with no known row gets no row at all (it becomes a
leaf that predicts its parent's class distribution). Within one node a
training row appears at most once, so a node is a set of distinct rows, each
with its own weight.
"""

import numpy as np


def split_fractional_rows(rows, row_weight, branch, missing, n_branches):
    """The children's rows and weights.

    Parameters
    ----------
    rows : ndarray of intp
        The node's training rows.
    row_weight : ndarray of float64
        Their weights at the node.
    branch : ndarray of int64
        Each row's branch (ignored where ``missing``).
    missing : ndarray of bool
        Rows missing the split's attribute.
    n_branches : int

    Returns
    -------
    children : list of (rows, weights)
        One pair per branch; both empty for a branch with no known row.
    known_weight : ndarray of float64
        Known weight per branch.
    """
    known = ~missing
    known_weight = np.bincount(branch[known], weights=row_weight[known], minlength=n_branches)
    total_known = known_weight.sum()
    missing_rows = rows[missing]
    missing_weight = row_weight[missing]
    order = np.argsort(branch[known], kind="stable")
    known_rows = rows[known][order]
    known_row_weight = row_weight[known][order]
    bounds = np.concatenate([[0], np.cumsum(np.bincount(branch[known], minlength=n_branches))])
    children = []
    for v in range(n_branches):
        if known_weight[v] <= 0.0:
            children.append((rows[:0], row_weight[:0]))
            continue
        share = known_weight[v] / total_known
        child_rows = np.concatenate([known_rows[bounds[v] : bounds[v + 1]], missing_rows])
        child_weight = np.concatenate(
            [known_row_weight[bounds[v] : bounds[v + 1]], missing_weight * share]
        )
        children.append((child_rows, child_weight))
    return children, known_weight


def class_statistics(rows, row_weight, y_class, n_classes):
    """Statistics row (count channel, then class weights) of weighted rows."""
    stats = np.empty(1 + n_classes)
    stats[0] = rows.shape[0]
    stats[1:] = np.bincount(y_class[rows], weights=row_weight, minlength=n_classes)
    return stats
