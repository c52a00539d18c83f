"""Every error the user can fix: one line on stderr (what, where, what to do), status 2."""

import sys

import pytest
from _cli import assert_one_line_error, run

from treelearn.cli import main

# -- data the command cannot read --------------------------------------------------------


def test_unknown_dataset_lists_the_names(capsys):
    result = run(["fit", "--dataset", "watermelon9"], capsys)
    assert_one_line_error(
        result, "unknown dataset 'watermelon9'", "iris, play_tennis, play_tennis_numeric,"
    )
    result = run(["evaluate", "builtin:nope"], capsys)
    assert_one_line_error(result, "unknown dataset 'nope'", "'treelearn datasets'")


def test_unknown_target_lists_the_columns(capsys):
    result = run(["fit", "--dataset", "play_tennis", "--target", "rain"], capsys)
    assert_one_line_error(
        result,
        "no column 'rain' in play_tennis",
        "the columns are outlook, temperature, humidity, windy, play",
        "--target",
        command="fit",
    )


def test_unknown_target_in_a_file(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("a,b,c\n1,2,x\n", encoding="utf-8")
    result = run(["evaluate", path, "--target", "C"], capsys)
    assert_one_line_error(
        result, f"no column 'C' in {path}; the columns are a, b, c.", command="evaluate"
    )


def test_missing_file(tmp_path, capsys):
    path = tmp_path / "nowhere.csv"
    result = run(["fit", path, "--target", "y"], capsys)
    assert_one_line_error(result, f"no such file: {path}", "check the path")
    result = run(["evaluate", tmp_path / "nowhere.arff"], capsys)
    assert_one_line_error(result, "no such file", command="evaluate")


@pytest.mark.parametrize("name", ["empty.csv", "empty.arff", "empty.parquet", "empty.tsv"])
def test_empty_file(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_bytes(b"")
    result = run(["fit", path], capsys)
    assert_one_line_error(result, f"{path} is empty; it needs a header row and data rows.")


def test_header_without_rows(tmp_path, capsys):
    path = tmp_path / "header.csv"
    path.write_text("a,b\n", encoding="utf-8")
    assert_one_line_error(run(["fit", path], capsys), "has a header but no data rows")
    arff = tmp_path / "header.arff"
    arff.write_text("@relation r\n@attribute a numeric\n@data\n% nothing\n", encoding="utf-8")
    assert_one_line_error(run(["fit", arff], capsys), "has no data rows after @data")


def test_parquet_file_that_is_text(tmp_path, capsys):
    path = tmp_path / "data.parquet"
    path.write_text("a,b\n1,x\n", encoding="utf-8")
    result = run(["fit", path], capsys)
    assert_one_line_error(
        result,
        f"{path} is not a Parquet file (it looks like text",
        "if it is a CSV file, rename it to .csv",
    )


def test_csv_file_that_is_parquet(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    import pandas as pd

    path = tmp_path / "data.csv"
    pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}).to_parquet(path)
    result = run(["fit", path], capsys)
    assert_one_line_error(result, "is not a text file", "looks like a Parquet file")


def test_arff_without_data_section(tmp_path, capsys):
    path = tmp_path / "no_data.arff"
    path.write_text("@relation r\n@attribute a numeric\n@attribute b {x, y}\n", encoding="utf-8")
    result = run(["fit", path], capsys)
    assert_one_line_error(
        result,
        f"{path} is not a complete ARFF file: it declares 2 attributes but has no @data line",
    )


def test_arff_file_that_is_csv(tmp_path, capsys):
    path = tmp_path / "data.arff"
    path.write_text("a,b\n1,x\n", encoding="utf-8")
    result = run(["fit", path], capsys)
    assert_one_line_error(
        result, f"{path} is not an ARFF file: line 1 is 'a,b'", "rename it to .csv"
    )


def test_arff_errors_name_the_line(tmp_path, capsys):
    path = tmp_path / "bad.arff"
    header = "@relation r\n@attribute n numeric\n@attribute c {x, y}\n@data\n"
    cases = [
        ("1,x\nfive,y\n", "line 6: attribute 'n' is numeric, but the value is 'five'"),
        ("1,x\n2,z\n", "line 6: 'z' is not a declared category of attribute 'c' ({x, y})"),
        ("1,x,3\n", "line 5: the row has 3 values, but 2 attributes are declared"),
        ("{0 1, 1 x}\n", "line 5: a sparse ARFF row", "reads dense ARFF only"),
        ("1,'x\n", "line 5: a quoted value is not closed"),
    ]
    for data, *fragments in cases:
        path.write_text(header + data, encoding="utf-8")
        assert_one_line_error(run(["fit", path], capsys), str(path), *fragments)


def test_unsupported_extension(tmp_path, capsys):
    path = tmp_path / "sheet.xlsx"
    path.write_bytes(b"PK\x03\x04")
    result = run(["fit", path], capsys)
    assert_one_line_error(
        result,
        "'.xlsx' files are not supported (supported: .csv, .tsv",
        "save the sheet as a UTF-8 CSV file",
    )


def test_not_utf8(tmp_path, capsys):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("name,city\nJosé,Bogotá\n".encode("latin-1"))
    result = run(["fit", latin], capsys)
    assert_one_line_error(result, "is not UTF-8 text (byte 0xe9", "save it as a UTF-8 CSV")


def test_folder_instead_of_a_file(tmp_path, capsys):
    assert_one_line_error(run(["fit", tmp_path], capsys), "is a folder")


def test_parquet_without_pyarrow(tmp_path, capsys, monkeypatch):
    path = tmp_path / "data.parquet"
    path.write_bytes(b"PAR1" + b"\x00" * 8 + b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    result = run(["fit", path], capsys)
    assert_one_line_error(
        result,
        f"cannot read {path}: reading Parquet files needs pyarrow, which is not installed",
        'pip install "treelearn[parquet]"',
    )


# -- column overrides ------------------------------------------------------------------


def test_numeric_override_on_text_names_the_value(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("size,label\n1.5,a\n2,b\nbig,a\n?,b\n", encoding="utf-8")
    result = run(["fit", path, "--numeric", "size"], capsys)
    assert_one_line_error(
        result,
        f"column 'size' of {path} is declared numeric, but it holds 'big' (data row 3), "
        "which is not a number",
    )


def test_override_names_must_be_columns(capsys):
    result = run(["fit", "--dataset", "iris", "--nominal", "petals,species"], capsys)
    assert_one_line_error(
        result, "--nominal column 'petals' is not in iris; the columns are sepal length"
    )
    result = run(["fit", "--dataset", "iris", "--nominal", "species", "--numeric", "species"],
                 capsys)  # fmt: skip
    assert_one_line_error(result, "column 'species' is declared both nominal and numeric")


# -- options ---------------------------------------------------------------------------


def test_usage_errors(capsys):
    cases = [
        (["fit"], "no data given", "--dataset NAME"),
        (["fit", "x.csv", "--dataset", "iris"], "pass only one"),
        (["fit", "--dataset", "iris", "--max-depth", "0"], "--max-depth", "expected a number >= 1"),
        (["fit", "--dataset", "iris", "--algorithm", "c5"], "invalid choice: 'c5'",
         "'treelearn fit --help'"),
        ([], "COMMAND"),
        (["fit", "--dataset", "iris", "--criterion", "squared_error"],
         "not for a classification tree", "gini, entropy"),
        (["fit", "--dataset", "iris", "--drop", "petals"], "--drop names 'petals'",
         "the columns are"),
        (["fit", "--dataset", "iris", "--drop", "species"], "the target cannot be dropped"),
        (["fit", "--dataset", "iris", "--task", "regression"], "needs a numeric target",
         "'species'"),
        (["evaluate", "--dataset", "iris", "--cv", "1"], "expected 2 or more folds"),
        (["show"], "the following arguments are required: MODEL"),
    ]  # fmt: skip
    for argv, *fragments in cases:
        assert_one_line_error(run(argv, capsys), *fragments)


def test_data_the_estimator_rejects(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("x,empty,y\n1,,a\n2,,b\n", encoding="utf-8")
    result = run(["fit", path], capsys)
    assert_one_line_error(result, f"cannot fit a tree on {path}", "'empty'")


def test_debug_shows_the_traceback(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("x,empty,y\n1,,a\n2,,b\n", encoding="utf-8")
    with pytest.raises(Exception, match="empty"):
        main(["fit", str(path), "--debug"])
    with pytest.raises(Exception, match="no such file"):
        main(["evaluate", str(tmp_path / "none.csv"), "--debug"])
