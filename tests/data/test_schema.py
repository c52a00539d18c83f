"""Reading columns, deciding kinds and categories, and checking predict-time columns."""

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from treelearn.data.dataset import build_dataset
from treelearn.data.schema import (
    NOMINAL,
    NUMERIC,
    RawColumn,
    align_columns,
    check_not_empty,
    describe_rows,
    has_feature_names,
    infer_schema,
    no_missing,
    read_table,
)
from treelearn.exceptions import DataError, ParameterError, SchemaMismatchError


def _kinds(table):
    return [column.kind for column in table.columns]


def _fit_schema(X, categorical_features=None):
    table = read_table(X, categorical_features)
    return infer_schema(table.columns, table.from_frame)


# --- kinds -----------------------------------------------------------------


def test_numpy_float_columns_are_numeric_and_nan_is_missing():
    table = read_table(np.array([[1.0, np.nan], [2.0, 3.0]]))
    assert _kinds(table) == [NUMERIC, NUMERIC]
    assert table.shape == (2, 2)
    assert not table.from_frame
    assert [c.name for c in table.columns] == ["x0", "x1"]
    np.testing.assert_array_equal(table.columns[1].missing, [True, False])


def test_numpy_object_array_with_strings_is_nominal_per_column():
    X = np.array([["a", 1.0], [None, 2], ["b", None]], dtype=object)
    table = read_table(X)
    assert _kinds(table) == [NOMINAL, NUMERIC]
    np.testing.assert_array_equal(table.columns[0].missing, [False, True, False])
    np.testing.assert_array_equal(table.columns[1].missing, [False, False, True])


def test_numeric_strings_in_an_object_column_stay_strings():
    table = read_table(np.array([["1.5"], ["2"]], dtype=object))
    assert _kinds(table) == [NOMINAL]


def test_numpy_bool_array_is_nominal_with_both_categories():
    schema = _fit_schema(np.array([[True], [True]]))
    assert schema.kinds == (NOMINAL,)
    assert schema.categories == ((False, True),)


@pytest.mark.parametrize("given", [["x1"], [1], [-1], [False, True]])
def test_categorical_features_by_name_index_or_mask(given):
    table = read_table(np.array([[1.0, 2.0], [3.0, 2.0]]), categorical_features=given)
    assert _kinds(table) == [NUMERIC, NOMINAL]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            ["age"],
            r"categorical_features names column 'age', which is not in X; the columns "
            r"are 'x0', 'x1'",
        ),
        ([5], r"categorical_features index 5 is out of range for X with 2 columns"),
        ([True], r"boolean mask must have one entry per column \(2\), got shape \(1,\)"),
        ([1.5], r"must hold column names, indices or a boolean mask, got 1.5"),
    ],
)
def test_categorical_features_errors(given, message):
    with pytest.raises(ParameterError, match=message):
        read_table(np.zeros((2, 2)), categorical_features=given)


def _mixed_frame():
    return pd.DataFrame(
        {
            "num": [1.5, np.nan, 3.0, 4.0],
            "int": pd.array([1, None, 3, 4], dtype="Int64"),
            "flag": [True, False, True, False],
            "nullable_flag": pd.array([True, None, False, True], dtype="boolean"),
            "obj": pd.Series(["a", None, "b", np.nan], dtype=object),
            "text": pd.Series(["b", "a", None, "b"], dtype="str"),
            "nullable_text": pd.array(["b", pd.NA, "a", "a"], dtype="string"),
            "cat": pd.Categorical(["lo", "hi", None, "lo"], categories=["lo", "mid", "hi"]),
        }
    )


def test_pandas_column_kinds_categories_and_missing():
    schema = _fit_schema(_mixed_frame())
    assert schema.from_frame
    assert schema.kinds == (
        NUMERIC,
        NUMERIC,
        NOMINAL,
        NOMINAL,
        NOMINAL,
        NOMINAL,
        NOMINAL,
        NOMINAL,
    )
    assert schema.categories == (
        None,
        None,
        (False, True),
        (False, True),
        ("a", "b"),
        ("a", "b"),
        ("a", "b"),
        ("lo", "mid", "hi"),  # declared order, unused category kept
    )
    table = read_table(_mixed_frame())
    missing = {c.name: c.missing.tolist() for c in table.columns}
    assert missing["num"] == [False, True, False, False]
    assert missing["int"] == [False, True, False, False]
    assert missing["nullable_flag"] == [False, True, False, False]
    assert missing["obj"] == [False, True, False, True]
    assert missing["text"] == [False, False, True, False]
    assert missing["nullable_text"] == [False, True, False, False]
    assert missing["cat"] == [False, False, True, False]


def test_polars_and_pyarrow_read_like_pandas():
    frame = _mixed_frame().drop(columns=["cat"])
    expected = read_table(frame)
    for other in (pl.from_pandas(frame), pa.Table.from_pandas(frame)):
        table = read_table(other)
        assert table.from_frame
        assert _kinds(table) == _kinds(expected)
        for got, want in zip(table.columns, expected.columns, strict=True):
            np.testing.assert_array_equal(got.missing, want.missing)
            known = ~want.missing
            assert got.values[known].tolist() == want.values[known].tolist()


def test_polars_enum_keeps_declared_order_and_categorical_is_sorted():
    frame = pl.DataFrame(
        {
            "enum": pl.Series(["lo", "hi", None], dtype=pl.Enum(["lo", "hi"])),
            "cat": pl.Series(["lo", "hi", None], dtype=pl.Categorical),
        }
    )
    schema = _fit_schema(frame)
    assert schema.kinds == (NOMINAL, NOMINAL)
    assert schema.categories == (("lo", "hi"), ("hi", "lo"))


def test_pyarrow_dictionary_nulls_are_missing():
    # pyarrow's own to_numpy turns a null of a dictionary array into a category.
    frame = pa.Table.from_pandas(pd.DataFrame({"c": pd.Categorical(["lo", "hi", None, "lo"])}))
    table = read_table(frame)
    assert table.columns[0].missing.tolist() == [False, False, True, False]
    assert _fit_schema(frame).categories == (("hi", "lo"),)


def test_frames_with_non_string_names_have_no_feature_names():
    frame = pd.DataFrame(np.zeros((2, 2)))
    assert not has_feature_names(frame)
    assert not read_table(frame).from_frame
    assert has_feature_names(pd.DataFrame({"a": [1]}))
    assert not has_feature_names(np.zeros((2, 2)))


def test_mixed_column_name_types_are_refused():
    with pytest.raises(DataError, match=r"column names of several types \(int, str\)"):
        read_table(pd.DataFrame({"a": [1.0], 0: [2.0]}))


def test_unsupported_dtype_names_the_column():
    frame = pd.DataFrame({"when": pd.to_datetime(["2020-01-01", "2021-01-01"])})
    with pytest.raises(DataError, match=r"Column 'when' has dtype Datetime"):
        read_table(frame)


def test_sparse_and_1d_input_are_refused():
    from scipy.sparse import csr_matrix

    with pytest.raises(DataError, match=r"Sparse input is not supported"):
        read_table(csr_matrix(np.eye(2)))
    with pytest.raises(DataError, match=r"Expected a 2D array .* got an array of shape \(3,\)"):
        read_table(np.zeros(3))
    with pytest.raises(DataError, match=r"Complex data not supported"):
        read_table(np.zeros((2, 2), dtype=complex))


# --- fit-time validation -------------------------------------------------------


def test_empty_tables_are_refused():
    with pytest.raises(DataError, match=r"0 sample\(s\) \(shape=\(0, 3\)\).*no rows"):
        check_not_empty(read_table(np.empty((0, 3))))
    with pytest.raises(DataError, match=r"0 feature\(s\) \(shape=\(12, 0\)\).*no columns"):
        check_not_empty(read_table(np.empty((12, 0))))
    with pytest.raises(DataError, match=r"0 feature\(s\) \(shape=\(4, 0\)\)"):
        build_dataset(pd.DataFrame(index=range(4)))


def test_infinite_values_name_the_column_and_rows():
    X = pd.DataFrame({"ok": [1.0, 2.0, 3.0], "speed": [1.0, np.inf, -np.inf]})
    with pytest.raises(DataError, match=r"Column 'speed' has infinite values at rows \[1, 2\]"):
        build_dataset(X)


def test_column_without_known_value_is_named():
    X = pd.DataFrame({"ok": [1.0, 2.0], "empty": [np.nan, np.nan]})
    with pytest.raises(DataError, match=r"Column 'empty' has no known value .*Drop the column"):
        build_dataset(X)
    X = pd.DataFrame({"ok": [1.0, 2.0], "empty": pd.Series([None, None], dtype="str")})
    with pytest.raises(DataError, match=r"Column 'empty' has no known value"):
        build_dataset(X)


def test_describe_rows_truncates_long_lists():
    assert describe_rows([1, 2]) == "[1, 2]"
    assert describe_rows(range(25)) == "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... (25 rows)]"


def test_dataset_codes_and_missing_code():
    dataset = build_dataset(pd.DataFrame({"x": [3.0, np.nan, 1.0], "c": ["b", "a", None]}))
    np.testing.assert_array_equal(dataset.n_codes, [2, 2])
    np.testing.assert_array_equal(dataset.codes[:, 0], [1, 2, 0])
    np.testing.assert_array_equal(dataset.codes[:, 1], [1, 0, 2])
    assert (dataset.codes == dataset.n_codes).any(axis=0).tolist() == [True, True]


# --- predict-time alignment ------------------------------------------------------


def _frame_schema():
    return _fit_schema(pd.DataFrame({"age": [30.0, 40.0], "color": ["red", "blue"]}))


def test_align_matches_dataframe_columns_by_name():
    schema = _frame_schema()
    columns = align_columns(pd.DataFrame({"color": ["blue"], "age": [35.0]}), schema)
    assert [c.name for c in columns] == ["age", "color"]
    assert columns[0].values.tolist() == [35.0]


def test_align_names_missing_and_extra_columns():
    schema = _frame_schema()
    with pytest.raises(
        SchemaMismatchError,
        match=r"missing columns 'color'; unexpected columns 'colour', 'height'\. Pass exactly",
    ):
        align_columns(pd.DataFrame({"age": [1.0], "colour": ["red"], "height": [2.0]}), schema)


def test_align_counts_columns_of_positional_input():
    schema = _fit_schema(np.zeros((2, 3)))
    with pytest.raises(
        SchemaMismatchError, match=r"X has 2 features, but CARTClassifier is expecting 3"
    ):
        align_columns(np.zeros((1, 2)), schema, estimator_name="CARTClassifier")


def test_align_refuses_strings_in_a_numeric_column():
    schema = _frame_schema()
    with pytest.raises(
        SchemaMismatchError, match=r"Column 'age' was numeric at fit time but holds nominal"
    ):
        align_columns(pd.DataFrame({"age": ["old"], "color": ["red"]}), schema)


def test_align_refuses_numbers_in_a_column_trained_on_strings():
    schema = _frame_schema()
    with pytest.raises(
        SchemaMismatchError,
        match=r"Column 'color' was trained on strings \(categories 'blue', 'red'\) but holds "
        r"numbers at rows \[1\] \(e\.g\. 3\)",
    ):
        align_columns(pd.DataFrame({"age": [1.0, 2.0], "color": ["red", 3]}), schema)


def test_align_refuses_strings_in_a_column_trained_on_numbers():
    schema = _fit_schema(np.array([[1.0], [2.0]]), categorical_features=[0])
    with pytest.raises(
        SchemaMismatchError, match=r"Column 'x0' was trained on numbers .* holds strings"
    ):
        align_columns(np.array([["one"]], dtype=object), schema)


def test_align_accepts_unseen_categories_of_the_right_type():
    schema = _frame_schema()
    columns = align_columns(pd.DataFrame({"age": [1.0], "color": ["green"]}), schema)
    assert columns[1].values.tolist() == ["green"]


def test_align_checks_infinite_values_at_predict():
    schema = _frame_schema()
    with pytest.raises(DataError, match=r"Column 'age' has infinite values at rows \[0\]"):
        align_columns(pd.DataFrame({"age": [np.inf], "color": ["red"]}), schema)


def test_duplicated_column_names_are_refused():
    frame = pd.DataFrame(np.zeros((2, 2)), columns=["a", "a"])
    with pytest.raises(DataError, match=r"(?s)X has duplicated column names: .*'a' 2 times"):
        read_table(frame)


def test_align_checks_the_categories_of_a_category_column():
    schema = _frame_schema()
    numbers = pd.DataFrame({"age": [1.0, 2.0], "color": pd.Categorical([3, None])})
    with pytest.raises(
        SchemaMismatchError,
        match=r"Column 'color' was trained on strings .* but holds numbers at rows \[0\]",
    ):
        align_columns(numbers, schema)
    # Unused categories of another type do not count: only values rows hold.
    unused = pd.Categorical(["red", None], categories=["red", "green", 7])
    columns = align_columns(pd.DataFrame({"age": [1.0, 2.0], "color": unused}), schema)
    assert columns[1].values.tolist() == ["red", None]


def test_has_missing_reads_the_mask_of_a_column_without_any_without_scanning_it():
    values = np.array([1.0, np.nan, 2.0])
    assert RawColumn("x", "numeric", values, np.isnan(values)).has_missing
    assert not RawColumn("x", "numeric", values[[0, 2]], no_missing(2)).has_missing
    assert RawColumn("x", "numeric", values[[1, 1]], np.broadcast_to(np.True_, (2,))).has_missing
    assert not RawColumn("x", "numeric", values[:0], np.zeros(0, dtype=bool)).has_missing
    assert not read_table(np.ones((4, 2))).columns[1].has_missing
