"""A fitted tree as if-then rules, one per leaf.

A leaf's rule is the conjunction of the branch conditions on its path,
simplified: conditions on the same numeric feature are merged into one
interval (``x > 2`` and ``x > 5`` give ``x > 5``; ``x > 2`` and ``x <= 7``
give ``2 < x <= 7``), and conditions on the same nominal feature are
intersected (``x in {a, b, c}`` then ``x in {a, b}`` give ``x in {a, b}``)::

    if (纹理 = 清晰 or 纹理 is missing) and 触感 = 软粘 and 色泽 = 乌黑 then class = 否  (...)

Missing values
    A branch that takes missing values says so: ``x <= 3 or x is missing``.
    At a nominal node, categories not seen there in training are routed like
    missing values, so a branch that takes missing values lists them among
    its categories (a category the model never saw counts as missing). Merged conditions
    take missing values only if every one of them did. At a node with
    surrogate splits the route of a missing value is spelled out:
    ``x <= 3 or (x is missing and (z <= 5 or (z is missing and w in {a})))``
    (the first surrogate whose feature is known decides; with none known,
    the node's default branch); such conditions are kept as they are, not
    merged. At a C4.5 node that splits missing values by weight the condition
    reads ``x = a or x is missing (by weight: 0.4)``: a row with a missing
    value reaches every branch's leaf with a share of its weight.

Support and confidence
    ``support`` is the number of training rows of the leaf and ``weight``
    their total weight; ``confidence`` is the weighted share of the leaf's
    majority class (classification). A regression rule predicts the leaf's
    value; its support is the leaf's rows.

Every row of the feature space satisfies exactly one rule (the rules are
mutually exclusive and exhaustive, missing values included; rows that reach
a by-weight node with a missing value satisfy the rule of every leaf they
reach), and that rule's prediction is the model's: :meth:`Rule.covers` checks
it on data.
"""

import math
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from treelearn.exceptions import ParameterError
from treelearn.export._labels import (
    category_set_text,
    check_decimals,
    condition_text,
    format_number,
    label_text,
)
from treelearn.tree.view import MISSING_NO, MISSING_WEIGHTED, MISSING_YES, TreeView

__all__ = ["Rule", "Term", "export_rules"]

#: ``Term.missing`` for a condition whose missing values follow surrogate splits.
MISSING_SURROGATE = "surrogate"
_SORT_KEYS = ("support", "confidence", None)


@dataclass(frozen=True)
class Term:
    """The condition of a rule on one feature (see the module docstring).

    Attributes
    ----------
    feature : int
    feature_name : str
    nominal : bool
    low, high : float
        Numeric: known values ``low < x <= high`` satisfy the term (``-inf``, ``inf``: no bound).
    categories : tuple
        Nominal: the category labels that satisfy the term, in code order.
    codes : tuple of int
        Their category codes.
    missing : {"no", "yes", "by weight", "surrogate"}
        Whether a missing value (or an unseen or unknown category) satisfies
        the term: never, always, with a share of its weight, or as the
        node's surrogate splits decide.
    unseen : tuple
        ``"by weight"`` and ``"surrogate"`` terms: categories routed as missing values.
    unseen_codes : tuple of int
    fraction : float
        ``"by weight"``: the share of a missing value's weight taking the branch.
    surrogates : tuple of Surrogate
        ``"surrogate"``: the node's surrogates, each directed at this branch.
    default : bool
        ``"surrogate"``: whether a row no surrogate decides for satisfies the term.
    surrogate_unmapped : tuple
        ``"surrogate"``: per surrogate, the labels of the categories it does not
        decide on (None for a threshold surrogate).
    """

    feature: int
    feature_name: str
    nominal: bool
    low: float = -math.inf
    high: float = math.inf
    categories: tuple = ()
    codes: tuple = ()
    missing: str = MISSING_NO
    unseen: tuple = ()
    unseen_codes: tuple = ()
    fraction: float = 1.0
    surrogates: tuple = ()
    default: bool = False
    surrogate_unmapped: tuple = ()

    @property
    def mergeable(self):
        """True when missing values take the term always or never (it can be merged)."""
        return self.missing in (MISSING_NO, MISSING_YES)

    def text(self, decimals=3):
        """The term as text (see the module docstring)."""
        return self._render(check_decimals(decimals))[0]

    def _render(self, decimals):
        """(text, whether it is an ``or`` at the top level and needs brackets in a rule)."""
        name = label_text(self.feature_name)
        known = self._known_text(decimals)
        if self.missing == MISSING_NO:
            return known or "false", False
        missing = f"{name} is missing"
        if self.unseen:
            missing = f"({missing} or {name} in {category_set_text(self.unseen)})"
        if self.missing == MISSING_WEIGHTED:
            route = f"{missing} (by weight: {format_number(self.fraction, decimals)})"
        elif self.missing == MISSING_SURROGATE:
            chain = self._surrogate_text(decimals)
            if chain is False:
                return known or "false", False
            route = missing if chain is True else f"({missing} and {chain})"
        else:
            route = missing
        return (f"{known} or {route}", True) if known else (route, False)

    def _known_text(self, decimals):
        """The condition on known values, or "" when no known value satisfies it."""
        name = label_text(self.feature_name)
        if self.nominal:
            if not self.categories:
                return ""
            if len(self.categories) == 1:
                return f"{name} = {label_text(self.categories[0])}"
            return f"{name} in {category_set_text(self.categories)}"
        low, high = self.low, self.high
        if not low < high:
            return ""
        if low == -math.inf and high == math.inf:
            return f"{name} is not missing"
        if low == -math.inf:
            return f"{name} <= {format_number(high, decimals)}"
        if high == math.inf:
            return f"{name} > {format_number(low, decimals)}"
        return f"{format_number(low, decimals)} < {name} <= {format_number(high, decimals)}"

    def _surrogate_text(self, decimals):
        """The surrogate chain as text, or True / False when it always / never holds."""
        expr = self.default
        pairs = list(zip(self.surrogates, self.surrogate_unmapped, strict=True))
        for surrogate, unmapped in reversed(pairs):
            condition = surrogate.condition
            name = label_text(condition.feature_name)
            if condition.is_nominal and not condition.categories:
                here = None
            elif condition.is_nominal and len(condition.categories) == 1:
                here = f"{name} = {label_text(condition.categories[0])}"
            else:
                here = condition_text(condition, decimals)
            unknown = f"{name} is missing"
            if unmapped:
                unknown = f"({unknown} or {name} in {category_set_text(unmapped)})"
            if expr is False:
                rest = None
            elif expr is True:
                rest = unknown
            else:
                rest = f"({unknown} and {expr})"
            if here is None and rest is None:
                expr = False
            elif here is None:
                expr = rest
            elif rest is None:
                expr = here
            else:
                expr = f"({here} or {rest})"
        return expr

    # -- evaluation ------------------------------------------------------------
    def _holds(self, columns):
        """Boolean mask of the rows satisfying the term."""
        if self.nominal:
            codes = columns.codes(self.feature)
            inside = np.isin(codes, self.codes)
            unknown = (codes < 0) | np.isin(codes, self.unseen_codes)
        else:
            values = columns.numeric(self.feature)
            unknown = np.isnan(values)
            with np.errstate(invalid="ignore"):
                inside = ~unknown & (values > self.low) & (values <= self.high)
        if self.missing == MISSING_NO:
            return inside
        if self.missing == MISSING_SURROGATE:
            return inside | (unknown & _surrogate_route(self, columns))
        return inside | unknown


def _surrogate_route(term, columns):
    """Rows a missing value would send down ``term``'s branch by the surrogate splits."""
    decided = np.zeros(columns.n_rows, dtype=bool)
    taken = np.zeros(columns.n_rows, dtype=bool)
    for surrogate in term.surrogates:
        condition = surrogate.condition
        if condition.is_nominal:
            codes = columns.codes(condition.feature)
            known = np.isin(codes, surrogate.known_codes)
            goes = np.isin(codes, condition.codes)
        else:
            values = columns.numeric(condition.feature)
            known = ~np.isnan(values)
            with np.errstate(invalid="ignore"):
                lower = values <= condition.threshold
            goes = known & (lower if condition.operator == "<=" else ~lower)
        new = known & ~decided
        taken |= new & goes
        decided |= known
    if term.default:
        taken |= ~decided
    return taken


@dataclass(frozen=True)
class Rule:
    """One if-then rule: the path to a leaf (see the module docstring).

    Attributes
    ----------
    leaf : int
        The leaf's node index.
    terms : tuple of Term
        The conditions, one per feature where they could be merged, in the
        order the features are first tested on the path.
    prediction : object
        The leaf's class label (classification) or value (regression).
    confidence : float or None
        The majority class's weighted share at the leaf; None for regression.
    support : int
        Training rows of the leaf.
    weight : float
        Their total weight.
    distribution : tuple of float
        The leaf's weighted class counts; empty for regression.
    """

    leaf: int
    terms: tuple
    prediction: object
    confidence: float | None
    support: int
    weight: float
    distribution: tuple = ()
    decimals: int = field(default=3, repr=False, compare=False)
    view: TreeView | None = field(default=None, repr=False, compare=False)

    def conditions_text(self, decimals=None):
        """The ``if`` part: the terms joined by ``and`` (``true`` for a tree of one leaf)."""
        decimals = self.decimals if decimals is None else check_decimals(decimals)
        rendered = [term._render(decimals) for term in self.terms]
        if not rendered:
            return "true"
        if len(rendered) == 1:
            return rendered[0][0]
        return " and ".join(f"({text})" if compound else text for text, compound in rendered)

    def outcome_text(self, decimals=None):
        """The ``then`` part and the numbers: ``class = yes  (confidence: 0.9, support: 10)``."""
        decimals = self.decimals if decimals is None else check_decimals(decimals)
        support = f"support: {self.support}"
        if not math.isclose(self.weight, self.support):
            support += f", weight: {format_number(self.weight, decimals)}"
        if self.confidence is None:
            return f"value = {format_number(self.prediction, decimals)}  ({support})"
        confidence = format_number(self.confidence, decimals)
        return f"class = {label_text(self.prediction)}  (confidence: {confidence}, {support})"

    def __str__(self):
        return f"if {self.conditions_text()} then {self.outcome_text()}"

    def covers(self, X):
        """Which rows of ``X`` satisfy the rule.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Raw values as given to ``predict`` (a DataFrame's columns are found
            by the feature names; other input by position). For a bare Tree,
            nominal columns hold category codes.

        Returns
        -------
        ndarray of bool of shape (n_samples,)
        """
        if self.view is None:
            raise ParameterError("This rule has no tree to read categories from; use export_rules.")
        columns = _Columns(X, self.view)
        mask = np.ones(columns.n_rows, dtype=bool)
        for term in self.terms:
            mask &= term._holds(columns)
        return mask


class _Columns:
    """The columns of raw ``X`` as the rules read them: numbers, or category codes (-1: none)."""

    def __init__(self, X, view):
        self.view = view
        self.frame = X if isinstance(X, pd.DataFrame) else None
        self.array = None if self.frame is not None else np.asarray(X, dtype=object)
        if self.array is not None and self.array.ndim != 2:
            raise ParameterError(f"X must be 2-dimensional, got shape {self.array.shape}.")
        self.n_rows = len(X) if self.frame is not None else self.array.shape[0]
        self._cache = {}

    def _raw(self, feature):
        if self.frame is None:
            return self.array[:, feature]
        name = self.view.feature_names[feature]
        column = self.frame[name] if name in self.frame.columns else self.frame.iloc[:, feature]
        return column.to_numpy(dtype=object)

    def numeric(self, feature):
        key = ("numeric", feature)
        if key not in self._cache:
            raw = pd.to_numeric(pd.Series(self._raw(feature)), errors="coerce")
            self._cache[key] = raw.to_numpy(dtype=np.float64, na_value=np.nan)
        return self._cache[key]

    def codes(self, feature):
        key = ("codes", feature)
        if key not in self._cache:
            raw = pd.Series(self._raw(feature))
            categories = self.view.categories[feature]
            if categories is None:
                values = pd.to_numeric(raw, errors="coerce").to_numpy(np.float64, na_value=np.nan)
                n = self.view.n_categories(feature) or 0
                ok = np.isfinite(values) & (values == np.round(values)) & (values >= 0)
                ok &= values < n
                codes = np.where(ok, values, -1).astype(np.int64)
            else:
                lookup = {label: code for code, label in enumerate(categories)}
                known = ~raw.isna().to_numpy()
                codes = np.full(len(raw), -1, dtype=np.int64)
                codes[known] = [lookup.get(v, -1) for v in raw[known]]
            self._cache[key] = codes
        return self._cache[key]


# -- building the rules ------------------------------------------------------------


def _term(view, branch):
    """The :class:`Term` of one branch of a path."""
    condition = branch.condition
    siblings = view.branches(branch.node)
    unseen_codes = sorted({c for b in siblings for c in b.unseen_codes})
    feature = condition.feature
    missing = branch.missing
    term = Term(feature=feature, feature_name=condition.feature_name, nominal=condition.is_nominal)
    if condition.is_nominal:
        codes = list(condition.codes)
        if missing == MISSING_YES and not branch.surrogates:
            codes = sorted(set(codes) | set(unseen_codes))
            unseen_codes = []
        term = replace(
            term,
            codes=tuple(codes),
            categories=tuple(view.category_label(feature, c) for c in codes),
        )
    elif condition.operator == "<=":
        term = replace(term, high=condition.threshold)
    else:
        term = replace(term, low=condition.threshold)
    if branch.surrogates:
        unmapped = tuple(_unmapped(view, s) for s in branch.surrogates)
        missing = MISSING_SURROGATE
        term = replace(
            term,
            surrogates=branch.surrogates,
            default=branch.missing == MISSING_YES,
            surrogate_unmapped=unmapped,
        )
    if missing in (MISSING_WEIGHTED, MISSING_SURROGATE) and condition.is_nominal:
        labels = tuple(view.category_label(feature, c) for c in unseen_codes)
        term = replace(term, unseen=labels, unseen_codes=tuple(unseen_codes))
    if missing == MISSING_WEIGHTED:
        term = replace(term, fraction=branch.fraction)
    return replace(term, missing=missing)


def _unmapped(view, surrogate):
    """Labels of the categories a nominal surrogate does not decide on (None: threshold)."""
    if surrogate.known_codes is None:
        return None
    feature = surrogate.condition.feature
    n = view.n_categories(feature) or 0
    known = set(surrogate.known_codes)
    return tuple(view.category_label(feature, c) for c in range(n) if c not in known)


def _intersect(a, b):
    """Two mergeable terms on the same feature as one."""
    missing = MISSING_YES if a.missing == b.missing == MISSING_YES else MISSING_NO
    if a.nominal:
        labels = dict(zip(a.codes, a.categories, strict=True))
        codes = tuple(c for c in a.codes if c in set(b.codes))
        return replace(a, codes=codes, categories=tuple(labels[c] for c in codes), missing=missing)
    return replace(a, low=max(a.low, b.low), high=min(a.high, b.high), missing=missing)


def merge_terms(terms):
    """Merge the mergeable terms on the same feature (see the module docstring)."""
    merged = []
    slots = {}
    for term in terms:
        key = (term.feature, term.nominal)
        if term.mergeable:
            if key in slots:
                merged[slots[key]] = _intersect(merged[slots[key]], term)
                continue
            slots[key] = len(merged)
        merged.append(term)
    return tuple(merged)


def export_rules(model, decimals=3, sort_by="support", as_frame=False):
    """One if-then rule per leaf (see the module docstring).

    Parameters
    ----------
    model : fitted treelearn estimator, Tree or TreeView
        Pass a :class:`~treelearn.tree.TreeView` to rename features or classes.
    decimals : int, default=3
        Digits after the decimal point for thresholds, values and confidences.
    sort_by : {"support", "confidence"} or None, default="support"
        ``"support"``: most rows first (then most weight); ``"confidence"``
        (classification): most confident first, then most rows; None: the
        leaves in depth-first order, as ``export_text`` prints them. Ties keep
        the depth-first order.
    as_frame : bool, default=False
        Return a pandas DataFrame, one row per rule: ``leaf``, ``conditions``,
        ``class`` and ``confidence`` (classification) or ``value``
        (regression), ``support``, ``weight``.

    Returns
    -------
    list of Rule or DataFrame

    Examples
    --------
    >>> from treelearn import CARTClassifier
    >>> from treelearn.datasets import load_dataset
    >>> from treelearn.export import export_rules
    >>> X, y = load_dataset("play_tennis")
    >>> rules = export_rules(CARTClassifier(max_depth=1).fit(X, y))
    >>> for rule in rules:
    ...     print(rule.conditions_text(), "->", rule.outcome_text())
    outlook in {rainy, sunny} or outlook is missing -> class = no  (confidence: 0.5, support: 10)
    outlook = overcast -> class = yes  (confidence: 1, support: 4)
    """
    view = TreeView(model, caller="export_rules")
    decimals = check_decimals(decimals)
    if sort_by not in _SORT_KEYS:
        raise ParameterError(f"sort_by must be 'support', 'confidence' or None, got {sort_by!r}.")
    if sort_by == "confidence" and not view.is_classifier:
        raise ParameterError(
            "sort_by='confidence' needs a classification tree; a regression rule has no "
            "confidence. Use sort_by='support' or None."
        )
    if not isinstance(as_frame, (bool, np.bool_)):
        raise ParameterError(f"as_frame must be True or False, got {as_frame!r}.")
    rules = [_rule(view, leaf, decimals) for leaf in view.leaves()]
    if sort_by == "support":
        rules.sort(key=lambda r: (-r.support, -r.weight))
    elif sort_by == "confidence":
        rules.sort(key=lambda r: (-r.confidence, -r.support, -r.weight))
    return _frame(rules, view, decimals) if as_frame else rules


def _rule(view, leaf, decimals):
    terms = merge_terms([_term(view, branch) for branch in view.path(leaf.index)])
    return Rule(
        leaf=leaf.index,
        terms=terms,
        prediction=leaf.prediction,
        confidence=leaf.confidence,
        support=leaf.n_samples,
        weight=leaf.weight,
        distribution=leaf.value if view.is_classifier else (),
        decimals=decimals,
        view=view,
    )


def _frame(rules, view, decimals):
    data = {
        "leaf": [r.leaf for r in rules],
        "conditions": [r.conditions_text(decimals) for r in rules],
    }
    if view.is_classifier:
        data["class"] = [r.prediction for r in rules]
        data["confidence"] = [r.confidence for r in rules]
    else:
        data["value"] = [r.prediction for r in rules]
    data["support"] = [r.support for r in rules]
    data["weight"] = [r.weight for r in rules]
    return pd.DataFrame(data)
