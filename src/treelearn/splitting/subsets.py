"""C4.5's value groups for nominal attributes (option ``-s``; Quinlan 1993, section 5.2).

Instead of one branch per value, the values of a nominal attribute with more
than two values are grouped, by Release 8's greedy procedure (``EvalSubset``):

1. every value present at the node (weight above 0.5) starts as its own
   group; values absent at the node are put aside;
2. groups whose rows are all of one class are merged with the other groups of
   that class;
3. hill-climbing: while more than two groups remain, the pair whose merger
   gives the best gain ratio is merged, as long as that ratio is not lower
   than the current one (a merger whose gain reaches half the first gain is
   preferred over one that does not); when fewer than three groups hold ``m``
   rows, the largest group takes no part in mergers;
4. the split is admissible when its gain ratio is positive and two groups hold
   ``m`` rows; values absent at the node form one more group (an empty branch).

Gains and split information are C4.5's (:mod:`treelearn.splitting._gain_ratio_kernels`).
The groups' order follows Release 8's bookkeeping (a merged pair keeps the
first one's place, the last group moves into the second's), which decides
between mergers of equal worth.
"""

import numpy as np

from treelearn.splitting.gain_ratio import EPSILON

#: Release 8's thresholds: a value with more weight than this is present at the
#: node; a class with at least this weight decides a group's single class.
PRESENT_WEIGHT = 0.5
CLASS_WEIGHT = 0.1
#: A merger must raise the gain ratio by this much to be taken (Release 8's 1E-5).
MIN_IMPROVEMENT = 1e-5


def _total_info(counts):
    """N * H(counts) in bits (C4.5's ``TotalInfo``)."""
    counts = np.asarray(counts, dtype=float)
    counts = counts[counts > 0]
    total = counts.sum()
    return float((counts * np.log2(total / counts)).sum()) if total > 0 else 0.0


def _gain(base_info, unknown_rate, freqs, known, min_objs):
    """C4.5's ``ComputeGain`` over groups with class weights ``freqs``."""
    if known <= 0:
        return -EPSILON
    sizes = [f.sum() for f in freqs]
    if sum(size >= min_objs for size in sizes) < 2:
        return -EPSILON
    this_info = sum(_total_info(f) for f in freqs)
    return (1 - unknown_rate) * (base_info - this_info / known)


def _worth(info, gain):
    """C4.5's ``Worth`` with the minimum gain ``Epsilon`` (the gain ratio, or ``-Epsilon``)."""
    return gain / info if gain >= 0.0 and info > EPSILON else -EPSILON


class _Groups:
    """Groups of values with their class weights, merged as Release 8 does."""

    def __init__(self, values, freq):
        self.members = [[v] for v in values]
        self.freqs = [freq[v].copy() for v in values]

    def __len__(self):
        return len(self.members)

    def merge(self, a, b):
        """Merge group ``b`` into ``a``; the last group takes ``b``'s place."""
        self.members[a] = self.members[a] + self.members[b]
        self.freqs[a] = self.freqs[a] + self.freqs[b]
        self.members[b] = self.members[-1]
        self.freqs[b] = self.freqs[-1]
        self.members.pop()
        self.freqs.pop()

    def merged_freqs(self, a, b):
        """The groups' class weights were ``a`` and ``b`` merged (order irrelevant)."""
        return [f for k, f in enumerate(self.freqs) if k not in (a, b)] + [
            self.freqs[a] + self.freqs[b]
        ]


def c45_value_groups(freq, unknown_weight, min_objs):
    """Release 8's grouping of a nominal attribute's values at a node.

    Parameters
    ----------
    freq : ndarray of shape (n_values, n_classes)
        Weight of each class among the node's rows with each value.
    unknown_weight : float
        Weight of the node's rows missing the attribute.
    min_objs : float
        C4.5's ``m``.

    Returns
    -------
    groups : ndarray of int64 or None
        The group (branch) of every value, None when the attribute may not split.
    gain, split_info : float
        C4.5's gain and split information of the grouped split.
    """
    known = float(freq.sum())
    items = known + unknown_weight
    if known < EPSILON:
        return None, np.nan, np.nan
    base_info = _total_info(freq.sum(axis=0)) / known
    unknown_rate = unknown_weight / items
    sizes = freq.sum(axis=1)
    present = np.flatnonzero(sizes > PRESENT_WEIGHT)
    absent = np.flatnonzero(sizes <= PRESENT_WEIGHT)
    groups = _Groups(present, freq)

    def info_of(freqs):
        return _total_info([unknown_weight, *(f.sum() for f in freqs)]) / items

    gain = _gain(base_info, unknown_rate, list(freq), known, 1.0)
    info = info_of(list(freq))
    worth = _worth(info, gain)
    if _merge_single_class_groups(groups):
        gain = _gain(base_info, unknown_rate, groups.freqs, known, 1.0)
        info = info_of(groups.freqs)
        worth = _worth(info, gain)
    min_gain = gain / 2
    while len(groups) > 2:
        group_sizes = [f.sum() for f in groups.freqs]
        reasonable = sum(size >= min_objs for size in group_sizes)
        barred = None if reasonable >= 3 else int(np.argmax(group_sizes))
        best = None
        best_worth, best_gain, best_info = 0.0, -EPSILON, np.nan
        for a in range(len(groups) - 1):
            for b in range(a + 1, len(groups)):
                if barred in (a, b):
                    continue
                freqs = groups.merged_freqs(a, b)
                this_gain = _gain(base_info, unknown_rate, freqs, known, 1.0)
                this_info = info_of(freqs)
                this_worth = _worth(this_info, this_gain)
                if (
                    (this_gain >= min_gain and best_gain < min_gain)
                    or this_worth >= best_worth
                    or (best is None and reasonable < 2)
                ):
                    best = (a, b)
                    best_worth, best_gain, best_info = this_worth, this_gain, this_info
        if reasonable >= 2 and (
            best is None
            or best_worth < worth + MIN_IMPROVEMENT
            or (best_worth == worth and best_gain < gain)
        ):
            break
        gain, info, worth = best_gain, best_info, best_worth
        groups.merge(*best)
    if worth <= 0:
        return None, np.nan, np.nan
    final_gain = _gain(base_info, unknown_rate, groups.freqs, known, min_objs)
    branch = np.full(freq.shape[0], -1, dtype=np.int64)
    for k, members in enumerate(groups.members):
        branch[members] = k
    if absent.size:
        branch[absent] = len(groups)
    if final_gain <= -EPSILON:
        return None, final_gain, info
    return branch, final_gain, info


def _merge_single_class_groups(groups):
    """Merge every group whose rows are of one class with the later groups of that class."""
    merged = False
    a = 0
    while a < len(groups) - 1:
        freq = groups.freqs[a]
        size = freq.sum()
        c = int(np.argmax(freq >= CLASS_WEIGHT))
        if freq[c] >= size - CLASS_WEIGHT:
            b = a + 1
            while b < len(groups):
                other = groups.freqs[b]
                if other[c] < other.sum() - CLASS_WEIGHT:
                    b += 1
                else:
                    groups.merge(a, b)
                    merged = True
        a += 1
    return merged
