"""C4.5 (Quinlan 1993, *C4.5: Programs for Machine Learning*, Release 8)."""

from sklearn.base import ClassifierMixin

from treelearn.estimators.base import BaseTree, _check_float, _check_int
from treelearn.estimators.classifier import TreeClassifierMixin
from treelearn.estimators.id3 import warn_id_like_columns
from treelearn.exceptions import ParameterError
from treelearn.growing.spec import C45, THRESHOLD_PLACEMENTS
from treelearn.pruning._estimator import PruningMixin


class C45Classifier(PruningMixin, TreeClassifierMixin, ClassifierMixin, BaseTree):
    """C4.5: gain ratio, multiway nominal splits, numeric thresholds, fractional missing values.

    At each node every attribute is evaluated as Release 8 does
    (:mod:`treelearn.splitting._gain_ratio_kernels`):

    - a nominal attribute splits into one branch per category (and is then
      not tested again below); it may split when at least two categories hold
      ``min_samples_leaf`` (weighted) rows;
    - a numeric attribute splits in two at the cut of largest information gain
      among those leaving at least ``0.1 * known / n_classes`` (clipped to
      ``[min_samples_leaf, 25]``) weight on each side; with
      ``threshold_correction`` its gain is lowered by ``log2(cuts tried) / N``.
      It may be used again below;
    - gain is computed on the rows that know the attribute and scaled by
      their share of the node's weight; split information counts the rows
      missing the attribute as one more branch.

    The split chosen is the one of largest gain ratio among the attributes of
    at least average gain (nominal attributes with ``0.3 N`` values or more
    are left out of the average; :mod:`treelearn.splitting.gain_ratio`). A
    node is a leaf when it is pure, weighs less than ``2 * min_samples_leaf``,
    or no attribute may split it. A branch for a category with no training
    row at the node is a leaf that predicts its parent's class distribution.

    Missing values (fractional cases): in training, a row missing the split's
    attribute goes down every branch with its weight shared in proportion to
    the branches' known weights; at prediction, such a row goes down every
    branch and the leaves' class distributions are combined with those
    weights (see :meth:`predict_proba`).

    After growing, as C4.5 and Weka's J48 do by default, a subtree that makes
    no fewer training errors than a leaf in its place becomes that leaf
    (``collapse``), then the tree is pruned by C4.5's error-based pruning
    (``pruning="error_based"``: the upper limit of the binomial confidence
    interval, confidence factor ``cf``, with subtree raising;
    :func:`treelearn.pruning.prune_error_based`). ``pruning=None,
    collapse=False`` keeps the tree as grown.

    Parameters
    ----------
    min_samples_leaf : float, default=2
        C4.5's ``m`` (option ``-m``): a split needs at least two branches of
        this much weight.
    threshold : {"data", "midpoint"}, default="data"
        Where a numeric threshold is put: ``"data"``, the largest training
        value not above the midpoint of the best cut, as Release 8 (and Weka's
        J48) do; ``"midpoint"``, the midpoint between the neighbouring values,
        as the textbooks and CART do. Training rows go the same way either
        way; new values between the two neighbours may not.
    threshold_correction : bool, default=True
        Release 8's correction of a numeric attribute's gain by
        ``log2(number of cuts tried) / N`` (Quinlan 1996, "Improved use of
        continuous attributes in C4.5").
    subset_splits : bool, default=False
        C4.5's option ``-s``: the values of a nominal attribute with more than
        two values are grouped, each group a branch, by Release 8's greedy
        merging (:mod:`treelearn.splitting.subsets`); such an attribute may
        then be tested again below.
    max_depth : int or None, default=None
        Nodes at this depth are not split (not in C4.5; pre-pruning).
    pruning : {"error_based", None, "pessimistic", "reduced_error", "validation"}, \
            default="error_based"
        Pruning after growing (:mod:`treelearn.pruning`): C4.5's error-based
        pruning; none; Quinlan's (1987) pessimistic pruning; reduced-error
        pruning, or the textbook's validation pre-pruning, on
        ``validation_fraction`` of the rows held out of growing.
    cf : float in (0, 0.5], default=0.25
        C4.5's confidence factor (option ``-c``, percent there): smaller
        prunes more.
    subtree_raising : bool, default=True
        Error-based pruning may replace a node by its largest branch (J48's
        default; C4.5 Release 8 always does).
    collapse : bool, default=True
        Before pruning, turn every subtree with no fewer training errors than
        a leaf into a leaf (C4.5's ``FormTree``; J48's "collapse tree").
    validation_fraction : float in (0, 1), default=0.25
        Rows held out with ``pruning="reduced_error"`` or ``"validation"``.
    random_state : int, RandomState, Generator or None, default=None
        Seeds the draw of the held-out rows.
    categorical_features : list of str or int, boolean mask, or None
        Columns to treat as nominal (numpy input with numeric codes, for example).

    Attributes
    ----------
    tree_ : treelearn.tree.Tree
    classes_ : ndarray
    n_classes_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when fitted on a DataFrame whose column names are strings.
    feature_importances_ : ndarray
    split_records_ : dict
        Per node searched, a :class:`~treelearn.splitting.gain_ratio.SplitRecord`:
        every attribute's numbers and C4.5's choice (read it with
        :func:`treelearn.explain`).

    Notes
    -----
    Equal gain ratios go to the attribute that comes first in ``X``; equal
    gains of two cuts of a numeric attribute to the lower cut. C4.5 computes
    in single precision and treats values closer than 1e-5 as equal; treelearn
    computes in double precision and treats every distinct value as a
    candidate, so near-ties may be broken differently.
    """

    _preset = C45
    _missing_policies = ("fractional",)

    def __init__(
        self,
        *,
        min_samples_leaf=2,
        threshold="data",
        threshold_correction=True,
        subset_splits=False,
        max_depth=None,
        categorical_features=None,
        pruning="error_based",
        cf=0.25,
        subtree_raising=True,
        collapse=True,
        validation_fraction=0.25,
        random_state=None,
    ):
        self.min_samples_leaf = min_samples_leaf
        self.threshold = threshold
        self.threshold_correction = threshold_correction
        self.subset_splits = subset_splits
        self.max_depth = max_depth
        self.categorical_features = categorical_features
        self.pruning = pruning
        self.cf = cf
        self.subtree_raising = subtree_raising
        self.collapse = collapse
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def _check_params(self):
        _check_float("min_samples_leaf", self.min_samples_leaf, 0.0, float("inf"))
        if self.threshold not in THRESHOLD_PLACEMENTS:
            raise ParameterError(
                f"threshold must be 'data' (C4.5 Release 8) or 'midpoint', got {self.threshold!r}."
            )
        if not isinstance(self.threshold_correction, bool):
            raise ParameterError(
                f"threshold_correction must be True or False, got {self.threshold_correction!r}."
            )
        if not isinstance(self.subset_splits, bool):
            raise ParameterError(
                f"subset_splits must be True or False, got {self.subset_splits!r}."
            )
        _check_int("max_depth", self.max_depth, 1, allow_none=True)
        for name in ("subtree_raising", "collapse"):
            if not isinstance(getattr(self, name), bool):
                raise ParameterError(f"{name} must be True or False, got {getattr(self, name)!r}.")
        self._check_pruning_params()

    def _growth_spec(self, n_rows, total_weight, n_features):
        return self._preset.replace(
            max_depth=self.max_depth,
            min_branch_weight=float(self.min_samples_leaf),
            threshold_cost=self.threshold_correction,
            threshold_at=self.threshold,
            value_groups=self.subset_splits,
        )

    def _check_dataset(self, dataset):
        warn_id_like_columns(dataset, type(self).__name__)
