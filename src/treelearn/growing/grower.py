"""The one grower: builds every tree treelearn makes, under a :class:`GrowthSpec`.

The loop: take a node from the frontier, partition its rows by its best split,
summarise each child (statistics, histograms by subtraction), search each
child's best split, and push the children that may split. Search and
partition are numba kernels; this module only orchestrates them. In the
common configuration (:meth:`Grower._fast_loop_applies`) the whole depth-first
loop runs in numba (:mod:`treelearn.growing._loop_kernels`, driven by
:mod:`treelearn.growing.numba_growth`) and grows the same tree bit for bit; the
Python loop here is its reference and does the rest.

Tie rule
    Among splits of equal gain the grower keeps the one on the lower feature
    index; on one feature, the lower threshold, and missing values sent right
    before left; nominal subset searches keep the first best subset of their
    enumeration (:func:`treelearn.splitting._subset_kernels.scan_subset`). Features
    drawn at random (``max_features``) come from ``random_state`` in
    node-creation order, so the same data, parameters and ``random_state``
    give the same tree.

Missing values
    ``missing="learn"``: each split also learns which child takes the rows
    missing its feature. ``missing="surrogate"`` (Breiman et al. 1984, as
    rpart grows trees): a feature is evaluated on the node's rows that know
    it; once a node's split is chosen, its surrogate splits are found over
    the node's rows (every other feature, whatever ``max_features`` drew), the
    rows missing the split's feature are routed by them and then by the
    majority direction, which is also the node's ``missing_child``
    (:mod:`treelearn.splitting.surrogate`). Not available for absolute error
    and Huber yet.
    ``missing="fractional"`` (C4.5, with ``selection="gain_ratio"``): every
    node holds its own rows and their weights; a row missing the split's
    feature goes down every branch with a share of its weight
    (:mod:`treelearn.splitting.fractional`), and the node's ``missing_child``
    is ``MISSING_BY_WEIGHT``. This path's whole loop, split records included,
    also runs in numba (:meth:`Grower._c45_loop_applies`,
    :mod:`treelearn.growing._c45_kernels`) and grows the same tree bit for bit.

Choosing a split
    ``selection="gain"``: the largest impurity decrease over all features
    (:func:`treelearn.splitting._kernels.find_best_split`).
    ``selection="gain_ratio"``: C4.5 evaluates every attribute
    (:mod:`treelearn.splitting._gain_ratio_kernels`) and takes the largest gain
    ratio among those of above-average gain (:mod:`treelearn.splitting.gain_ratio`).

Split records
    With ``selection="gain_ratio"`` or ``spec.record_splits``, every node
    searched gets a :class:`~treelearn.splitting.gain_ratio.SplitRecord` in
    ``Grower.split_records`` (node index -> record): every attribute's
    numbers there, so that the split can be explained as a textbook does.
    The numba loop grows without them; for ``spec.record_splits`` they are
    made from its Tree afterwards (:mod:`treelearn.growing._record_kernels`),
    the Python loop's records to the bit.
"""

import numba
import numpy as np

from treelearn._dtypes import (
    NO_CHILD,
    NODE_MULTIWAY,
    NODE_SUBSET,
    NODE_THRESHOLD,
    code_dtype_for,
    n_channels,
    row_index_dtype,
)
from treelearn.criteria import HISTOGRAM_CRITERIA, criterion_id
from treelearn.criteria._kernels import weighted_impurity
from treelearn.exceptions import ParameterError
from treelearn.growing import settings, threaded
from treelearn.growing._local_kernels import LOCAL_MAX_ROWS
from treelearn.growing.c45_growth import C45Growth
from treelearn.growing.frontier import BestFirstFrontier, DepthFirstFrontier
from treelearn.growing.numba_growth import NumbaLoopGrowth
from treelearn.splitting import _cut_kernels as cut_kernels
from treelearn.splitting import _gain_ratio_kernels as gain_ratio_kernels
from treelearn.splitting import _kernels as split_kernels
from treelearn.splitting import _partition_kernels as partition_kernels
from treelearn.splitting import _robust_kernels as robust_kernels
from treelearn.splitting import _scan_buffer_kernels as scan_buffer_kernels
from treelearn.splitting.gain_ratio import SplitRecord, many_valued
from treelearn.splitting.surrogate import SurrogateSearch
from treelearn.stats._kernels import build_node_histograms, node_statistics, subtract_histograms
from treelearn.tree.builder import TreeBuilder

#: ``gathered`` of :func:`~treelearn.stats._kernels.build_node_histograms` for
#: the Python loop: none, the targets are read at each row.
_READ_IN_PLACE = np.empty((2, 0))


def code_value_arrays(dataset):
    """The value of every code of every exact numeric feature, flat, and where each
    feature's values start (bins and nominal features have none)."""
    values = [v if v is not None else np.empty(0) for v in dataset.numeric_values]
    ptr = np.concatenate([[0], np.cumsum([v.shape[0] for v in values])]).astype(np.int64)
    flat = np.concatenate(values).astype(np.float64) if values else np.empty(0)
    return flat, ptr


class _Node:
    __slots__ = (
        "depth", "end", "gain", "hist", "impurity", "index", "row_weight", "rows", "split",
        "start", "stats", "used", "value",
    )  # fmt: skip

    def __init__(self, index, start, end, depth, stats, impurity, hist, value):
        self.index = index
        self.start = start
        self.end = end
        self.depth = depth
        self.stats = stats
        self.impurity = impurity
        self.hist = hist
        self.value = value
        self.split = None
        self.gain = -np.inf
        # missing="fractional": the node's own rows and weights, and the nominal
        # features tested above it (C4.5 tests a nominal attribute once per path).
        self.rows = None
        self.row_weight = None
        self.used = None

    @property
    def n_rows(self):
        return self.end - self.start


def _are_whole(weight, n_rows):
    """Whether every weight of ``n_rows`` rows is a whole number and their sum below
    :data:`~treelearn.splitting._kernels.WHOLE_WEIGHT_LIMIT`, none negative: then
    every sum of class weights and of their squares is exact. (``weight`` empty:
    every row weighs 1.)"""
    if not weight.shape[0]:
        return n_rows < split_kernels.WHOLE_WEIGHT_LIMIT
    return bool(
        weight.sum() < split_kernels.WHOLE_WEIGHT_LIMIT
        and weight.min(initial=0.0) >= 0.0
        and np.array_equal(weight, np.trunc(weight))
    )


def _are_ones(weight):
    """Whether every weight is exactly 1 (as when no sample weights are given; an
    empty ``weight``: none are stored)."""
    return bool(weight.min(initial=1.0) == 1.0 and weight.max(initial=1.0) == 1.0)


def _kernel_array(values, dtype):
    """``values`` as a C-contiguous, writable array of ``dtype`` (a copy only when
    needed; the kernels never write to it)."""
    array = np.ascontiguousarray(values, dtype=dtype)
    return array if array.flags.writeable else array.copy()


class Grower(NumbaLoopGrowth, C45Growth):
    """Grows one tree.

    The set-up, the choice of loop and the Python loop are here; the numba loop's
    part (:class:`~treelearn.growing.numba_growth.NumbaLoopGrowth`) and C4.5's
    (:class:`~treelearn.growing.c45_growth.C45Growth`) are mixed in, growing on
    several threads is :mod:`~treelearn.growing.threaded`, and the settings all of
    them read are :mod:`~treelearn.growing.settings`.

    Parameters
    ----------
    dataset : treelearn.data.dataset.Dataset
        Encoded features.
    y : ndarray
        Class indices ``0..n_classes-1`` (classification) or float targets.
    sample_weight : ndarray of float64 or None
        Weight per row (class weights already applied); None: every row weighs 1.
    n_classes : int
        Number of classes, 0 for regression.
    spec : GrowthSpec
    rng : numpy.random.Generator
        Source of the feature draws when ``spec.max_features`` is set.
    n_threads : int, default=1
        Threads that search a large node's features and grow subtrees (numba's
        thread count must allow them; see :func:`numba.set_num_threads`); one
        where the tree's expected work would not pay for them
        (:meth:`_threads_pay`; the attribute ``n_threads`` is then 1). The tree
        does not depend on it.
    """

    def __init__(self, dataset, y, sample_weight, n_classes, spec, rng, n_threads=1):
        self.dataset = dataset
        self.n_threads = n_threads
        self.spec = spec
        self.rng = rng
        self.n_classes = n_classes
        self.is_classification = n_classes > 0
        self.criterion = criterion_id(spec.criterion, self.is_classification)
        self.robust = self.criterion not in HISTOGRAM_CRITERIA
        self.gain_ratio = spec.selection == "gain_ratio"
        self.record_splits = self.gain_ratio or (spec.record_splits and self.is_classification)
        # missing="surrogate" (rpart): splits are searched on the rows that know
        # the feature, then the rows missing it follow the node's surrogates.
        self.surrogate_mode = spec.missing == "surrogate"
        self.fractional = spec.missing == "fractional"
        # Read once: the split scratch is sized by it (scratch_codes_size) and every
        # search of this tree takes it.
        self.hist_ratio = float(settings.HIST_RATIO)
        self.multiway = spec.nominal_split == "multiway"
        self.n_channels = n_channels(0 if self.is_classification else 1, n_classes)
        self.n_features = dataset.n_features
        self.max_features = spec.max_features or self.n_features
        self.n_codes = dataset.n_codes
        # ``feature_codes[f, r]``: row r's code of feature f, as the kernels read codes
        # (C-contiguous whatever the number of features: one compilation for all).
        self.feature_codes = np.ascontiguousarray(dataset.codes.T)
        self.split_records = {}
        # In this order: each step reads what the steps before it settled.
        self._take_targets(y, sample_weight)
        self._choose_kept_and_presorted_features()
        self._make_work_arrays()
        self._settle_weights()
        self._set_up_missing_values()
        self._set_up_presorted_rows()
        self._set_up_threads(n_threads)
        self._set_up_gain_ratio()

    def _take_targets(self, y, sample_weight):
        """``y_class``, ``y_value`` and ``weight`` (None where no sample weights were
        given: :meth:`_settle_weights`) as the kernels take them."""
        # One dtype per array whatever the task and writable arrays only (numba
        # compiles the loop once per combination of argument types).
        if self.is_classification:
            self.y_class = _kernel_array(y, np.int32)
            self.y_value = np.zeros(1)
        else:
            self.y_class = np.zeros(1, dtype=np.int32)
            self.y_value = _kernel_array(y, np.float64)
        self.weight = None if sample_weight is None else _kernel_array(sample_weight, np.float64)

    def _choose_kept_and_presorted_features(self):
        """The features that keep a histogram per node (few codes) and those whose rows
        are kept in code order (many codes, numeric): ``stored_*``, ``sorted_*``."""
        dataset = self.dataset
        # Histograms kept per node: features with few codes, stacked.
        small = np.flatnonzero(self.n_codes + 1 <= settings.STORE_MAX_BINS)
        self.stored_features = small.astype(np.int64)
        self.stored_rows = np.concatenate([[0], np.cumsum(self.n_codes[small] + 1)]).astype(
            np.int64
        )
        self.stored_offsets = np.full(self.n_features, -1, dtype=np.int64)
        self.stored_offsets[small] = self.stored_rows[:-1]
        self.no_offsets = np.full(self.n_features, -1, dtype=np.int64)
        self.empty_hist = np.zeros((0, self.n_channels))
        # Numeric features with many codes keep their rows sorted by code in every
        # node (partitioned stably at each split), so no node ever sorts.
        # (Absolute error and Huber sort their node rows in their own kernel.)
        many = np.flatnonzero(~dataset.is_nominal & (self.n_codes + 1 > settings.STORE_MAX_BINS))
        if self.criterion not in HISTOGRAM_CRITERIA:
            many = many[:0]
        self.sorted_slot = np.full(self.n_features, -1, dtype=np.int64)
        self.sorted_slot[many] = np.arange(many.shape[0])
        self.sorted_features = many
        if self.robust:
            # Absolute error and Huber search the node's rows, never histograms.
            self.stored_features = self.stored_features[:0]
            self.huber_delta = float(self.spec.huber_delta or 1.0)
            self._location_cache = None

    def _make_work_arrays(self):
        """The split search's and partition's scratch, made once for the tree."""
        n, dataset, spec = self.dataset.n_samples, self.dataset, self.spec
        max_bins = int(self.n_codes.max()) + 1
        self.scratch_hist = np.empty((max_bins + 1, self.n_channels))
        self.scratch_codes = np.empty(
            split_kernels.scratch_codes_size(n, max_bins, self.hist_ratio), dtype=np.int64
        )
        # The masks of subset splits only where a feature is nominal (None: numba
        # leaves the nominal features' search out of the split finders' compilation).
        has_nominal = bool(dataset.is_nominal.any())
        self.scratch_mask = np.zeros(max_bins + 1, dtype=np.uint8) if has_nominal else None
        self.out = np.empty(cut_kernels.N_OUT)
        self.out_mask = np.zeros(max_bins + 1, dtype=np.uint8) if has_nominal else None
        # Row indices (in the row order's dtype: 4 bytes a row where they fit).
        self.partition_buffer = np.empty(n, dtype=row_index_dtype(n))
        self.all_features = np.arange(self.n_features, dtype=np.int64)
        # Read at random for every presorted row at every split: as narrow as the
        # children allow (one byte: splitting 20 runs of 800k rows took 3.7 ns a row
        # and feature, against 7.5 with int32).
        most_children = 2
        if spec.nominal_split == "multiway" and dataset.is_nominal.any():
            most_children = max(2, int(self.n_codes[dataset.is_nominal].max()))
        self.child_of_row = np.zeros(n, dtype=np.uint8 if most_children <= 256 else np.int32)
        # Two rows: a presorted run's rows and their codes, while they are partitioned
        # (no room where no feature is presorted: its dtype is still read).
        self.sorted_buffer = np.empty(
            (2, n if self.sorted_features.size else 0), dtype=row_index_dtype(n)
        )

    def _settle_weights(self):
        """``weight`` where none were given (ones, or none stored), and whether all are
        whole numbers (``whole_weights``)."""
        n = self.dataset.n_samples
        if self.weight is None:
            # No sample weights: where the numba loop grows the tree (and no split
            # records are made afterwards), no weights are stored: its kernels read
            # an empty weight array as every row weighing 1 (stats._kernels.weight_at;
            # 8 bytes a row less memory). The other ways of growing read ones.
            stored = not self._fast_loop_applies() or self.record_splits
            self.weight = np.ones(n) if stored else np.empty(0)
        # Whole weights (no sample weights, bootstrap counts) let the Gini scans
        # keep exact running sums of squares (the same gains, far fewer steps);
        # fractional weights change per node, so never there.
        self.whole_weights = not self.fractional and _are_whole(self.weight, n)

    def _set_up_missing_values(self):
        """``missing="surrogate"``: the surrogates' search; ``missing="fractional"``
        (C4.5): no histograms kept, no rows presorted, the weights a scratch copy."""
        dataset, spec = self.dataset, self.spec
        if self.surrogate_mode:
            if self.robust:
                raise ParameterError(
                    f"missing='surrogate' is not available with criterion={spec.criterion!r} "
                    "yet; use criterion='squared_error' or missing='learn'."
                )
            self.surrogates = SurrogateSearch(
                dataset.codes, self.n_codes, dataset.is_nominal, self.weight,
                spec.max_surrogates, self.hist_ratio,
            )  # fmt: skip
        if self.fractional:
            # Rows and weights differ per node: no histogram is kept or shared,
            # no row order is kept sorted, and the weights are a scratch copy.
            self.weight = self.weight.copy()
            self.stored_features = self.stored_features[:0]
            self.sorted_features = self.sorted_features[:0]
            self.sorted_slot[:] = -1

    def _set_up_presorted_rows(self):
        """The presorted features' rows in code order and their codes (``sorted_rows``,
        ``sorted_codes``), and local mode's map of a row to its place in its node."""
        n, dataset = self.dataset.n_samples, self.dataset
        # Local mode's map from a row to its place in its node (at most LOCAL_MAX_ROWS),
        # for the presorted runs only.
        self.local_of_row = np.zeros(
            n if self.sorted_features.size else 0, dtype=code_dtype_for(LOCAL_MAX_ROWS - 1)
        )
        # Each presorted feature's rows in code order, and beside them their codes (4
        # bytes a row and feature: the scans read them in sequence, not at random from
        # the code matrix): the encoding's, as it sorted them to make the codes, taken
        # from the dataset (which keeps none afterwards) where it kept them for these
        # features; else sorted by grow().
        presorted = dataset.take_presorted()
        #: Whether ``sorted_rows`` and ``sorted_codes`` came in code order already.
        self.presorted_by_encoding = (
            presorted is not None
            and np.array_equal(presorted.features, self.sorted_features)
            and presorted.rows.dtype == self.sorted_buffer.dtype
        )
        if self.presorted_by_encoding:
            self.sorted_rows, self.sorted_codes = presorted.rows, presorted.codes
        else:
            self.sorted_rows = np.empty(
                (self.sorted_features.shape[0], n), dtype=self.sorted_buffer.dtype
            )
            self.sorted_codes = np.empty_like(self.sorted_rows)
        del presorted

    def _set_up_threads(self, n_threads):
        """Whether the tree grows on ``n_threads`` threads (``n_threads``, 1 where they
        do not pay) and its large nodes on threads, and the presorted scans' buffers."""
        n, dataset = self.dataset.n_samples, self.dataset
        # Presorted features' rows are gathered in code order into a buffer per
        # thread before they are scanned, allocated once (fresh pages per node
        # cost page faults); a row per numba thread when large nodes search on threads.
        # Rows all of weight 1 (no sample weights) have only their targets gathered.
        # One thread where the tree's expected work would not earn the threads'
        # fixed costs back (the tree does not depend on it).
        if n_threads > 1 and not self._threads_pay():
            self.n_threads = 1
        # Whether the numba loop's large nodes use threads: the scan buffers here
        # and the loop (_grow_fast) read the one decision.
        self.large_nodes_threaded = self.n_threads > 1 and n >= threaded.PARALLEL_MIN_ROWS
        # (None where no feature is numeric, as the subset masks where none is nominal.)
        self.sorted_scan = None
        if not dataset.is_nominal.all():
            self.sorted_scan = scan_buffer_kernels.sorted_scan_buffers(
                numba.get_num_threads() if self.large_nodes_threaded else 1,
                n if self.sorted_features.size else 0,
                self.feature_codes.dtype,
                unit_weights=not self.fractional and _are_ones(self.weight),
                sorted_codes=self.sorted_codes,
            )

    def _set_up_gain_ratio(self):
        """C4.5's attributes left out of the average gain, and the candidate table's
        scratch and exact values where splits are recorded."""
        n, dataset, spec = self.dataset.n_samples, self.dataset, self.spec
        if self.gain_ratio:
            n_values = np.where(dataset.is_nominal, self.n_codes, 0)
            self.excluded_from_average = many_valued(n_values, n)
            if spec.value_groups:
                # Release 8 leaves no attribute out of the average with -s (MultiVal).
                self.excluded_from_average[:] = False
        if self.record_splits:
            self.candidate_scratch = np.empty((self.n_features, gain_ratio_kernels.N_CAND))
            self.code_values, self.code_value_ptr = code_value_arrays(dataset)

    # -- the loop ----------------------------------------------------------
    def grow(self):
        """Grow the tree; returns a validated :class:`~treelearn.tree.Tree`. Once per
        Grower: the numba loop lets go of its row buffers when done."""
        if self._c45_loop_applies():
            return self._grow_c45()
        n = self.dataset.n_samples
        # (int32 where the row indices fit: the same trees, the kernels no slower.)
        self.rows = np.arange(n, dtype=row_index_dtype(n))
        self._sort_presorted_features()
        if self._fast_loop_applies():
            self.total_weight = float(self.weight.sum() if self.weight.shape[0] else n)
            return self._grow_fast()
        if not self.weight.shape[0]:  # (the numba loop turned off since __init__)
            self.weight = np.ones(n)
        self.total_weight = float(self.weight.sum())
        self.builder = TreeBuilder(self.n_features, self.n_classes)
        root_stats = self._statistics(0, n)
        root_hist = self._build_hist(0, n) if self._keeps_hist(n) else None
        if self.fractional:
            root = self._make_node(
                0, n, 0, root_stats, None, rows=self.rows, row_weight=self.weight.copy(),
                used=np.zeros(self.n_features, dtype=np.bool_),
            )  # fmt: skip
        else:
            root = self._make_node(0, n, 0, root_stats, root_hist)
        spec = self.spec
        frontier = DepthFirstFrontier() if spec.max_leaf_nodes is None else BestFirstFrontier()
        if root.split is not None:
            frontier.push_children([root])
        n_leaves = 1
        while frontier:
            node = frontier.pop()
            if spec.max_leaf_nodes is not None and n_leaves >= spec.max_leaf_nodes:
                break
            children = self._split(node)
            n_leaves += len(children) - 1
            frontier.push_children([c for c in children if c.split is not None])
        return self.builder.build()

    def _numba_loop_pays(self):
        """Whether the table has
        :data:`~treelearn.growing.settings.NUMBA_LOOP_MIN_ROWS` rows or more, where the
        numba loops (:meth:`_fast_loop_applies`, :meth:`_c45_loop_applies`) may grow
        the tree; the Python loop grows smaller ones."""
        return self.dataset.n_samples >= settings.NUMBA_LOOP_MIN_ROWS

    def _sort_presorted_features(self):
        """Each presorted feature's rows in code order and their codes
        (``sorted_rows``, ``sorted_codes``): as the encoding wrote them
        (:attr:`~treelearn.data.dataset.Dataset.presorted`) where it did, else a
        counting sort of the codes (the same rows: both stable). 800,000 rows x 20
        features: the counting sort takes 0.25 s on one thread and 0.14 on two; the
        encoding writes them for 1.4 ms a column (27 ms) more."""
        if self.presorted_by_encoding:
            self.presorted_by_encoding = False  # (growing reorders them)
            return
        if not self.sorted_features.size:
            return  # (a parallel kernel with nothing to do still wakes numba's threads)
        partition_kernels.counting_sort_columns(
            self.feature_codes, self.sorted_features, self.n_codes[self.sorted_features] + 1,
            self.sorted_rows, self.sorted_codes,
        )  # fmt: skip

    def _threads_pay(self):
        """Whether growing on several threads pays for this tree
        (:func:`~treelearn.growing.threaded.threads_pay`: the searched features,
        ``max_features`` of them, presorted and binned in the share of all; the rows,
        ``max_depth`` and ``min_samples_leaf``). Always for absolute error and Huber,
        which sort every node's rows (not measured against the bound)."""
        if self.robust:
            return True
        searched = self.max_features / self.n_features
        n_presorted = self.sorted_features.shape[0] * searched
        n_binned = self.max_features - n_presorted
        spec = self.spec
        return threaded.threads_pay(
            self.dataset.n_samples, n_binned, n_presorted, spec.max_depth,
            spec.min_samples_leaf, self.is_classification,
        )  # fmt: skip

    def _make_node(
        self, start, end, depth, stats, hist, parent=None, rows=None, row_weight=None, used=None
    ):
        """Record a node and, if it may split, search its best split.

        A node without rows (a multiway branch for a category absent at its
        parent) is a leaf predicting its parent's value (ID3's rule).
        ``rows``, ``row_weight``, ``used``: the node's own rows, their weights
        and the nominal features tested above it (``missing="fractional"``).
        """
        weight = self._weight_of(stats)
        if end == start and parent is not None:
            impurity, value = 0.0, parent.value
        else:
            impurity, value = self._impurity(stats, start, end), self._value(stats, start, end)
        index = self.builder.add_node(value, end - start, weight, impurity)
        node = _Node(index, start, end, depth, stats, impurity, hist, value)
        node.rows, node.row_weight, node.used = rows, row_weight, used
        if self._may_split(node, weight):
            self._search(node)
        if node.split is None:
            node.hist = None
        return node

    def _may_split(self, node, weight):
        spec = self.spec
        n = node.n_rows
        return not (
            (spec.max_depth is not None and node.depth >= spec.max_depth)
            or n < spec.min_samples_split
            or n < 2 * spec.min_samples_leaf
            or weight < 2 * spec.min_weight_leaf
            or weight < 2 * spec.min_branch_weight
            or node.impurity <= settings.EPSILON
        )

    def _search(self, node):
        spec = self.spec
        if self.gain_ratio:
            self._search_gain_ratio(node)
            return
        if self.max_features < self.n_features:
            order = self.rng.permutation(self.n_features).astype(np.int64)
        else:
            order = self.all_features
        hist = node.hist if node.hist is not None else self.empty_hist
        offsets = self.stored_offsets if node.hist is not None else self.no_offsets
        if self.robust:
            robust_kernels.find_best_split_robust(
                self.feature_codes,
                self.rows,
                node.start,
                node.end,
                self.y_value,
                self.weight,
                self.criterion,
                self.huber_delta,
                order,
                self.max_features,
                self.n_codes,
                self.dataset.is_nominal,
                spec.min_samples_leaf,
                spec.min_weight_leaf,
                self.out,
                self.out_mask,
            )
        elif (
            self.n_threads > 1
            and node.n_rows >= threaded.PARALLEL_MIN_ROWS
            and (self.max_features >= self.n_features)
        ):
            split_kernels.find_best_split_parallel(
                self.feature_codes, self.rows, node.start, node.end, self.y_class, self.y_value,
                self.weight, self.is_classification, self.criterion, self.n_classes, order,
                self.n_codes, self.dataset.is_nominal, hist, offsets, node.stats,
                spec.min_samples_leaf, spec.min_weight_leaf, self.hist_ratio, self.out,
                self.out_mask, self.sorted_rows, self.sorted_slot, self.surrogate_mode,
                self.multiway, self.whole_weights, self.sorted_scan,
            )  # fmt: skip
        else:
            split_kernels.find_best_split(
                self.feature_codes,
                self.rows,
                node.start,
                node.end,
                self.y_class,
                self.y_value,
                self.weight,
                self.is_classification,
                self.criterion,
                self.n_classes,
                order,
                self.max_features,
                self.n_codes,
                self.dataset.is_nominal,
                hist,
                offsets,
                node.stats,
                spec.min_samples_leaf,
                spec.min_weight_leaf,
                self.hist_ratio,
                self.scratch_hist,
                self.scratch_codes,
                self.scratch_mask,
                self.out,
                self.out_mask,
                self.sorted_rows,
                self.sorted_slot,
                self.surrogate_mode,
                self.multiway,
                self.whole_weights,
                self.sorted_scan,
            )
        gain = self.out[cut_kernels.OUT_GAIN]
        epsilon = settings.EPSILON
        if gain > -np.inf and not (
            gain / self.total_weight + epsilon < spec.min_impurity_decrease
            or (spec.min_gain > 0 and gain / self._weight_of(node.stats) + epsilon < spec.min_gain)
        ):
            node.gain = gain
            node.split = (
                self.out.copy(),
                self.out_mask.copy() if self.out[cut_kernels.OUT_IS_SUBSET] else None,
            )
        if self.record_splits:
            feature = int(self.out[cut_kernels.OUT_FEATURE]) if node.split is not None else -1
            table = self.candidate_table(self.rows, node.start, node.end, textbook=True)
            self.split_records[node.index] = SplitRecord(table, feature, spec.criterion)

    # -- splitting a node --------------------------------------------------
    def _split(self, node):
        """Partition a node's rows by its split, summarise and record its children."""
        if self.fractional:
            return self._split_fractional(node)
        out, mask = node.split
        feature = int(out[cut_kernels.OUT_FEATURE])
        codes_f = self.feature_codes[feature]
        missing_code = int(self.n_codes[feature])
        bounds, child_of_code, surrogates, known_missing = self._partition(node, feature, out, mask)
        bounds_array = np.asarray(bounds, dtype=np.int64)
        child_stats = np.empty((len(bounds) - 1, self.n_channels))
        n_missing = partition_kernels.summarise_children(
            self.rows, bounds_array, codes_f, missing_code, self.y_class, self.y_value,
            self.weight, self.is_classification, self.child_of_row, self.sorted_rows,
            self.sorted_codes, self.sorted_buffer, child_stats, node.stats,
            self.is_classification and self.whole_weights, known_missing,
        )  # fmt: skip
        hists = self._child_histograms(node, bounds)
        node.hist = None
        children = [
            self._make_node(
                bounds[k], bounds[k + 1], node.depth + 1, child_stats[k], hists[k], parent=node
            )
            for k in range(len(bounds) - 1)
        ]
        heaviest = int(np.argmax([self._weight_of(stats) for stats in child_stats]))
        if surrogates is not None:
            missing_child = surrogates.majority_child
        elif child_of_code is not None and child_of_code[missing_code] != NO_CHILD:
            missing_child = int(child_of_code[missing_code])
        elif child_of_code is None and n_missing:
            missing_child = 0 if out[cut_kernels.OUT_MISSING_LEFT] else 1
        else:
            missing_child = heaviest
        indices = [c.index for c in children]
        entries = self._surrogate_entries(surrogates)
        if child_of_code is None:
            self.builder.set_split(
                node.index, feature, NODE_THRESHOLD, indices, missing_child,
                threshold=self._threshold(feature, out), surrogates=entries,
            )  # fmt: skip
        else:
            kind = NODE_MULTIWAY if self.multiway else NODE_SUBSET
            self.builder.set_split(
                node.index, feature, kind, indices, missing_child,
                category_child=child_of_code[:missing_code], surrogates=entries,
            )  # fmt: skip
        return children

    def _partition(self, node, feature, out, mask):
        """Reorder the node's rows child by child.

        Returns the children's run boundaries in ``rows``, the child of each
        code (None for a threshold split), the node's surrogates (or None) and
        the number of its rows missing ``feature`` where the partition counted
        them (a threshold split without surrogates; -1 otherwise).
        A multiway split has one child per category; rows missing its feature
        go to the most frequent category's child until C4.5's fractional
        rows arrive.
        """
        codes_f = self.feature_codes[feature]
        missing_code = int(self.n_codes[feature])
        if mask is not None:
            if self.multiway:
                child_of_code = np.arange(missing_code + 1, dtype=np.int64)
                counts = np.bincount(
                    codes_f[self.rows[node.start : node.end]], minlength=missing_code + 1
                )
                child_of_code[missing_code] = (
                    int(np.argmax(counts[:missing_code])) if counts[missing_code] else NO_CHILD
                )
            else:
                child_of_code = mask.astype(np.int64)[: missing_code + 1] - 1
        else:
            child_of_code = None
        if self.surrogate_mode:
            surrogates, middle = self._surrogate_partition(node, feature, out, mask)
            return [node.start, middle, node.end], child_of_code, surrogates, -1
        if child_of_code is None:
            middle, n_missing = partition_kernels.partition_threshold(
                codes_f, self.rows, node.start, node.end, int(out[cut_kernels.OUT_LEFT_CODE]),
                missing_code, bool(out[cut_kernels.OUT_MISSING_LEFT]), self.partition_buffer,
            )  # fmt: skip
            return [node.start, middle, node.end], None, None, int(n_missing)
        n_children = missing_code if self.multiway else 2
        bounds = np.empty(n_children + 1, dtype=np.int64)
        partition_kernels.partition_by_child(
            codes_f, self.rows, node.start, node.end, np.maximum(child_of_code, 0), n_children,
            self.partition_buffer, bounds,
        )  # fmt: skip
        return bounds.tolist(), child_of_code, None, -1

    def _threshold(self, feature, out):
        """The threshold value of a numeric split (+inf for "known left, missing right")."""
        right_code = int(out[cut_kernels.OUT_RIGHT_CODE])
        if right_code < 0:
            return np.inf
        return self._threshold_between(feature, int(out[cut_kernels.OUT_LEFT_CODE]), right_code)

    def _threshold_between(self, feature, left_code, right_code):
        """Threshold between two codes, placed as ``spec.threshold_at`` says."""
        if self.spec.threshold_at == "data":
            return self.dataset.data_threshold(feature, left_code, right_code)
        return self.dataset.threshold(feature, left_code, right_code)

    def _surrogate_partition(self, node, feature, out, mask):
        """missing="surrogate": find the node's surrogates, route its rows (primary,
        surrogates in order, then the majority child) and partition them.
        Returns the surrogates and where the right child's rows begin."""
        surrogates = self.surrogates.find(
            self.rows,
            node.start,
            node.end,
            feature,
            left_code=-1 if mask is not None else int(out[cut_kernels.OUT_LEFT_CODE]),
            mask=mask,
            sorted_rows=self.sorted_rows,
            sorted_slot=self.sorted_slot,
        )
        middle, _ = self.surrogates.split_rows(
            self.rows, node.start, node.end, surrogates, self.child_of_row, self.partition_buffer
        )
        return surrogates, middle

    def _surrogate_entries(self, surrogates):
        if surrogates is None:
            return ()
        return surrogates.tree_entries(self.n_codes, self.dataset.threshold)

    # -- statistics --------------------------------------------------------
    def _statistics(self, start, end):
        stats = np.empty(self.n_channels)
        node_statistics(
            self.rows,
            start,
            end,
            self.y_class,
            self.y_value,
            self.weight,
            self.is_classification,
            stats,
        )
        return stats

    def _keeps_hist(self, n_rows):
        return self.stored_features.shape[0] > 0 and n_rows >= settings.STORE_MIN_ROWS

    def _build_hist(self, start, end):
        hist = np.empty((int(self.stored_rows[-1]), self.n_channels))
        build_node_histograms(
            self.feature_codes,
            self.rows,
            start,
            end,
            self.y_class,
            self.y_value,
            self.weight,
            self.is_classification,
            self.stored_features,
            self.stored_rows,
            hist,
            _READ_IN_PLACE,
        )
        return hist

    def _child_histograms(self, node, bounds):
        """Kept histograms of the children: built for all but the largest child,
        which gets its parent's minus its siblings' when the parent kept one."""
        hists = [None] * (len(bounds) - 1)
        if not self.stored_features.shape[0]:
            return hists
        sizes = np.diff(bounds)
        if not self._keeps_hist(int(sizes.max())):
            return hists
        largest = int(np.argmax(sizes))
        for k in range(len(sizes)):
            if k != largest or node.hist is None:
                hists[k] = self._build_hist(bounds[k], bounds[k + 1])
        if node.hist is not None:
            siblings = sum(hists[k] for k in range(len(sizes)) if k != largest)
            hists[largest] = np.empty_like(node.hist)
            subtract_histograms(node.hist, siblings, self.is_classification, hists[largest])
        for k in range(len(sizes)):
            if not self._keeps_hist(int(sizes[k])):
                hists[k] = None
        return hists

    def _weight_of(self, stats):
        if self.is_classification:
            return float(stats[1:].sum())
        return float(stats[1])

    def _impurity(self, stats, start=None, end=None):
        weight = self._weight_of(stats)
        if self.robust and weight > 0:
            return self._location_cost(start, end)[1] / weight
        return weighted_impurity(stats, self.criterion) / weight if weight > 0 else 0.0

    def _value(self, stats, start=None, end=None):
        if self.is_classification:
            return stats[1:]
        if self.robust:
            return np.array([self._location_cost(start, end)[0]])
        weight = stats[1]
        return np.array([stats[2] / weight if weight > 0 else 0.0])

    def _location_cost(self, start, end):
        """Weighted median / Huber location of a node and its weighted cost.

        Computed once per node (``_impurity`` and ``_value`` both ask): the rows
        in ``rows[start:end]`` stay the same set once the node exists."""
        if self._location_cache is not None and self._location_cache[0] == (start, end):
            return self._location_cache[1]
        result = robust_kernels.node_location_cost(
            self.y_value, self.weight, self.rows, start, end, self.criterion, self.huber_delta
        )
        self._location_cache = ((start, end), result)
        return result
