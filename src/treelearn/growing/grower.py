"""The one grower: builds every tree treelearn makes, under a :class:`GrowthSpec`.

The loop: take a node from the frontier, partition its rows by its best split,
summarise each child (statistics, histograms by subtraction), search each
child's best split, and push the children that may split. Search and
partition are numba kernels; this module only orchestrates them. In the
common configuration (:meth:`Grower._fast_loop_applies`) the whole depth-first
loop runs in numba (:mod:`treelearn.growing._loop_kernels`) and grows the same
tree bit for bit; the Python loop here is its reference and does the rest.

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
    MISSING_BY_WEIGHT,
    NO_CHILD,
    NODE_MULTIWAY,
    NODE_SUBSET,
    NODE_TABLE_MAX,
    NODE_THRESHOLD,
    code_dtype_for,
    n_channels,
    row_index_dtype,
)
from treelearn._threads import map_on_threads
from treelearn.criteria import HISTOGRAM_CRITERIA, criterion_id
from treelearn.criteria._kernels import weighted_impurity
from treelearn.criteria.measures import conditional_entropy, conditional_gini
from treelearn.exceptions import ParameterError
from treelearn.growing import _c45_kernels as c45_kernels
from treelearn.growing import _loop_kernels as loop_kernels
from treelearn.growing import _node_tables as node_tables
from treelearn.growing import _record_kernels as record_kernels
from treelearn.growing import settings, threaded
from treelearn.growing._local_kernels import LOCAL_MAX_ROWS
from treelearn.growing.frontier import BestFirstFrontier, DepthFirstFrontier
from treelearn.splitting import _cut_kernels as cut_kernels
from treelearn.splitting import _gain_ratio_kernels as gain_ratio_kernels
from treelearn.splitting import _kernels as split_kernels
from treelearn.splitting import _partition_kernels as partition_kernels
from treelearn.splitting import _robust_kernels as robust_kernels
from treelearn.splitting import _scan_buffer_kernels as scan_buffer_kernels
from treelearn.splitting.fractional import class_statistics, split_fractional_rows
from treelearn.splitting.gain_ratio import EPSILON as GAIN_RATIO_EPSILON
from treelearn.splitting.gain_ratio import SplitRecord, choose_gain_ratio, many_valued
from treelearn.splitting.subsets import c45_value_groups
from treelearn.splitting.surrogate import SurrogateSearch
from treelearn.stats._kernels import build_node_histograms, node_statistics, subtract_histograms
from treelearn.tree.builder import TreeBuilder
from treelearn.tree.structure import Tree

#: ``gathered`` of :func:`~treelearn.stats._kernels.build_node_histograms` for
#: the Python loop: none, the targets are read at each row.
_READ_IN_PLACE = np.empty((2, 0))
#: The ``rng`` of the numba loop's fits that draw no features: a Generator like
#: the drawn ones, so that the loop compiles once for both; never drawn from.
_UNDRAWN_RNG = np.random.default_rng(0)


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


class Grower:
    """Grows one tree.

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
        self.multiway = spec.nominal_split == "multiway"
        self.n_channels = n_channels(0 if self.is_classification else 1, n_classes)
        self.n_features = dataset.n_features
        self.max_features = spec.max_features or self.n_features
        self.n_codes = dataset.n_codes
        self.codes = dataset.codes
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
        self.scratch_codes = np.empty(split_kernels.scratch_codes_size(n, max_bins), dtype=np.int64)
        # The masks of subset splits only where a feature is nominal (None: numba
        # leaves the nominal features' search out of the split finders' compilation).
        has_nominal = bool(dataset.is_nominal.any())
        self.scratch_mask = np.zeros(max_bins + 1, dtype=np.uint8) if has_nominal else None
        self.out = np.empty(cut_kernels.N_OUT)
        self.out_mask = np.zeros(max_bins + 1, dtype=np.uint8) if has_nominal else None
        self.partition_buffer = np.empty(n, dtype=np.intp)
        self.all_features = np.arange(self.n_features, dtype=np.int64)
        # Read at random for every presorted row at every split: as narrow as the
        # children allow (one byte: splitting 20 runs of 800k rows took 3.7 ns a row
        # and feature, against 7.5 with int32).
        most_children = 2
        if spec.nominal_split == "multiway" and dataset.is_nominal.any():
            most_children = max(2, int(self.n_codes[dataset.is_nominal].max()))
        self.child_of_row = np.zeros(n, dtype=np.uint8 if most_children <= 256 else np.int32)
        # Two rows: a presorted run's rows and their codes, while they are partitioned.
        self.sorted_buffer = np.empty((2, n), dtype=row_index_dtype(n))

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
                self.codes, self.n_codes, dataset.is_nominal, self.weight,
                spec.max_surrogates, settings.HIST_RATIO,
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
                self.codes.dtype,
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

    def _fast_loop_applies(self):
        """Whether :meth:`grow` runs the numba loop (:mod:`treelearn.growing._loop_kernels`),
        which grows the same tree: a histogram criterion, ``missing="learn"``,
        ``selection="gain"`` (split records made afterwards), depth-first, features drawn (if any)
        from a numpy Generator, a table of
        :data:`~treelearn.growing.settings.NUMBA_LOOP_MIN_ROWS` rows or more, and a
        tree whose node table fits its int32 entries. With several threads it searches
        large nodes in parallel, as :meth:`_search` does."""
        spec = self.spec
        drawn = self.max_features < self.n_features
        # Each split of a node of m >= 2 rows adds at most `widest` nodes and
        # category-map entries, so no node number, row count, code or map offset
        # reaches n * widest.
        widest = int(self.n_codes[self.dataset.is_nominal].max(initial=1)) + 1
        return bool(
            settings.FAST_LOOP
            and self._numba_loop_pays()
            and self.dataset.n_samples * widest <= NODE_TABLE_MAX
            and not self.robust
            and spec.missing == "learn"
            and spec.selection == "gain"
            and spec.max_leaf_nodes is None
            and not self.gain_ratio
            and (not drawn or isinstance(self.rng, np.random.Generator))
        )

    def _grow_fast(self):
        """:meth:`grow` by :func:`~treelearn.growing._loop_kernels.grow_depth_first`."""
        spec = self.spec
        drawn = self.max_features < self.n_features
        # Passed even when not drawn from: a None would compile the loop once more.
        rng = self.rng if drawn else _UNDRAWN_RNG
        data = (
            self.codes, self.rows, self.y_class, self.y_value, self.weight,
            self.is_classification, self.criterion, self.n_classes,
        )  # fmt: skip
        search = (
            self.n_codes, self.dataset.is_nominal, self.all_features, self.max_features,
            spec.min_samples_leaf, spec.min_weight_leaf, settings.HIST_RATIO, self.scratch_hist,
            self.scratch_codes, self.scratch_mask, self.sorted_rows, self.sorted_slot,
            self.surrogate_mode, self.multiway, self.whole_weights, self.sorted_scan,
        )  # fmt: skip
        kept = (
            self.stored_features, self.stored_rows, self.stored_offsets,
            int(settings.STORE_MIN_ROWS),
        )  # fmt: skip
        limits = np.array(
            [
                -1 if spec.max_depth is None else spec.max_depth, spec.min_samples_split,
                spec.min_samples_leaf, spec.min_weight_leaf, spec.min_branch_weight,
                spec.min_impurity_decrease, spec.min_gain, self.total_weight, settings.EPSILON,
            ],
            dtype=np.float64,
        )  # fmt: skip
        # None when no node can use threads: the loop is then compiled without the
        # threaded kernels (they take most of its compile time).
        parallel_min_rows = threaded.PARALLEL_MIN_ROWS if self.large_nodes_threaded else None
        thresholds = self._threshold_tables()
        buffers = (self.child_of_row, self.sorted_buffer, self.partition_buffer, self.local_of_row)
        # The split codes only where thresholds are put in below (or splits recorded).
        keep_codes = (
            self.record_splits
            or spec.threshold_at == "data"
            or bool(np.any(thresholds[0] == node_tables.THRESHOLD_VALUES))
        )
        n_links = node_tables.links_width(keep_codes, bool(self.dataset.is_nominal.any()))
        if parallel_min_rows is not None and not drawn:
            nodes, n_nodes, category_pool = threaded.grow_on_threads(
                data, search, rng, kept, limits, thresholds, buffers, max(self.n_classes, 1),
                n_links, self.n_threads, spec.max_depth,
            )  # fmt: skip
        else:
            nodes, n_nodes, category_pool = loop_kernels.grow_depth_first(
                data, search, rng, kept, limits, parallel_min_rows, thresholds, buffers,
                max(self.n_classes, 1), n_links,
            )  # fmt: skip
        del data, search, buffers
        self._let_go_of_row_buffers()
        capacity = nodes[0].shape[0]
        arrays = node_tables.tree_arrays(nodes, n_nodes, category_pool, keep_codes)
        del nodes  # (the table's links: what the Tree does not keep)
        arrays = dict(zip(node_tables.TREE_ARRAY_NAMES, arrays, strict=True))
        node_tables.trim_columns(arrays, n_nodes, capacity)
        if not arrays["category_ptr"].shape[0]:  # (no category maps: see tree_arrays)
            arrays["category_ptr"] = np.zeros(arrays["child_ptr"].shape[0], dtype=np.int64)
        left_code, right_code = arrays.pop("left_code"), arrays.pop("right_code")
        if keep_codes:
            self._put_thresholds(arrays["feature"], left_code, right_code, arrays["threshold"])
        tree = Tree(**arrays, n_features=self.n_features, n_classes=self.n_classes).validate()
        if self.record_splits:
            self._record_searched_nodes(tree, left_code, limits)
        return tree

    def _let_go_of_row_buffers(self):
        """Drop the loop's arrays of a row each (the rows in node order, the
        partition's, the presorted runs and their scan buffers) before the Tree's
        arrays are made, so the two are never held at once (at 800,000 rows, 13.6 MB):
        ``grow`` is then done."""
        self.rows = self.partition_buffer = self.child_of_row = None
        self.sorted_buffer = self.local_of_row = None
        self.sorted_rows = self.sorted_codes = self.sorted_scan = None

    def _record_searched_nodes(self, tree, left_code, limits):
        """``split_records`` of a Tree the numba loop grew, as the Python loop
        records them (:func:`~treelearn.growing._record_kernels.searched_node_tables`)."""
        nodes, tables = record_kernels.searched_node_tables(
            self.codes, self.y_class, self.weight, self.n_classes, self.n_codes,
            self.dataset.is_nominal, self.code_values, self.code_value_ptr, settings.HIST_RATIO,
            self.scratch_hist, self.scratch_codes, limits, tree.feature, tree.kind,
            tree.child_ptr, tree.children, tree.category_ptr, tree.category_child,
            tree.missing_child, left_code, tree.n_samples, tree.weight, tree.impurity,
        )  # fmt: skip
        for f in np.flatnonzero(~self.dataset.is_nominal):
            column = tables[:, f]
            scored = np.flatnonzero(~np.isnan(column[:, gain_ratio_kernels.CAND_LEFT_CODE]))
            column[scored, gain_ratio_kernels.CAND_THRESHOLD] = self.dataset.thresholds(
                int(f),
                column[scored, gain_ratio_kernels.CAND_LEFT_CODE].astype(np.int64),
                column[scored, gain_ratio_kernels.CAND_RIGHT_CODE].astype(np.int64),
                at_data=self.spec.threshold_at == "data",
            )
        criterion = self.spec.criterion
        self.split_records = {
            int(node): SplitRecord(table, int(tree.feature[node]), criterion)
            for node, table in zip(nodes, tables, strict=True)
        }

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
            self.codes, self.sorted_features, self.n_codes[self.sorted_features] + 1,
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

    def _threshold_tables(self):
        """Per feature what the numba loop needs of :meth:`Dataset.threshold`: kind
        (``THRESHOLD_*``) and, concatenated, the bin edges of binned features (the
        midpoints between exact values are put in after the loop, :meth:`_put_thresholds`)."""
        dataset = self.dataset
        kind = np.full(self.n_features, node_tables.THRESHOLD_NONE, dtype=np.int64)
        parts = []
        for f in range(self.n_features):
            edges = dataset.bin_edges[f] if dataset.bin_edges else None
            part = np.empty(0)
            if edges is not None:
                kind[f], part = node_tables.THRESHOLD_EDGES, edges
            elif not dataset.is_nominal[f]:  # exact codes
                kind[f] = node_tables.THRESHOLD_VALUES
            parts.append(np.asarray(part, dtype=np.float64))
        ptr = np.concatenate([[0], np.cumsum([p.shape[0] for p in parts])]).astype(np.int64)
        return kind, ptr, np.concatenate(parts)

    def _put_thresholds(self, feature, left_code, right_code, threshold):
        """Thresholds of the numba loop's splits between two known codes, placed as
        ``spec.threshold_at`` says (the loop leaves those between exact values
        NaN), for all nodes of a feature at once, a feature on each of the fit's
        threads from :data:`~treelearn.growing.settings.THRESHOLD_THREADS_MIN_ROWS`
        rows on (a feature's exact values are read back from its column in a pass over the rows,
        :meth:`Dataset.code_values`: 20 features of 800,000 rows,
        full-depth regression, 105 -> 60-80 ms on two threads, 100 -> 78 on one,
        where each pass had gathered every split node's feature again)."""
        at_data = self.spec.threshold_at == "data"
        pending = np.flatnonzero((right_code >= 0) & (at_data | np.isnan(threshold)))
        pending_feature = feature[pending]
        features = np.flatnonzero(np.bincount(pending_feature, minlength=self.n_features))
        node_groups = [pending[pending_feature == f] for f in features]

        def thresholds_of(group):
            f, nodes = group
            return self.dataset.thresholds(int(f), left_code[nodes], right_code[nodes], at_data)

        on_threads = self.dataset.n_samples >= settings.THRESHOLD_THREADS_MIN_ROWS
        n_threads = self.n_threads if on_threads else 1
        placed = map_on_threads(thresholds_of, zip(features, node_groups, strict=True), n_threads)
        for nodes, values in zip(node_groups, placed, strict=True):
            threshold[nodes] = values

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
                self.codes,
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
                self.codes, self.rows, node.start, node.end, self.y_class, self.y_value,
                self.weight, self.is_classification, self.criterion, self.n_classes, order,
                self.n_codes, self.dataset.is_nominal, hist, offsets, node.stats,
                spec.min_samples_leaf, spec.min_weight_leaf, settings.HIST_RATIO, self.out,
                self.out_mask, self.sorted_rows, self.sorted_slot, self.surrogate_mode,
                self.multiway, self.whole_weights, self.sorted_scan,
            )  # fmt: skip
        else:
            split_kernels.find_best_split(
                self.codes,
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
                settings.HIST_RATIO,
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

    def _search_gain_ratio(self, node):
        """C4.5's choice at ``node`` (``selection="gain_ratio"``)."""
        rows = node.rows
        self.weight[rows] = node.row_weight
        table = self.candidate_table(rows, 0, rows.shape[0], textbook=False, used=node.used)
        groups = self._value_groups(node, table) if self.spec.value_groups else {}
        choice = choose_gain_ratio(table, self.excluded_from_average)
        self.split_records[node.index] = choice
        if choice.feature < 0:
            return
        f = choice.feature
        row = table[f]
        out = np.zeros(cut_kernels.N_OUT)
        node_weight = self._weight_of(node.stats)
        # The gain kept for importances: the weighted entropy decrease, C4.5's gain x N.
        out[cut_kernels.OUT_GAIN] = row[gain_ratio_kernels.CAND_RAW_GAIN] * node_weight
        out[cut_kernels.OUT_FEATURE] = f
        out[cut_kernels.OUT_LEFT_CODE] = row[gain_ratio_kernels.CAND_LEFT_CODE]
        out[cut_kernels.OUT_RIGHT_CODE] = row[gain_ratio_kernels.CAND_RIGHT_CODE]
        out[cut_kernels.OUT_IS_SUBSET] = 1.0 if self.dataset.is_nominal[f] else 0.0
        node.gain = out[cut_kernels.OUT_GAIN]
        node.split = (out, groups.get(f))

    def candidate_table(self, rows, start, end, textbook, used=None):
        """Every feature's row of the candidate table at the node ``rows[start:end]``.

        ``textbook``: information gain, intrinsic value and Gini index after a
        multiway split of every nominal feature and the best binary cut of
        every numeric one (the numbers a textbook prints); else C4.5's own
        (its ``m``, ``MinSplit`` and threshold cost; features in ``used`` skipped).
        """
        table = self.candidate_scratch
        usable = np.ones(self.n_features, dtype=np.uint8) if used is None else ~used
        spec = self.spec
        gain_ratio_kernels.evaluate_candidates(
            self.codes, rows, start, end, self.y_class, self.weight, self.n_classes,
            self.n_codes, self.dataset.is_nominal, usable.astype(np.uint8), self.code_values,
            self.code_value_ptr, 0.0 if textbook else float(spec.min_branch_weight), not textbook,
            False if textbook else spec.threshold_cost, settings.HIST_RATIO, self.scratch_hist,
            self.scratch_codes, table, np.empty((0, 0), dtype=np.int64),
            np.full(self.n_features, -1, dtype=np.int64),
        )  # fmt: skip
        # Every numeric feature with a best cut, admissible or not (explain shows them all).
        scored = ~np.isnan(table[:, gain_ratio_kernels.CAND_LEFT_CODE])
        for f in np.flatnonzero(scored & ~self.dataset.is_nominal):
            table[f, gain_ratio_kernels.CAND_THRESHOLD] = self._threshold_between(
                f,
                int(table[f, gain_ratio_kernels.CAND_LEFT_CODE]),
                int(table[f, gain_ratio_kernels.CAND_RIGHT_CODE]),
            )
        return table.copy()

    def _c45_loop_applies(self):
        """Whether :meth:`grow` runs C4.5's numba loop (:mod:`treelearn.growing._c45_kernels`),
        which grows the Python loop's tree and split records: ``missing="fractional"``
        (C4.5), depth-first, no value groups (``-s``), classification, exact numeric
        values (no bins), a table of
        :data:`~treelearn.growing.settings.NUMBA_LOOP_MIN_ROWS` rows or more."""
        spec = self.spec
        return bool(
            settings.C45_LOOP
            and self._numba_loop_pays()
            and self.fractional
            and self.gain_ratio
            and self.is_classification
            and not spec.value_groups
            and spec.max_leaf_nodes is None
            and not any(e is not None for e in self.dataset.bin_edges)
        )

    def _grow_c45(self):
        """:meth:`grow` by :func:`~treelearn.growing._c45_kernels.grow_c45`."""
        spec = self.spec
        limits = np.array(
            [
                -1 if spec.max_depth is None else spec.max_depth, spec.min_samples_split,
                spec.min_samples_leaf, spec.min_weight_leaf, spec.min_branch_weight,
                settings.EPSILON,
            ],
            dtype=np.float64,
        )  # fmt: skip
        (
            feature, kind, threshold, first_child, n_children, value, n_samples, weight,
            impurity, rec_node, rec_table, rec_feature, rec_average,
        ) = c45_kernels.grow_c45(
            self.codes, self.y_class, self.weight, self.n_classes, self.n_codes,
            self.dataset.is_nominal, self.code_values, self.code_value_ptr,
            self.excluded_from_average, limits, bool(spec.threshold_cost),
            spec.threshold_at == "data", settings.HIST_RATIO, self.scratch_hist, self.scratch_codes,
            np.flatnonzero(
                ~self.dataset.is_nominal & (self.n_codes + 1 > settings.STORE_MAX_BINS)
            ).astype(np.int64),
        )  # fmt: skip
        internal = n_children > 0
        # Children: each split's are numbered consecutively from first_child.
        child_ptr = np.concatenate([[0], np.cumsum(n_children)])
        children = np.arange(child_ptr[-1], dtype=np.int64) + np.repeat(
            first_child - child_ptr[:-1], n_children
        )
        # A nominal split: category v goes to its v-th child.
        n_categories = np.where(kind == NODE_MULTIWAY, self.n_codes[np.maximum(feature, 0)], 0)
        category_ptr = np.concatenate([[0], np.cumsum(n_categories)])
        category_child = np.arange(category_ptr[-1], dtype=np.int64) - np.repeat(
            category_ptr[:-1], n_categories
        )
        tree = Tree(
            feature=feature,
            kind=kind,
            threshold=threshold,
            child_ptr=child_ptr.astype(np.int64),
            children=children,
            category_ptr=category_ptr.astype(np.int64),
            category_child=category_child,
            missing_child=np.where(internal, MISSING_BY_WEIGHT, -1).astype(np.int64),
            value=value,
            n_samples=n_samples,
            weight=weight,
            impurity=impurity,
            n_features=self.n_features,
            n_classes=self.n_classes,
        ).validate()
        # Split records, as choose_gain_ratio makes them.
        possible = (
            rec_table[:, :, gain_ratio_kernels.CAND_STATUS] == gain_ratio_kernels.STATUS_SPLIT
        )
        in_average = possible & ~self.excluded_from_average
        with np.errstate(invalid="ignore"):
            gain = np.where(possible, rec_table[:, :, gain_ratio_kernels.CAND_GAIN], np.nan)
            above = possible & (gain >= rec_average[:, None] - GAIN_RATIO_EPSILON)
        self.split_records = {
            int(node): SplitRecord(
                rec_table[k],
                int(rec_feature[k]),
                "gain_ratio",
                float(rec_average[k]),
                in_average[k],
                above[k],
            )
            for k, node in enumerate(rec_node)
        }
        return tree

    def _value_groups(self, node, table):
        """C4.5's ``-s``: group the values of every nominal feature with more than two
        (:mod:`treelearn.splitting.subsets`), rewriting their rows of ``table``.
        Returns {feature: the group of each value} for the groups that may split."""
        groups = {}
        rows, weight = node.rows, node.row_weight
        y = self.y_class[rows]
        k = self.n_classes
        for f in np.flatnonzero(self.dataset.is_nominal & (self.n_codes > 2)):
            n_values = int(self.n_codes[f])
            codes_f = self.codes[rows, f].astype(np.int64)
            freq = np.bincount(codes_f * k + y, weights=weight, minlength=(n_values + 1) * k)
            freq = freq.reshape(n_values + 1, k)
            branch, gain, info = c45_value_groups(
                freq[:n_values], float(freq[n_values].sum()), self.spec.min_branch_weight
            )
            row = table[f]
            row[gain_ratio_kernels.CAND_STATUS] = (
                gain_ratio_kernels.STATUS_SPLIT if branch is not None
                else gain_ratio_kernels.STATUS_NO_SPLIT
            )  # fmt: skip
            row[gain_ratio_kernels.CAND_GAIN] = row[gain_ratio_kernels.CAND_RAW_GAIN] = gain
            row[gain_ratio_kernels.CAND_SPLIT_INFO] = info
            if branch is not None:
                groups[int(f)] = branch
                group_freq = np.zeros((int(branch.max()) + 1, k))
                np.add.at(group_freq, branch, freq[:n_values])
                row[gain_ratio_kernels.CAND_GINI_AFTER] = conditional_gini(table=group_freq)
                row[gain_ratio_kernels.CAND_ENTROPY_AFTER] = conditional_entropy(table=group_freq)
        return groups

    def _split_fractional(self, node):
        """Send the node's rows to its children, rows missing the feature to all
        of them with a share of their weight (C4.5), and record the children."""
        out, groups = node.split
        feature = int(out[cut_kernels.OUT_FEATURE])
        missing_code = int(self.n_codes[feature])
        codes_f = self.codes[node.rows, feature].astype(np.int64)
        missing = codes_f == missing_code
        nominal = bool(self.dataset.is_nominal[feature])
        if groups is not None:
            # Grouped values (C4.5's -s); the feature may be tested again below.
            category_child = groups
            branch, n_branches = (
                groups[np.minimum(codes_f, missing_code - 1)],
                int(groups.max()) + 1,
            )
        elif nominal:
            category_child = np.arange(missing_code)
            branch, n_branches = codes_f, missing_code
        else:
            branch = (codes_f > int(out[cut_kernels.OUT_LEFT_CODE])).astype(np.int64)
            n_branches = 2
        parts, _ = split_fractional_rows(
            node.rows, node.row_weight, np.where(missing, 0, branch), missing, n_branches
        )
        used = node.used
        if nominal and groups is None:
            used = used.copy()
            used[feature] = True
        children = []
        for rows, row_weight in parts:
            stats = class_statistics(rows, row_weight, self.y_class, self.n_classes)
            child = self._make_node(
                0, rows.shape[0], node.depth + 1, stats, None, parent=node, rows=rows,
                row_weight=row_weight, used=used,
            )  # fmt: skip
            children.append(child)
        node.rows = node.row_weight = None
        indices = [c.index for c in children]
        if nominal:
            self.builder.set_split(
                node.index, feature, NODE_MULTIWAY, indices, MISSING_BY_WEIGHT,
                category_child=category_child,
            )  # fmt: skip
        else:
            self.builder.set_split(
                node.index, feature, NODE_THRESHOLD, indices, MISSING_BY_WEIGHT,
                threshold=self._threshold(feature, out),
            )  # fmt: skip
        return children

    # -- splitting a node --------------------------------------------------
    def _split(self, node):
        """Partition a node's rows by its split, summarise and record its children."""
        if self.fractional:
            return self._split_fractional(node)
        out, mask = node.split
        feature = int(out[cut_kernels.OUT_FEATURE])
        codes_f = self.codes[:, feature]
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
        codes_f = self.codes[:, feature]
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
            self.codes,
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
