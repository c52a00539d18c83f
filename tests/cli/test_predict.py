"""``treelearn predict MODEL DATA``: the input rows, in order, with the predictions appended."""

import io

import numpy as np
import pandas as pd
import pytest
from _cli import WATERMELON_WITH_MISSING, WEATHER_ARFF, assert_one_line_error, run

import treelearn
from treelearn.data.readers import read_arff


@pytest.fixture
def melons(tmp_path, capsys):
    """The watermelon CSV with missing values, and a CART model saved from it."""
    data = tmp_path / "西瓜.csv"
    data.write_text(WATERMELON_WITH_MISSING, encoding="utf-8")
    model = tmp_path / "melons.json"
    result = run(["fit", data, "--drop", "编号", "--max-depth", "2", "--save", model], capsys)
    assert result.status == 0, result.err
    return data, model


def test_predict_keeps_the_input_rows_as_written(melons, capsys):
    data, model_path = melons
    result = run(["predict", model_path, data], capsys)
    assert result.status == 0, result.err
    assert result.err == ""
    lines = result.out.splitlines()
    original = WATERMELON_WITH_MISSING.splitlines()
    assert lines[0] == original[0] + ",prediction"
    assert len(lines) == len(original)
    for line, row in zip(lines[1:], original[1:], strict=True):
        assert line.rsplit(",", 1)[0] == row  # every field as written: '?', '', '0.697'
    frame = pd.read_csv(data, na_values=["?"])
    expected = treelearn.load(model_path).predict(frame.drop(columns=["编号", "好瓜"]))
    assert [line.rsplit(",", 1)[1] for line in lines[1:]] == expected.tolist()


def test_predict_proba_to_a_file(melons, capsys):
    data, model_path = melons
    output = data.parent / "out.csv"
    result = run(["predict", model_path, data, "-o", output, "--proba"], capsys)
    assert result.status == 0, result.err
    assert result.out == f"wrote 11 predictions for {data} to {output}\n"
    frame = pd.read_csv(output, dtype=str, keep_default_na=False)
    assert list(frame.columns[-3:]) == ["prediction", "P(否)", "P(是)"]
    proba = frame[["P(否)", "P(是)"]].astype(float).to_numpy()
    assert np.allclose(proba.sum(axis=1), 1.0)
    model = treelearn.load(model_path)
    assert (model.classes_[proba.argmax(axis=1)] == frame["prediction"].to_numpy()).all()
    assert sorted(p.name for p in data.parent.iterdir()) == ["melons.json", "out.csv", "西瓜.csv"]


def test_predict_finds_columns_by_name_and_copies_the_others(melons, tmp_path, capsys):
    _, model_path = melons
    data = tmp_path / "new.csv"
    data.write_text("id;纹理;密度;色泽;敲声;根蒂\nA;清晰;0.7;青绿;浊响;蜷缩\nB;模糊;?;浅白;沉闷;硬挺\n",
                    encoding="utf-8")  # fmt: skip
    result = run(["predict", model_path, data], capsys)
    assert result.status == 0, result.err
    assert result.out.splitlines()[0] == "id,纹理,密度,色泽,敲声,根蒂,prediction"
    assert result.out.splitlines()[1].startswith("A,清晰,0.7,青绿,浊响,蜷缩,")
    assert result.out.splitlines()[2].startswith("B,模糊,?,浅白,沉闷,硬挺,")


def test_predict_an_arff_file(tmp_path, capsys):
    data = tmp_path / "weather.arff"
    data.write_text(WEATHER_ARFF, encoding="utf-8")
    model_path = tmp_path / "w.json"
    assert run(["fit", data, "--save", model_path], capsys).status == 0
    result = run(["predict", model_path, data, "--proba"], capsys)
    assert result.status == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "outlook,temperature,humidity,windy,play it,prediction,P(yes),P(no)"
    assert lines[1].startswith("sunny,85,85,FALSE,no,")  # as written, not 85.0
    assert lines[13].startswith("overcast,81,?,FALSE,yes,")
    frame = read_arff(data)
    expected = treelearn.load(model_path).predict(frame.drop(columns=["play it"]))
    assert [line.split(",")[5] for line in lines[1:]] == expected.tolist()


def test_predict_a_parquet_file(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    data = tmp_path / "weather.arff"
    data.write_text(WEATHER_ARFF, encoding="utf-8")
    parquet = tmp_path / "weather.parquet"
    read_arff(data).to_parquet(parquet)
    model_path = tmp_path / "w.json"
    assert run(["fit", data, "--save", model_path], capsys).status == 0
    result = run(["predict", model_path, parquet], capsys)
    assert result.status == 0, result.err
    frame = pd.read_csv(io.StringIO(result.out))
    assert frame.shape == (14, 6)
    assert (
        frame["prediction"].tolist()
        == treelearn.load(model_path).predict(read_arff(data).drop(columns=["play it"])).tolist()
    )


def test_predict_reads_codes_as_the_model_learned_them(tmp_path, capsys):
    data = tmp_path / "codes.csv"
    data.write_text("zip,label\n007,a\n010,b\n007,a\n012,b\n", encoding="utf-8")
    model_path = tmp_path / "m.json"
    assert run(["fit", data, "--nominal", "zip", "--save", model_path], capsys).status == 0
    new = tmp_path / "new.csv"
    new.write_text("zip\n007\n012\n7\n", encoding="utf-8")
    result = run(["predict", model_path, new], capsys)
    assert result.status == 0, result.err
    lines = result.out.splitlines()
    assert lines[:3] == ["zip,prediction", "007,a", "012,b"]
    assert lines[3].startswith("7,")  # '7' is not the category '007': routed as unseen


def test_predict_regression(tmp_path, capsys):
    data = tmp_path / "prices.csv"
    data.write_text("size,price\n" + "".join(f"{i},{i * 1.5}\n" for i in range(30)),
                    encoding="utf-8")  # fmt: skip
    model_path = tmp_path / "m.json"
    assert run(["fit", data, "--save", model_path], capsys).status == 0
    result = run(["predict", model_path, data], capsys)
    assert result.status == 0, result.err
    frame = pd.read_csv(io.StringIO(result.out))
    assert np.allclose(frame["prediction"], frame["price"])
    result = run(["predict", model_path, data, "--proba"], capsys)
    assert_one_line_error(
        result, "--proba needs a classification model", "regression tree", command="predict"
    )


def test_predict_errors(melons, tmp_path, capsys):
    data, model_path = melons
    lacking = tmp_path / "lacking.csv"
    lacking.write_text("色泽,根蒂\n青绿,蜷缩\n", encoding="utf-8")
    result = run(["predict", model_path, lacking], capsys)
    assert_one_line_error(
        result,
        f"{lacking} lacks the model's columns '敲声', '纹理', '密度'",
        "the model needs 色泽, 根蒂, 敲声, 纹理, 密度",
        "has 色泽, 根蒂",
        command="predict",
    )
    text = tmp_path / "text.csv"
    text.write_text("色泽,根蒂,敲声,纹理,密度\n青绿,蜷缩,浊响,清晰,heavy\n", encoding="utf-8")
    result = run(["predict", model_path, text], capsys)
    assert_one_line_error(
        result,
        "column '密度'",
        "'heavy' (data row 1), which is not a number",
        "(the model learned it as numeric)",
    )
    result = run(["predict", model_path, data, "-o", data], capsys)
    assert_one_line_error(result, "is the data file; write the predictions to another file")
    result = run(["predict", model_path], capsys)
    assert_one_line_error(result, "no data given", "treelearn predict MODEL data.csv")
    result = run(["predict", tmp_path / "none.json", data], capsys)
    assert_one_line_error(result, "no such model file")
