"""The Tree: one entry per node in flat arrays (struct of arrays).

Prediction, export, pruning and model files all read the same arrays, and
:meth:`Tree.validate` checks them. Node and feature indices are int32
(``NODE_INDEX_DTYPE``), ``n_samples`` and ``category_ptr`` int64, statistics and
thresholds float64 (``_ARRAY_DTYPES``); the constructor converts what it is given,
refusing an integer that does not fit.

Node ``i``:

``feature[i]``
    feature tested (-1 for a leaf).
``kind[i]``
    ``NODE_LEAF``, ``NODE_THRESHOLD`` (child 0 if ``x <= threshold[i]``, else
    child 1), ``NODE_MULTIWAY`` or ``NODE_SUBSET`` (the child is read from the
    node's category map).
``children[child_ptr[i]:child_ptr[i + 1]]``
    its children, in branch order (CSR, so binary and multiway nodes share one layout).
``category_child[category_ptr[i]:category_ptr[i + 1]]``
    for nominal nodes, the child index (0-based, among the node's children)
    taken by each category code of the feature; ``NO_CHILD`` for a category
    not seen at the node, which is routed as a missing value. Empty for other nodes.
``missing_child[i]``
    child index taken by a missing value, or ``MISSING_BY_WEIGHT``.
``value[i]``
    weighted class counts (classification) or the fitted value (regression).
``n_samples[i]``, ``weight[i]``, ``impurity[i]``
    rows, their total weight, and the node's impurity. Below a node that
    splits missing values by weight, a training row missing its feature is
    counted in every child (with a share of its weight), so the children's
    ``n_samples`` may add up to more than the node's; their weights add up to it.

Surrogate splits (``missing="surrogate"``; Breiman et al. 1984, as rpart does)
    Surrogates ``surrogate_ptr[i]:surrogate_ptr[i + 1]`` of node ``i``, best
    first (CSR, like the children). A row missing node ``i``'s feature (or
    holding a category the node's map sends nowhere) takes the first surrogate
    whose feature it knows, and failing all, ``missing_child[i]`` (the
    majority direction). Per surrogate ``s``: ``surrogate_feature[s]``;
    ``surrogate_kind[s]``, ``NODE_THRESHOLD`` or ``NODE_SUBSET``; a threshold
    surrogate sends ``x <= surrogate_threshold[s]`` to child 0, or to child 1
    when ``surrogate_reverse[s]`` is 1; a subset surrogate reads the child of a
    category code from ``surrogate_category_child[surrogate_category_ptr[s]:
    surrogate_category_ptr[s + 1]]`` (``NO_CHILD``: try the next surrogate);
    ``surrogate_agreement[s]`` and ``surrogate_adjusted[s]`` are its agreement
    with the node's split and its adjusted agreement (rpart's ``agree`` and
    ``adj``). A tree without surrogates has ``surrogate_ptr`` all zeros and
    the other surrogate arrays empty.
"""

from dataclasses import dataclass
from functools import cached_property

import numba
import numpy as np

from treelearn._arrays import read_only
from treelearn._dtypes import (
    MISSING_BY_WEIGHT,
    NO_CHILD,
    NODE_INDEX_DTYPE,
    NODE_KIND_NAMES,
    NODE_LEAF,
    NODE_SUBSET,
    NODE_THRESHOLD,
)
from treelearn.exceptions import ModelFormatError
from treelearn.tree._invariants import (
    BROKEN_INVARIANTS,
    INTACT,
    UNKNOWN_KIND,
    first_broken_invariant,
)
from treelearn.tree._traverse import (
    BLOCK_ROWS,
    depth_first_layout,
    path_nodes,
    record_dtype,
    walk_rows,
    walk_rows_parallel,
    weighted_leaf_values,
)

_ARRAY_DTYPES = {
    "feature": NODE_INDEX_DTYPE,
    "kind": np.int8,
    "threshold": np.float64,
    "child_ptr": NODE_INDEX_DTYPE,
    "children": NODE_INDEX_DTYPE,
    "category_ptr": np.int64,  # (into all nodes' category maps: may pass 2**31)
    "category_child": NODE_INDEX_DTYPE,
    "missing_child": NODE_INDEX_DTYPE,
    "value": np.float64,
    "n_samples": np.int64,
    "weight": np.float64,
    "impurity": np.float64,
}
#: Surrogate arrays (see the module docstring); optional when building a Tree.
_SURROGATE_DTYPES = {
    "surrogate_ptr": np.int64,
    "surrogate_feature": np.int64,
    "surrogate_kind": np.int8,
    "surrogate_threshold": np.float64,
    "surrogate_reverse": np.int8,
    "surrogate_category_ptr": np.int64,
    "surrogate_category_child": np.int64,
    "surrogate_agreement": np.float64,
    "surrogate_adjusted": np.float64,
}


def _narrowed(name, values, dtype):
    """``values`` as a contiguous array of ``dtype`` (a copy only where needed); an
    integer array holding a value ``dtype`` cannot hold is refused, not wrapped around."""
    array = np.asarray(values)
    if (
        array.dtype.kind in "iu"
        and array.size
        and not np.can_cast(array.dtype, dtype)
        and np.dtype(dtype).kind == "i"
    ):
        limits = np.iinfo(dtype)
        low, high = array.min(), array.max()
        if low < limits.min or high > limits.max:
            raise ModelFormatError(
                f"Tree.{name} holds {high if high > limits.max else low}, outside the range "
                f"of its dtype {np.dtype(dtype).name} ({limits.min} to {limits.max})."
            )
    return np.ascontiguousarray(array, dtype=dtype)


def _kernel_matrix(X):
    """``X`` as the C-ordered float32 or float64 matrix the kernels read (float32 is
    kept as it is: comparing it with float64 thresholds is exact), always read-only.

    (numba compiles a kernel apart for a read-only array, and prediction meets both
    kinds: a matrix built from the input is writable, a float DataFrame's
    ``to_numpy()`` read-only under pandas' copy-on-write. As a read-only view every
    matrix takes the one compilation of the walks and of pruning.)"""
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    matrix = np.ascontiguousarray(X, dtype=dtype)
    return read_only(matrix) if matrix.flags.writeable else matrix


def float32_floor(threshold):
    """The largest float32 at or below each float64 of ``threshold`` (NaN stays NaN).

    For every float32 ``x`` (NaN and infinities included) and float64 ``t``,
    ``x <= t`` exactly when ``x <= float32_floor(t)``: ``x <= t`` puts ``x``
    among the float32 values at or below ``t``, of which the floor is the
    largest, and conversely the floor is itself at or below ``t``; with NaN
    both are false. So float32 input compared with these thresholds takes the
    branches it takes against the float64 ones.
    """
    with np.errstate(over="ignore"):  # beyond float32's range: +-inf, corrected below
        rounded = np.asarray(threshold, dtype=np.float64).astype(np.float32)
    above = rounded.astype(np.float64) > threshold
    rounded[above] = np.nextafter(rounded[above], np.float32(-np.inf))
    return rounded


@dataclass(frozen=True, eq=False)
class Tree:
    """A fitted decision tree as flat arrays (see the module docstring).

    Attributes
    ----------
    n_features : int
        Number of input features.
    n_classes : int
        Number of classes, 0 for a regression tree.

    The ``surrogate_*`` arrays may be left out (None): the tree then has no
    surrogate splits.
    """

    feature: np.ndarray
    kind: np.ndarray
    threshold: np.ndarray
    child_ptr: np.ndarray
    children: np.ndarray
    category_ptr: np.ndarray
    category_child: np.ndarray
    missing_child: np.ndarray
    value: np.ndarray
    n_samples: np.ndarray
    weight: np.ndarray
    impurity: np.ndarray
    n_features: int
    n_classes: int
    surrogate_ptr: np.ndarray = None
    surrogate_feature: np.ndarray = None
    surrogate_kind: np.ndarray = None
    surrogate_threshold: np.ndarray = None
    surrogate_reverse: np.ndarray = None
    surrogate_category_ptr: np.ndarray = None
    surrogate_category_child: np.ndarray = None
    surrogate_agreement: np.ndarray = None
    surrogate_adjusted: np.ndarray = None

    def __post_init__(self):
        if self.surrogate_ptr is None:
            n_nodes = np.shape(self.feature)[0]
            # (Of their final dtype: a float64 array converted would be a second copy.)
            object.__setattr__(self, "surrogate_ptr", np.zeros(n_nodes + 1, dtype=np.int64))
            object.__setattr__(self, "surrogate_category_ptr", np.zeros(1, dtype=np.int64))
        for name in _SURROGATE_DTYPES:
            if getattr(self, name) is None:
                object.__setattr__(self, name, ())
        for name, dtype in {**_ARRAY_DTYPES, **_SURROGATE_DTYPES}.items():
            array = _narrowed(name, getattr(self, name), dtype)
            array.setflags(write=False)
            object.__setattr__(self, name, array)

    # -- shape -------------------------------------------------------------
    @property
    def node_count(self):
        """Number of nodes."""
        return self.feature.shape[0]

    @property
    def is_leaf(self):
        """Boolean mask of the leaves."""
        return self.kind == NODE_LEAF

    @property
    def n_leaves(self):
        return int(self.is_leaf.sum())

    @cached_property
    def node_depth(self):
        """Depth of every node (the root has depth 0), level by level from the root."""
        depth = np.zeros(self.node_count, dtype=np.int64)
        frontier = np.zeros(1, dtype=np.int64)
        level = 0
        while frontier.size and level <= self.node_count:
            counts = self.child_ptr[frontier + 1] - self.child_ptr[frontier]
            first = np.repeat(self.child_ptr[frontier], counts)
            offset = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
            frontier = self.children[first + offset]
            level += 1
            depth[frontier] = level
        return depth

    @property
    def max_depth(self):
        return int(self.node_depth.max()) if self.node_count else 0

    def children_of(self, node):
        """Children of ``node``, in branch order."""
        return self.children[self.child_ptr[node] : self.child_ptr[node + 1]]

    def parent(self):
        """Parent of every node (-1 for the root)."""
        parents = np.full(self.node_count, -1, dtype=np.int64)
        counts = np.diff(self.child_ptr)
        parents[self.children] = np.repeat(np.arange(self.node_count), counts)
        return parents

    # -- prediction --------------------------------------------------------
    def _kernel_args(self):
        """The arrays the prediction kernels read, as the two tuples of
        :mod:`treelearn.tree._traverse`."""
        nodes = (
            self.feature,
            self.kind,
            self.threshold,
            self.child_ptr,
            self.children,
            self.category_ptr,
            self.category_child,
            self.missing_child,
            self.weight,
        )
        surrogates = (
            self.surrogate_ptr,
            self.surrogate_feature,
            self.surrogate_kind,
            self.surrogate_threshold,
            self.surrogate_reverse,
            self.surrogate_category_ptr,
            self.surrogate_category_child,
        )
        return nodes, surrogates

    @cached_property
    def _layout(self):
        """``(original, first, code)`` of the compact layout the walks read.

        Positions are those of :func:`~treelearn.tree._traverse.depth_first_layout`.
        ``code``: ``2 * feature + (missing values go to child 1)`` at a
        threshold node whose missing values go to one child and that has no
        surrogates (the fast nodes; their threshold is a number), else 0.
        ``first``: the position of the node's first child (a leaf's own
        position), stored as ``~first`` (negative) at a node of the general
        path: any node but a fast one or a leaf. The records of the walk hold
        ``code``, ``first`` and the threshold (NaN but at fast nodes).
        """
        n = self.node_count
        if n >= np.iinfo(np.int32).max or 2 * self.n_features >= np.iinfo(np.int32).max:
            raise ValueError("the tree is too large for the compact prediction layout")
        original = np.empty(n, dtype=np.int64)
        first = np.empty(n, dtype=np.int64)
        depth_first_layout(self.child_ptr, self.children, original, first)
        kind = self.kind[original]
        missing = self.missing_child[original]
        no_surrogates = np.diff(self.surrogate_ptr)[original] == 0
        fast = (kind == NODE_THRESHOLD) & ((missing == 0) | (missing == 1)) & no_surrogates
        fast &= ~np.isnan(self.threshold[original])  # (a valid tree has none)
        code = np.where(fast, 2 * self.feature[original] + (missing == 1), 0).astype(np.uint32)
        first = np.where(fast | (kind == NODE_LEAF), first, ~first).astype(np.int32)
        return original, first, code

    def _make_records(self, threshold_dtype):
        original, first, code = self._layout
        records = np.empty(self.node_count, dtype=record_dtype(threshold_dtype))
        fast = (first >= 0) & (self.kind[original] != NODE_LEAF)
        threshold = np.where(fast, self.threshold[original], np.nan)  # NaN: child 0
        if threshold_dtype == np.float32:
            threshold = float32_floor(threshold)
        records["threshold"] = threshold
        records["code"] = code
        records["first"] = first
        records.setflags(write=False)
        return records

    @cached_property
    def _records64(self):
        """Compact records with the float64 thresholds (for float64 input)."""
        return self._make_records(np.float64)

    @cached_property
    def _records32(self):
        """Compact records with float32 thresholds rounded down (:func:`float32_floor`),
        for float32 input."""
        return self._make_records(np.float32)

    def _payload(self, name):
        """What a walk writes for each row, by record position: ``"node"`` the leaf's
        index, ``"class"`` its most weighted class (ties: the first), ``"value"``
        its first value column (a regression tree's prediction)."""
        cache = self.__dict__.setdefault("_payloads", {})
        if name not in cache:
            original = self._layout[0]
            if name == "node":
                payload = original
            elif name == "class":
                payload = np.argmax(self.value, axis=1).astype(np.int64)[original]
            else:
                payload = np.ascontiguousarray(self.value[original, 0], dtype=np.float64)
            cache[name] = payload
        return cache[name]

    def _walk(self, X, payload, check_finite=False):
        """``(out, bad)``: ``out[i]`` is ``payload`` at the leaf row ``i`` of the
        prediction matrix ``X`` reaches (see :meth:`apply`); with
        ``check_finite``, ``bad`` is a row holding an infinite value (``out`` is
        then incomplete), else -1. Runs on numba's current number of threads."""
        X = _kernel_matrix(X)
        if X.ndim != 2 or X.shape[1] < self.n_features:
            raise ValueError(
                f"the prediction matrix has shape {X.shape}; the tree needs 2D rows of "
                f"{self.n_features} features"
            )
        if self.node_count == 1:  # a lone leaf (the walk reads feature 0, which may not exist)
            infinite = np.flatnonzero(np.isinf(X).any(axis=1)) if check_finite else ()
            bad = int(infinite[0]) if len(infinite) else -1
            return np.full(X.shape[0], payload[0], dtype=payload.dtype), bad
        records = self._records32 if X.dtype == np.float32 else self._records64
        out = np.empty(X.shape[0], dtype=payload.dtype)
        parallel = X.shape[0] > BLOCK_ROWS and numba.get_num_threads() > 1
        kernel = walk_rows_parallel if parallel else walk_rows
        nodes, surrogates = self._kernel_args()
        bad = kernel(X, records, self._layout[0], nodes, surrogates, payload, out, check_finite)
        return out, int(bad)

    def apply(self, X):
        """Index of the leaf each row of the prediction matrix ``X`` reaches.

        A row with a missing value at a node that splits missing values by
        weight follows the heaviest branch (:meth:`class_distribution` combines
        the branches instead).
        """
        return self._walk(X, self._payload("node"))[0]

    def __getstate__(self):
        """The arrays, without the caches of prediction (rebuilt when needed)."""
        state = dict(self.__dict__)
        for name in ("_layout", "_records32", "_records64", "_payloads", "_hot_arrays"):
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        """The arrays read-only again, as :meth:`__post_init__` leaves them (unpickled
        arrays are writable, or read-only where joblib maps them from a file, and numba
        compiles the walks apart for each: a loaded Tree shares a grown one's)."""
        for name in (*_ARRAY_DTYPES, *_SURROGATE_DTYPES):
            array = state.get(name)
            if isinstance(array, np.ndarray) and array.flags.writeable:
                array.setflags(write=False)
        self.__dict__.update(state)

    @cached_property
    def splits_missing_by_weight(self):
        """True when some node sends missing values down every branch (C4.5)."""
        return bool((self.missing_child[~self.is_leaf] == MISSING_BY_WEIGHT).any())

    def class_distribution(self, X):
        """Class distribution (rows sum to 1) of each row of the prediction matrix ``X``.

        A row's distribution is its leaf's normalised class weights; a row
        missing a value at a node that splits missing values by weight is
        sent down every branch and the leaves' distributions are combined by
        the branches' weights (C4.5). A leaf without weight predicts uniform
        probabilities.
        """
        X = _kernel_matrix(X)
        totals = self.value.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            normalised = np.where(
                totals > 0, self.value / np.where(totals > 0, totals, 1), 1.0 / self.value.shape[1]
            )
        proba = normalised[self.apply(X)]
        if self.splits_missing_by_weight:
            rows = np.flatnonzero(np.isnan(X).any(axis=1))
            if rows.size:
                combined = np.empty((rows.size, self.value.shape[1]))
                weighted_leaf_values(X, rows, *self._kernel_args(), normalised, combined)
                proba[rows] = combined
        return proba

    def decision_path(self, X):
        """(row indices, node indices) of every node on each row's path, row-major."""
        X = _kernel_matrix(X)
        size = X.shape[0] * (self.max_depth + 1)
        rows = np.empty(size, dtype=np.int64)
        nodes = np.empty(size, dtype=np.int64)
        n = path_nodes(X, *self._kernel_args(), rows, nodes)
        return rows[:n], nodes[:n]

    def impurity_decrease(self):
        """Per node, ``weight * impurity`` minus the same summed over its children."""
        cost = self.weight * self.impurity
        child_cost = np.zeros(self.node_count)
        counts = np.diff(self.child_ptr)
        parents = np.repeat(np.arange(self.node_count), counts)
        np.add.at(child_cost, parents, cost[self.children])
        return np.where(self.is_leaf, 0.0, cost - child_cost)

    def feature_importances(self):
        """Normalised total impurity decrease per feature (Breiman et al. 1984)."""
        decrease = self.impurity_decrease()
        internal = ~self.is_leaf
        importances = np.zeros(self.n_features)
        np.add.at(importances, self.feature[internal], decrease[internal])
        total = importances.sum()
        return importances / total if total > 0 else importances

    # -- checks ------------------------------------------------------------
    def validate(self):
        """Check every structural invariant; raise :class:`ModelFormatError` if one fails."""
        n = self.node_count

        def fail(message):
            raise ModelFormatError(f"Invalid tree: {message}.")

        if n == 0:
            fail("it has no nodes")
        for name in ("kind", "threshold", "missing_child", "n_samples", "weight", "impurity"):
            if getattr(self, name).shape != (n,):
                fail(f"{name} has shape {getattr(self, name).shape}, expected ({n},)")
        if self.child_ptr.shape != (n + 1,) or self.category_ptr.shape != (n + 1,):
            fail("child_ptr and category_ptr need one entry per node plus one")
        if self.value.ndim != 2 or self.value.shape[0] != n:
            fail(f"value has shape {self.value.shape}, expected ({n}, n_outputs)")
        broken = first_broken_invariant(
            self.feature, self.kind, self.threshold, self.child_ptr, self.children,
            self.category_ptr, self.category_child, self.missing_child, self.n_samples,
            self.weight, float(self.n_features),  # (a float: any count compares, 10**30 too)
        )  # fmt: skip
        if broken == UNKNOWN_KIND:
            known_kind = np.isin(self.kind, np.array(list(NODE_KIND_NAMES)))
            fail(f"unknown node kinds {sorted(set(self.kind[~known_kind].tolist()))}")
        if broken != INTACT:
            fail(BROKEN_INVARIANTS[broken])
        # A node that splits missing values by weight sends those rows to every child,
        # and weighs as much as they do together.
        if np.any(self.missing_child == MISSING_BY_WEIGHT):
            internal = np.flatnonzero(self.kind != NODE_LEAF)
            by_weight = self.missing_child[internal] == MISSING_BY_WEIGHT
            child_weight = np.add.reduceat(self.weight[self.children], self.child_ptr[internal])
            if not np.allclose(
                child_weight[by_weight], self.weight[internal[by_weight]], rtol=1e-9, atol=0
            ):
                fail("a node splitting missing values by weight is not as heavy as its children")
        binary = (self.kind == NODE_THRESHOLD) | (self.kind == NODE_SUBSET)
        self._validate_surrogates(fail, binary)
        return self

    def _validate_surrogates(self, fail, binary):
        """The surrogate invariants of :meth:`validate` (see the module docstring)."""
        n = self.node_count
        ptr = self.surrogate_ptr
        # (Without surrogates, ptr is zeros, often pages of them that take no memory:
        # read, not differenced into an array of a node each.)
        no_surrogates = ptr.shape == (n + 1,) and not ptr.any()
        if ptr.shape != (n + 1,) or ptr[0] != 0 or (not no_surrogates and np.any(np.diff(ptr) < 0)):
            fail("surrogate_ptr needs one entry per node plus one, from 0, never decreasing")
        m = int(ptr[-1])
        for name in _SURROGATE_DTYPES:
            expected = m + 1 if name == "surrogate_category_ptr" else m
            if name not in ("surrogate_ptr", "surrogate_category_child") and (
                getattr(self, name).shape != (expected,)
            ):
                fail(f"{name} has shape {getattr(self, name).shape}, expected ({expected},)")
        feature = self.surrogate_feature
        if np.any((feature < 0) | (feature >= self.n_features)):
            fail("a surrogate tests a feature out of range")
        if not no_surrogates:
            per_node = np.diff(ptr)
            if np.any(per_node[~binary] != 0):
                fail("a node that is not a binary split has surrogates")
            owner = np.repeat(np.arange(n), per_node)
            if np.any(feature == self.feature[owner]):
                fail("a surrogate tests its node's own feature")
        cat_ptr = self.surrogate_category_ptr
        if cat_ptr[0] != 0 or np.any(np.diff(cat_ptr) < 0):
            fail("surrogate_category_ptr must start at 0 and never decrease")
        if cat_ptr[-1] != self.surrogate_category_child.shape[0]:
            fail("surrogate_category_ptr does not end at the length of surrogate_category_child")
        kind = self.surrogate_kind
        is_threshold = kind == NODE_THRESHOLD
        if np.any(~is_threshold & (kind != NODE_SUBSET)):
            fail("a surrogate is neither a threshold nor a subset split")
        n_categories = np.diff(cat_ptr)
        if np.any(n_categories[is_threshold] != 0) or np.any(n_categories[~is_threshold] == 0):
            fail("a threshold surrogate has a category map, or a subset surrogate has none")
        if np.any(~np.isfinite(self.surrogate_threshold[is_threshold])):
            fail("a threshold surrogate's threshold is not finite")
        if np.any((self.surrogate_reverse != 0) & (self.surrogate_reverse != 1)):
            fail("surrogate_reverse must be 0 or 1")
        cats = self.surrogate_category_child
        if np.any((cats != NO_CHILD) & (cats != 0) & (cats != 1)):
            fail("a surrogate's category map points outside its node's two children")
        agreement = self.surrogate_agreement
        adjusted = self.surrogate_adjusted
        top = 1.0 + 1e-9  # agreements are ratios of float sums
        if np.any(~(agreement >= 0) | (agreement > top) | ~(adjusted > 0) | (adjusted > top)):
            fail(
                "a surrogate's agreement is outside [0, 1] or its adjusted agreement outside (0, 1]"
            )
