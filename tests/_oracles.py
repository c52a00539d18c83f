"""Naive reference implementations: slow, obviously correct, for testing the kernels.

Every fast kernel has an oracle here and a test that they agree.
"""


# ---------------------------------------------------------------------------
# Absolute-error and Huber regression criteria
# (oracles of treelearn.splitting._robust_kernels)
# ---------------------------------------------------------------------------

import numpy as np
from scipy.optimize import minimize_scalar


def weighted_median_oracle(y, w):
    """Weighted median as scikit-learn's absolute-error leaf value.

    Over the rows of positive weight sorted by ``y``: the first ``y`` whose
    cumulative weight reaches half the total; when the cumulative weight there
    equals half exactly, the average of that ``y`` and the next one.
    """
    y = np.asarray(y, dtype=float)
    w = np.asarray(w, dtype=float)
    keep = w > 0
    order = np.argsort(y[keep], kind="stable")
    ys, ws = y[keep][order], w[keep][order]
    cumulative = np.cumsum(ws)
    half = cumulative[-1] / 2
    k = int(np.argmax(cumulative >= half))
    if cumulative[k] == half and k + 1 < ys.shape[0]:
        return (ys[k] + ys[k + 1]) / 2
    return float(ys[k])


def huber_loss_oracle(residual, delta):
    """Huber's rho: ``r**2 / 2`` inside ``[-delta, delta]``, ``delta (|r| - delta/2)`` outside."""
    a = np.abs(residual)
    return np.where(a <= delta, 0.5 * a * a, delta * (a - 0.5 * delta))


def huber_location_oracle(y, w, delta):
    """A minimiser of ``sum w rho_delta(y - c)`` and the minimum, by a dense grid
    and then bounded Brent minimisation around the best grid point (the
    objective is convex)."""
    y = np.asarray(y, dtype=float)
    w = np.asarray(w, dtype=float)

    def objective(c):
        return float(np.sum(w * huber_loss_oracle(y - c, delta)))

    grid = np.linspace(y.min() - delta, y.max() + delta, 401)
    values = [objective(c) for c in grid]
    k = int(np.argmin(values))
    low, high = grid[max(k - 1, 0)], grid[min(k + 1, grid.shape[0] - 1)]
    result = minimize_scalar(
        objective, bounds=(low, high), method="bounded", options={"xatol": 1e-13, "maxiter": 2000}
    )
    best = min((result.x, grid[k]), key=objective)
    return float(best), objective(best)


def robust_cost_oracle(y, w, criterion, delta):
    """``min_c sum w L(y - c)`` for ``criterion`` in {"absolute_error", "huber"}."""
    y = np.asarray(y, dtype=float)
    w = np.asarray(w, dtype=float)
    if y.shape[0] == 0 or w.sum() <= 0:
        return 0.0
    if criterion == "absolute_error":
        return float(np.sum(w * np.abs(y - weighted_median_oracle(y, w))))
    return huber_location_oracle(y, w, delta)[1]


def _location_oracle(y, w, criterion, delta):
    if np.sum(w) <= 0:  # a level of weight 0: the kernel takes its middle y
        return float(np.sort(y)[y.shape[0] // 2])
    if criterion == "absolute_error":
        return weighted_median_oracle(y, w)
    return huber_location_oracle(y, w, delta)[0]


def robust_split_oracle(
    codes,
    n_codes,
    is_nominal,
    y,
    w,
    criterion,
    delta,
    min_count,
    min_weight,
    features,
    nominal_prefix_only=False,
):
    """Every admissible split of the node (all rows of ``codes``), brute force.

    Numeric feature ``f``: every threshold between neighbouring present known
    codes with missing rows right, then left; last "all known left, missing
    right". Nominal feature: every set of present levels (missing is a level)
    sent left, both orientations; with ``nominal_prefix_only``, only the
    prefixes of the levels sorted by (location, code), the kernel's heuristic.
    Each child needs ``min_count`` rows and ``min_weight`` weight.

    Returns
    -------
    list of dict
        In tie-rule order (features as given, then thresholds, missing right
        before left): ``feature, left_code, right_code, missing_left, left
        (boolean row mask), gain`` with ``gain = cost(node) - cost(left) -
        cost(right)``, costs from :func:`robust_cost_oracle`.
    """
    from itertools import combinations

    y = np.asarray(y, dtype=float)
    w = np.asarray(w, dtype=float)
    cache = {}

    def cost(mask):
        key = mask.tobytes()
        if key not in cache:
            cache[key] = robust_cost_oracle(y[mask], w[mask], criterion, delta)
        return cache[key]

    parent = cost(np.ones(y.shape[0], dtype=bool))
    found = []

    def add(f, left, left_code, right_code, missing_left):
        right = ~left
        if left.sum() < min_count or right.sum() < min_count:
            return
        if w[left].sum() < min_weight or w[right].sum() < min_weight:
            return
        gain = parent - cost(left) - cost(right)
        found.append(
            dict(
                feature=f,
                left_code=left_code,
                right_code=right_code,
                missing_left=missing_left,
                left=left,
                gain=gain,
            )
        )

    for f in features:
        column = np.asarray(codes[:, f], dtype=np.int64)
        missing_code = int(n_codes[f])
        present = sorted(set(column.tolist()))
        if is_nominal[f]:
            if nominal_prefix_only:
                keys = [
                    _location_oracle(y[column == c], w[column == c], criterion, delta)
                    for c in present
                ]
                ordered = [c for _, c in sorted(zip(keys, present, strict=True))]
                subsets = [ordered[:j] for j in range(1, len(ordered))]
            else:
                subsets = [
                    list(s) for k in range(1, len(present)) for s in combinations(present, k)
                ]
            for subset in subsets:
                left = np.isin(column, subset)
                add(f, left, -1, -1, missing_code in subset)
            continue
        known = [c for c in present if c != missing_code]
        is_missing = column == missing_code
        for i in range(len(known) - 1):
            below = (column <= known[i]) & ~is_missing
            add(f, below, known[i], known[i + 1], False)
            if is_missing.any():
                add(f, below | is_missing, known[i], known[i + 1], True)
        if is_missing.any() and known:
            add(f, ~is_missing, known[-1], -1, False)
    return found


# ---------------------------------------------------------------------------
# Histograms, node costs and the brute-force split finder
# (oracles of treelearn.stats._kernels and treelearn.splitting._kernels)
# ---------------------------------------------------------------------------

import itertools  # noqa: E402


def naive_histogram(codes_f, rows, n_bins, y_class, y_value, weight, n_classes):
    """Histogram of one feature over ``rows``, by ``np.add.at``.

    Layout as in :mod:`treelearn._dtypes`: channel 0 counts rows; classification
    (``n_classes > 0``) channels ``1..K`` are class weights; regression channels
    ``1, 2, 3`` are ``sum(w)``, ``sum(w y)``, ``sum(w y^2)``.
    """
    rows = np.asarray(rows, dtype=np.int64)
    codes = np.asarray(codes_f)[rows].astype(np.int64)
    w = np.asarray(weight, dtype=float)[rows]
    if n_classes > 0:
        hist = np.zeros((n_bins, 1 + n_classes))
        np.add.at(hist[:, 0], codes, 1.0)
        np.add.at(hist, (codes, 1 + np.asarray(y_class)[rows]), w)
        return hist
    y = np.asarray(y_value, dtype=float)[rows]
    hist = np.zeros((n_bins, 4))
    np.add.at(hist[:, 0], codes, 1.0)
    np.add.at(hist[:, 1], codes, w)
    np.add.at(hist[:, 2], codes, w * y)
    np.add.at(hist[:, 3], codes, w * y * y)
    return hist


def naive_cost(y, w, criterion, n_classes=0):
    """``W * impurity`` of a set of rows, straight from the definitions.

    ``criterion``: ``"gini"`` (1 - sum p_k^2), ``"entropy"`` (-sum p_k log2 p_k)
    or ``"squared_error"`` (weighted variance around the weighted mean).
    """
    y = np.asarray(y)
    w = np.asarray(w, dtype=float)
    total = float(w.sum())
    if total <= 0.0:
        return 0.0
    if criterion == "squared_error":
        mean = float((w * y).sum()) / total
        return float((w * (y - mean) ** 2).sum())
    counts = np.array([w[y == k].sum() for k in range(n_classes)])
    p = counts[counts > 0] / total
    if criterion == "gini":
        return total * (1.0 - float((p * p).sum()))
    if criterion == "entropy":
        return -total * float((p * np.log2(p)).sum())
    raise ValueError(f"unknown criterion {criterion!r}")


def naive_split_gain(y, w, left_mask, criterion, n_classes=0):
    """Gain ``cost(node) - cost(left) - cost(right)`` of one partition of the rows."""
    left_mask = np.asarray(left_mask, dtype=bool)
    return (
        naive_cost(y, w, criterion, n_classes)
        - naive_cost(y[left_mask], w[left_mask], criterion, n_classes)
        - naive_cost(y[~left_mask], w[~left_mask], criterion, n_classes)
    )


def _candidate_partitions(codes, missing_code, nominal):
    """Every left-mask a binary split of one feature can make at a node.

    Numeric: ``code <= t`` for every present known code ``t``, with missing rows
    sent left or right. Nominal: every one of the ``2**(L-1) - 1`` ways to put
    the ``L`` present levels (missing counted as a level) into two non-empty
    sets.
    """
    is_missing = codes == missing_code
    if nominal:
        levels = np.unique(codes)
        if levels.shape[0] < 2:
            return
        others = levels[:-1]
        for size in range(1, others.shape[0] + 1):
            for subset in itertools.combinations(others.tolist(), size):
                yield np.isin(codes, subset)
        return
    known = np.unique(codes[~is_missing])
    for t in known.tolist():
        below = (codes <= t) & ~is_missing
        yield below
        if is_missing.any():
            yield below | is_missing


def brute_force_best_split(
    codes,
    n_codes,
    is_nominal,
    y,
    weight,
    rows,
    criterion,
    n_classes=0,
    min_count=1,
    min_weight=0.0,
    features=None,
):
    """Best gain over every threshold and every subset of every feature.

    Returns ``(gain, candidates)``: the largest gain (``-inf`` when no split
    satisfies the leaf constraints) and the list of ``(gain, feature,
    left_rows_mask)`` of every admissible split, in feature order. A side is
    admissible when it holds at least ``min_count`` rows and ``min_weight``
    weight.
    """
    rows = np.asarray(rows, dtype=np.int64)
    y_node = np.asarray(y)[rows]
    w_node = np.asarray(weight, dtype=float)[rows]
    features = range(codes.shape[1]) if features is None else features
    best = -np.inf
    candidates = []
    for f in features:
        codes_node = np.asarray(codes[rows, f]).astype(np.int64)
        for left in _candidate_partitions(codes_node, int(n_codes[f]), bool(is_nominal[f])):
            n_left = int(left.sum())
            n_right = left.shape[0] - n_left
            if n_left < max(min_count, 1) or n_right < max(min_count, 1):
                continue
            if w_node[left].sum() < min_weight or w_node[~left].sum() < min_weight:
                continue
            gain = naive_split_gain(y_node, w_node, left, criterion, n_classes)
            candidates.append((gain, f, left))
            best = max(best, gain)
    return best, candidates


# ---------------------------------------------------------------------------
# Surrogate splits, missing="surrogate"
# (oracles of treelearn.splitting._surrogate_kernels and the surrogate walk of
# treelearn.tree._traverse)
# ---------------------------------------------------------------------------


def surrogate_candidate_oracle(x, missing_code, nominal, side, w):
    """The best surrogate split of one feature at a node, by trying every split.

    ``x``: the feature's codes of the node rows; ``side``: each row's direction
    under the primary split (1 left, 2 right, 0 missing); ``w``: row weights.
    Numeric: every boundary between two neighbouring codes present at the node
    (any row that knows the feature), lower side sent right then left, in
    increasing order; agreement = weight of the rows with a direction that the
    candidate sends the same way; a candidate sends at least 2 rows of positive
    weight with a direction each way; the first candidate of largest agreement
    wins if it beats ``max(weight left, weight right)`` over the rows that know
    the feature. Nominal: every category seen with a direction goes to its
    heavier side (ties: to the side heavier over all those rows, right on a
    tie), at least 2 such rows each way.

    Returns None or ``dict(agree, left_code, right_code, reverse, mask)``.
    """
    x = np.asarray(x, dtype=np.int64)
    side = np.asarray(side)
    w = np.asarray(w, dtype=float)
    known = x != missing_code
    directed = known & (side > 0) & (w > 0)
    if nominal:
        lw = {c: w[known & (x == c) & (side == 1)].sum() for c in range(missing_code)}
        rw = {c: w[known & (x == c) & (side == 2)].sum() for c in range(missing_code)}
        default_left = sum(lw.values()) > sum(rw.values())
        mask = np.zeros(missing_code, dtype=np.int64)
        agree = 0.0
        for c in range(missing_code):
            if not (directed & (x == c)).any():
                continue
            go_right = lw[c] < rw[c] or (lw[c] == rw[c] and not default_left)
            mask[c] = 2 if go_right else 1
            agree += rw[c] if go_right else lw[c]
        sent = mask[np.where(directed, x, 0)] * directed
        if (sent == 1).sum() < 2 or (sent == 2).sum() < 2:
            return None
        return dict(agree=agree, left_code=-1, right_code=-1, reverse=0, mask=mask)
    start = max(w[known & (side == 1)].sum(), w[known & (side == 2)].sum())
    present = np.unique(x[known])
    best = None
    for lower, upper in itertools.pairwise(present.tolist()):
        below = known & (x <= lower)
        above = known & (x >= upper)
        if (directed & below).sum() < 2 or (directed & above).sum() < 2:
            continue
        for reverse in (1, 0):
            to_left = below if reverse == 0 else above
            agree = w[to_left & (side == 1)].sum() + w[~to_left & known & (side == 2)].sum()
            if agree > (start if best is None else best["agree"]):
                best = dict(agree=agree, left_code=int(lower), right_code=int(upper),
                            reverse=reverse, mask=None)  # fmt: skip
    return best


def surrogates_oracle(codes, n_codes, is_nominal, weight, rows, primary, side, max_surrogates):
    """Every feature but ``primary`` by :func:`surrogate_candidate_oracle`; kept if its
    adjusted agreement exceeds 1e-10; ranked by agreement, then adjusted agreement,
    then feature index; the first ``max_surrogates``.

    ``side``: direction of each of ``rows`` (1, 2, 0). Agreement is divided by
    the weight of all rows with a direction (rows missing the surrogate
    disagree); ``adjusted = (agreement - majority) / (1 - majority)`` with
    ``majority`` the larger direction's share. Returns a list of dicts (the
    candidate's keys plus ``feature, agreement, adjusted``).
    """
    rows = np.asarray(rows, dtype=np.int64)
    side = np.asarray(side)
    w = np.asarray(weight, dtype=float)[rows]
    t_left, t_right = w[side == 1].sum(), w[side == 2].sum()
    total = t_left + t_right
    if total <= 0 or max_surrogates <= 0:
        return []
    majority = max(t_left, t_right) / total
    found = []
    for f in range(codes.shape[1]):
        if f == primary:
            continue
        best = surrogate_candidate_oracle(
            np.asarray(codes[rows, f]), int(n_codes[f]), bool(is_nominal[f]), side, w
        )
        if best is None:
            continue
        agreement = best["agree"] / total
        adjusted = (agreement - majority) / (1 - majority)
        if adjusted > 1e-10:
            found.append(dict(best, feature=f, agreement=agreement, adjusted=adjusted))
    found.sort(key=lambda s: (-s["agreement"], -s["adjusted"], s["feature"]))
    return found[:max_surrogates]


def route_oracle(codes, n_codes, rows, side, surrogates, majority_child):
    """Child (0/1) of each of ``rows``: its direction, else the first surrogate of
    ``surrogates`` (dicts as :func:`surrogates_oracle` gives) that it knows the
    feature of (a nominal one: whose category has a direction), else
    ``majority_child``."""
    children = []
    for r, s in zip(np.asarray(rows).tolist(), np.asarray(side).tolist(), strict=True):
        child = s - 1 if s > 0 else None
        for sur in surrogates if child is None else ():
            code = int(codes[r, sur["feature"]])
            if code == n_codes[sur["feature"]]:
                continue
            if sur["mask"] is not None:
                if sur["mask"][code] == 0:
                    continue
                child = int(sur["mask"][code]) - 1
            else:
                lower = code <= sur["left_code"]
                child = int(lower == bool(sur["reverse"]))
            break
        children.append(majority_child if child is None else child)
    return np.array(children, dtype=np.int64)


def apply_oracle(tree, X):
    """Leaf of each row of the prediction matrix ``X``, walking the Tree's arrays in
    Python: a missing value (or a category the node maps nowhere) tries the
    node's surrogates in order, then ``missing_child``; where that is
    MISSING_BY_WEIGHT (-2), the heaviest child (the first of equally heavy ones)."""

    leaves = []
    for row in np.asarray(X, dtype=float):
        node = 0
        while tree.feature[node] >= 0:
            c = _known_child(tree, node, row[tree.feature[node]])
            if c is None:
                c = _surrogate_child(tree, node, row)
            children = tree.children[tree.child_ptr[node] : tree.child_ptr[node + 1]]
            if c == -2:
                c = int(np.argmax(tree.weight[children]))
            node = int(children[c])
        leaves.append(node)
    return np.array(leaves, dtype=np.int64)


def _surrogate_child(tree, node, row):
    """The child given by ``node``'s first surrogate that decides for ``row``, else
    ``missing_child`` (which may be MISSING_BY_WEIGHT, -2)."""
    for s in range(tree.surrogate_ptr[node], tree.surrogate_ptr[node + 1]):
        x = row[tree.surrogate_feature[s]]
        if np.isnan(x):
            continue
        if tree.surrogate_kind[s] == 1:  # NODE_THRESHOLD
            return int((x <= tree.surrogate_threshold[s]) == bool(tree.surrogate_reverse[s]))
        cats = tree.surrogate_category_child[
            tree.surrogate_category_ptr[s] : tree.surrogate_category_ptr[s + 1]
        ]
        if 0 <= int(x) < cats.shape[0] and cats[int(x)] >= 0:
            return int(cats[int(x)])
    return int(tree.missing_child[node])


def _known_child(tree, node, x):
    """The child index a known value ``x`` takes at ``node``; None when ``x`` is missing
    or a category the node maps nowhere."""
    if np.isnan(x):
        return None
    if tree.kind[node] == 1:  # NODE_THRESHOLD
        return 0 if x <= tree.threshold[node] else 1
    cats = tree.category_child[tree.category_ptr[node] : tree.category_ptr[node + 1]]
    return int(cats[int(x)]) if 0 <= int(x) < cats.shape[0] and cats[int(x)] >= 0 else None


# ---------------------------------------------------------------------------
# Fayyad-Irani MDL discretization
# (oracle of treelearn.data.discretize.fit_cut_points(method="mdl"))
# ---------------------------------------------------------------------------


def mdl_cut_points_oracle(values, y, weight=None, tie_tolerance=1e-12):
    """Fayyad & Irani (1993) recursive MDL cut points, written the slow way.

    Rows with NaN values or zero weight are dropped; every midpoint between
    neighbouring distinct values is tried (as Weka does, no boundary-point
    shortcut); the lowest cut of minimal class entropy (within
    ``tie_tolerance``) is tested with
    ``gain > (log2(N - 1) + log2(3^k - 2) - [k Ent - k1 Ent1 - k2 Ent2]) / N``,
    ``N`` the total weight (``log2(N - 1)`` taken as 0 when ``N - 1 < 1``).
    """
    weight = [1.0] * len(values) if weight is None else list(weight)
    rows = sorted(
        (float(v), int(c), float(w))
        for v, c, w in zip(values, y, weight, strict=True)
        if not np.isnan(v) and w > 0
    )

    def counts(part):
        table = {}
        for _, c, w in part:
            table[c] = table.get(c, 0.0) + w
        return table

    def entropy(table):
        n = sum(table.values())
        return -sum(w / n * float(np.log2(w / n)) for w in table.values() if w > 0)

    def cut(part):
        if len(part) < 2:
            return []
        whole = counts(part)
        n = sum(whole.values())
        candidates = []
        for i in range(len(part) - 1):
            if part[i][0] < part[i + 1][0]:
                left, right = counts(part[: i + 1]), counts(part[i + 1 :])
                n1, n2 = sum(left.values()), sum(right.values())
                candidates.append(((n1 * entropy(left) + n2 * entropy(right)) / n, i))
        if not candidates:
            return []
        lowest = min(e for e, _ in candidates)
        e, i = next((e, i) for e, i in candidates if e <= lowest + tie_tolerance)
        gain = entropy(whole) - e
        if gain <= 0:
            return []
        left, right = counts(part[: i + 1]), counts(part[i + 1 :])
        k, k1, k2 = (sum(1 for w in t.values() if w > 0) for t in (whole, left, right))
        delta = float(np.log2(3.0**k - 2)) - (
            k * entropy(whole) - k1 * entropy(left) - k2 * entropy(right)
        )
        log_term = float(np.log2(n - 1)) if n - 1 > 1 else 0.0
        if gain <= (log_term + delta) / n:
            return []
        point = (part[i][0] + part[i + 1][0]) / 2
        return [*cut(part[: i + 1]), point, *cut(part[i + 1 :])]

    return np.array(cut(rows), dtype=float)


# ---------------------------------------------------------------------------
# C4.5's evaluation of one attribute (Release 8's EvalDiscreteAtt and
# EvalContinuousAtt, row by row)
# (oracle of treelearn.splitting._gain_ratio_kernels.evaluate_candidates)
# ---------------------------------------------------------------------------


def _total_info(counts):
    """C4.5's ``TotalInfo``: N * H(counts) in bits."""
    counts = np.asarray(counts, dtype=float)
    counts = counts[counts > 0]
    total = counts.sum()
    return float((counts * np.log2(total / counts)).sum()) if total > 0 else 0.0


def c45_attribute_oracle(x, nominal, n_values, y, w, n_classes, min_objs, threshold_cost):
    """C4.5's gain and split information of one attribute, or None when it cannot split.

    ``x`` holds values (numeric) or category codes ``0..n_values-1`` (nominal),
    NaN for missing. Returns a dict with ``gain``, ``split_info`` and, for a
    numeric attribute, ``raw_gain``, ``tries`` and the values on each side of
    the cut (``left_value``, ``right_value``).
    """
    items = w.sum()
    known = ~np.isnan(x)
    known_weight = w[known].sum()
    unknown_weight = items - known_weight
    base = _total_info(np.bincount(y[known], w[known], n_classes))
    if nominal:
        if known_weight <= 0:
            return None
        codes = np.where(known, x, -1).astype(int)
        val_freq = [w[codes == v].sum() for v in range(n_values)]
        if sum(f >= min_objs for f in val_freq) < 2:
            return None
        this = sum(
            _total_info(np.bincount(y[codes == v], w[codes == v], n_classes))
            for v in range(n_values)
        )
        gain = (base - this) / items
        split_info = _total_info([unknown_weight, *val_freq]) / items
        return {"gain": gain, "raw_gain": gain, "split_info": split_info}
    if known_weight < 2 * min_objs:
        return None
    order = np.argsort(x[known], kind="stable")
    xs, ys, ws = x[known][order], y[known][order], w[known][order]
    min_split = 0.1 * known_weight / n_classes
    min_split = min_objs if min_split <= min_objs else min(min_split, 25.0)
    class_known = np.bincount(ys, ws, n_classes)
    low = 0.0
    low_classes = np.zeros(n_classes)
    cuts = []
    for i in range(len(xs) - 1):
        low += ws[i]
        low_classes[ys[i]] += ws[i]
        if low < min_split:
            continue
        if low > known_weight - min_split:
            break
        if xs[i] + 1e-5 < xs[i + 1]:  # C4.5 cuts between values more than 1e-5 apart
            gain = (
                base - _total_info(low_classes) - _total_info(class_known - low_classes)
            ) / items
            split_info = _total_info([unknown_weight, low, known_weight - low]) / items
            cuts.append((gain, xs[i], xs[i + 1], split_info))
    if not cuts:
        return None
    cost = np.log2(len(cuts)) / items if threshold_cost else 0.0
    best = 0  # a later cut wins only when its gain is larger by more than 1e-6
    for k in range(1, len(cuts)):
        if cuts[k][0] - cuts[best][0] > 1e-6:
            best = k
    gain, left, right, split_info = cuts[best]
    if gain - cost <= 1e-6:
        return None
    return {
        "gain": gain - cost,
        "raw_gain": gain,
        "split_info": split_info,
        "tries": len(cuts),
        "left_value": left,
        "right_value": right,
        "cut_gains": [cut[0] for cut in cuts],
    }


# ---------------------------------------------------------------------------
# Pruning
# (oracles of treelearn.pruning._kernels and the pruners' node selections)
# ---------------------------------------------------------------------------


def _oracle_branch(tree, node, row):
    """Child position ``row`` takes at ``node``, or None for "every branch by weight"."""
    child = _known_child(tree, node, row[tree.feature[node]])
    if child is None:
        child = _surrogate_child(tree, node, row)
    return None if child == -2 else child  # MISSING_BY_WEIGHT


def node_rows_oracle(tree, X):
    """Per node, the list of ``(row, share)`` that reach it: a row missing the
    value at a by-weight node goes down every child with a share proportional to
    the children's ``weight`` (equal shares when all are 0)."""
    reach = [[] for _ in range(tree.node_count)]
    for i, row in enumerate(np.asarray(X, dtype=float)):
        stack = [(0, 1.0)]
        while stack:
            node, share = stack.pop()
            reach[node].append((i, share))
            if tree.feature[node] < 0:
                continue
            kids = tree.children_of(node)
            c = _oracle_branch(tree, node, row)
            if c is not None:
                stack.append((int(kids[c]), share))
                continue
            w = tree.weight[kids].astype(float)
            parts = w / w.sum() if w.sum() > 0 else np.full(len(kids), 1 / len(kids))
            stack.extend((int(k), share * p) for k, p in zip(kids, parts, strict=True) if p > 0)
    return reach


def leaf_losses_oracle(tree, X, y, weight):
    """Per node, the validation loss of the rows reaching it if the node were a
    leaf: misclassified weight (classification, ``y`` class indices), or the
    weighted squared error around the node's value (regression)."""
    losses = np.zeros(tree.node_count)
    for node, pairs in enumerate(node_rows_oracle(tree, X)):
        for i, share in pairs:
            if tree.n_classes:
                wrong = int(y[i]) != int(np.argmax(tree.value[node]))
                losses[node] += share * weight[i] * wrong
            else:
                losses[node] += share * weight[i] * (y[i] - tree.value[node, 0]) ** 2
    return losses


def reduced_error_oracle(tree, losses, ties):
    """Nodes reduced-error pruning cuts back, by plain recursion (children first)."""
    pruned = set()

    def visit(node):
        if tree.feature[node] < 0:
            return losses[node]
        below = sum(visit(int(c)) for c in tree.children_of(node))
        better = losses[node] <= below if ties == "keep_accuracy" else losses[node] < below
        if better:
            pruned.add(node)
            return losses[node]
        return below

    visit(0)
    return pruned


def ccp_path_oracle(tree):
    """Weakest-link pruning from scratch at every step: ``(alphas, totals, cuts)``.

    At each step, for every internal node of the current tree, ``R(t)`` and
    ``R(T_t)``, ``|leaves(T_t)|`` are recomputed by recursion over the current
    subtree; the node of smallest ``g(t)`` (lowest index among equal values) is
    cut.
    """
    r = tree.weight * tree.impurity / tree.weight[0]
    cut = set()

    def subtree(node):
        if tree.feature[node] < 0 or node in cut:
            return r[node], 1
        parts = [subtree(int(c)) for c in tree.children_of(node)]
        return sum(p[0] for p in parts), sum(p[1] for p in parts)

    def internal(node):
        if tree.feature[node] < 0 or node in cut:
            return []
        return [node] + [n for c in tree.children_of(node) for n in internal(int(c))]

    alphas, totals, cuts = [0.0], [subtree(0)[0]], []
    while internal(0):
        best, best_g = None, np.inf
        for node in sorted(internal(0)):
            r_tree, n_leaves = subtree(node)
            g = (r[node] - r_tree) / (n_leaves - 1)
            if g < best_g:
                best, best_g = node, g
        cut.add(best)
        cuts.append(best)
        alphas.append(best_g)
        totals.append(subtree(0)[0])
    return np.array(alphas), np.array(totals), cuts


def c45_prune_oracle(tree, X, y, weight, added_errors, raising=True):
    """C4.5's ``EstimateErrors`` (prune.c) transcribed on Python objects.

    The tree is copied into nested dicts that are rewritten in place as C4.5
    rewrites its records (``node.update(branch)`` is its ``memcpy``). Cases are
    lists of ``(row, weight)``; a case missing the tested value at a by-weight
    node goes down every branch that has known cases, its weight times the
    branch's share of the known weight. ``added_errors(N, E)`` is ``AddErrs``.
    Returns the final tree as nested tuples ``(original node, class counts,
    children)`` (``children`` None for a leaf) and the root's estimate.
    """
    X = np.asarray(X, dtype=float)

    def copy(node):
        kids = None
        if tree.feature[node] >= 0:
            kids = [copy(int(c)) for c in tree.children_of(node)]
        return {
            "id": node,
            "kids": kids,
            "leaf": int(np.argmax(tree.value[node])),
            "dist": tree.value[node].copy(),
            "errors": 0.0,
        }

    def estimate(t, cases, update):
        dist = np.zeros(tree.n_classes)
        for i, w in cases:
            dist[y[i]] += w
        total = dist.sum()
        best = t["leaf"]
        for c in range(tree.n_classes):
            if dist[c] > dist[best]:
                best = c
        leaf_errors = total - dist[best]
        extra = added_errors(total, leaf_errors)
        if update:
            t["leaf"] = best
            if total > 0:
                t["dist"] = dist
        if t["kids"] is None:
            if update:
                t["errors"] = leaf_errors + extra
            return leaf_errors + extra
        groups = [[] for _ in t["kids"]]
        unknown = []
        for i, w in cases:
            b = _oracle_branch(tree, t["id"], X[i])
            (unknown if b is None else groups[b]).append((i, w))
        known = sum(w for g in groups for _, w in g)
        tree_errors, max_factor, largest = 0.0, 0.0, None
        for v, g in enumerate(groups):
            if not g:
                continue
            factor = sum(w for _, w in g) / known
            if factor >= max_factor:
                largest, max_factor = v, factor
            sub = g + [(i, w * factor) for i, w in unknown]
            tree_errors += estimate(t["kids"][v], sub, update)
        if not update:
            return tree_errors
        branch_errors = estimate(t["kids"][largest], cases, False) if raising else np.inf
        if leaf_errors + extra <= branch_errors + 0.1 and leaf_errors + extra <= tree_errors + 0.1:
            t["kids"] = None
            t["errors"] = leaf_errors + extra
        elif branch_errors <= tree_errors + 0.1:
            branch = t["kids"][largest]
            estimate(branch, cases, True)
            t.clear()
            t.update(branch)
        else:
            t["errors"] = tree_errors
        return t["errors"]

    root = copy(0)
    cases = [(i, float(weight[i])) for i in range(X.shape[0]) if weight[i] > 0]
    total = estimate(root, cases, True)

    def freeze(t):
        kids = None if t["kids"] is None else tuple(freeze(k) for k in t["kids"])
        return (t["id"], tuple(np.round(t["dist"], 9).tolist()), kids)

    return freeze(root), total


# ---------------------------------------------------------------------------
# C4.5's classification of a row with missing values
# (oracle of treelearn.tree._traverse.weighted_leaf_values)
# ---------------------------------------------------------------------------


def weighted_distribution_oracle(tree, row):
    """Class distribution of one row of the prediction matrix, recursively: a leaf
    gives its normalised class weights (uniform when it has none); a missing value
    at a node whose ``missing_child`` is MISSING_BY_WEIGHT (-2) averages the
    children's distributions weighted by the children's weights."""

    def visit(node):
        if tree.feature[node] < 0:
            value = tree.value[node]
            total = value.sum()
            return value / total if total > 0 else np.full(value.shape, 1 / value.shape[0])
        children = tree.children[tree.child_ptr[node] : tree.child_ptr[node + 1]]
        c = _known_child(tree, node, row[tree.feature[node]])
        if c is None:
            c = int(tree.missing_child[node])
        if c != -2:
            return visit(int(children[c]))
        weights = tree.weight[children]
        shares = weights / weights.sum()
        return sum(s * visit(int(k)) for k, s in zip(children, shares, strict=True) if s > 0)

    return visit(0)
