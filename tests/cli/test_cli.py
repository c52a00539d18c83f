"""The `treelearn` command, run as a user would: in-process for most, a few as subprocesses."""

import shutil
import subprocess
import sys

import pytest

from treelearn.cli import main
from treelearn.cli.main import choose_task
from treelearn.cli.tables import detect_delimiter

WATERMELON_WITH_MISSING = """\
编号,色泽,根蒂,敲声,纹理,密度,好瓜
1,青绿,蜷缩,浊响,清晰,0.697,是
2,乌黑,蜷缩,沉闷,清晰,0.774,是
3,乌黑,?,浊响,清晰,,是
4,青绿,蜷缩,沉闷,清晰,0.608,是
5,,蜷缩,浊响,清晰,0.556,是
6,青绿,稍蜷,浊响,清晰,0.403,是
10,青绿,硬挺,清脆,清晰,?,否
11,浅白,硬挺,清脆,模糊,0.245,否
12,浅白,蜷缩,浊响,模糊,0.343,否
13,青绿,稍蜷,浊响,稍糊,0.639,否
14,浅白,稍蜷,沉闷,稍糊,0.657,否
"""


def run(argv, capsys):
    """Run the command in-process; return (exit status, stdout, stderr)."""
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_error(status, out, err, *fragments):
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("treelearn")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


# -- fit on bundled datasets ---------------------------------------------------------


def test_fit_watermelon2(capsys):
    status, out, err = run(["fit", "--dataset", "watermelon2"], capsys)
    assert status == 0, err
    assert err == ""
    assert out.startswith("CART classification tree for 好瓜 (watermelon2)\n")
    assert "|--- 纹理 in {" in out
    assert "class: 是" in out
    assert "rows               17\n" in out
    assert "features           6: 6 nominal (色泽, 根蒂, 敲声, 纹理, 脐部, 触感), 0 numeric" in out
    assert "classes            2 (否, 是)" in out
    assert "training accuracy  100.00% (17 of 17 rows)" in out
    assert "s to fit" in out


def test_fit_id3_watermelon2_puts_texture_at_the_root(capsys):
    status, out, err = run(["fit", "--dataset", "watermelon2", "--algorithm", "id3"], capsys)
    assert status == 0, err
    assert out.startswith("ID3 classification tree for 好瓜 (watermelon2)\n")
    assert out.splitlines()[2].startswith("|--- 纹理 = ")
    assert "tree               9 leaves, depth 4 (criterion entropy)" in out


def test_fit_id3_discretizes_numeric_columns_on_request(capsys):
    argv = ["fit", "--dataset", "iris", "--algorithm", "id3", "--max-depth", "1"]
    status, _, err = run(argv, capsys)
    assert status == 2
    assert "ID3 cannot split numeric columns ('sepal length (cm)'" in err
    status, out, err = run([*argv, "--discretize", "mdl"], capsys)
    assert status == 0, err
    assert "|--- petal width (cm) = <= 0.800" in out
    assert "features           4: 0 nominal, 4 numeric" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--dataset", "iris", "--discretize", "mdl"], "--discretize is an ID3 option"),
        (
            ["--dataset", "play_tennis", "--algorithm", "id3", "--min-samples-leaf", "2"],
            "--min-samples-leaf is a CART option",
        ),
    ],
)
def test_fit_option_clashes(argv, message, capsys):
    status, _, err = run(["fit", *argv], capsys)
    assert status == 2
    assert message in err


def test_fit_options_reach_the_estimator(capsys):
    status, out, _ = run(
        ["fit", "--dataset", "play_tennis", "--max-depth", "1", "--criterion", "entropy"], capsys
    )
    assert status == 0
    assert "tree               2 leaves, depth 1 (criterion entropy)" in out
    status, out, _ = run(["fit", "--dataset", "iris", "--min-samples-leaf", "60"], capsys)
    assert status == 0
    # 150 rows, leaves of at least 60 rows: at most 2 leaves.
    assert "tree               2 leaves, depth 1" in out


def test_fit_builtin_prefix_and_other_target(capsys):
    status, out, _ = run(["fit", "builtin:iris", "--target", "sepal length (cm)"], capsys)
    assert status == 0
    # numeric with fractional values -> regression
    assert out.startswith("CART regression tree for sepal length (cm) (iris)")
    assert "value: " in out
    assert "training RMSE" in out
    assert "1 nominal (species), 3 numeric" in out


def test_fit_numeric_dataset(capsys):
    status, out, _ = run(["fit", "--dataset", "watermelon3", "--decimals", "2"], capsys)
    assert status == 0
    assert "密度 <= 0.38" in out
    assert "2 numeric (密度, 含糖率)" in out


# -- fit on files ---------------------------------------------------------------------


def test_fit_csv_with_chinese_labels_and_missing_values(tmp_path, capsys):
    path = tmp_path / "西瓜.csv"
    path.write_text(WATERMELON_WITH_MISSING, encoding="utf-8")
    status, out, err = run(["fit", str(path), "--target", "好瓜", "--drop", "编号"], capsys)
    assert status == 0, err
    assert f"CART classification tree for 好瓜 ({path})" in out
    assert "rows               11\n" in out
    assert "4 nominal (色泽, 根蒂, 敲声, 纹理), 1 numeric (密度)" in out
    assert "(+ missing" in out


def test_fit_csv_target_defaults_to_the_last_column(tmp_path, capsys):
    path = tmp_path / "melons.csv"
    path.write_text(WATERMELON_WITH_MISSING, encoding="utf-8")
    status, out, _ = run(["fit", str(path), "--drop", "编号"], capsys)
    assert status == 0
    assert "tree for 好瓜" in out


def test_fit_tsv_semicolons_and_byte_order_mark(tmp_path, capsys):
    rows = [["a", "b", "label"], ["1", "x", "p"], ["2", "y", "q"], ["3", "x", "p"], ["4", "y", "q"]]
    for name, sep, encoding in (
        ("t.tsv", "\t", "utf-8"),
        ("s.csv", ";", "utf-8"),
        ("bom.csv", ",", "utf-8-sig"),
    ):
        path = tmp_path / name
        path.write_text("\n".join(sep.join(r) for r in rows) + "\n", encoding=encoding)
        status, out, err = run(["fit", str(path), "--target", "label"], capsys)
        assert status == 0, (name, err)
        assert "1 nominal (b), 1 numeric (a)" in out, name
        assert "training accuracy  100.00% (4 of 4 rows)" in out, name


def test_rows_without_target_are_left_out_with_a_note(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("x,y\n1,a\n2,?\n3,b\n4,\n5,b\n", encoding="utf-8")
    status, out, _ = run(["fit", str(path)], capsys)
    assert status == 0
    assert "note: 2 rows without a value for 'y' were left out (data rows 2, 4)." in out
    assert "rows               3\n" in out


def test_regression_file(tmp_path, capsys):
    lines = ["size,colour,price"] + [
        f"{i},{'red' if i % 2 else 'blue'},{i * 1.5}" for i in range(30)
    ]
    path = tmp_path / "prices.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    status, out, _ = run(["fit", str(path), "--target", "price", "--max-depth", "2"], capsys)
    assert status == 0
    assert out.startswith("CART regression tree for price")
    assert "training RMSE" in out
    assert "(criterion squared_error)" in out
    status, out, _ = run(["fit", str(path), "--target", "price", "--criterion", "absolute_error"],
                         capsys)  # fmt: skip
    assert status == 0
    assert "(criterion absolute_error)" in out


@pytest.mark.parametrize(
    ("values", "requested", "task"),
    [
        ([0, 1, 1, 0], "auto", "classification"),
        ([1.0, 2.0, 3.0], "auto", "classification"),
        ([0.5, 1.0, 2.0], "auto", "regression"),
        (list(range(21)), "auto", "regression"),
        (list(range(20)), "auto", "classification"),
        ([True, False], "auto", "classification"),
        (["a", "b"], "auto", "classification"),
        (list(range(30)), "classification", "classification"),
        ([1, 2], "regression", "regression"),
    ],
)
def test_choose_task(values, requested, task):
    import pandas as pd

    assert choose_task(pd.Series(values, name="t"), requested, "data.csv") == task


def test_detect_delimiter():
    assert detect_delimiter("a,b,c\n") == ","
    assert detect_delimiter("a;b;c\n") == ";"
    assert detect_delimiter("a\tb,c\tz\n") == "\t"
    assert detect_delimiter("single\n") == ","


# -- datasets, help, version ---------------------------------------------------------------


def test_datasets_lists_every_bundled_dataset(capsys):
    status, out, _ = run(["datasets"], capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].split() == ["name", "rows", "features", "target", "description"]
    assert [line.split()[0] for line in lines[1:5]] == [
        "iris",
        "play_tennis",
        "watermelon2",
        "watermelon3",
    ]
    assert "好瓜 (2 classes)" in out
    assert "6 nominal, 2 numeric" in out


def test_help_names_the_algorithms(capsys):
    status, out, _ = run(["fit", "--help"], capsys)
    assert status == 0
    assert "{cart,id3}" in out
    assert "C4.5 arrives in a later version" in " ".join(out.split())
    assert "--max-depth" in out
    status, out, _ = run(["--version"], capsys)
    assert status == 0
    assert out.startswith("treelearn ")


# -- errors ---------------------------------------------------------------------------------


def test_unknown_dataset_lists_the_names(capsys):
    status, out, err = run(["fit", "--dataset", "watermelon9"], capsys)
    assert_one_line_error(
        status, out, err, "unknown dataset 'watermelon9'", "iris, play_tennis, watermelon2"
    )


def test_unknown_target_lists_the_columns(capsys):
    status, out, err = run(["fit", "--dataset", "play_tennis", "--target", "rain"], capsys)
    assert_one_line_error(
        status, out, err, "no column 'rain' in play_tennis",
        "outlook, temperature, humidity, windy, play", "--target",
    )  # fmt: skip


def test_missing_file(tmp_path, capsys):
    path = tmp_path / "nowhere.csv"
    status, out, err = run(["fit", str(path), "--target", "y"], capsys)
    assert_one_line_error(status, out, err, f"no such file: {path}", "check the path")


def test_file_errors(tmp_path, capsys):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("name,city\nJosé,Bogotá\n".encode("latin-1"))
    status, out, err = run(["fit", str(latin)], capsys)
    assert_one_line_error(status, out, err, "is not UTF-8 text", "save it as a UTF-8 CSV")

    empty = tmp_path / "empty.csv"
    empty.write_text("", encoding="utf-8")
    status, out, err = run(["fit", str(empty)], capsys)
    assert_one_line_error(status, out, err, "is empty")

    header_only = tmp_path / "header.csv"
    header_only.write_text("a,b\n", encoding="utf-8")
    status, out, err = run(["fit", str(header_only)], capsys)
    assert_one_line_error(status, out, err, "has a header but no data rows")

    parquet = tmp_path / "data.parquet"
    parquet.write_bytes(b"PAR1\x00\x00")
    status, out, err = run(["fit", str(parquet)], capsys)
    assert_one_line_error(status, out, err, "'.parquet' files are not supported yet", "CSV")

    status, out, err = run(["fit", str(tmp_path)], capsys)
    assert_one_line_error(status, out, err, "is a folder")


def test_usage_errors(tmp_path, capsys):
    status, out, err = run(["fit"], capsys)
    assert_one_line_error(status, out, err, "no data given", "--dataset NAME")
    status, out, err = run(["fit", "x.csv", "--dataset", "iris"], capsys)
    assert_one_line_error(status, out, err, "pass only one")
    status, out, err = run(["fit", "--dataset", "iris", "--max-depth", "0"], capsys)
    assert_one_line_error(status, out, err, "--max-depth", "expected a number >= 1")
    status, out, err = run(["fit", "--dataset", "iris", "--algorithm", "c4.5"], capsys)
    assert_one_line_error(status, out, err, "invalid choice: 'c4.5'", "'treelearn fit --help'")
    status, out, err = run([], capsys)
    assert_one_line_error(status, out, err, "COMMAND")
    status, out, err = run(["fit", "--dataset", "iris", "--criterion", "squared_error"], capsys)
    assert_one_line_error(status, out, err, "not for a classification tree", "gini, entropy")
    status, out, err = run(["fit", "--dataset", "iris", "--drop", "petals"], capsys)
    assert_one_line_error(status, out, err, "--drop names 'petals'", "the columns are")
    status, out, err = run(["fit", "--dataset", "iris", "--task", "regression"], capsys)
    assert_one_line_error(status, out, err, "needs a numeric target", "'species'")


def test_data_the_estimator_rejects(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("x,empty,y\n1,,a\n2,,b\n", encoding="utf-8")
    status, out, err = run(["fit", str(path)], capsys)
    assert_one_line_error(status, out, err, f"cannot fit a tree on {path}", "'empty'")
    with pytest.raises(Exception, match="empty"):
        main(["fit", str(path), "--debug"])


# -- as a user runs it -------------------------------------------------------------------


def _run_process(command):
    return subprocess.run(command, capture_output=True, text=True, encoding="utf-8", timeout=300)


def test_installed_entry_point():
    executable = shutil.which("treelearn")
    if executable is None:
        pytest.skip("the treelearn entry point is not installed (pip install .)")
    result = _run_process([executable, "fit", "--dataset", "play_tennis", "--max-depth", "2"])
    assert result.returncode == 0, result.stderr
    assert "|--- outlook in {" in result.stdout
    result = _run_process([executable, "fit", "--dataset", "nope"])
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("treelearn fit: error: unknown dataset 'nope'")


def test_python_dash_m():
    result = _run_process([sys.executable, "-m", "treelearn", "datasets"])
    assert result.returncode == 0, result.stderr
    assert "watermelon2" in result.stdout
    result = _run_process([sys.executable, "-m", "treelearn", "fit", "missing.csv"])
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "treelearn fit: error: no such file: missing.csv; check the path (or use --dataset NAME)."
    )
