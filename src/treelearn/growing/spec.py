"""What to grow: a frozen configuration per algorithm (a *preset*).

An algorithm is a preset of one grower: its criterion, the split kinds it may
use, its stop rules and its missing-value policy. Estimators copy a preset with
:meth:`GrowthSpec.replace` to apply user parameters; they never copy the loop.
"""

import dataclasses
from dataclasses import dataclass

from treelearn.exceptions import ParameterError

NOMINAL_SPLITS = ("subset", "multiway")
MISSING_POLICIES = ("learn", "surrogate")


@dataclass(frozen=True)
class GrowthSpec:
    """Configuration of the grower.

    Attributes
    ----------
    criterion : str
        Name of the split criterion (:mod:`treelearn.criteria`).
    nominal_split : {"subset", "multiway"}
        How a nominal feature splits: ``"subset"``, two branches, each a set of
        categories (CART); ``"multiway"``, one branch per category of the
        feature, also for categories with no row at the node (ID3, C4.5). A
        multiway split leaves the feature constant below it, so it is used at
        most once on a path.
    max_depth : int or None
        Nodes at this depth are not split (the root has depth 0).
    min_samples_split : int
        A node with fewer rows is not split.
    min_samples_leaf : int
        Each child of a split needs at least this many rows.
    min_weight_leaf : float
        Each child of a split needs at least this total weight (absolute, not
        a fraction).
    min_impurity_decrease : float
        A split must lower the weighted impurity, divided by the total
        training weight, by at least this much (scikit-learn's definition).
    min_gain : float
        A split must lower the node's own impurity (weighted impurity divided
        by the node's weight: information gain in bits for ``entropy``) by at
        least this much (ID3's pre-pruning).
    max_leaf_nodes : int or None
        When set, nodes are split best-first (largest gain first) until the tree
        has this many leaves; otherwise depth-first.
    max_features : int or None
        Features drawn at random (without replacement) at each node; the node
        keeps drawing past this count while the drawn features are constant
        there. None: all, in index order.
    missing : {"learn", "surrogate"}
        ``"learn"``: each split learns which child missing values go to.
        ``"surrogate"``: Breiman's surrogate splits route them.
    max_surrogates : int
        Surrogate splits kept per node when ``missing="surrogate"``.
    huber_delta : float or None
        Huber's delta for ``criterion="huber"``.
    """

    criterion: str = "gini"
    nominal_split: str = "subset"
    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_weight_leaf: float = 0.0
    min_impurity_decrease: float = 0.0
    min_gain: float = 0.0
    max_leaf_nodes: int | None = None
    max_features: int | None = None
    missing: str = "learn"
    max_surrogates: int = 5
    huber_delta: float | None = None

    def __post_init__(self):
        if self.nominal_split not in NOMINAL_SPLITS:
            raise ParameterError(
                f"nominal_split={self.nominal_split!r}; expected one of {NOMINAL_SPLITS}."
            )
        if self.missing not in MISSING_POLICIES:
            raise ParameterError(
                f"missing={self.missing!r}; expected one of {', '.join(MISSING_POLICIES)}."
            )

    def replace(self, **changes):
        """A copy of this spec with ``changes`` applied."""
        return dataclasses.replace(self, **changes)


#: ID3 (Quinlan 1986): information gain, one branch per category of a nominal
#: attribute; an empty branch predicts its parent's class distribution.
ID3 = GrowthSpec(criterion="entropy", nominal_split="multiway")

#: Classification and regression trees (Breiman, Friedman, Olshen & Stone 1984):
#: binary splits, numeric thresholds, subset splits of nominal features.
CART = GrowthSpec(criterion="gini", nominal_split="subset")
