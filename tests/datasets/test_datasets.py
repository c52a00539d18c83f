"""The bundled datasets: shapes, classes, dtypes, and that they match the reference copies."""

from importlib import resources

import numpy as np
import pandas as pd
import pytest

from treelearn import CARTClassifier
from treelearn.datasets import dataset_info, list_datasets, load_dataset
from treelearn.exceptions import ParameterError

WATERMELON_NOMINAL = ["色泽", "根蒂", "敲声", "纹理", "脐部", "触感"]


def test_list_datasets():
    assert list_datasets() == [
        "iris",
        "play_tennis",
        "play_tennis_numeric",
        "watermelon2",
        "watermelon3",
    ]


@pytest.mark.parametrize(
    ("name", "shape", "counts"),
    [
        ("watermelon2", (17, 6), {"是": 8, "否": 9}),
        ("watermelon3", (17, 8), {"是": 8, "否": 9}),
        ("play_tennis", (14, 4), {"yes": 9, "no": 5}),
        ("play_tennis_numeric", (14, 4), {"yes": 9, "no": 5}),
        ("iris", (150, 4), {"setosa": 50, "versicolor": 50, "virginica": 50}),
    ],
)
def test_shapes_and_class_counts(name, shape, counts):
    X, y = load_dataset(name)
    assert isinstance(X, pd.DataFrame)
    assert isinstance(y, pd.Series)
    assert X.shape == shape
    assert y.shape == (shape[0],)
    assert y.name == dataset_info(name).target
    assert y.value_counts().to_dict() == counts
    assert X.index.equals(y.index)


def test_watermelon_row_numbers_are_the_index_not_a_feature():
    X, y = load_dataset("watermelon2")
    assert list(X.columns) == WATERMELON_NOMINAL
    assert "编号" not in X.columns
    assert X.index.name == "编号"
    assert X.index.tolist() == list(range(1, 18))
    # The book's row 1: 青绿 蜷缩 浊响 清晰 凹陷 硬滑 -> 是
    assert X.loc[1].tolist() == ["青绿", "蜷缩", "浊响", "清晰", "凹陷", "硬滑"]
    assert y.loc[1] == "是"


def test_dtypes():
    X, _ = load_dataset("watermelon3")
    for column in WATERMELON_NOMINAL:
        assert pd.api.types.is_string_dtype(X[column].dtype), column
    assert X["密度"].dtype == np.float64
    assert X["含糖率"].dtype == np.float64
    assert X.loc[1, "密度"] == pytest.approx(0.697)

    X, _ = load_dataset("play_tennis")
    assert X["windy"].dtype == bool
    for column in ("outlook", "temperature", "humidity"):
        assert pd.api.types.is_string_dtype(X[column].dtype), column

    X, y = load_dataset("iris")
    assert all(dtype == np.float64 for dtype in X.dtypes)
    assert pd.api.types.is_string_dtype(y.dtype)


def test_as_frame_false_gives_arrays():
    X, y = load_dataset("play_tennis", as_frame=False)
    assert isinstance(X, np.ndarray)
    assert isinstance(y, np.ndarray)
    assert X.shape == (14, 4)
    assert X.dtype == object
    assert sorted(set(y.tolist())) == ["no", "yes"]
    X, _ = load_dataset("iris", as_frame=False)
    assert X.dtype == np.float64


@pytest.mark.parametrize("name", ["watermelon2", "watermelon3", "play_tennis"])
def test_bundled_files_equal_the_reference_copies(name, data_dir):
    bundled = resources.files("treelearn.datasets").joinpath("data", f"{name}.csv")
    assert bundled.read_text(encoding="utf-8") == (data_dir / f"{name}.csv").read_text(
        encoding="utf-8"
    )


def test_target_is_the_last_column_of_the_file():
    for name in ("watermelon2", "watermelon3", "play_tennis", "play_tennis_numeric"):
        bundled = resources.files("treelearn.datasets").joinpath("data", f"{name}.csv")
        header = bundled.read_text(encoding="utf-8").splitlines()[0].split(",")
        assert header[-1] == dataset_info(name).target


def test_unknown_dataset_lists_the_names():
    with pytest.raises(ParameterError, match="iris, play_tennis, play_tennis_numeric, watermelon2"):
        load_dataset("watermelon4")


def test_estimators_take_the_string_columns_as_nominal():
    X, y = load_dataset("watermelon2")
    model = CARTClassifier().fit(X, y)
    assert model.feature_schema_.kinds == ("nominal",) * 6
    assert model.feature_schema_.categories[0] == ("乌黑", "浅白", "青绿")
    X3, y3 = load_dataset("watermelon3")
    model = CARTClassifier().fit(X3, y3)
    assert model.feature_schema_.kinds == ("nominal",) * 6 + ("numeric",) * 2


def test_play_tennis_numeric_is_the_nominal_table_with_numbers():
    """Row for row the same days: same outlook, windy and play; hot days are the warmest."""
    X, y = load_dataset("play_tennis")
    Xn, yn = load_dataset("play_tennis_numeric")
    assert Xn.dtypes["temperature"].kind == "i"
    assert Xn.dtypes["humidity"].kind == "i"
    for column in ("outlook", "windy"):
        assert X[column].tolist() == Xn[column].tolist()
    assert y.tolist() == yn.tolist()
    temperature = Xn["temperature"].groupby(X["temperature"]).agg(["min", "max"])
    assert temperature.loc["cool", "max"] < temperature.loc["mild", "min"]
    assert temperature.loc["mild", "max"] < temperature.loc["hot", "min"]
    humidity = Xn["humidity"].groupby(X["humidity"]).agg(["min", "max"])
    assert humidity.loc["normal", "max"] < humidity.loc["high", "min"]
