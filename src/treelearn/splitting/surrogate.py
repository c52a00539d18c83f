"""Surrogate splits of a node (``missing="surrogate"``), the Python side.

:class:`SurrogateSearch` validates its inputs once, keeps the scratch arrays,
and drives the kernels of :mod:`treelearn.splitting._surrogate_kernels`
(whose docstring states every rule and its source in rpart). For one node:

1. :meth:`SurrogateSearch.find` gives the directions of the node's rows under
   the primary split, the weights sent left and right, the majority child and
   the ranked surrogates (:class:`NodeSurrogates`);
2. :meth:`SurrogateSearch.route` gives every node row its child: the primary
   split, else the first surrogate whose feature the row knows, else the
   majority child;
3. :meth:`NodeSurrogates.tree_entries` turns the surrogates into what
   :meth:`treelearn.tree.TreeBuilder.set_split` keeps.

Every feature but the primary one is a candidate, in index order, whatever
features the node's split search drew (``max_features``); rpart has no such
draw.

Majority child
    The child the primary split sends more weight to, over the rows that know
    the primary feature (rpart's ``lastsurrogate``). On a tie treelearn takes
    the left child; rpart has no default then and leaves such rows in the
    node. It is also the node's ``missing_child`` for prediction; rpart's
    ``predict`` instead takes the child with more training rows (its ``n``),
    which is the same child unless surrogates routed many rows the other way.
"""

from dataclasses import dataclass

import numpy as np

from treelearn._dtypes import NO_CHILD, NODE_SUBSET, NODE_THRESHOLD
from treelearn.exceptions import ParameterError
from treelearn.splitting import _surrogate_kernels as kernels


@dataclass(frozen=True, eq=False)
class NodeSurrogates:
    """Surrogates of one node's primary split, best first.

    Attributes
    ----------
    feature : ndarray of int64, shape (k,)
    is_nominal : ndarray of bool, shape (k,)
    left_code, right_code : ndarray of int64, shape (k,)
        Numeric surrogates: the codes on either side of the boundary (codes
        ``<= left_code`` are the lower side); -1 for nominal ones.
    reverse : ndarray of int64, shape (k,)
        1 when a numeric surrogate sends its lower side right.
    mask : ndarray of uint8, shape (k, max codes)
        Nominal surrogates: direction per category code (1 left, 2 right,
        0 none: the row tries the next surrogate).
    agreement, adjusted : ndarray of float64, shape (k,)
        Agreement with the primary split and adjusted agreement (rpart's
        ``agree`` and ``adj``).
    t_left, t_right : float
        Weight the primary split sends left and right.
    majority_child : int
        0 or 1 (see the module docstring).
    """

    feature: np.ndarray
    is_nominal: np.ndarray
    left_code: np.ndarray
    right_code: np.ndarray
    reverse: np.ndarray
    mask: np.ndarray
    agreement: np.ndarray
    adjusted: np.ndarray
    t_left: float
    t_right: float
    majority_child: int

    def __len__(self):
        return self.feature.shape[0]

    def tree_entries(self, n_codes, threshold_of):
        """Per surrogate, the tuple :meth:`TreeBuilder.set_split` takes.

        ``(feature, kind, threshold, reverse, category_child, agreement,
        adjusted)``: a numeric surrogate's threshold is
        ``threshold_of(feature, left_code, right_code)``
        (:meth:`treelearn.data.dataset.Dataset.threshold`, as the primary's); a nominal one's
        ``category_child`` has one entry per category (0, 1 or ``NO_CHILD``).
        """
        entries = []
        for s in range(len(self)):
            f = int(self.feature[s])
            if self.is_nominal[s]:
                directions = self.mask[s, : int(n_codes[f])].astype(np.int64)
                category_child = np.where(directions == 0, NO_CHILD, directions - 1)
                entry = (f, NODE_SUBSET, np.nan, 0, category_child)
            else:
                threshold = threshold_of(f, int(self.left_code[s]), int(self.right_code[s]))
                entry = (f, NODE_THRESHOLD, threshold, int(self.reverse[s]), ())
            entries.append((*entry, float(self.agreement[s]), float(self.adjusted[s])))
        return entries


class SurrogateSearch:
    """Finds and applies surrogate splits over one training set.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, n_features)
        The code matrix (:class:`treelearn.data.dataset.Dataset`).
    n_codes : ndarray of int64
        Known codes per feature; the missing code of ``f`` is ``n_codes[f]``.
    is_nominal : ndarray of bool
    weight : ndarray of float64
        Row weights.
    max_surrogates : int
        Surrogates kept per node (0: rows missing the primary feature go to
        the majority child).
    hist_ratio : float
        A numeric feature with at most this many codes per node row is
        counted densely; otherwise the node's rows are read in code order.
    """

    def __init__(self, codes, n_codes, is_nominal, weight, max_surrogates, hist_ratio=2.0):
        n, n_features = codes.shape
        if isinstance(max_surrogates, bool) or int(max_surrogates) != max_surrogates:
            raise ParameterError(f"max_surrogates must be an integer >= 0, got {max_surrogates!r}.")
        if max_surrogates < 0:
            raise ParameterError(f"max_surrogates must be an integer >= 0, got {max_surrogates!r}.")
        if n_codes.shape != (n_features,) or is_nominal.shape != (n_features,):
            raise ValueError("n_codes and is_nominal need one entry per column of codes.")
        if weight.shape != (n,):
            raise ValueError("weight needs one entry per row of codes.")
        # As the kernels read codes: feature by feature (C-contiguous, a copy only where
        # ``codes`` is not in Fortran order).
        self.feature_codes = np.ascontiguousarray(codes.T)
        self.n_codes = np.ascontiguousarray(n_codes, dtype=np.int64)
        self.is_nominal = np.ascontiguousarray(is_nominal, dtype=np.bool_)
        self.weight = np.ascontiguousarray(weight, dtype=np.float64)
        self.max_surrogates = int(min(max_surrogates, max(n_features - 1, 0)))
        self.hist_ratio = float(hist_ratio)
        max_bins = int(self.n_codes.max()) + 1 if n_features else 1
        k = max(self.max_surrogates, 1)
        self.side = np.zeros(n, dtype=np.uint8)
        self.dense_w = np.empty((max_bins, 2))
        self.dense_c = np.empty((max_bins, 3), dtype=np.int64)
        self.t_code = np.empty(n + 1, dtype=np.int64)
        self.t_w = np.empty((n + 1, 2))
        self.t_c = np.empty((n + 1, 3), dtype=np.int64)
        self.out_feature = np.empty(k, dtype=np.int64)
        self.out_left = np.empty(k, dtype=np.int64)
        self.out_right = np.empty(k, dtype=np.int64)
        self.out_reverse = np.empty(k, dtype=np.int64)
        self.out_agreement = np.empty(k)
        self.out_adjusted = np.empty(k)
        self.out_mask = np.zeros((k, max_bins), dtype=np.uint8)
        self.no_mask = np.zeros(1, dtype=np.uint8)
        self.no_sorted_rows = np.zeros((0, 0), dtype=np.int32)
        self.no_sorted_slot = np.full(n_features, -1, dtype=np.int64)

    def find(
        self,
        rows,
        start,
        end,
        feature,
        left_code=-1,
        mask=None,
        sorted_rows=None,
        sorted_slot=None,
    ):
        """Surrogates of the split of ``rows[start:end]`` on ``feature``.

        Parameters
        ----------
        rows : ndarray of intp
        start, end : int
        feature : int
            The primary feature.
        left_code : int
            Numeric primary: codes ``<= left_code`` go left.
        mask : ndarray of uint8 or None
            Nominal primary: direction per code (1 left, 2 right, 0 absent).
        sorted_rows, sorted_slot : ndarray or None
            The grower's rows kept in code order per numeric feature (optional).

        Returns
        -------
        NodeSurrogates
        """
        if not 0 <= feature < self.feature_codes.shape[0]:
            raise ValueError(f"feature {feature} is not a column of codes.")
        if not 0 <= start < end <= rows.shape[0]:
            raise ValueError(f"[{start}, {end}) is not a non-empty range of rows.")
        is_subset = bool(self.is_nominal[feature])
        if is_subset != (mask is not None):
            raise ValueError("pass mask for a nominal primary feature, and only then.")
        if sorted_rows is None or sorted_slot is None:
            sorted_rows, sorted_slot = self.no_sorted_rows, self.no_sorted_slot
        t_left, t_right = kernels.node_sides(
            self.feature_codes[feature],
            rows,
            start,
            end,
            int(self.n_codes[feature]),
            is_subset,
            int(left_code),
            self.no_mask if mask is None else mask,
            self.weight,
            self.side,
        )
        k = kernels.find_surrogates(
            self.feature_codes, rows, start, end, self.weight, self.n_codes, self.is_nominal,
            int(feature), t_left, t_right, self.max_surrogates, self.hist_ratio, sorted_rows,
            sorted_slot, self.side, self.dense_w, self.dense_c, self.t_code, self.t_w, self.t_c,
            self.out_feature, self.out_left, self.out_right, self.out_reverse,
            self.out_agreement, self.out_adjusted, self.out_mask,
        )  # fmt: skip
        feature_k = self.out_feature[:k].copy()
        return NodeSurrogates(
            feature=feature_k,
            is_nominal=self.is_nominal[feature_k],
            left_code=self.out_left[:k].copy(),
            right_code=self.out_right[:k].copy(),
            reverse=self.out_reverse[:k].copy(),
            mask=self.out_mask[:k].copy(),
            agreement=self.out_agreement[:k].copy(),
            adjusted=self.out_adjusted[:k].copy(),
            t_left=float(t_left),
            t_right=float(t_right),
            majority_child=0 if t_left >= t_right else 1,
        )

    def route(self, rows, start, end, surrogates, child_of_row):
        """Child (0 or 1) of every row of ``rows[start:end]`` into ``child_of_row``.

        Call right after :meth:`find` for the same node (it reads the rows'
        directions that :meth:`find` left). Returns the number of rows each
        surrogate routed (rpart's "(n split)").
        """
        n_routed = np.zeros(max(len(surrogates), 1), dtype=np.int64)
        kernels.route_rows(
            self.feature_codes, rows, start, end, self.n_codes, self.side, len(surrogates),
            surrogates.feature, surrogates.is_nominal, surrogates.left_code,
            surrogates.reverse, surrogates.mask if len(surrogates) else self.out_mask,
            surrogates.majority_child, child_of_row, n_routed,
        )  # fmt: skip
        return n_routed[: len(surrogates)]

    def split_rows(self, rows, start, end, surrogates, child_of_row, buffer):
        """:meth:`route` the node's rows, then partition ``rows[start:end]`` stably
        (left child first). Returns ``(middle, n_routed)``: where the right
        child's rows begin, and the rows each surrogate routed."""
        n_routed = self.route(rows, start, end, surrogates, child_of_row)
        middle = kernels.partition_by_row_child(rows, start, end, child_of_row, buffer)
        return int(middle), n_routed
