"""Split search for criteria that are not sums over rows: absolute error and Huber.

The cost of a set of rows is ``min_c sum_i w_i L(y_i - c)``: ``L(r) = |r|``
(absolute error; least absolute deviation, Breiman et al. 1984, ch. 8) or
Huber's loss (Huber 1964)::

    rho_delta(r) = r**2 / 2                   if |r| <= delta
                 = delta * (|r| - delta / 2)  otherwise

These costs cannot be read from per-code histograms, so a node is searched on
its rows directly. The node's targets are ranked once (``y`` sorted, ties in
row order); a binary indexed (Fenwick) tree over these ranks holds, per rank,
the weight, ``w y`` and ``w y**2`` of the rows inserted so far. Inserting the
rows of a feature in code order gives every prefix's cost in ``O(log n)``
(absolute error) or at most ``O(log**2 n)`` (Huber) per prefix, so a feature
costs ``O(n log n)`` per node (Huber: ``O(n log**2 n)`` at worst; its search
starts from the previous prefix's answer, which is usually close), never an
O(n**2) scan. Rows are ordered by code with a counting sort when the feature
has at most ``COUNTING_SORT_RATIO`` codes per node row, else by a sort.

Locations
    *Weighted median* (absolute error): over the rows of positive weight in
    increasing ``y``, the first ``y`` whose cumulative weight reaches half the
    total; when the cumulative weight there equals half exactly, the average
    of that ``y`` and the next one. This is scikit-learn's leaf value for
    ``DecisionTreeRegressor(criterion="absolute_error")``.
    *Huber location*: the minimiser of ``sum_i w_i rho_delta(y_i - c)``. Its
    derivative is ``-g(c)`` with ``g(c) = sum_i w_i clip(y_i - c, -delta,
    delta)``, non-increasing and linear between the breakpoints
    ``y_i +- delta``; a binary search over the breakpoints finds the piece
    where ``g`` changes sign and the root there. Where ``g`` is zero on a
    whole interval (the minimiser is not unique) the midpoint of that
    interval is taken, as the median does.

Numerical note
    Sums are kept around a centre (the node's middle target), so large
    target offsets do not cost precision. Costs read from the Fenwick sums
    agree with a direct sum to rounding.

Tie rule (as :func:`treelearn.splitting._kernels.find_best_split`)
    Higher gain; then the lower feature index; then the lower threshold; then
    missing values sent right before left; the "every known value left,
    missing right" candidate comes last; nominal features keep the first best
    prefix.

References
----------
Breiman, Friedman, Olshen & Stone (1984), *Classification and Regression
Trees*, ch. 8.11 (least absolute deviation regression).
Huber (1964), "Robust estimation of a location parameter", *Ann. Math.
Statist.* 35(1).
"""

import numpy as np
from numba import njit

from treelearn.criteria._kernels import HUBER
from treelearn.splitting._cut_kernels import (
    NUMERIC,
    OUT_FEATURE,
    OUT_GAIN,
    keep_if_better,
    keep_split_if_better,
)

#: Rows are ordered by code with a counting sort when a feature has at most
#: this many codes (missing included) per node row; otherwise by a sort.
COUNTING_SORT_RATIO = 4

#: The hint of a Huber search without a previous answer (an int64, not the literal -1,
#: for which numba would compile the search once more).
NO_HINT = np.int64(-1)

#: :func:`_pass_costs`' ``forward`` and ``pre``, as bools rather than literals (each
#: combination of literals would be a compilation of its own).
IN_ORDER, REVERSED = np.bool_(True), np.bool_(False)
MISSING_FIRST, KNOWN_ONLY = np.bool_(True), np.bool_(False)

# -- Fenwick tree over target ranks: tree[i, 0..2] = w, w y, w y**2 -----------


@njit(cache=True)
def _fen_add(tree, size, rank, w, y):
    i = rank + 1
    wy = w * y
    wy2 = wy * y
    while i <= size:
        tree[i, 0] += w
        tree[i, 1] += wy
        tree[i, 2] += wy2
        i += i & (-i)


@njit(cache=True)
def _fen_prefix(tree, count):
    """Sums of ``w, w y, w y**2`` over the ranks ``< count``."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    i = count
    while i > 0:
        s0 += tree[i, 0]
        s1 += tree[i, 1]
        s2 += tree[i, 2]
        i &= i - 1
    return s0, s1, s2


@njit(cache=True)
def _top_bit(size):
    top = 1
    while top * 2 <= size:
        top *= 2
    return top


# -- absolute error -------------------------------------------------------------


@njit(cache=True)
def _median_search(tree, size, total_w, total_wy, ys):
    """Weighted median of the rows in ``tree`` and their absolute-error cost.

    Returns ``(prev, cur, cost)``: the median is ``ys[cur]`` when ``prev ==
    cur``, else ``(ys[prev] + ys[cur]) / 2`` (cumulative weight exactly half
    at ``prev``). ``cost = sum w |y - m|`` by the pinball identity
    ``(Wy_right - m W_right) + (m W_left - Wy_left)``, left = ranks < cur.
    """
    half = 0.5 * total_w
    top = _top_bit(size)
    cur = 0
    cw = 0.0
    cwy = 0.0
    bit = top
    while bit > 0:
        nxt = cur + bit
        if nxt <= size and cw + tree[nxt, 0] <= half:
            cur = nxt
            cw += tree[nxt, 0]
            cwy += tree[nxt, 1]
        bit >>= 1
    if cur >= size:
        cur = size - 1
    prev = cur
    if cw == half:
        prev = 0
        pw = 0.0
        bit = top
        while bit > 0:
            nxt = prev + bit
            if nxt <= size and pw + tree[nxt, 0] < half:
                prev = nxt
                pw += tree[nxt, 0]
            bit >>= 1
        if prev > cur:
            prev = cur
    m = ys[cur] if prev == cur else 0.5 * (ys[prev] + ys[cur])
    cost = (total_wy - cwy) - m * (total_w - cw) + (m * cw - cwy)
    return prev, cur, cost if cost > 0.0 else 0.0


# -- Huber ----------------------------------------------------------------------


@njit(cache=True)
def _breakpoints(ys, delta, bp, n_plus, n_minus):
    """Merge ``ys - delta`` and ``ys + delta`` (sorted) into ``bp``.

    ``n_minus[k]`` / ``n_plus[k]`` count the ``-delta`` / ``+delta``
    breakpoints among ``bp[:k+1]``. On ``(bp[k], bp[k+1])`` the ranks
    ``< n_plus[k]`` lie below ``c - delta``, the ranks ``>= n_minus[k]`` above
    ``c + delta``, and the ranks between inside the quadratic zone.
    """
    m = ys.shape[0]
    i = 0
    j = 0
    for k in range(2 * m):
        if j >= m or (i < m and ys[i] - delta <= ys[j] + delta):
            bp[k] = ys[i] - delta
            i += 1
        else:
            bp[k] = ys[j] + delta
            j += 1
        n_minus[k] = i
        n_plus[k] = j


@njit(cache=True)
def _huber_g(tree, k, bp, n_plus, n_minus, delta, total_w):
    """``g(bp[k]) = sum w clip(y - c, -delta, delta)``.

    The row whose breakpoint ``bp[k]`` is counts as outside the quadratic zone
    (it contributes ``+-delta w`` exactly), so a zero plateau of ``g`` between
    two breakpoints is exactly zero at both ends.
    """
    hi_start = n_minus[k]
    if k == 0 or n_minus[k] != n_minus[k - 1]:
        hi_start -= 1
    w_a, wy_a, _ = _fen_prefix(tree, n_plus[k])
    w_b, wy_b, _ = _fen_prefix(tree, hi_start)
    return (wy_b - wy_a) - bp[k] * (w_b - w_a) + delta * ((total_w - w_b) - w_a)


@njit(cache=True)
def _huber_bracket(tree, bp, n_plus, n_minus, delta, total_w, hint):
    """``lo`` with ``g(bp[lo]) > 0 >= g(bp[lo + 1])``.

    ``g(bp[0]) = delta W > 0`` and ``g(bp[-1]) = -delta W < 0``. With a
    ``hint`` (the previous answer while rows are being added) the search
    gallops from it: ``O(log d)`` evaluations for a move of ``d`` breakpoints;
    otherwise a plain binary search.
    """
    last = bp.shape[0] - 1
    lo = 0
    hi = last
    if 0 < hint < last:
        step = 1
        if _huber_g(tree, hint, bp, n_plus, n_minus, delta, total_w) > 0.0:
            lo = hint
            while (
                lo + step < last
                and _huber_g(tree, lo + step, bp, n_plus, n_minus, delta, total_w) > 0.0
            ):
                lo += step
                step *= 2
            hi = min(lo + step, last)
        else:
            hi = hint
            while (
                hi - step > 0
                and _huber_g(tree, hi - step, bp, n_plus, n_minus, delta, total_w) <= 0.0
            ):
                hi -= step
                step *= 2
            lo = max(hi - step, 0)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _huber_g(tree, mid, bp, n_plus, n_minus, delta, total_w) > 0.0:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True)
def _huber_search(tree, total_w, total_wy, bp, n_plus, n_minus, delta, hint):
    """Huber location ``c`` of the rows in ``tree``, their cost ``sum w
    rho_delta(y - c)``, and the piece ``lo`` found (the next search's hint).

    On the piece ``(bp[lo], bp[lo + 1])`` where ``g`` changes sign, ``g`` is
    linear and ``c`` is its root; when ``g`` is zero on a plateau ``[a, b]``
    (every point of it a minimiser), ``c = (a + b) / 2``.
    """
    lo = _huber_bracket(tree, bp, n_plus, n_minus, delta, total_w, hint)
    hi = lo + 1
    w_a, wy_a, wy2_a = _fen_prefix(tree, n_plus[lo])
    w_b, wy_b, wy2_b = _fen_prefix(tree, n_minus[lo])
    sw_in = w_b - w_a
    swy_in = wy_b - wy_a
    w_hi = total_w - w_b
    g_hi = _huber_g(tree, hi, bp, n_plus, n_minus, delta, total_w)
    if g_hi < 0.0 and sw_in > 0.0:
        c = (swy_in + delta * (w_hi - w_a)) / sw_in
        c = min(max(c, bp[lo]), bp[hi])
        x = c
    else:
        # g reaches 0 at bp[hi] and may stay 0 (flat cost) up to bp[end].
        end = hi
        top = bp.shape[0] - 1
        while top - end > 1:
            mid = (end + top) // 2
            if _huber_g(tree, mid, bp, n_plus, n_minus, delta, total_w) >= 0.0:
                end = mid
            else:
                top = mid
        x = bp[hi]
        c = 0.5 * (bp[hi] + bp[end]) if g_hi == 0.0 else x
    quad = 0.5 * ((wy2_b - wy2_a) - 2.0 * x * swy_in + x * x * sw_in)
    lin = delta * (((total_wy - wy_b) - x * w_hi) + (x * w_a - wy_a))
    cost = quad + lin - 0.5 * delta * delta * (w_hi + w_a)
    return c, cost if cost > 0.0 else 0.0, lo


# -- a node ---------------------------------------------------------------------


@njit(cache=True)
def _prepare_node(y_value, weight, rows, start, end, criterion, delta):
    """Rank the node's targets. Returns ``(ys_raw, ctx, total_w)`` with
    ``ctx = (ys, bp, n_plus, n_minus, rank, w, order, center)``: the sorted
    targets minus ``center``, Huber breakpoints (empty otherwise), the rank and
    weight of each node position, and the positions in rank order."""
    n = end - start
    yv = np.empty(n)
    w = np.empty(n)
    total_w = 0.0
    for i in range(n):
        yv[i] = y_value[rows[start + i]]
        w[i] = weight[rows[start + i]]
        total_w += w[i]
    order = np.argsort(yv, kind="mergesort")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    ys_raw = yv[order]
    center = ys_raw[n // 2] if n > 0 else 0.0
    ys = ys_raw - center
    m = 2 * n if criterion == HUBER else 0
    bp = np.empty(m)
    n_plus = np.empty(m, dtype=np.int64)
    n_minus = np.empty(m, dtype=np.int64)
    if criterion == HUBER:
        _breakpoints(ys, delta, bp, n_plus, n_minus)
    return ys_raw, (ys, bp, n_plus, n_minus, rank, w, order, center), total_w


@njit(cache=True)
def node_location_cost(y_value, weight, rows, start, end, criterion, huber_delta):
    """Location and weighted cost of the node ``rows[start:end]``.

    Parameters
    ----------
    y_value, weight : ndarray of float64
        Targets and weights of all training rows.
    rows : ndarray of intp
        Row indices; the node holds ``rows[start:end]``.
    criterion : int
        ``ABSOLUTE_ERROR`` or ``HUBER`` (:mod:`treelearn.criteria._kernels`).
    huber_delta : float
        Huber's ``delta`` (ignored for absolute error).

    Returns
    -------
    location : float
        Absolute error: the weighted median as defined in the module docstring
        (scikit-learn's leaf value). Huber: the exact minimiser ``c`` of
        ``sum_i w_i rho_delta(y_i - c)`` (midpoint of the minimisers when not
        unique).
    weighted_cost : float
        ``sum_i w_i |y_i - median|`` or ``sum_i w_i rho_delta(y_i - c)``, summed
        directly; the impurity is ``weighted_cost / sum_i w_i``.
    """
    n = end - start
    if n == 0:
        return 0.0, 0.0
    ys_raw, ctx, total_w = _prepare_node(y_value, weight, rows, start, end, criterion, huber_delta)
    ys, bp, n_plus, n_minus, rank, w, _, center = ctx
    tree = np.zeros((n + 1, 3))
    total_wy = 0.0
    for i in range(n):
        _fen_add(tree, n, rank[i], w[i], ys[rank[i]])
        total_wy += w[i] * ys[rank[i]]
    if total_w <= 0.0:
        return ys_raw[n // 2], 0.0
    cost = 0.0
    if criterion == HUBER:
        c = _huber_search(tree, total_w, total_wy, bp, n_plus, n_minus, huber_delta, NO_HINT)[0]
        for i in range(n):
            r = abs(ys[rank[i]] - c)
            if r <= huber_delta:
                cost += w[i] * 0.5 * r * r
            else:
                cost += w[i] * huber_delta * (r - 0.5 * huber_delta)
        return c + center, cost
    prev, cur, _ = _median_search(tree, n, total_w, total_wy, ys)
    location = ys_raw[cur] if prev == cur else (ys_raw[prev] + ys_raw[cur]) / 2
    for i in range(n):
        cost += w[i] * abs(ys_raw[rank[i]] - location)
    return location, cost


# -- split search -------------------------------------------------------------
#
# A node's search state travels as one tuple,
# ``node = (ctx, tree, criterion, delta, min_count, min_weight, parent_cost, total_w)``,
# and the per-feature buffers as ``iwork`` (int64 rows: keys, perm, bounds,
# group codes, perm2, bounds2) and ``fwork`` (float rows: group weights, then
# four cost arrays).


@njit(cache=True)
def _pass_costs(perm, bounds, n_groups, forward, pre, node, costs):
    """Costs of a growing row set: the rows ``perm[bounds[n_groups]:]`` first
    when ``pre``, then the groups ``perm[bounds[g]:bounds[g+1]]`` in increasing
    (``forward``) or decreasing order. ``costs[g]`` is the cost once group ``g``
    is in (computed only when the set has at least ``min_count`` rows). Returns
    the cost of the rows inserted first (0 without ``pre``)."""
    ctx, tree, crit, delta, min_count = node[0], node[1], node[2], node[3], node[4]
    ys, bp, n_plus, n_minus, rank, w, _, _ = ctx
    size = ys.shape[0]
    tree[: size + 1, :] = 0.0
    total_w = 0.0
    total_wy = 0.0
    count = 0
    hint = NO_HINT
    pre_cost = 0.0
    for step in range(-1, n_groups):
        g = step if forward or step < 0 else n_groups - 1 - step
        if step < 0 and not pre:
            continue
        lo = bounds[n_groups] if step < 0 else bounds[g]
        hi = size if step < 0 else bounds[g + 1]
        for p in range(lo, hi):
            i = perm[p]
            _fen_add(tree, size, rank[i], w[i], ys[rank[i]])
            total_w += w[i]
            total_wy += w[i] * ys[rank[i]]
        count += hi - lo
        if count < min_count and step >= 0:
            continue
        cost = 0.0
        if total_w > 0.0 and count > 0:
            if crit == HUBER:
                _, cost, hint = _huber_search(
                    tree, total_w, total_wy, bp, n_plus, n_minus, delta, hint
                )
            else:
                cost = _median_search(tree, size, total_w, total_wy, ys)[2]
        if step < 0:
            pre_cost = cost
        else:
            costs[g] = cost
    return pre_cost


@njit(cache=True)
def _sort_positions(keys, n_keys, source, perm):
    """Node positions sorted by ``keys`` (values ``0..n_keys-1``) into ``perm``.

    Counting sort, stable in the order of ``source``, when ``n_keys <=
    COUNTING_SORT_RATIO * n``; otherwise a (deterministic) sort."""
    n = keys.shape[0]
    if n_keys > COUNTING_SORT_RATIO * n:
        perm[:n] = np.argsort(keys)
        return
    counts = np.zeros(n_keys + 1, dtype=np.int64)
    for i in range(n):
        counts[keys[i] + 1] += 1
    for k in range(n_keys):
        counts[k + 1] += counts[k]
    for j in range(n):
        i = source[j]
        perm[counts[keys[i]]] = i
        counts[keys[i]] += 1


@njit(cache=True)
def _cut_groups(keys, perm, bounds, group_key, group_w, w):
    """Cut ``perm`` (sorted by ``keys``) into runs of equal key:
    ``perm[bounds[g]:bounds[g+1]]``, key ``group_key[g]``, weight
    ``group_w[g]``. Returns the number of groups."""
    n = keys.shape[0]
    n_groups = 0
    for j in range(n):
        key = keys[perm[j]]
        if j == 0 or key != group_key[n_groups - 1]:
            bounds[n_groups] = j
            group_key[n_groups] = key
            group_w[n_groups] = 0.0
            n_groups += 1
        group_w[n_groups - 1] += w[perm[j]]
    bounds[n_groups] = n
    return n_groups


@njit(cache=True)
def _set_best(best, gain, left_code, right_code, missing_left):
    best[0] = gain
    best[1] = left_code
    best[2] = right_code
    best[3] = missing_left


@njit(cache=True)
def _sides_ok(node, left_count, left_w, n, total_w):
    """Both children of a split hold ``min_count`` rows and ``min_weight`` weight."""
    min_count, min_weight = node[4], node[5]
    right_count = n - left_count
    right_w = total_w - left_w
    return (
        left_count >= min_count
        and right_count >= min_count
        and left_w >= min_weight
        and right_w >= min_weight
    )


@njit(cache=True)
def _scan_numeric(codes_f, rows, start, missing_code, node, iwork, fwork, best):
    """Best ``code <= t`` split of a numeric feature; candidates and tie rule as
    :func:`treelearn.splitting._kernels.scan_threshold`. Writes ``best = [gain,
    left_code, right_code, missing_left]``; returns the number of distinct
    present values (missing counted as one)."""
    ctx = node[0]
    w = ctx[5]
    n = w.shape[0]
    keys, perm, bounds = iwork[0, :n], iwork[1, :n], iwork[2]
    for i in range(n):
        keys[i] = codes_f[rows[start + i]]
    _sort_positions(keys, missing_code + 1, ctx[6], perm)
    n_groups = _cut_groups(keys, perm, bounds, iwork[3], fwork[0], w)
    best[0] = -np.inf
    if n_groups < 2:
        return n_groups
    has_missing = iwork[3, n_groups - 1] == missing_code
    n_known = n_groups - 1 if has_missing else n_groups
    _pass_costs(perm, bounds, n_known, IN_ORDER, KNOWN_ONLY, node, fwork[1])
    _pass_costs(perm, bounds, n_known, REVERSED, KNOWN_ONLY, node, fwork[2])
    miss_cost = 0.0
    if has_missing:
        _pass_costs(perm, bounds, n_known, IN_ORDER, MISSING_FIRST, node, fwork[3])
        miss_cost = _pass_costs(perm, bounds, n_known, REVERSED, MISSING_FIRST, node, fwork[4])
    _best_threshold(node, n, n_known, has_missing, miss_cost, iwork, fwork, best)
    return n_groups


@njit(cache=True)
def _best_threshold(node, n, n_known_groups, has_missing, miss_cost, iwork, fwork, best):
    """Scan the threshold candidates of :func:`_scan_numeric` in tie-rule order:
    thresholds upwards, missing right then left, then all known left."""
    parent_cost, total_w = node[6], node[7]
    bounds, gkey = iwork[2], iwork[3]
    gw, fwd, bwd, fwdm, bwdm = fwork[0], fwork[1], fwork[2], fwork[3], fwork[4]
    n_known = bounds[n_known_groups]
    n_miss = n - n_known
    miss_w = gw[n_known_groups] if has_missing else 0.0
    right_costs = bwdm if has_missing else bwd
    lw = 0.0
    for g in range(n_known_groups - 1):
        lw += gw[g]
        lc = bounds[g + 1]
        if _sides_ok(node, lc, lw, n, total_w):
            gain = parent_cost - fwd[g] - right_costs[g + 1]
            if gain > best[0]:
                _set_best(best, gain, gkey[g], gkey[g + 1], 0.0)
        if has_missing and _sides_ok(node, lc + n_miss, lw + miss_w, n, total_w):
            gain = parent_cost - fwdm[g] - bwd[g + 1]
            if gain > best[0]:
                _set_best(best, gain, gkey[g], gkey[g + 1], 1.0)
    lw += gw[n_known_groups - 1]
    last_ok = n_known >= node[4] and lw >= node[5] and n_miss >= node[4] and miss_w >= node[5]
    if has_missing and last_ok:
        gain = parent_cost - fwd[n_known_groups - 1] - miss_cost
        if gain > best[0]:
            _set_best(best, gain, gkey[n_known_groups - 1], -1.0, 0.0)


@njit(cache=True)
def _level_locations(perm, bounds, n_levels, node):
    """Location (median / Huber) of each level's rows ``perm[bounds[g]:bounds[g+1]]``,
    which are in increasing target order."""
    ctx, tree, crit, delta = node[0], node[1], node[2], node[3]
    ys, rank, w = ctx[0], ctx[4], ctx[5]
    locations = np.empty(n_levels)
    for g in range(n_levels):
        lo = bounds[g]
        m = bounds[g + 1] - lo
        sub = np.empty(m)
        tree[: m + 1, :] = 0.0
        total_w = 0.0
        total_wy = 0.0
        for t in range(m):
            i = perm[lo + t]
            sub[t] = ys[rank[i]]
            _fen_add(tree, m, t, w[i], sub[t])
            total_w += w[i]
            total_wy += w[i] * sub[t]
        if total_w <= 0.0:
            locations[g] = sub[m // 2]
        elif crit == HUBER:
            bp = np.empty(2 * m)
            n_plus = np.empty(2 * m, dtype=np.int64)
            n_minus = np.empty(2 * m, dtype=np.int64)
            _breakpoints(sub, delta, bp, n_plus, n_minus)
            locations[g] = _huber_search(
                tree, total_w, total_wy, bp, n_plus, n_minus, delta, NO_HINT
            )[0]
        else:
            prev, cur, _ = _median_search(tree, m, total_w, total_wy, sub)
            locations[g] = sub[cur] if prev == cur else 0.5 * (sub[prev] + sub[cur])
    return locations


@njit(cache=True)
def _levels_by_code(codes_f, rows, start, n_bins, ctx, iwork, fwork):
    """Group the node's positions by level (code), each level's rows in target
    order: ``perm = iwork[1]``, ``bounds = iwork[2]``, codes ``iwork[3]``,
    weights ``fwork[0]``. Returns the number of levels."""
    rank, w, order = ctx[4], ctx[5], ctx[6]
    n = w.shape[0]
    keys, perm = iwork[0, :n], iwork[1, :n]
    for i in range(n):
        keys[i] = codes_f[rows[start + i]]
    if n_bins <= COUNTING_SORT_RATIO * n:
        _sort_positions(keys, n_bins, order, perm)
    else:
        composite = np.empty(n, dtype=np.int64)
        for i in range(n):
            composite[i] = keys[i] * n + rank[i]
        perm[:] = np.argsort(composite)
    return _cut_groups(keys, perm, iwork[2], iwork[3], fwork[0], w)


@njit(cache=True)
def _scan_nominal(codes_f, rows, start, n_bins, node, iwork, fwork, best, mask):
    """Best binary subset split of a nominal feature (a heuristic).

    The levels present at the node (categories, and the missing level) are
    sorted by their own location (weighted median / Huber location; ties by
    code), and the best prefix of that order goes left. For squared error
    this ordering is exact (Fisher 1958; Breiman et al. 1984, thm. 4.5); for
    absolute error and Huber it is not guaranteed to find the best subset.
    Writes ``best = [gain, -1, -1, missing_left]`` and ``mask[code]`` (1
    left, 2 right, 0 absent), as :func:`treelearn.splitting._subset_kernels.scan_subset`;
    returns the number of present levels.
    """
    n = node[0][5].shape[0]
    n_levels = _levels_by_code(codes_f, rows, start, n_bins, node[0], iwork, fwork)
    perm, bounds, gkey, gw = iwork[1], iwork[2], iwork[3], fwork[0]
    _set_best(best, -np.inf, -1.0, -1.0, 0.0)
    mask[:n_bins] = 0
    if n_levels < 2:
        return n_levels
    order = np.argsort(_level_locations(perm, bounds, n_levels, node), kind="mergesort")
    perm2, bounds2 = iwork[4], iwork[5]
    pos = 0
    for t in range(n_levels):
        bounds2[t] = pos
        for p in range(bounds[order[t]], bounds[order[t] + 1]):
            perm2[pos] = perm[p]
            pos += 1
    bounds2[n_levels] = n
    _pass_costs(perm2, bounds2, n_levels, IN_ORDER, KNOWN_ONLY, node, fwork[1])
    _pass_costs(perm2, bounds2, n_levels, REVERSED, KNOWN_ONLY, node, fwork[2])
    lw = 0.0
    best_j = 0
    for j in range(1, n_levels):
        lw += gw[order[j - 1]]
        if _sides_ok(node, bounds2[j], lw, n, node[7]):
            gain = node[6] - fwork[1, j - 1] - fwork[2, j]
            if gain > best[0]:
                best[0] = gain
                best_j = j
    for t in range(best_j):
        mask[gkey[order[t]]] = 1
    for t in range(n_levels):
        if mask[gkey[t]] == 0:
            mask[gkey[t]] = 2
    best[3] = 1.0 if mask[n_bins - 1] == 1 else 0.0
    return n_levels


@njit(cache=True)
def _node_cost(ctx, tree, crit, delta):
    """Cost of all the node's rows from the Fenwick sums (the parent cost of a split)."""
    ys, bp, n_plus, n_minus, rank, w, _, _ = ctx
    n = ys.shape[0]
    tree[: n + 1, :] = 0.0
    total_w = 0.0
    total_wy = 0.0
    for i in range(n):
        _fen_add(tree, n, rank[i], w[i], ys[rank[i]])
        total_w += w[i]
        total_wy += w[i] * ys[rank[i]]
    if total_w <= 0.0:
        return 0.0
    if crit == HUBER:
        return _huber_search(tree, total_w, total_wy, bp, n_plus, n_minus, delta, NO_HINT)[1]
    return _median_search(tree, n, total_w, total_wy, ys)[2]


@njit(cache=True)
def find_best_split_robust(
    feature_codes,
    rows,
    start,
    end,
    y_value,
    weight,
    criterion,
    huber_delta,
    feature_order,
    max_features,
    n_codes,
    is_nominal,
    min_count,
    min_weight,
    out,
    out_mask,
):
    """Best split of the node ``rows[start:end]`` for absolute error or Huber.

    Same contract as :func:`treelearn.splitting._kernels.find_best_split`:
    features are visited in ``feature_order`` until ``max_features`` features
    that are not constant at the node have been evaluated (constant ones are
    skipped without being counted); each child needs ``min_count`` rows and
    ``min_weight`` weight. The gain of a split is
    ``cost(node) - cost(left) - cost(right)`` with ``cost(S) = min_c sum_{i in S}
    w_i L(y_i - c)`` (module docstring). Numeric features: every threshold
    between neighbouring present codes, missing values right then left, then
    "every known value left, missing right"; nominal features: the best
    prefix of the levels sorted by location (:func:`_scan_nominal`).

    Writes the ``OUT_*`` slots of ``out`` (gain -inf when no split satisfies
    the constraints) and, for a subset split, ``out_mask[:n_codes[f] + 1]``
    (1 left, 2 right, 0 absent at the node). ``out_mask`` None where no feature is
    nominal: their search is then left out of the compilation.
    """
    out[OUT_GAIN] = -np.inf
    out[OUT_FEATURE] = -1.0
    n = end - start
    if n < 2:
        return
    _, ctx, total_w = _prepare_node(y_value, weight, rows, start, end, criterion, huber_delta)
    tree = np.zeros((n + 1, 3))
    parent_cost = _node_cost(ctx, tree, criterion, huber_delta)
    node = (ctx, tree, criterion, huber_delta, min_count, min_weight, parent_cost, total_w)
    iwork = np.empty((6, n + 1), dtype=np.int64)
    fwork = np.zeros((5, n + 1))
    best = np.empty(4)
    mask_size = 1
    for f in range(n_codes.shape[0]):
        if is_nominal[f]:
            mask_size = max(mask_size, n_codes[f] + 1)
    mask = np.zeros(mask_size, dtype=np.uint8)
    n_visited = 0
    for j in range(feature_order.shape[0]):
        if n_visited >= max_features:
            break
        f = feature_order[j]
        n_bins = n_codes[f] + 1
        if is_nominal[f]:
            if out_mask is None:
                raise AssertionError("find_best_split_robust: a nominal feature, no out_mask")
            n_present = _scan_nominal(
                feature_codes[f], rows, start, n_bins, node, iwork, fwork, best, mask
            )
        else:
            n_present = _scan_numeric(
                feature_codes[f], rows, start, n_codes[f], node, iwork, fwork, best
            )
        if n_present < 2:
            continue
        n_visited += 1
        if out_mask is None:
            keep_split_if_better(out, f, best, NUMERIC)
        else:
            keep_if_better(out, out_mask, f, best, is_nominal[f], mask, n_bins)
