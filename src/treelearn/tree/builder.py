"""Building a :class:`Tree` node by node.

The grower adds nodes as it creates them; a node's children are added
together, right after the node is split, so every child comes after its parent.
"""

import numpy as np

from treelearn._dtypes import NODE_LEAF, NODE_SUBSET
from treelearn.tree.structure import Tree


class TreeBuilder:
    """Accumulates nodes in Python lists and freezes them into a :class:`Tree`.

    Parameters
    ----------
    n_features : int
    n_classes : int
        0 for regression.
    """

    def __init__(self, n_features, n_classes):
        self.n_features = n_features
        self.n_classes = n_classes
        self._value = []
        self._n_samples = []
        self._weight = []
        self._impurity = []
        self._split = []
        self._surrogates = {}

    @property
    def node_count(self):
        return len(self._value)

    def add_node(self, value, n_samples, weight, impurity):
        """Add a node (a leaf until :meth:`set_split` is called); return its index."""
        self._value.append(np.asarray(value, dtype=np.float64).ravel())
        self._n_samples.append(int(n_samples))
        self._weight.append(float(weight))
        self._impurity.append(float(impurity))
        self._split.append(None)
        return len(self._value) - 1

    def set_split(
        self,
        node,
        feature,
        kind,
        children,
        missing_child,
        threshold=np.nan,
        category_child=(),
        surrogates=(),
    ):
        """Turn ``node`` into an internal node with the given (already added) children.

        ``surrogates``: the node's surrogate splits, best first, each a tuple
        ``(feature, kind, threshold, reverse, category_child, agreement,
        adjusted)`` as :class:`~treelearn.tree.Tree` stores them.
        """
        self._split[node] = (
            int(feature),
            int(kind),
            float(threshold),
            np.asarray(children, dtype=np.int64),
            np.asarray(category_child, dtype=np.int64),
            int(missing_child),
        )
        self._surrogates.pop(node, None)
        if len(surrogates):
            self._surrogates[node] = [
                (
                    int(f),
                    int(k),
                    float(t),
                    int(r),
                    np.asarray(c, dtype=np.int64),
                    float(a),
                    float(j),
                )
                for f, k, t, r, c, a, j in surrogates
            ]

    def build(self):
        """The finished :class:`Tree`, validated."""
        n = self.node_count
        feature = np.full(n, -1, dtype=np.int64)
        kind = np.full(n, NODE_LEAF, dtype=np.int8)
        threshold = np.full(n, np.nan)
        missing_child = np.full(n, -1, dtype=np.int64)
        child_counts = np.zeros(n, dtype=np.int64)
        category_counts = np.zeros(n, dtype=np.int64)
        children = []
        categories = []
        for node, split in enumerate(self._split):
            if split is None:
                continue
            feature[node], kind[node], threshold[node], kids, cats, missing_child[node] = split
            child_counts[node] = kids.shape[0]
            category_counts[node] = cats.shape[0]
            children.append(kids)
            categories.append(cats)
        empty = np.empty(0, dtype=np.int64)
        tree = Tree(
            **self._surrogate_arrays(n),
            feature=feature,
            kind=kind,
            threshold=threshold,
            child_ptr=np.concatenate([[0], np.cumsum(child_counts)]),
            children=np.concatenate(children) if children else empty,
            category_ptr=np.concatenate([[0], np.cumsum(category_counts)]),
            category_child=np.concatenate(categories) if categories else empty,
            missing_child=missing_child,
            value=np.vstack(self._value),
            n_samples=np.asarray(self._n_samples),
            weight=np.asarray(self._weight),
            impurity=np.asarray(self._impurity),
            n_features=self.n_features,
            n_classes=self.n_classes,
        )
        return tree.validate()

    def _surrogate_arrays(self, n):
        """The ``surrogate_*`` arrays of :class:`Tree` (CSR over nodes, best first)."""
        counts = np.zeros(n, dtype=np.int64)
        entries = []
        for node in sorted(self._surrogates):
            counts[node] = len(self._surrogates[node])
            entries.extend(self._surrogates[node])
        maps = [e[4] if e[1] == NODE_SUBSET else np.empty(0, dtype=np.int64) for e in entries]
        return {
            "surrogate_ptr": np.concatenate([[0], np.cumsum(counts)]),
            "surrogate_feature": [e[0] for e in entries],
            "surrogate_kind": [e[1] for e in entries],
            "surrogate_threshold": [e[2] for e in entries],
            "surrogate_reverse": [e[3] for e in entries],
            "surrogate_category_ptr": np.concatenate([[0], np.cumsum([m.shape[0] for m in maps])]),
            "surrogate_category_child": (
                np.concatenate(maps) if maps else np.empty(0, dtype=np.int64)
            ),
            "surrogate_agreement": [e[5] for e in entries],
            "surrogate_adjusted": [e[6] for e in entries],
        }
