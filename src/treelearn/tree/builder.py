"""Building a :class:`Tree` node by node.

The grower adds nodes as it creates them; a node's children are added
together, right after the node is split, so every child comes after its parent.
"""

import numpy as np

from treelearn._dtypes import NODE_LEAF
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
        self, node, feature, kind, children, missing_child, threshold=np.nan, category_child=()
    ):
        """Turn ``node`` into an internal node with the given (already added) children."""
        self._split[node] = (
            int(feature),
            int(kind),
            float(threshold),
            np.asarray(children, dtype=np.int64),
            np.asarray(category_child, dtype=np.int64),
            int(missing_child),
        )

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
