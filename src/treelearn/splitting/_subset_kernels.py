"""Scans of a nominal feature's histogram: the best split into two sets of
categories (:func:`scan_subset`) and the split into one branch per category
(:func:`scan_multiway`).

They allocate their scratch, so they keep reference counting (see
:mod:`treelearn.splitting._kernels`, which calls them through
:func:`~treelearn.splitting._kernels.evaluate_nominal_feature`).
"""

import numpy as np
from numba import njit

from treelearn._copy_kernels import copy_flat
from treelearn.criteria._kernels import SQUARED_ERROR, stats_weight, weighted_impurity
from treelearn.splitting._cut_kernels import _side_ok, _split_gain

#: Above this many levels (categories present at the node, missing counted as
#: one), multi-class subset splits use the per-class ordering heuristic.
MAX_EXHAUSTIVE_LEVELS = 12


@njit(cache=True)
def _scan_ordered_levels(
    hist,
    ordered,
    n_levels,
    total,
    parent_cost,
    criterion,
    is_classification,
    min_count,
    min_weight,
    left,
    right,
):
    """Best prefix ``ordered[:j]`` (left) of levels; returns (gain, j)."""
    n_channels = total.shape[0]
    left[:] = 0.0
    best_gain = -np.inf
    best_j = 0
    for j in range(1, n_levels):
        level = ordered[j - 1]
        for c in range(n_channels):
            left[c] += hist[level, c]
            right[c] = total[c] - left[c]
        if _side_ok(left, is_classification, min_count, min_weight) and _side_ok(
            right, is_classification, min_count, min_weight
        ):
            gain = _split_gain(parent_cost, left, right, criterion)
            if gain > best_gain:
                best_gain = gain
                best_j = j
    return best_gain, best_j


@njit(cache=True)
def _level_keys(hist, levels, n_levels, is_classification, target_channel, keys):
    """Per level: the weight fraction of ``target_channel`` (classification) or the mean y."""
    for j in range(n_levels):
        row = hist[levels[j]]
        if is_classification:
            w = stats_weight(row, is_classification)
            keys[j] = row[target_channel] / w if w > 0.0 else 0.0
        else:
            keys[j] = row[2] / row[1] if row[1] > 0.0 else 0.0


@njit(cache=True)
def scan_subset(
    hist,
    n_rows,
    total,
    parent_cost,
    criterion,
    is_classification,
    n_classes,
    min_count,
    min_weight,
    best,
    mask,
    skip_missing=False,
):
    """Best binary split of a nominal feature into two sets of categories.

    The levels are the rows of ``hist[:n_rows]`` (categories, missing last)
    present at the node. Two classes and regression: levels sorted by the
    class-1 fraction / mean target (stable), best prefix; exact for these
    criteria (Breiman et al. 1984, thm. 4.5; Fisher 1958) when no leaf-size
    constraint binds. All other cases with ``L <= MAX_EXHAUSTIVE_LEVELS``
    (more classes, or ``min_count > 1`` / ``min_weight > 0``, which the
    ordering theorem does not cover): all ``2**(L-1) - 1`` subsets in Gray-code
    order, exact. Beyond that: two classes and regression take the best
    prefix as above, more classes the best prefix of the levels sorted by each
    class's fraction in turn (heuristics).

    ``skip_missing`` (``missing="surrogate"``): the missing level takes no
    part, as in :func:`~treelearn.splitting._kernels.scan_threshold`; its mask entry stays 0.

    Writes ``best = [gain, -1, -1, missing_left]`` and ``mask[level]``: 1 for
    a level sent left, 2 for one sent right, 0 for a level absent at the node.
    Returns the number of present levels.
    """
    n_channels = total.shape[0]
    left = np.zeros(n_channels)
    right = np.empty(n_channels)
    levels = np.empty(n_rows, dtype=np.int64)
    n_levels = np.int64(0)  # (a literal 0 would compile _level_keys for it too)
    n_scanned = n_rows
    if skip_missing:
        n_scanned = n_rows - 1
        if hist[n_rows - 1, 0] > 0.0:
            total = total - hist[n_rows - 1]
            parent_cost = weighted_impurity(total, criterion)
    for i in range(n_scanned):
        if hist[i, 0] > 0.0:
            levels[n_levels] = i
            n_levels += 1
    best[0] = -np.inf
    best[1] = -1.0
    best[2] = -1.0
    best[3] = 0.0
    mask[:n_rows] = 0
    if n_levels < 2:
        return n_levels
    keys = np.empty(n_levels)
    # The ordering theorem ignores leaf-size constraints: with them, small
    # problems are searched exhaustively so the answer stays exact.
    ordered_is_exact = not is_classification or n_classes == 2
    constrained = min_count > 1 or min_weight > 0.0
    if ordered_is_exact and (not constrained or n_levels > MAX_EXHAUSTIVE_LEVELS):
        _level_keys(hist, levels, n_levels, is_classification, np.int64(2), keys)
        order = levels[:n_levels][np.argsort(keys, kind="mergesort")]
        gain, j = _scan_ordered_levels(
            hist,
            order,
            n_levels,
            total,
            parent_cost,
            criterion,
            is_classification,
            min_count,
            min_weight,
            left,
            right,
        )
        if gain > -np.inf:
            best[0] = gain
            for t in range(j):
                mask[order[t]] = 1
    elif n_levels <= MAX_EXHAUSTIVE_LEVELS:
        in_left = np.zeros(n_levels, dtype=np.bool_)
        best_set = 0
        current = 0
        for step in range(1, 1 << (n_levels - 1)):
            bit = 0
            while not (step >> bit) & 1:
                bit += 1
            level = levels[bit]
            sign = -1.0 if in_left[bit] else 1.0
            in_left[bit] = not in_left[bit]
            current ^= 1 << bit
            for c in range(n_channels):
                left[c] += sign * hist[level, c]
                right[c] = total[c] - left[c]
            if _side_ok(left, is_classification, min_count, min_weight) and _side_ok(
                right, is_classification, min_count, min_weight
            ):
                gain = _split_gain(parent_cost, left, right, criterion)
                if gain > best[0]:
                    best[0] = gain
                    best_set = current
        if best[0] > -np.inf:
            for t in range(n_levels):
                if (best_set >> t) & 1:
                    mask[levels[t]] = 1
    else:
        best_order = levels[:n_levels].copy()
        best_j = 0
        for k in range(n_classes):
            _level_keys(hist, levels, n_levels, is_classification, 1 + k, keys)
            order = levels[:n_levels][np.argsort(keys, kind="mergesort")]
            gain, j = _scan_ordered_levels(
                hist,
                order,
                n_levels,
                total,
                parent_cost,
                criterion,
                is_classification,
                min_count,
                min_weight,
                left,
                right,
            )
            if gain > best[0]:
                best[0] = gain
                copy_flat(order, best_order)
                best_j = j
        for t in range(best_j):
            mask[best_order[t]] = 1
    for t in range(n_levels):
        if mask[levels[t]] == 0:
            mask[levels[t]] = 2
    best[3] = 1.0 if mask[n_rows - 1] == 1 else 0.0
    return n_levels


@njit(cache=True)
def scan_multiway(hist, n_rows, total, parent_cost, criterion, min_count, min_weight, best):
    """Gain of splitting a nominal feature into one branch per category (ID3, C4.5).

    ``hist[:n_rows - 1]`` are the categories and ``hist[n_rows - 1]`` the
    missing rows, which take no part (ID3 refuses them; C4.5 weighs them in
    elsewhere): gain = cost(known rows) - sum of the categories' costs. The
    split is admissible when at least two branches hold ``min_count`` rows and
    ``min_weight`` weight (C4.5's rule for its ``m``; with ``min_count=1`` it
    only asks for two non-empty branches).

    Writes ``best = [gain, -1, -1, 0]``; returns the number of present levels.
    """
    known = total - hist[n_rows - 1] if hist[n_rows - 1, 0] > 0.0 else total
    known_cost = weighted_impurity(known, criterion) if hist[n_rows - 1, 0] > 0.0 else parent_cost
    is_classification = criterion != SQUARED_ERROR
    children_cost = 0.0
    n_present = 0
    n_large = 0
    for i in range(n_rows - 1):
        if hist[i, 0] > 0.0:
            n_present += 1
            children_cost += weighted_impurity(hist[i], criterion)
            if _side_ok(hist[i], is_classification, min_count, min_weight):
                n_large += 1
    best[0] = known_cost - children_cost if n_large >= 2 else -np.inf
    best[1] = -1.0
    best[2] = -1.0
    best[3] = 0.0
    return n_present
