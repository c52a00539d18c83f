"""What to grow: a frozen configuration per algorithm (a *preset*).

An algorithm is a preset of one grower: its criterion, the split kinds it may
use, its stop rules and its missing-value policy. Estimators copy a preset with
:meth:`GrowthSpec.replace` to apply user parameters; they never copy the loop.
"""

import dataclasses
from dataclasses import dataclass

from treelearn.exceptions import ParameterError

NOMINAL_SPLITS = ("subset", "multiway")
MISSING_POLICIES = ("learn", "surrogate", "fractional")
SELECTIONS = ("gain", "gain_ratio")
THRESHOLD_PLACEMENTS = ("midpoint", "data")


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
    missing : {"learn", "surrogate", "fractional"}
        ``"learn"``: each split learns which child missing values go to.
        ``"surrogate"``: Breiman's surrogate splits route them.
        ``"fractional"`` (C4.5; needs ``selection="gain_ratio"``): a row missing
        the split's feature goes down every branch, its weight shared in
        proportion to the branches' known weights.
    max_surrogates : int
        Surrogate splits kept per node when ``missing="surrogate"``.
    huber_delta : float or None
        Huber's delta for ``criterion="huber"``.
    selection : {"gain", "gain_ratio"}
        ``"gain"``: the split of largest impurity decrease. ``"gain_ratio"``
        (C4.5, entropy only): every attribute is evaluated as C4.5 does and the
        choice follows Quinlan's above-average-gain rule
        (:mod:`treelearn.splitting.gain_ratio`).
    min_branch_weight : float
        ``selection="gain_ratio"``: C4.5's ``m``. A split needs two branches of
        at least this weight, and a node of less than twice this weight is a leaf.
    threshold_cost : bool
        ``selection="gain_ratio"``: subtract ``log2(cuts tried) / N`` from a
        numeric attribute's gain (Release 8).
    value_groups : bool
        ``selection="gain_ratio"``: nominal features with more than two values
        split into groups of values (C4.5's ``-s``; :mod:`treelearn.splitting.subsets`)
        rather than one branch per value, and may be tested again below.
    record_splits : bool
        Keep every searched node's candidate table (textbook numbers) so the
        split can be explained later (classification; always on for
        ``selection="gain_ratio"``). Costs about one more search per node.
    threshold_at : {"midpoint", "data"}
        ``"midpoint"``: a numeric split's threshold is the midpoint between the
        neighbouring values. ``"data"`` (C4.5 Release 8): the largest training
        value not above that midpoint.
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
    selection: str = "gain"
    min_branch_weight: float = 0.0
    threshold_cost: bool = False
    threshold_at: str = "midpoint"
    record_splits: bool = False
    value_groups: bool = False

    def __post_init__(self):
        if self.nominal_split not in NOMINAL_SPLITS:
            raise ParameterError(
                f"nominal_split={self.nominal_split!r}; expected one of {NOMINAL_SPLITS}."
            )
        if self.missing not in MISSING_POLICIES:
            raise ParameterError(
                f"missing={self.missing!r}; expected one of {', '.join(MISSING_POLICIES)}."
            )
        if self.selection not in SELECTIONS:
            raise ParameterError(f"selection={self.selection!r}; expected one of {SELECTIONS}.")
        if self.threshold_at not in THRESHOLD_PLACEMENTS:
            raise ParameterError(
                f"threshold_at={self.threshold_at!r}; expected one of {THRESHOLD_PLACEMENTS}."
            )
        if (self.missing == "fractional") != (self.selection == "gain_ratio"):
            raise ParameterError(
                "missing='fractional' and selection='gain_ratio' go together (C4.5); got "
                f"missing={self.missing!r}, selection={self.selection!r}."
            )
        if self.selection == "gain_ratio" and (
            self.criterion != "entropy" or self.nominal_split != "multiway"
        ):
            raise ParameterError(
                "selection='gain_ratio' needs criterion='entropy' and nominal_split='multiway'."
            )

    def replace(self, **changes):
        """A copy of this spec with ``changes`` applied."""
        return dataclasses.replace(self, **changes)


#: ID3 (Quinlan 1986): information gain, one branch per category of a nominal
#: attribute; an empty branch predicts its parent's class distribution.
ID3 = GrowthSpec(criterion="entropy", nominal_split="multiway", record_splits=True)

#: C4.5 Release 8 (Quinlan 1993): gain ratio with the above-average-gain rule,
#: multiway nominal splits, thresholds at training values, fractional missing values.
C45 = GrowthSpec(
    criterion="entropy",
    nominal_split="multiway",
    missing="fractional",
    selection="gain_ratio",
    min_branch_weight=2.0,
    threshold_cost=True,
    threshold_at="data",
)

#: Classification and regression trees (Breiman, Friedman, Olshen & Stone 1984):
#: binary splits, numeric thresholds, subset splits of nominal features.
CART = GrowthSpec(criterion="gini", nominal_split="subset")
