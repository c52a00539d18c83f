"""Input formats through the command: CSV/TSV, Parquet, ARFF, kinds overrides, builtin:NAME."""

import pandas as pd
import pytest
from _cli import WATERMELON_WITH_MISSING, WEATHER_ARFF, run

import treelearn
from treelearn.datasets import load_dataset

ROWS = [["a", "b", "label"], ["1", "x", "p"], ["2", "y", "q"], ["3", "x", "p"], ["4", "y", "q"]]


@pytest.mark.parametrize(
    ("name", "sep", "encoding"),
    [
        ("t.tsv", "\t", "utf-8"),
        ("t.csv", "\t", "utf-8"),
        ("s.csv", ";", "utf-8"),
        ("p.txt", "|", "utf-8"),
        ("bom.csv", ",", "utf-8-sig"),
    ],
)
def test_delimiters_and_byte_order_mark(tmp_path, capsys, name, sep, encoding):
    path = tmp_path / name
    path.write_text("\n".join(sep.join(r) for r in ROWS) + "\n", encoding=encoding)
    result = run(["fit", path, "--target", "label"], capsys)
    assert result.status == 0, result.err
    assert "1 nominal (b), 1 numeric (a)" in result.out
    assert "training accuracy  100.00% (4 of 4 rows)" in result.out


def test_quoted_fields_hold_the_delimiter(tmp_path, capsys):
    path = tmp_path / "q.csv"
    path.write_text(
        'city,kind,label\n"Paris, FR",big,p\n"Lyon, FR",small,q\n"Paris, FR",big,p\n',
        encoding="utf-8",
    )
    result = run(["fit", path], capsys)
    assert result.status == 0, result.err
    assert "2 nominal (city, kind), 0 numeric" in result.out


def test_missing_markers_in_csv(tmp_path, capsys):
    """'?' and empty fields are missing in text and number columns alike."""
    path = tmp_path / "西瓜.csv"
    path.write_text(WATERMELON_WITH_MISSING, encoding="utf-8")
    save = tmp_path / "m.json"
    result = run(["fit", path, "--drop", "编号", "--save", save], capsys)
    assert result.status == 0, result.err
    schema = treelearn.load(save).feature_schema_
    assert schema.kinds == ("nominal",) * 4 + ("numeric",)
    assert "?" not in schema.categories[1]  # 根蒂: '?' is missing, not a category
    assert "" not in schema.categories[0]  # 色泽: the empty field is missing


def test_arff_declarations_are_honoured(tmp_path, capsys):
    path = tmp_path / "weather.arff"
    path.write_text(WEATHER_ARFF, encoding="utf-8")
    save = tmp_path / "weather.json"
    result = run(["fit", path, "--save", save], capsys)
    assert result.status == 0, result.err
    assert result.out.startswith(f"CART classification tree for play it ({path})")
    assert "4: 2 nominal (outlook, windy), 2 numeric (temperature, humidity)" in result.out
    assert "classes            2 (yes, no)" in result.out  # declared order, not sorted
    model = treelearn.load(save)
    assert model.feature_schema_.categories[0] == ("sunny", "overcast", "rainy")
    assert model.feature_schema_.categories[3] == ("TRUE", "FALSE")
    assert model.classes_.tolist() == ["yes", "no"]


def test_arff_with_chinese_labels_and_an_unused_category(tmp_path, capsys):
    X, y = load_dataset("watermelon2")
    lines = ["% 西瓜数据集 2.0", "@relation 'watermelon 2.0'"]
    for column in X.columns:
        categories = sorted(set(X[column]))
        if column == "色泽":
            categories.append("金黄")  # declared, never seen
        lines.append(f"@attribute {column} {{{', '.join(categories)}}}")
    lines += ["@attribute 好瓜 {是, 否}", "@data"]
    lines += [",".join([*row, label]) for row, label in zip(X.values, y, strict=True)]
    path = tmp_path / "西瓜.arff"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    save = tmp_path / "m.json"
    result = run(["fit", path, "--algorithm", "id3", "--save", save], capsys)
    assert result.status == 0, result.err
    assert result.out.splitlines()[2].startswith("|--- 纹理 = ")
    assert "classes            2 (是, 否)" in result.out
    assert treelearn.load(save).feature_schema_.categories[0][-1] == "金黄"


def test_parquet(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    X, y = load_dataset("watermelon3")
    frame = pd.concat([X, y], axis=1).reset_index()
    frame["纹理"] = frame["纹理"].astype("category")
    path = tmp_path / "melons.parquet"
    frame.to_parquet(path)
    result = run(["fit", path, "--drop", "编号", "--max-depth", "2"], capsys)
    assert result.status == 0, result.err
    assert f"tree for 好瓜 ({path})" in result.out
    assert "6 nominal (色泽, 根蒂, 敲声, 纹理, 脐部, 触感), 2 numeric (密度, 含糖率)" in result.out


def test_nominal_override_keeps_the_text_as_written(tmp_path, capsys):
    path = tmp_path / "codes.csv"
    path.write_text("zip,grade,label\n007,3,a\n010,2,b\n007,3,a\n012,1,b\n", encoding="utf-8")
    save = tmp_path / "m.json"
    result = run(["fit", path, "--nominal", "zip, grade", "--save", save], capsys)
    assert result.status == 0, result.err
    assert "2 nominal (zip, grade), 0 numeric" in result.out
    schema = treelearn.load(save).feature_schema_
    assert schema.categories == (("007", "010", "012"), ("1", "2", "3"))


def test_nominal_override_of_numbers_from_arff_and_datasets(tmp_path, capsys):
    path = tmp_path / "weather.arff"
    path.write_text(WEATHER_ARFF, encoding="utf-8")
    save = tmp_path / "m.json"
    result = run(["fit", path, "--nominal", "temperature", "--save", save], capsys)
    assert result.status == 0, result.err
    categories = treelearn.load(save).feature_schema_.categories[1]
    assert "85" in categories and "85.0" not in categories
    result = run(["fit", "--dataset", "play_tennis_numeric", "--nominal", "humidity"], capsys)
    assert "3 nominal (outlook, humidity, windy), 1 numeric (temperature)" in result.out


def test_numeric_override(tmp_path, capsys):
    arff = tmp_path / "codes.arff"
    arff.write_text(
        "@relation r\n@attribute code {1, 2, 10}\n@attribute label {a, b}\n@data\n"
        "1,a\n2,a\n10,b\n10,b\n?,a\n",
        encoding="utf-8",
    )
    result = run(["fit", arff], capsys)
    assert "1 nominal (code), 0 numeric" in result.out
    result = run(["fit", arff, "--numeric", "code"], capsys)
    assert result.status == 0, result.err
    assert "0 nominal, 1 numeric (code)" in result.out
    assert "|--- code <= 6  (+ missing)" in result.out  # between 2 and 10: numbers


def test_builtin_names_work_wherever_data_is_accepted(tmp_path, capsys):
    save = tmp_path / "m.json"
    assert run(["fit", "builtin:play_tennis", "--save", save], capsys).status == 0
    result = run(["predict", save, "builtin:play_tennis"], capsys)
    assert result.status == 0, result.err
    assert result.out.count("\n") == 15
    result = run(["predict", save, "--dataset", "play_tennis"], capsys)
    assert result.status == 0, result.err
    result = run(["evaluate", "builtin:play_tennis", "--cv", "2"], capsys)
    assert result.status == 0, result.err
    assert result.out.startswith("2-fold cross-validation on play_tennis: 14 rows")
