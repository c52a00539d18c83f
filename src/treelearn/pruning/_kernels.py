"""The pruners' numba kernels.

- Routing: what reaches each node (:func:`accumulate_reaching`,
  :func:`reaching_pairs`). They read the prediction matrix (see
  :mod:`treelearn.tree._traverse`) and the Tree's arrays as the two tuples of
  ``Tree._kernel_args``; a row's branch is decided as the prediction kernels'
  ``_child`` decides it (known value, then surrogates, then ``missing_child``),
  the common case written out in the loop and the rest left to ``_child``, so
  pruning and prediction route rows the same way.
- C4.5: its error-based pruning with subtree raising (:func:`c45_prune`),
  its ``AddErrs`` (:func:`added_errors_kernel`) and its collapse rule
  (:func:`collapse_nodes`).
- Cost-complexity pruning's weakest links (:func:`weakest_link`).
- Trees: walking two trees together (:func:`match_nodes`: is one a rooted
  subtree of the other, which nodes are unchanged) and numbering a pruned
  tree's nodes (:func:`new_order`).

Where the numpy code they replace summed an array, they sum as numpy does
(:func:`~treelearn.stats._pairwise.numpy_sum`), so their results are the same to the bit.
"""

import numpy as np
from numba import njit

from treelearn._dtypes import MISSING_BY_WEIGHT, NODE_LEAF, NODE_THRESHOLD
from treelearn.stats._pairwise import numpy_sum
from treelearn.tree._traverse import _child

#: No branch decided yet (below NO_CHILD and MISSING_BY_WEIGHT).
UNDECIDED = -3


@njit(cache=True)
def accumulate_reaching(
    X, sample_weight, y_class, y_value, fitted, nodes, surrogates, class_out, sse_out
):
    """What reaches every node when each row of ``X`` is sent down from the root.

    A row reaching a by-weight node (``missing_child == MISSING_BY_WEIGHT``)
    with a missing value goes down every branch with its weight times the
    child's share of the children's ``weight`` (equal shares when they are all
    zero), as C4.5 classifies such a case.

    Classification (``class_out`` has one column per class, ``y_class`` holds
    each row's class index): ``class_out[node, k]`` += the weight of the rows
    of class ``k`` that reach ``node``. Regression (``class_out`` has no
    column): ``sse_out[node]`` += ``w * (y - fitted[node]) ** 2`` over the rows
    that reach ``node``, ``fitted`` being the nodes' values.
    """
    feature, kind, threshold, child_ptr, children, cat_ptr, cat_child, _, weight = nodes
    n_nodes = kind.shape[0]
    n_classes = class_out.shape[1]
    stack_node = np.empty(n_nodes + 1, dtype=np.int64)
    stack_frac = np.empty(n_nodes + 1, dtype=np.float64)
    for i in range(X.shape[0]):
        top = 0
        stack_node[0] = 0
        stack_frac[0] = sample_weight[i]
        while top >= 0:
            node = stack_node[top]
            w = stack_frac[top]
            top -= 1
            if n_classes > 0:
                class_out[node, y_class[i]] += w
            else:
                r = y_value[i] - fitted[node]
                sse_out[node] += w * r * r
            if kind[node] == NODE_LEAF:
                continue
            # a known value, as _child decides it (written out: a call per row costs more)
            c = UNDECIDED
            x = X[i, feature[node]]
            if not np.isnan(x):
                if kind[node] == NODE_THRESHOLD:
                    c = 0 if x <= threshold[node] else 1
                elif 0 <= int(x) < cat_ptr[node + 1] - cat_ptr[node]:
                    c = cat_child[cat_ptr[node] + int(x)]
            if c < 0:  # missing, or a category the node does not map: surrogates and so on
                c = _child(node, X, i, nodes, surrogates)
            first = child_ptr[node]
            if c != MISSING_BY_WEIGHT:
                top += 1
                stack_node[top] = children[first + c]
                stack_frac[top] = w
                continue
            n_kids = child_ptr[node + 1] - first
            total = 0.0
            for k in range(n_kids):
                total += weight[children[first + k]]
            for k in range(n_kids):
                share = weight[children[first + k]] / total if total > 0 else 1.0 / n_kids
                if share > 0:
                    top += 1
                    stack_node[top] = children[first + k]
                    stack_frac[top] = w * share


@njit(cache=True)
def weakest_link(
    r_node, child_ptr, children, parent, is_leaf, ccp_alpha, record, alphas, totals, cuts
):
    """Breiman et al.'s weakest-link pruning, as scikit-learn's ``_cost_complexity_prune``.

    ``r_node[t]`` is ``R(t)``, the node's weighted impurity. Repeatedly the
    internal node of smallest ``g(t) = (R(t) - R(T_t)) / (|leaves(T_t)| - 1)``
    (the first in index order among equal values) is cut back to a leaf. With
    ``record``, every step's ``g`` and the tree's total leaf impurity are
    written to ``alphas`` and ``totals`` (the first entry is ``(0, R(T))``),
    and the node cut to ``cuts`` (the first entry is -1), until only the root
    is left; otherwise the loop stops before the first
    step whose ``g`` exceeds ``ccp_alpha``. Returns the number of entries
    written and the leaf mask of the final tree.
    """
    n = r_node.shape[0]
    r_branch = np.zeros(n)
    n_leaves = np.zeros(n, dtype=np.int64)
    for i in range(n - 1, -1, -1):  # children come after their parent
        if is_leaf[i]:
            r_branch[i] = r_node[i]
            n_leaves[i] = 1
        else:
            for k in range(child_ptr[i], child_ptr[i + 1]):
                r_branch[i] += r_branch[children[k]]
                n_leaves[i] += n_leaves[children[k]]
    candidate = ~is_leaf
    leaves = is_leaf.copy()
    alphas[0] = 0.0
    totals[0] = r_branch[0]
    cuts[0] = -1
    count = 1
    stack = np.empty(n, dtype=np.int64)
    while candidate[0]:
        best = np.inf
        cut = -1
        for i in range(n):
            if candidate[i]:
                g = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1)
                if g < best:
                    best = g
                    cut = i
        if cut < 0 or (not record and ccp_alpha < best):
            break
        top = 0
        stack[0] = cut
        while top >= 0:
            node = stack[top]
            top -= 1
            candidate[node] = False
            leaves[node] = False
            for k in range(child_ptr[node], child_ptr[node + 1]):
                top += 1
                stack[top] = children[k]
        leaves[cut] = True
        n_cut = n_leaves[cut] - 1
        n_leaves[cut] = 1
        r_diff = r_node[cut] - r_branch[cut]
        r_branch[cut] = r_node[cut]
        node = parent[cut]
        while node != -1:
            n_leaves[node] -= n_cut
            r_branch[node] += r_diff
            node = parent[node]
        if record:
            alphas[count] = best
            totals[count] = r_branch[0]
            cuts[count] = cut
            count += 1
    return count, leaves


@njit(cache=True)
def reaching_pairs(X, rows, nodes, surrogates, out_rows, out_nodes, fill):
    """Every ``(k, node)`` such that row ``rows[k]`` of ``X`` reaches ``node`` with
    some weight (down every branch of positive weight at a by-weight node where
    it misses the value). Returns the number of pairs; they are written to
    ``out_rows``/``out_nodes`` only with ``fill`` (size them with a first call)."""
    feature, kind, threshold, child_ptr, children, cat_ptr, cat_child, _, weight = nodes
    stack = np.empty(kind.shape[0] + 1, dtype=np.int64)
    n = 0
    for k in range(rows.shape[0]):
        top = 0
        stack[0] = 0
        while top >= 0:
            node = stack[top]
            top -= 1
            if fill:
                out_rows[n] = k
                out_nodes[n] = node
            n += 1
            if kind[node] == NODE_LEAF:
                continue
            c = UNDECIDED  # a known value, as _child decides it (see accumulate_reaching)
            x = X[rows[k], feature[node]]
            if not np.isnan(x):
                if kind[node] == NODE_THRESHOLD:
                    c = 0 if x <= threshold[node] else 1
                elif 0 <= int(x) < cat_ptr[node + 1] - cat_ptr[node]:
                    c = cat_child[cat_ptr[node] + int(x)]
            if c < 0:
                c = _child(node, X, rows[k], nodes, surrogates)
            first = child_ptr[node]
            if c != MISSING_BY_WEIGHT:
                top += 1
                stack[top] = children[first + c]
                continue
            total = 0.0
            for j in range(first, child_ptr[node + 1]):
                total += weight[children[j]]
            for j in range(first, child_ptr[node + 1]):
                if weight[children[j]] > 0 or total == 0:
                    top += 1
                    stack[top] = children[j]
    return n


# -- C4.5's error-based pruning ------------------------------------------------------------

#: C4.5 (prune.c) prefers the simpler tree when it predicts at most 0.1 more errors.
SLACK = 0.1


@njit(cache=True)
def _normal_added_errors(n, e, coeff):
    if e + 0.5 >= n:
        return 0.67 * (n - e)
    p = (e + 0.5 + coeff / 2 + np.sqrt(coeff * ((e + 0.5) * (1 - (e + 0.5) / n) + coeff / 4))) / (
        n + coeff
    )
    return n * p - e


@njit(cache=True)
def added_errors_kernel(n, e, log_cf, coeff):
    """C4.5's ``AddErrs(N, E)`` (stats.c); ``log_cf = log(CF)``, ``coeff = z**2``
    (see :func:`treelearn.pruning.error_based.added_errors`)."""
    if n <= 0:
        return 0.0
    if e < 1e-6:
        return n * (1.0 - np.exp(log_cf / n))
    if e < 0.9999:
        base = n * (1.0 - np.exp(log_cf / n))
        return base + e * (_normal_added_errors(n, 1.0, coeff) - base)
    return _normal_added_errors(n, e, coeff)


@njit(cache=True)
def _resolve(node, raised):
    while raised[node] >= 0:
        node = raised[node]
    return node


@njit(cache=True)
def _clear(node, children, child_ptr, raised, weight, n_samples, stack):
    """No case reaches ``node``'s subtree (raised branches included): no weight, no rows."""
    top = 0
    stack[0] = node
    while top >= 0:
        n = stack[top]
        top -= 1
        weight[n] = 0.0
        n_samples[n] = 0
        for k in range(child_ptr[n], child_ptr[n + 1]):
            top += 1
            stack[top] = children[k]
        if raised[n] >= 0:
            top += 1
            stack[top] = raised[n]


# A frame of c45_prune (a call of C4.5's EstimateErrors): its integer fields ...
_NODE, _UPDATE, _FIRST, _LAST, _ROW_MARK, _BRANCH_MARK = 0, 1, 2, 3, 4, 5
_STAGE, _NEXT, _UNKNOWN, _LARGEST_AT, _TARGET = 6, 7, 8, 9, 10
# ... its float fields ...
_LEAF_TOTAL, _TREE_ERRORS, _MAX_FACTOR = 0, 1, 2
# ... and its stages.
_START = 0  # not begun
_BRANCHES = 1  # estimating its branches one after the other
_LARGEST = 2  # estimating its largest branch with all its cases (raising's candidate)
_RAISING = 3  # re-pruning the raised branch with all its cases


@njit(cache=True)
def _push(frames, sp, node, update, first, last, row_mark, branch_mark):
    """Frame ``sp``: a call for ``node`` on the cases ``first:last`` of the arena. (Its
    callers pass numbers as np.int64 and flags as np.bool_, never literals, so that it
    is compiled once.)"""
    frames[sp, _NODE] = node
    frames[sp, _UPDATE] = update
    frames[sp, _FIRST] = first
    frames[sp, _LAST] = last
    frames[sp, _ROW_MARK] = row_mark
    frames[sp, _BRANCH_MARK] = branch_mark
    frames[sp, _STAGE] = _START


@njit(cache=True)
def _grow_arena(a, used, size):
    bigger = np.empty(size, dtype=a.dtype)
    bigger[:used] = a[:used]
    return bigger


@njit(cache=True)
def c45_prune(
    X,
    y,
    rows,
    row_weight,
    nodes,
    surrogates,
    log_cf,
    coeff,
    raising,
    leaf_class,
    value,
    weight,
    n_samples,
    pruned,
    raised,
    errors,
):
    """C4.5's ``EstimateErrors`` (prune.c, Release 8) from the root, rewriting the state.

    This is the recursion ``estimate(t, cases, update)`` C4.5 runs (see
    :func:`treelearn.pruning.error_based.prune_error_based`): the node's
    estimate as a leaf, its branches' estimates (each on the cases that go
    down it), and with ``update``, the decision: leaf, raise the largest
    branch (re-estimated, then re-pruned, on all the node's cases), or keep.
    It is written with an explicit stack of frames (numba caches no recursive
    function). A frame's cases are a segment of the row arena (row, class,
    weight, branch) above its caller's, in the order C4.5 sends them: a
    branch's known cases, then the cases missing the tested value with their
    weight times the branch's ``Factor`` (its share of the known weight).
    Sums of arrays are numpy's (:func:`~treelearn.stats._pairwise.numpy_sum`), so the recounts are
    those of a numpy transcription to the bit.

    State, as C4.5 rewrites its tree in place: ``pruned`` (node made a leaf),
    ``raised[t]`` (the branch that replaced ``t``, or -1), ``leaf_class``
    (C4.5's ``T->Leaf``: kept on ties), and ``value``, ``weight``,
    ``n_samples`` and ``errors`` recounted for every node the cases reach;
    an unreached node gets no weight and no rows (``value`` kept).
    """
    feature, kind, threshold, child_ptr, children, cat_ptr, cat_child, _, tree_weight = nodes
    n_nodes = kind.shape[0]
    n_classes = value.shape[1]
    dist = np.zeros(n_classes)
    clear_stack = np.empty(2 * n_nodes + 1, dtype=np.int64)
    # the row arena, grown when a frame needs more
    n_rows = rows.shape[0]
    a_row = np.empty(2 * n_rows + 16, dtype=np.int64)
    a_y = np.empty(2 * n_rows + 16, dtype=np.int64)
    a_w = np.empty(2 * n_rows + 16)
    a_branch = np.empty(2 * n_rows + 16, dtype=np.int64)
    for k in range(n_rows):
        a_row[k] = rows[k]
        a_y[k] = y[rows[k]]
        a_w[k] = row_weight[k]
    row_top = n_rows
    # per frame and branch: known cases' weight and count, Factor, whether cases go there
    b_known_w = np.empty(children.shape[0] + 1)
    b_count = np.empty(children.shape[0] + 1, dtype=np.int64)
    b_factor = np.empty(children.shape[0] + 1)
    b_visit = np.empty(children.shape[0] + 1, dtype=np.bool_)
    branch_top = np.int64(0)  # (np.int64 here and below: see _push)
    # a frame's node is strictly below its caller's: at most depth + 1 frames
    frames = np.empty((n_nodes + 1, 11), dtype=np.int64)
    frame_errors = np.empty((n_nodes + 1, 3))

    sp = np.int64(0)
    _push(frames, sp, np.int64(0), np.bool_(True), np.int64(0), n_rows, row_top, branch_top)
    returned = False  # the frame above sp has just returned ``result``
    result = 0.0
    while sp >= 0:
        t = frames[sp, _NODE]
        update = frames[sp, _UPDATE] == 1
        first_row, last_row = frames[sp, _FIRST], frames[sp, _LAST]
        first = child_ptr[t]
        n_kids = child_ptr[t + 1] - first
        base = frames[sp, _BRANCH_MARK]
        if returned:
            returned = False
            stage = frames[sp, _STAGE]
            if stage == _BRANCHES:
                frame_errors[sp, _TREE_ERRORS] += result
            elif stage == _LARGEST:  # prune.c's decision: leaf, raise the largest, or keep
                branch_errors = result
                leaf_total = frame_errors[sp, _LEAF_TOTAL]
                tree_errors = frame_errors[sp, _TREE_ERRORS]
                if leaf_total <= branch_errors + SLACK and leaf_total <= tree_errors + SLACK:
                    pruned[t] = True
                    errors[t] = leaf_total
                    result = leaf_total
                elif branch_errors <= tree_errors + SLACK:
                    frames[sp, _STAGE] = _RAISING
                    target = frames[sp, _TARGET]
                    sp += 1
                    _push(
                        frames, sp, target, np.bool_(True), first_row, last_row, row_top, branch_top
                    )
                    continue
                else:
                    errors[t] = tree_errors
                    result = tree_errors
                row_top, branch_top = frames[sp, _ROW_MARK], frames[sp, _BRANCH_MARK]
                sp -= 1
                returned = True
                continue
            else:  # _RAISING: the raised branch, re-pruned, takes t's place
                raised[t] = frames[sp, _TARGET]
                result = errors[_resolve(frames[sp, _TARGET], raised)]
                row_top, branch_top = frames[sp, _ROW_MARK], frames[sp, _BRANCH_MARK]
                sp -= 1
                returned = True
                continue
        elif frames[sp, _STAGE] == _START:
            is_leaf = pruned[t] or kind[t] == NODE_LEAF
            leaf_total = 0.0
            if update or is_leaf:  # (a subtree's estimate alone needs only its leaves')
                # the node as a leaf: the class distribution of its cases
                dist[:] = 0.0
                positive = 0
                for k in range(first_row, last_row):
                    dist[a_y[k]] += a_w[k]
                    if a_w[k] > 0:
                        positive += 1
                cases = numpy_sum(dist, np.int64(0), n_classes)
                best = leaf_class[t]
                top_class = 0
                for c in range(1, n_classes):
                    if dist[c] > dist[top_class]:
                        top_class = c
                if dist[top_class] > dist[best]:
                    best = top_class
                leaf_errors = cases - dist[best]
                if update:
                    if cases > 0:
                        value[t, :] = dist
                    weight[t] = cases
                    n_samples[t] = positive
                    leaf_class[t] = best
                leaf_total = leaf_errors + added_errors_kernel(cases, leaf_errors, log_cf, coeff)
            if is_leaf:
                if update:
                    errors[t] = leaf_total
                result = leaf_total
                row_top, branch_top = frames[sp, _ROW_MARK], frames[sp, _BRANCH_MARK]
                sp -= 1
                returned = True
                continue
            frame_errors[sp, _LEAF_TOTAL] = leaf_total
            # the branch of every case, and C4.5's Factor per branch
            branch_top += n_kids
            b_known_w[base : base + n_kids] = 0.0
            b_count[base : base + n_kids] = 0
            unknown = 0
            f = feature[t]
            threshold_node = kind[t] == NODE_THRESHOLD
            cut = threshold[t]
            cat_first = cat_ptr[t]
            n_cats = cat_ptr[t + 1] - cat_first
            for k in range(first_row, last_row):
                c = UNDECIDED  # a known value, as _child decides it (see accumulate_reaching)
                x = X[a_row[k], f]
                if not np.isnan(x):
                    if threshold_node:
                        c = 0 if x <= cut else 1
                    elif 0 <= int(x) < n_cats:
                        c = cat_child[cat_first + int(x)]
                if c < 0:
                    c = _child(t, X, a_row[k], nodes, surrogates)
                a_branch[k] = c
                if c == MISSING_BY_WEIGHT:
                    unknown += 1
                else:
                    b_known_w[base + c] += a_w[k]
                    b_count[base + c] += 1
            frames[sp, _UNKNOWN] = unknown
            known_total = numpy_sum(b_known_w, base, n_kids)
            if known_total > 0:
                for v in range(n_kids):
                    b_factor[base + v] = b_known_w[base + v] / known_total
                    b_visit[base + v] = b_count[base + v] > 0
            else:
                # no case here knows the tested value (C4.5 would divide by zero): the
                # children's training weights share the cases out
                for v in range(n_kids):
                    b_factor[base + v] = tree_weight[children[first + v]]
                kid_total = numpy_sum(b_factor, base, n_kids)
                for v in range(n_kids):
                    if kid_total > 0:
                        b_factor[base + v] = b_factor[base + v] / kid_total
                    else:
                        b_factor[base + v] = 1.0 / n_kids
                    b_visit[base + v] = b_factor[base + v] > 0
            frames[sp, _STAGE] = _BRANCHES
            frames[sp, _NEXT] = 0
            frames[sp, _LARGEST_AT] = -1
            frame_errors[sp, _TREE_ERRORS] = 0.0
            frame_errors[sp, _MAX_FACTOR] = 0.0
        # _BRANCHES: on to the next branch that gets cases (no case reaches the others)
        v = frames[sp, _NEXT]
        while v < n_kids and not b_visit[base + v]:
            if update:
                kid = _resolve(children[first + v], raised)
                _clear(kid, children, child_ptr, raised, weight, n_samples, clear_stack)
            v += 1
        if v < n_kids:
            factor = b_factor[base + v]
            if factor >= frame_errors[sp, _MAX_FACTOR]:  # the last of the largest
                frames[sp, _LARGEST_AT] = v
                frame_errors[sp, _MAX_FACTOR] = factor
            needed = row_top + b_count[base + v] + frames[sp, _UNKNOWN]
            if needed > a_row.shape[0]:
                size = max(2 * a_row.shape[0], needed)
                a_row = _grow_arena(a_row, row_top, size)
                a_y = _grow_arena(a_y, row_top, size)
                a_w = _grow_arena(a_w, row_top, size)
                a_branch = _grow_arena(a_branch, row_top, size)
            mark = row_top
            for k in range(first_row, last_row):
                if a_branch[k] == v:
                    a_row[row_top] = a_row[k]
                    a_y[row_top] = a_y[k]
                    a_w[row_top] = a_w[k]
                    row_top += 1
            if frames[sp, _UNKNOWN] > 0:
                for k in range(first_row, last_row):
                    if a_branch[k] == MISSING_BY_WEIGHT:
                        a_row[row_top] = a_row[k]
                        a_y[row_top] = a_y[k]
                        a_w[row_top] = a_w[k] * factor
                        row_top += 1
            frames[sp, _NEXT] = v + 1
            kid = _resolve(children[first + v], raised)
            sp += 1
            _push(frames, sp, kid, update, mark, row_top, mark, branch_top)
            continue
        frames[sp, _NEXT] = n_kids
        if not update:
            result = frame_errors[sp, _TREE_ERRORS]
            row_top, branch_top = frames[sp, _ROW_MARK], frames[sp, _BRANCH_MARK]
            sp -= 1
            returned = True
            continue
        target = _resolve(children[first + frames[sp, _LARGEST_AT]], raised)
        frames[sp, _TARGET] = target
        frames[sp, _STAGE] = _LARGEST
        if not raising:
            result = np.inf
            returned = True
            continue
        # the largest branch's estimate with all of t's cases (nothing rewritten)
        sp += 1
        _push(frames, sp, target, np.bool_(False), first_row, last_row, row_top, branch_top)
    return result


# -- C4.5's collapse rule, and matching two trees' nodes -------------------------------------


@njit(cache=True)
def collapse_nodes(errors, kind, child_ptr, children, epsilon, leaves):
    """FormTree's collapse rule (build.c) bottom-up: ``leaves[t]`` when the training
    errors of ``t``'s subtree (its leaves' ``errors``, summed as numpy sums the
    children's) are at least ``errors[t] - epsilon``; a collapsed node still
    passes its subtree's errors up (C4.5 tests every node on the grown tree)."""
    subtree = errors.copy()
    below = np.empty(children.shape[0] + 1)
    for node in range(kind.shape[0] - 1, -1, -1):  # every child comes after its parent
        if kind[node] == NODE_LEAF:
            continue
        first = child_ptr[node]
        n_kids = child_ptr[node + 1] - first
        for k in range(n_kids):
            below[k] = subtree[children[first + k]]
        total = numpy_sum(below, np.int64(0), n_kids)
        leaves[node] = total >= errors[node] - epsilon
        subtree[node] = total


#: The arrays of a tree :func:`match_nodes` reads, in ``_subtree._match_arrays``'s order.
_M_SAMPLES, _M_VALUE, _M_WEIGHT, _M_KIND, _M_FEATURE, _M_THRESHOLD, _M_MISSING = range(7)
_M_CAT_PTR, _M_CAT, _M_SUR_PTR, _M_SUR, _M_CHILD_PTR, _M_CHILDREN = range(7, 13)


@njit(cache=True)
def _close(a, b, rtol):
    """``np.isclose(a, b, rtol=rtol, atol=0)``."""
    if np.isfinite(a) and np.isfinite(b):
        return abs(a - b) <= rtol * abs(b)
    return a == b


@njit(cache=True)
def _same_stats(a, i, b, j, rtol):
    """Nodes ``a[i]`` and ``b[j]`` have the same ``n_samples``, and ``weight`` and
    ``value`` equal up to ``rtol`` (``np.allclose(..., atol=0)``)."""
    same = a[_M_SAMPLES][i] == b[_M_SAMPLES][j] and _close(a[_M_WEIGHT][i], b[_M_WEIGHT][j], rtol)
    value_a, value_b = a[_M_VALUE], b[_M_VALUE]
    k = 0
    while same and k < value_a.shape[1]:
        same = _close(value_a[i, k], value_b[j, k], rtol)
        k += 1
    return same


@njit(cache=True)
def _same_slices(ptr_a, data_a, i, ptr_b, data_b, j):
    """``data_a[ptr_a[i]:ptr_a[i + 1]]`` equals ``data_b[ptr_b[j]:ptr_b[j + 1]]``."""
    n = ptr_a[i + 1] - ptr_a[i]
    same = ptr_b[j + 1] - ptr_b[j] == n
    k = 0
    while same and k < n:
        same = data_a[ptr_a[i] + k] == data_b[ptr_b[j] + k]
        k += 1
    return same


@njit(cache=True)
def _same_split(a, i, b, j):
    """Internal nodes ``a[i]`` and ``b[j]`` make the same test: feature, kind,
    missing-value rule, threshold, category map, surrogate features, children."""
    if (
        a[_M_FEATURE][i] != b[_M_FEATURE][j]
        or a[_M_KIND][i] != b[_M_KIND][j]
        or a[_M_MISSING][i] != b[_M_MISSING][j]
    ):
        return False
    cut_a, cut_b = a[_M_THRESHOLD][i], b[_M_THRESHOLD][j]
    if not (cut_a == cut_b or (np.isnan(cut_a) and np.isnan(cut_b))):
        return False
    ptr_a, ptr_b = a[_M_CHILD_PTR], b[_M_CHILD_PTR]
    return (
        _same_slices(a[_M_CAT_PTR], a[_M_CAT], i, b[_M_CAT_PTR], b[_M_CAT], j)
        and _same_slices(a[_M_SUR_PTR], a[_M_SUR], i, b[_M_SUR_PTR], b[_M_SUR], j)
        and ptr_a[i + 1] - ptr_a[i] == ptr_b[j + 1] - ptr_b[j]
    )


@njit(cache=True)
def match_nodes(a, b, rtol, strict, out_a, out_b):
    """Walk trees ``a`` and ``b`` from their roots together (the tuples of
    ``_subtree._match_arrays``), depth first, the last child first.

    ``strict`` (is ``a`` a rooted subtree of ``b``): every pair visited is
    written, and -1 returned at the first pair whose statistics differ (up to
    ``rtol``), or where ``a`` splits and ``b`` does not split the same way.
    Otherwise (the nodes left unchanged): a pair is written when its
    statistics agree, and its children are visited when both split the same
    way. Returns the number of pairs written to ``out_a``/``out_b``.
    """
    kind_a, ptr_a, children_a = a[_M_KIND], a[_M_CHILD_PTR], a[_M_CHILDREN]
    kind_b, ptr_b, children_b = b[_M_KIND], b[_M_CHILD_PTR], b[_M_CHILDREN]
    stack_a = np.empty(kind_a.shape[0] + 1, dtype=np.int64)
    stack_b = np.empty(kind_a.shape[0] + 1, dtype=np.int64)
    top = 0
    stack_a[0] = 0
    stack_b[0] = 0
    count = 0
    while top >= 0:
        i, j = stack_a[top], stack_b[top]
        top -= 1
        same = _same_stats(a, i, b, j, rtol)
        if strict:
            out_a[count], out_b[count] = i, j
            count += 1
            if not same:
                return -1
            if kind_a[i] == NODE_LEAF:
                continue
            if kind_b[j] == NODE_LEAF or not _same_split(a, i, b, j):
                return -1
        else:
            if not same:
                continue
            out_a[count], out_b[count] = i, j
            count += 1
            if kind_a[i] == NODE_LEAF or kind_b[j] == NODE_LEAF or not _same_split(a, i, b, j):
                continue
        for k in range(ptr_a[i + 1] - ptr_a[i]):
            top += 1
            stack_a[top] = children_a[ptr_a[i] + k]
            stack_b[top] = children_b[ptr_b[j] + k]
    return count


@njit(cache=True)
def new_order(kind, child_ptr, children, leaf, raised, old_of_new, first_child, internal):
    """The nodes of the pruned tree as the grower numbers them (depth first, a
    node's children numbered together right after it is split): ``old_of_new``
    (the original node of every new one, a raised node's replacement in its
    place), ``first_child`` (a new node's first child), ``internal``. Returns the
    number of new nodes, or -1 when ``raised`` has a cycle."""
    n = kind.shape[0]
    stack = np.empty(n + 1, dtype=np.int64)
    count = 1
    node = 0
    for _ in range(n + 1):
        if raised[node] < 0:
            break
        node = raised[node]
    if raised[node] >= 0:
        return -1
    old_of_new[0] = node
    top = 0
    stack[0] = 0
    while top >= 0:
        new = stack[top]
        top -= 1
        old = old_of_new[new]
        if leaf[old] or kind[old] == NODE_LEAF:
            continue
        internal[new] = True
        first_child[new] = count
        for k in range(child_ptr[old], child_ptr[old + 1]):
            node = children[k]
            for _ in range(n + 1):
                if raised[node] < 0:
                    break
                node = raised[node]
            if raised[node] >= 0:
                return -1
            old_of_new[count] = node
            count += 1
        for k in range(count - 1, first_child[new] - 1, -1):
            top += 1
            stack[top] = k
    return count
