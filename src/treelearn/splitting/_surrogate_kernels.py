"""Surrogate-split kernels: Breiman's surrogates as rpart computes them.

With ``missing="surrogate"`` a node's primary split is chosen on the rows that
know its feature (:func:`treelearn.splitting._kernels.find_best_split` with
``skip_missing``). Then, over the node's rows, every other feature is searched
for the split that best *agrees* with the primary split's direction, and the
rows missing the primary feature are routed by those surrogates, in order, and
at last by the majority direction. This module holds the two kernels of that
step; :mod:`treelearn.splitting.surrogate` drives them. The rules below follow
rpart 4.1 (Therneau & Atkinson, "An Introduction to Recursive Partitioning
Using the RPART Routines", section 5; rpart's ``surrogate.c``,
``choose_surg.c`` and ``nodesplit.c``), with ``surrogatestyle = 0``.

Directions
    A node row's *direction* is the child the primary split sends it to:
    ``SIDE_LEFT`` (1), ``SIDE_RIGHT`` (2), or ``SIDE_NONE`` (0) when the row
    misses the primary feature. ``t_left`` and ``t_right`` are the weights of
    the rows sent left and right.

Numeric surrogate (rpart's ``choose_surg``, continuous case)
    Over the node's rows that know the surrogate feature, in increasing code
    order, every boundary between two neighbouring codes present at the node
    is a candidate ``x <= t``, in both orientations: the lower side sent right
    (tried first) or left. The agreement of a candidate is the weight of the
    rows with a known direction that it sends the same way as the primary. A
    candidate must send at least 2 rows of positive weight with a known
    direction to each side, and must beat the best earlier candidate strictly,
    starting from ``max(weight left, weight right)`` over the rows that know
    both features (a candidate no better than that is no split). Codes held
    only by rows missing the primary count as boundaries, as in rpart, so the
    threshold is the midpoint of the two neighbouring values present at the
    node.

Nominal surrogate (rpart's ``choose_surg``, categorical case)
    Each category present among the rows with a known direction goes where
    most of its weight goes; a tie goes to the side that has more weight over
    all those rows (right on a tie there too). A category with no such row
    gets no direction (``0`` in the mask): a row with it tries the next
    surrogate. The surrogate must send at least 2 rows of positive weight with
    a known direction each way. rpart's stated rule is the same ("two or more
    cases with non-zero weight each way", NEWS of rpart 4.1-0), but its code
    counts the rows that agree and the rows that disagree instead, so rpart
    4.1 discards a nominal surrogate that agrees perfectly; treelearn keeps it.

Agreement and adjusted agreement (``surrogatestyle = 0``)
    ``agreement = agree / (t_left + t_right)``: rows missing the surrogate
    count as disagreeing. ``majority = max(t_left, t_right) / (t_left +
    t_right)`` is the agreement of the blind rule "go with the majority";
    ``adjusted = (agreement - majority) / (1 - majority)``. A surrogate is kept
    only if ``adjusted > 1e-10`` (rpart's bound for rounding error).

Ranking
    Kept surrogates are ranked by agreement (higher first), ties by adjusted
    agreement, then by lower feature index; at most ``max_surrogates`` are
    kept. With one denominator per node, equal agreements have equal adjusted
    agreements, so this is rpart's order (``insert_split`` keeps the earlier
    variable first among equals).
"""

import numpy as np
from numba import njit

SIDE_NONE = 0
SIDE_LEFT = 1
SIDE_RIGHT = 2
#: A surrogate must beat the majority rule by more than this adjusted agreement.
MIN_ADJUSTED = 1e-10
#: At least this many rows (of positive weight, with a known direction) each way.
MIN_ROWS_EACH_WAY = 2


@njit(cache=True, inline="always")
def _primary_side(code, missing_code, is_subset, left_code, mask):
    if code == missing_code:
        return SIDE_NONE
    if is_subset:
        return mask[code]
    return SIDE_LEFT if code <= left_code else SIDE_RIGHT


@njit(cache=True)
def node_sides(codes_f, rows, start, end, missing_code, is_subset, left_code, mask, weight, side):
    """Direction of every node row under the primary split, into ``side[row]``.

    The primary sends code ``c`` left iff ``c <= left_code`` (numeric) or
    ``mask[c] == 1`` (nominal; 2 right, 0 a category absent at the node).
    Returns ``(t_left, t_right)``, the weights sent left and right.
    """
    t_left = 0.0
    t_right = 0.0
    for i in range(start, end):
        r = rows[i]
        s = _primary_side(codes_f[r], missing_code, is_subset, left_code, mask)
        side[r] = s
        if s == SIDE_LEFT:
            t_left += weight[r]
        elif s == SIDE_RIGHT:
            t_right += weight[r]
    return t_left, t_right


@njit(cache=True, inline="always")
def _add_to_table(w, c, k, s, weight_r):
    """Row of direction ``s`` and weight ``weight_r`` into table entry ``k``."""
    c[k, 2] += 1
    if s == SIDE_LEFT:
        w[k, 0] += weight_r
        if weight_r > 0.0:
            c[k, 0] += 1
    elif s == SIDE_RIGHT:
        w[k, 1] += weight_r
        if weight_r > 0.0:
            c[k, 1] += 1


@njit(cache=True)
def _table_from_dense(
    codes_f, rows, start, end, n_known, side, weight, dense_w, dense_c, t_code, t_w, t_c
):
    """Code table of a numeric feature by a dense count over its ``n_known`` codes.

    Per distinct known code at the node, in increasing order: the code, the
    weights the primary sends left/right, the counts of those rows of positive
    weight, and the count of all its rows. Returns the number of codes.
    """
    dense_w[:n_known, :] = 0.0
    dense_c[:n_known, :] = 0
    for i in range(start, end):
        r = rows[i]
        code = codes_f[r]
        if code < n_known:
            _add_to_table(dense_w, dense_c, code, side[r], weight[r])
    m = 0
    for code in range(n_known):
        if dense_c[code, 2] > 0:
            t_code[m] = code
            t_w[m, :] = dense_w[code, :]
            t_c[m, :] = dense_c[code, :]
            m += 1
    return m


@njit(cache=True)
def _table_from_ordered(codes_f, ordered, n_known, side, weight, t_code, t_w, t_c):
    """The code table of :func:`_table_from_dense` from the node's rows in code order."""
    m = 0
    current = -1
    for i in range(ordered.shape[0]):
        r = ordered[i]
        code = codes_f[r]
        if code >= n_known:
            break  # the missing code is the largest: only missing rows remain
        if code != current:
            t_code[m] = code
            t_w[m, :] = 0.0
            t_c[m, :] = 0
            current = code
            m += 1
        _add_to_table(t_w, t_c, m - 1, side[r], weight[r])
    return m


@njit(cache=True)
def _scan_numeric(t_w, t_c, m, result):
    """Best ``code <= t`` surrogate over a code table (see the module docstring).

    Writes ``result = [agree, k, reverse]``: the lower side is table entries
    ``:k``, sent right when ``reverse``. Returns False when no candidate qualifies.
    """
    upper_lw = 0.0
    upper_rw = 0.0
    upper_n = 0
    for j in range(m):
        upper_lw += t_w[j, 0]
        upper_rw += t_w[j, 1]
        upper_n += t_c[j, 0] + t_c[j, 1]
    agree = upper_lw if upper_lw > upper_rw else upper_rw
    lower_lw = 0.0
    lower_rw = 0.0
    lower_n = 0
    found = False
    for j in range(m):
        if upper_n < MIN_ROWS_EACH_WAY:
            break
        if j > 0 and lower_n >= MIN_ROWS_EACH_WAY:
            if upper_lw + lower_rw > agree:  # lower side sent right
                agree = upper_lw + lower_rw
                result[1] = j
                result[2] = 1.0
                found = True
            elif lower_lw + upper_rw > agree:  # lower side sent left
                agree = lower_lw + upper_rw
                result[1] = j
                result[2] = 0.0
                found = True
        upper_lw -= t_w[j, 0]
        lower_lw += t_w[j, 0]
        upper_rw -= t_w[j, 1]
        lower_rw += t_w[j, 1]
        n_j = t_c[j, 0] + t_c[j, 1]
        upper_n -= n_j
        lower_n += n_j
    result[0] = agree
    return found


@njit(cache=True)
def _scan_nominal(codes_f, rows, start, end, n_known, side, weight, dense_w, dense_c, mask):
    """Each category to its majority side (see the module docstring).

    Writes ``mask[:n_known]`` (1 left, 2 right, 0 no direction) and returns
    ``(agree, qualifies)``.
    """
    dense_w[:n_known, :] = 0.0
    dense_c[:n_known, :] = 0
    for i in range(start, end):
        r = rows[i]
        code = codes_f[r]
        if code < n_known:
            _add_to_table(dense_w, dense_c, code, side[r], weight[r])
    total_left = 0.0
    total_right = 0.0
    for code in range(n_known):
        total_left += dense_w[code, 0]
        total_right += dense_w[code, 1]
    default_left = total_left > total_right
    agree = 0.0
    n_left = 0
    n_right = 0
    for code in range(n_known):
        lw = dense_w[code, 0]
        rw = dense_w[code, 1]
        n_code = dense_c[code, 0] + dense_c[code, 1]
        if n_code == 0:
            mask[code] = SIDE_NONE
        elif lw < rw or (lw == rw and not default_left):
            mask[code] = SIDE_RIGHT
            agree += rw
            n_right += n_code
        else:
            mask[code] = SIDE_LEFT
            agree += lw
            n_left += n_code
    return agree, n_left >= MIN_ROWS_EACH_WAY and n_right >= MIN_ROWS_EACH_WAY


@njit(cache=True)
def _insert_ranked(
    n_kept, capacity, feature, agreement, adjusted, out_feature, out_agreement, out_adjusted, order
):
    """Rank of a new surrogate among the kept ones, or -1 if it does not make the list.

    Shifts the ranks below it down (dropping the last when full) and returns
    the slot index the new surrogate takes in the ``out_*`` arrays.
    """
    position = n_kept
    for k in range(n_kept):
        s = order[k]
        if agreement > out_agreement[s] or (
            agreement == out_agreement[s] and adjusted > out_adjusted[s]
        ):
            position = k
            break
    if position >= capacity:
        return -1
    if n_kept < capacity:
        slot = n_kept
        last = n_kept
    else:
        slot = order[capacity - 1]
        last = capacity - 1
    for k in range(last, position, -1):
        order[k] = order[k - 1]
    order[position] = slot
    out_feature[slot] = feature
    out_agreement[slot] = agreement
    out_adjusted[slot] = adjusted
    return slot


@njit(cache=True)
def find_surrogates(
    feature_codes,
    rows,
    start,
    end,
    weight,
    n_codes,
    is_nominal,
    primary,
    t_left,
    t_right,
    max_surrogates,
    hist_ratio,
    sorted_rows,
    sorted_slot,
    side,
    dense_w,
    dense_c,
    t_code,
    t_w,
    t_c,
    out_feature,
    out_left_code,
    out_right_code,
    out_reverse,
    out_agreement,
    out_adjusted,
    out_mask,
):
    """Up to ``max_surrogates`` surrogates of the primary split on feature ``primary``.

    ``side[row]`` holds the node rows' directions (:func:`node_sides`) and
    ``t_left``/``t_right`` their weights. Features are tried in index order.
    A numeric feature's code table comes from a dense count when it has at
    most ``hist_ratio`` codes per node row, else from the node's rows in code
    order (``sorted_rows[sorted_slot[f], start:end]`` when the feature has a
    slot, else by sorting). Scratch: ``dense_w``/``dense_c`` with ``max codes``
    rows, ``t_code``/``t_w``/``t_c`` with ``end - start`` rows.

    Returns the number ``k`` of surrogates, best first, in ``out_*[:k]``:
    feature; for a numeric one the codes on both sides of its boundary
    (``code <= left_code`` is the lower side) and ``reverse`` (1 when the
    lower side goes right); for a nominal one its category directions in
    ``out_mask[s, :n_codes[f]]`` (1 left, 2 right, 0 none); agreement and
    adjusted agreement (see the module docstring).
    """
    total = t_left + t_right
    if max_surrogates <= 0 or total <= 0.0:
        return 0
    majority = (t_left if t_left > t_right else t_right) / total
    n_node = end - start
    order = np.empty(max_surrogates, dtype=np.int64)
    result = np.empty(3)
    mask = np.empty(out_mask.shape[1], dtype=np.uint8)
    n_kept = np.int64(0)  # (a literal 0 would compile _insert_ranked for it too)
    for f in range(feature_codes.shape[0]):
        if f == primary:
            continue
        codes_f = feature_codes[f]
        n_known = n_codes[f]
        left_code = -1
        right_code = -1
        reverse = 0
        if is_nominal[f]:
            agree, qualifies = _scan_nominal(
                codes_f, rows, start, end, n_known, side, weight, dense_w, dense_c, mask
            )
        else:
            if n_known + 1 <= hist_ratio * n_node:
                m = _table_from_dense(
                    codes_f,
                    rows,
                    start,
                    end,
                    n_known,
                    side,
                    weight,
                    dense_w,
                    dense_c,
                    t_code,
                    t_w,
                    t_c,
                )
            elif sorted_slot[f] >= 0:
                m = _table_from_ordered(
                    codes_f,
                    sorted_rows[sorted_slot[f], start:end],
                    n_known,
                    side,
                    weight,
                    t_code,
                    t_w,
                    t_c,
                )
            else:
                node_codes = np.empty(n_node, dtype=np.int64)
                for i in range(n_node):
                    node_codes[i] = codes_f[rows[start + i]]
                m = _table_from_ordered(
                    codes_f,
                    rows[start:end][np.argsort(node_codes, kind="mergesort")],
                    n_known,
                    side,
                    weight,
                    t_code,
                    t_w,
                    t_c,
                )
            qualifies = _scan_numeric(t_w, t_c, m, result)
            agree = result[0]
            if qualifies:
                k = int(result[1])
                left_code = t_code[k - 1]
                right_code = t_code[k]
                reverse = int(result[2])
        if not qualifies:
            continue
        agreement = agree / total
        adjusted = (agreement - majority) / (1.0 - majority)
        if adjusted <= MIN_ADJUSTED:
            continue
        s = _insert_ranked(
            n_kept,
            max_surrogates,
            f,
            agreement,
            adjusted,
            out_feature,
            out_agreement,
            out_adjusted,
            order,
        )
        if s < 0:
            continue
        n_kept = min(n_kept + 1, max_surrogates)
        out_left_code[s] = left_code
        out_right_code[s] = right_code
        out_reverse[s] = reverse
        if is_nominal[f]:
            out_mask[s, :n_known] = mask[:n_known]
    # Put the kept surrogates in rank order.
    ranked = order[:n_kept]
    out_feature[:n_kept] = out_feature[ranked]
    out_left_code[:n_kept] = out_left_code[ranked]
    out_right_code[:n_kept] = out_right_code[ranked]
    out_reverse[:n_kept] = out_reverse[ranked]
    out_agreement[:n_kept] = out_agreement[ranked]
    out_adjusted[:n_kept] = out_adjusted[ranked]
    out_mask[:n_kept] = out_mask[ranked]
    return n_kept


@njit(cache=True)
def route_rows(
    feature_codes,
    rows,
    start,
    end,
    n_codes,
    side,
    n_surrogates,
    sur_feature,
    sur_is_nominal,
    sur_left_code,
    sur_reverse,
    sur_mask,
    majority_child,
    child_of_row,
    n_routed,
):
    """Child (0 left, 1 right) of every node row into ``child_of_row[row]``.

    A row with a known direction (``side``) follows the primary split; a row
    missing the primary feature takes the first surrogate, in rank order, that
    it knows the feature of (for a nominal surrogate, whose category has a
    direction), and failing all, ``majority_child`` (rpart's ``nodesplit``
    with ``usesurrogate = 2``). ``n_routed[s]`` counts the rows surrogate
    ``s`` routed (rpart's "(n split)").
    """
    n_routed[:n_surrogates] = 0
    for i in range(start, end):
        r = rows[i]
        s = side[r]
        child = -1
        if s != SIDE_NONE:
            child = s - 1
        else:
            for k in range(n_surrogates):
                f = sur_feature[k]
                code = feature_codes[f, r]
                if code >= n_codes[f]:
                    continue
                if sur_is_nominal[k]:
                    direction = sur_mask[k, code]
                    if direction == SIDE_NONE:
                        continue
                    child = direction - 1
                else:
                    lower = code <= sur_left_code[k]
                    child = 0 if lower != (sur_reverse[k] == 1) else 1
                n_routed[k] += 1
                break
            if child < 0:
                child = majority_child
        child_of_row[r] = child


@njit(cache=True)
def partition_by_row_child(rows, start, end, child_of_row, buffer):
    """Stable in-place partition of ``rows[start:end]``: rows with
    ``child_of_row[row] == 0`` first. Returns where the right child's rows begin."""
    n_left = 0
    n_right = 0
    for i in range(start, end):
        r = rows[i]
        if child_of_row[r] == 0:
            rows[start + n_left] = r
            n_left += 1
        else:
            buffer[n_right] = r
            n_right += 1
    rows[start + n_left : end] = buffer[:n_right]
    return start + n_left
