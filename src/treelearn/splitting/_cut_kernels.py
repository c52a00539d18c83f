"""Cut bookkeeping shared by every split scan.

The slots of a search's ``out`` array, the typed constants the scans pass on,
the one step every candidate cut goes through (the leaf constraints on both
sides, the gain, kept when higher: :func:`_try_cut`, :func:`_keep_cut`), its
branch-free form for the three-pass scans (:func:`_allowed_gain`,
:func:`keep_first_best_cut`, :func:`cuts_fit`), and the tie rule between
features (:func:`keep_if_better`). Every scan module imports them, so they sit
below all of them. The tie rule, ``_nrt=False`` and inlining are described in
:mod:`treelearn.splitting._kernels`.
"""

import numpy as np
from numba import njit

from treelearn._copy_kernels import copy_flat
from treelearn.criteria._kernels import stats_weight, weighted_impurity

#: Slots of the ``out`` array of :func:`~treelearn.splitting._kernels.find_best_split`.
OUT_GAIN = 0
OUT_FEATURE = 1
OUT_LEFT_CODE = 2
OUT_RIGHT_CODE = 3
OUT_MISSING_LEFT = 4
OUT_IS_SUBSET = 5
N_OUT = 6

#: No code (a scan's previous code before the first, the right code of "missing
#: rows apart"), and ``is_nominal_f`` of :func:`keep_split_if_better` and
#: :func:`keep_if_better` where the caller knows it: typed values, not the literals
#: -1, False and True, for which numba would compile the kernels they are passed to
#: once more each (a variable that starts as a literal compiles its callee for the
#: literal too).
NO_CODE = np.int64(-1)
NUMERIC = np.bool_(False)
NOMINAL = np.bool_(True)


@njit(cache=True)
def _side_ok(stats, is_classification, min_count, min_weight):
    return stats[0] >= min_count and stats_weight(stats, is_classification) >= min_weight


@njit(cache=True)
def _split_gain(parent_cost, left, right, criterion):
    return parent_cost - weighted_impurity(left, criterion) - weighted_impurity(right, criterion)


@njit(cache=True)
def _keep_if_higher(best, gain, left_code, right_code, missing_left):
    """``best = [gain, left_code, right_code, missing_left]`` if ``gain`` beats ``best[0]``."""
    if gain > best[0]:
        best[0] = gain
        best[1] = left_code
        best[2] = right_code
        best[3] = missing_left


@njit(cache=True)
def _keep_cut(left, right, parent_cost, criterion, is_classification, min_count, min_weight,
              best, left_code, right_code, missing_left):  # fmt: skip
    """Keep the cut with sides ``left``/``right`` in ``best`` (``[gain, left_code,
    right_code, missing_left]``) when both sides satisfy the leaf constraints and
    its gain is higher: the one step every threshold candidate goes through."""
    if _side_ok(left, is_classification, min_count, min_weight) and _side_ok(
        right, is_classification, min_count, min_weight
    ):
        _keep_if_higher(best, _split_gain(parent_cost, left, right, criterion), left_code,
                        right_code, missing_left)  # fmt: skip


@njit(cache=True)
def _try_cut(prev, code, left, right, with_missing, missing, known, total, has_missing,
             parent_cost, criterion, is_classification, min_count, min_weight, best):  # fmt: skip
    """Try the cut between the present codes ``prev`` and ``code`` (``left``: the
    known rows up to ``prev``), missing rows right and then left; keeps the
    better in ``best`` (the threshold scans' step)."""
    n_channels = total.shape[0]
    for c in range(n_channels):
        right[c] = known[c] - left[c]
    _keep_cut(left, right, parent_cost, criterion, is_classification, min_count, min_weight,
              best, prev, code, 0.0)  # fmt: skip
    if has_missing:
        for c in range(n_channels):
            with_missing[c] = left[c] + missing[c]
            right[c] = total[c] - with_missing[c]
        _keep_cut(with_missing, right, parent_cost, criterion, is_classification, min_count,
                  min_weight, best, prev, code, 1.0)  # fmt: skip


@njit(cache=True)
def _try_missing_apart(prev, left, missing, has_missing, parent_cost, criterion,
                       is_classification, min_count, min_weight, best):  # fmt: skip
    """Try "every known value left (up to ``prev``), missing rows right"."""
    if has_missing and prev >= 0:
        _keep_cut(left, missing, parent_cost, criterion, is_classification, min_count,
                  min_weight, best, prev, NO_CODE, 0.0)  # fmt: skip


#: Rows of the three-pass scans' scratch (``cut_rows``): four sums at each cut, the
#: first its left rows
#: (:func:`~treelearn.splitting._value_scan_kernels.scan_sorted_values_by_cuts`,
#: :func:`~treelearn.splitting._gini_scan_kernels.scan_sorted_whole_gini_by_cuts`),
#: then each cut's gain.
N_CUT_ROWS = 5


@njit(cache=True, inline="always")
def _allowed_gain(parent_cost, cost_left, cost_right, n_left, w_left, n_right, w_right,
                  min_count, min_weight):  # fmt: skip
    """The gain of a cut of the three-pass scans, ``-inf`` where a side breaks the
    leaf constraints (:func:`_keep_cut`'s tests, as a selection: no branch)."""
    allowed = (
        (n_left >= min_count)
        & (w_left >= min_weight)
        & (n_right >= min_count)
        & (w_right >= min_weight)
    )
    gain = parent_cost - cost_left - cost_right
    return gain if allowed else -np.inf


@njit(cache=True, _nrt=False)
def _first_best_cut(cut_rows, n_cuts):
    """``(gain, rows left)`` of the first of the ``n_cuts`` cuts with the highest
    gain in ``cut_rows`` (:data:`N_CUT_ROWS`): its gain and its left side's row
    count (``cut_rows[0]``); ``(-inf, 0)`` when every gain is ``-inf``."""
    # In registers: the gains are read once, nothing is stored in the loop.
    best_gain = -np.inf
    best_cut = -1
    for c in range(n_cuts):
        gain = cut_rows[4, c]
        better = gain > best_gain
        best_gain = gain if better else best_gain
        best_cut = c if better else best_cut
    return best_gain, (np.int64(cut_rows[0, best_cut]) if best_cut >= 0 else np.int64(0))


@njit(cache=True, inline="always")
def keep_first_best_cut(cut_rows, n_cuts, keys, best):
    """``best`` of the first of the ``n_cuts`` cuts with the highest gain in
    ``cut_rows`` (:func:`_first_best_cut`) of a node's rows in code order (``keys``),
    missing rows right (none there); no cut when every gain is ``-inf``. A cut with
    ``k`` rows on its left lies between the codes ``keys[k - 1]`` and ``keys[k]``:
    the scans store no code per cut (a store, a conversion and an address a row
    fewer in their first pass). Inlined, so that it is not compiled for every dtype
    of ``keys``."""
    gain, rows_left = _first_best_cut(cut_rows, np.int64(n_cuts))
    best[0] = gain
    best[1] = keys[rows_left - 1] if rows_left > 0 else -1.0
    best[2] = keys[rows_left] if rows_left > 0 else -1.0
    best[3] = 0.0


@njit(cache=True, inline="always")
def cuts_fit(cut_rows, keys, m, missing_code):
    """Whether the three-pass scans
    (:func:`~treelearn.splitting._value_scan_kernels.scan_sorted_values_by_cuts`) take the
    node: two rows or more, room for them in ``cut_rows``, none missing (the
    rows in code order end with the known ones)."""
    return m >= 2 and cut_rows.shape[1] >= m and keys[m - 1] != missing_code


@njit(cache=True)
def keep_split_if_better(out, f, best, is_nominal_f):
    """The tie rule of :func:`keep_if_better` on ``out`` alone; True when kept."""
    gain = best[0]
    if gain > out[OUT_GAIN] or (gain == out[OUT_GAIN] and gain > -np.inf and f < out[OUT_FEATURE]):
        out[OUT_GAIN] = gain
        out[OUT_FEATURE] = f
        out[OUT_LEFT_CODE] = best[1]
        out[OUT_RIGHT_CODE] = best[2]
        out[OUT_MISSING_LEFT] = best[3]
        out[OUT_IS_SUBSET] = 1.0 if is_nominal_f else 0.0
        return True
    return False


@njit(cache=True)
def keep_if_better(out, out_mask, f, best, is_nominal_f, mask, n_bins):
    """Keep feature ``f``'s best split ``best`` in ``out`` if it wins under the tie
    rule (a higher gain, then the lower feature index); every split finder uses it."""
    if keep_split_if_better(out, f, best, is_nominal_f) and is_nominal_f:
        copy_flat(mask[:n_bins], out_mask[:n_bins])
