"""scikit-learn's own estimator checks, on every estimator.

``expected_failed_checks`` lists the checks an estimator is known to fail and
why. It is empty: every check scikit-learn runs passes, including

* ``check_sample_weight_equivalence_on_dense_data``: rows of weight 0 are
  dropped before the columns are encoded (as scikit-learn's own splitter
  does), so a weight of 0 equals removing the row and a weight of ``k`` equals
  repeating it ``k`` times, split thresholds included;
* ``check_estimators_unfitted``, ``check_n_features_in_after_fitting``,
  ``check_requires_y_none``, ``check_estimators_empty_data_messages``,
  ``check_complex_data``, ``check_all_zero_sample_weights_error``: treelearn's
  own messages carry the phrases scikit-learn matches.

Not among the checks ``parametrize_with_checks`` yields (scikit-learn 1.9):
``check_dataframe_column_names_consistency``, which demands that predict
refuse a DataFrame whose columns are the fitted ones in another order.
treelearn matches DataFrame columns by name, in any order, by design (see
``tests/estimators/test_cart_api.py``); were that check run, it would belong
in ``expected_failed_checks`` for that reason. ``check_estimators_nan_inf`` is
not run either, since the estimators declare ``allow_nan``.

``ID3Classifier()`` itself refuses numeric columns (ID3 has no rule for them), so
on scikit-learn's numeric arrays every check that fits it fails with that
refusal; ``test_id3_default_fails_only_by_refusing_numeric_columns`` pins that
no check fails for another reason, and ID3 runs the checks with ``discretize``.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

from treelearn import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier

#: The default estimators the issue names, plus the configurations that run
#: other code paths: the sorted-target kernel, surrogate splits, histogram mode. ID3 learns
#: from nominal columns only; the checks feed numeric data, so it runs with
#: ``discretize`` (numeric columns become intervals), as a user would.
ESTIMATORS = [
    CARTClassifier(),
    CARTRegressor(),
    CARTRegressor(criterion="absolute_error"),
    CARTClassifier(missing="surrogate"),
    CARTRegressor(max_bins=16),
    ID3Classifier(discretize="quantile"),
    ID3Classifier(discretize="mdl"),
    C45Classifier(),
    C45Classifier(min_samples_leaf=1, threshold="midpoint", threshold_correction=False),
]


def expected_failed_checks(estimator):
    """Checks known to fail, with the reason; none at present (see the module docstring)."""
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_tags_declare_nan_categorical_and_string_input():
    for estimator in (CARTClassifier(), CARTRegressor()):
        tags = estimator.__sklearn_tags__()
        assert tags.input_tags.allow_nan
        assert tags.input_tags.categorical
        assert tags.input_tags.string


def _exception_chain(exc):
    while exc is not None:
        yield exc
        exc = exc.__cause__ or exc.__context__


def test_id3_default_fails_only_by_refusing_numeric_columns():
    """ID3 on its own terms: ``ID3Classifier()`` learns from nominal columns only, and
    scikit-learn's checks feed numeric arrays, so every check that fits fails, each with
    ID3's refusal of numeric columns (at the root of the exception chain); the checks
    pass with ``discretize`` (above). Any other failure would show up here."""
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(ID3Classifier(), on_fail=None)
    failed = [r for r in results if r["status"] == "failed"]
    assert len(failed) > 20
    other = [
        r["check_name"]
        for r in failed
        if not any(
            "ID3 cannot split numeric columns" in str(e) for e in _exception_chain(r["exception"])
        )
    ]
    assert other == []
