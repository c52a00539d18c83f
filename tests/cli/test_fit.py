"""``treelearn fit``, run in-process as a user would, on bundled datasets and files."""

import pandas as pd
import pytest
from _cli import WATERMELON_WITH_MISSING, assert_one_line_error, run

import treelearn
from treelearn.cli.algorithms import ALGORITHMS, choose_task
from treelearn.cli.output import text_width
from treelearn.datasets import dataset_info, load_dataset

# -- bundled datasets -------------------------------------------------------------------


def test_fit_watermelon2(capsys):
    result = run(["fit", "--dataset", "watermelon2"], capsys)
    assert result.status == 0, result.err
    assert result.err == ""
    out = result.out
    assert out.startswith("CART classification tree for 好瓜 (watermelon2)\n")
    assert "|--- 纹理 in {" in out
    assert "class: 是" in out
    assert "rows               17\n" in out
    assert "features           6: 6 nominal (色泽, 根蒂, 敲声, 纹理, 脐部, 触感), 0 numeric" in out
    assert "classes            2 (否, 是)" in out
    assert "training accuracy  100.00% (17 of 17 rows)" in out
    assert "s to fit" in out


def test_fit_id3_watermelon2_puts_texture_at_the_root(capsys):
    result = run(["fit", "--dataset", "watermelon2", "--algorithm", "id3"], capsys)
    assert result.status == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "ID3 classification tree for 好瓜 (watermelon2)"
    assert lines[2].startswith("|--- 纹理 = ")
    roots = [line for line in lines if line.startswith("|--- ")]
    assert [line.split(" = ")[0] for line in roots] == ["|--- 纹理"] * 3
    assert "tree               9 leaves, depth 4 (criterion entropy)" in result.out


def test_fit_id3_discretizes_numeric_columns_on_request(capsys):
    argv = ["fit", "--dataset", "iris", "--algorithm", "id3", "--max-depth", "1"]
    result = run(argv, capsys)
    assert_one_line_error(
        result,
        "ID3 cannot split numeric columns (sepal length (cm),",
        "pass --discretize mdl (or quantile)",
        "--algorithm cart",
        command="fit",
    )
    result = run([*argv, "--discretize", "mdl"], capsys)
    assert result.status == 0, result.err
    assert "|--- petal width (cm) = <= 0.800" in result.out
    assert "features           4: 0 nominal, 4 numeric" in result.out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--dataset", "iris", "--discretize", "mdl"],
            "--discretize is an ID3 option; CART does not take it.",
        ),
        (
            ["--dataset", "play_tennis", "--algorithm", "id3", "--min-samples-leaf", "2"],
            "--min-samples-leaf is a CART and C4.5 option; ID3 does not take it.",
        ),
        (
            ["--dataset", "iris", "--target", "petal width (cm)", "--algorithm", "id3"],
            "--algorithm id3 grows classification trees, but target 'petal width (cm)' is "
            "numeric; use --algorithm cart",
        ),
    ],
)
def test_fit_option_clashes(argv, message, capsys):
    assert_one_line_error(run(["fit", *argv], capsys), message, command="fit")


def test_fit_options_reach_the_estimator(capsys):
    argv = ["fit", "--dataset", "play_tennis", "--max-depth", "1", "--criterion", "entropy"]
    result = run(argv, capsys)
    assert result.status == 0
    assert "tree               2 leaves, depth 1 (criterion entropy)" in result.out
    result = run(["fit", "--dataset", "iris", "--min-samples-leaf", "60"], capsys)
    assert result.status == 0
    # 150 rows, leaves of at least 60 rows: at most 2 leaves.
    assert "tree               2 leaves, depth 1" in result.out


def test_fit_builtin_prefix_and_other_target(capsys):
    result = run(["fit", "builtin:iris", "--target", "sepal length (cm)"], capsys)
    assert result.status == 0
    # numeric with fractional values -> regression
    assert result.out.startswith("CART regression tree for sepal length (cm) (iris)")
    assert "value: " in result.out
    assert "training RMSE" in result.out
    assert "1 nominal (species), 3 numeric" in result.out


def test_fit_numeric_datasets(capsys):
    result = run(["fit", "--dataset", "watermelon3", "--decimals", "2"], capsys)
    assert result.status == 0
    assert "密度 <= 0.38" in result.out
    assert "2 numeric (密度, 含糖率)" in result.out
    result = run(["fit", "--dataset", "play_tennis_numeric", "--max-depth", "1"], capsys)
    assert result.status == 0
    assert "2 nominal (outlook, windy), 2 numeric (temperature, humidity)" in result.out


def test_fit_save_writes_a_model_file_that_predicts_the_same(tmp_path, capsys):
    path = tmp_path / "melons.json"
    result = run(["fit", "--dataset", "watermelon3", "--save", path], capsys)
    assert result.status == 0, result.err
    assert result.out.endswith(
        f"\nsaved the model to {path} (see 'treelearn show' and 'treelearn predict')\n"
    )
    X, y = load_dataset("watermelon3")
    model = treelearn.load(path)
    assert (model.predict(X) == y.to_numpy()).all()
    assert [p.name for p in tmp_path.iterdir()] == ["melons.json"]  # no temporary file left


def test_fit_save_failures_write_nothing(tmp_path, capsys):
    path = tmp_path / "id3.json"
    argv = ["fit", "--dataset", "iris", "--algorithm", "id3", "--discretize", "mdl"]
    result = run([*argv, "--save", path], capsys)
    assert_one_line_error(result, f"cannot save the model to {path}", "discretizer_")
    assert not path.exists()
    result = run(["fit", "--dataset", "iris", "--save", tmp_path / "no" / "m.json"], capsys)
    assert_one_line_error(result, "cannot save the model to", "check that the folder exists")


# -- files ---------------------------------------------------------------------------------


def test_fit_csv_with_chinese_labels_and_missing_values(tmp_path, capsys):
    path = tmp_path / "西瓜.csv"
    path.write_text(WATERMELON_WITH_MISSING, encoding="utf-8")
    result = run(["fit", path, "--target", "好瓜", "--drop", "编号"], capsys)
    assert result.status == 0, result.err
    assert f"CART classification tree for 好瓜 ({path})" in result.out
    assert "rows               11\n" in result.out
    assert "4 nominal (色泽, 根蒂, 敲声, 纹理), 1 numeric (密度)" in result.out
    assert "(+ missing" in result.out


def test_fit_csv_target_defaults_to_the_last_column(tmp_path, capsys):
    path = tmp_path / "melons.csv"
    path.write_text(WATERMELON_WITH_MISSING, encoding="utf-8")
    result = run(["fit", path, "--drop", "编号"], capsys)
    assert result.status == 0
    assert "tree for 好瓜" in result.out


def test_rows_without_target_are_left_out_with_a_note(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_text("x,y\n1,a\n2,?\n3,b\n4,\n5,b\n", encoding="utf-8")
    result = run(["fit", path], capsys)
    assert result.status == 0
    assert "note: 2 rows without a value for 'y' were left out (data rows 2, 4)." in result.out
    assert "rows               3\n" in result.out
    path.write_text("x,y\n1,a\n2,?\n3,b\n", encoding="utf-8")
    result = run(["fit", path], capsys)
    assert "note: 1 row without a value for 'y' was left out (data row 2)." in result.out


def test_regression_file(tmp_path, capsys):
    lines = ["size,colour,price"] + [
        f"{i},{'red' if i % 2 else 'blue'},{i * 1.5}" for i in range(30)
    ]
    path = tmp_path / "prices.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run(["fit", path, "--target", "price", "--max-depth", "2"], capsys)
    assert result.status == 0
    assert result.out.startswith("CART regression tree for price")
    assert "training RMSE" in result.out
    assert "(criterion squared_error)" in result.out
    result = run(["fit", path, "--target", "price", "--criterion", "absolute_error"], capsys)
    assert result.status == 0
    assert "(criterion absolute_error)" in result.out


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
    assert choose_task(pd.Series(values, name="t"), requested, "data.csv") == task


# -- help ---------------------------------------------------------------------------------


def test_help_lists_the_algorithms_of_the_registry(capsys):
    result = run(["fit", "--help"], capsys)
    assert result.status == 0
    assert "{" + ",".join(ALGORITHMS) + "}" in result.out
    for algorithm in ALGORITHMS.values():
        assert f"{algorithm.name} ({algorithm.summary})" in " ".join(result.out.split())
    for option in ("--max-depth", "--save", "--nominal", "--numeric", "--drop"):
        assert option in result.out
    result = run(["--version"], capsys)
    assert result.status == 0
    assert result.out.startswith("treelearn ")
    result = run(["--help"], capsys)
    for command in ("fit", "show", "predict", "evaluate", "datasets"):
        assert f"    {command} " in result.out


def test_datasets_lists_every_bundled_dataset(capsys):
    result = run(["datasets"], capsys)
    assert result.status == 0
    lines = result.out.splitlines()
    assert lines[0].split() == ["name", "rows", "features", "target", "description"]
    assert [line.split()[0] for line in lines[1:6]] == [
        "iris",
        "play_tennis",
        "play_tennis_numeric",
        "watermelon2",
        "watermelon3",
    ]
    assert "好瓜 (2 classes)" in result.out
    assert "6 nominal, 2 numeric" in result.out
    # CJK characters take two terminal columns: the descriptions line up all the same.
    starts = set()
    for line in lines[1:6]:
        title = dataset_info(line.split()[0]).title
        starts.add(text_width(line[: line.index(title)]))
    assert len(starts) == 1
