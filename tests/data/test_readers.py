"""Reading data files: CSV/TSV (delimiter sniffing), Parquet, ARFF, and kind overrides."""

import sys

import numpy as np
import pandas as pd
import pytest

from treelearn import CARTClassifier
from treelearn.data.readers import (
    file_format,
    read_arff,
    read_csv,
    read_file,
    set_kinds,
    sniff_delimiter,
    split_arff_values,
)
from treelearn.exceptions import DataError

# -- CSV -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sample", "prefer", "expected"),
    [
        ("a,b,c\n1,2,3\n", None, ","),
        ("a;b;c\n1,5;2,5;3\n", None, ";"),  # decimal commas inside ';' rows
        ("a\tb,c\tz\n1\t2,5\t3\n", None, "\t"),
        ("a|b|c\n1|2|3\n", None, "|"),
        ('name,city\n"Smith; John",Paris\n', None, ","),
        ("single\n1\n2\n", None, ","),
        ("", None, ","),
        ("a\tb\n1\t2\n", "\t", "\t"),
        ("a,b\tc\n", "\t", "\t"),  # a tie goes to the preferred delimiter (.tsv)
    ],
)
def test_sniff_delimiter(sample, prefer, expected):
    assert sniff_delimiter(sample, prefer=prefer) == expected


def test_read_csv_missing_markers_and_chinese(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("色泽,密度,好瓜\n青绿,0.697,是\n?,,否\n乌黑, ?,是\n", encoding="utf-8")
    frame = read_csv(path)
    assert list(frame.columns) == ["色泽", "密度", "好瓜"]
    assert frame["色泽"].isna().tolist() == [False, True, False]
    assert frame["密度"].dtype == np.float64
    assert frame["密度"].isna().tolist() == [False, True, True]


def test_read_csv_as_text_keeps_every_field(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("zip;x\n007;?\n010;\n", encoding="utf-8")
    frame = read_file(path, as_text=True)
    assert frame.to_numpy().tolist() == [["007", "?"], ["010", ""]]
    assert read_file(path, nominal=["zip"])["zip"].tolist() == ["007", "010"]
    assert read_file(path)["zip"].tolist() == [7, 10]


def test_csv_errors(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(b"a,b\n\x00\x01,2\n")
    with pytest.raises(DataError, match=r"is not a text file .it holds NUL bytes"):
        read_file(path)
    path.write_bytes(b"PK\x03\x04rest")
    with pytest.raises(DataError, match="looks like a zip archive"):
        read_file(path)
    path.write_text('a,b\n"1,2\n', encoding="utf-8")
    with pytest.raises(DataError, match="is not a well-formed CSV file"):
        read_file(path)
    with pytest.raises(FileNotFoundError, match="no such file"):
        read_file(tmp_path / "none.csv")


@pytest.mark.parametrize(
    ("name", "kind"),
    [("a.CSV", "csv"), ("a.tsv", "csv"), ("a.data", "csv"), ("a.pq", "parquet"),
     ("a.parquet", "parquet"), ("a.arff", "arff")],
)  # fmt: skip
def test_file_format(name, kind):
    assert file_format(name) == kind


def test_file_format_refuses_other_extensions():
    with pytest.raises(DataError, match=r"'\.json' files are not supported"):
        file_format("model.json")
    with pytest.raises(DataError, match="'no extension' files are not supported"):
        file_format("data")


# -- Parquet ---------------------------------------------------------------------------


def test_read_parquet_keeps_dtypes(tmp_path):
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame(
        {
            "城市": pd.Categorical(["北京", "上海", None], categories=["上海", "北京", "广州"]),
            "n": [1.5, None, 3.0],
            "flag": [True, False, True],
        }
    )
    path = tmp_path / "d.parquet"
    frame.to_parquet(path)
    read = read_file(path)
    assert list(read["城市"].cat.categories) == ["上海", "北京", "广州"]
    assert read["城市"].isna().tolist() == [False, False, True]
    assert read["n"].isna().tolist() == [False, True, False]
    model = CARTClassifier().fit(read[["城市", "n"]], read["flag"])
    assert model.feature_schema_.categories[0] == ("上海", "北京", "广州")


def test_parquet_errors(tmp_path, monkeypatch):
    path = tmp_path / "d.parquet"
    path.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"is not a Parquet file \(it looks like text"):
        read_file(path)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(200)))
    with pytest.raises(DataError, match="it has no Parquet markers"):
        read_file(path)
    path.write_bytes(b"PAR1garbagePAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match=r'pip install "treelearn\[parquet\]"'):
        read_file(path)


def test_corrupt_parquet(tmp_path):
    pytest.importorskip("pyarrow")
    path = tmp_path / "d.parquet"
    path.write_bytes(b"PAR1garbagePAR1")
    with pytest.raises(DataError, match="is not a readable Parquet file"):
        read_file(path)


# -- ARFF ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("a,b,c", [("a", False), ("b", False), ("c", False)]),
        (" a , 'b c' ,\"d,e\"", [("a", False), ("b c", True), ("d,e", True)]),
        (r"'it\'s',x", [("it's", True), ("x", False)]),
        ("?,'?'", [("?", False), ("?", True)]),
        ("1,,3", [("1", False), ("", False), ("3", False)]),
    ],
)
def test_split_arff_values(text, values):
    assert split_arff_values(text) == values


ARFF = """\
% a comment
@RELATION 'test relation'

@attribute colour {red, 'light blue', green}
@Attribute "size (cm)" NUMERIC
@attribute count integer
@attribute note string
@attribute day date "yyyy-MM-dd"
@attribute label{yes,no}

@DATA
red, 1.5, 3, 'hello, world', "2024-01-02", yes
'light blue',?,4,?,?,no
% comment inside the data
green,2e1,?,plain,2024-03-04,no
"""


def test_read_arff(tmp_path):
    path = tmp_path / "t.arff"
    path.write_text(ARFF, encoding="utf-8")
    frame = read_arff(path)
    assert list(frame.columns) == ["colour", "size (cm)", "count", "note", "day", "label"]
    assert list(frame["colour"].cat.categories) == ["red", "light blue", "green"]
    assert frame["colour"].tolist() == ["red", "light blue", "green"]
    assert frame["size (cm)"].dtype == np.float64
    assert frame["size (cm)"].tolist()[::2] == [1.5, 20.0]
    assert np.isnan(frame["size (cm)"][1])
    assert frame["count"].isna().tolist() == [False, False, True]
    assert frame["note"].tolist() == ["hello, world", None, "plain"]
    assert frame["day"].tolist() == ["2024-01-02", None, "2024-03-04"]
    assert list(frame["label"].cat.categories) == ["yes", "no"]
    text = read_arff(path, as_text=True)
    assert text.iloc[1].tolist() == ["light blue", "?", "4", "?", "?", "no"]


def test_arff_declared_categories_reach_the_model(tmp_path):
    path = tmp_path / "t.arff"
    path.write_text(ARFF, encoding="utf-8")
    frame = read_arff(path)
    model = CARTClassifier().fit(frame[["colour", "size (cm)"]], frame["label"])
    assert model.feature_schema_.categories[0] == ("red", "light blue", "green")
    assert model.classes_.tolist() == ["yes", "no"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("@relation r\n@attribute a relational\n@data\n", "is relational"),
        ("@relation r\n@attribute a colour\n@data\n", "has type 'colour'; expected numeric"),
        ("@relation r\n@attribute a {x, y\n@data\n", "does not end with '}'"),
        ("@relation r\n@attribute a {x, x}\n@data\n", "declares 'x' twice"),
        ("@relation r\n@attribute a numeric\n@attribute a numeric\n@data\n1,2\n",
         "line 3: attribute 'a' is declared twice"),
        ("@relation r\n@attribute a numeric\nhello\n@data\n", "line 3: expected @attribute or "
         "@data, found 'hello'"),
        ("@relation r\n", "it has no @attribute and no @data line"),
        ("@relation r\n@attribute a numeric\n@data\n1\n2,{3}\n",
         "line 5: the row has 2 values, but 1 attributes are declared (an instance weight"),
        ("@relation r\n@attribute a {x}\n@data\n'x\n", "line 4: a quoted value is not closed"),
    ],
)  # fmt: skip
def test_arff_errors(tmp_path, text, message):
    path = tmp_path / "bad.arff"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace("{", r"\{")):
        read_arff(path)


def test_arff_must_be_utf8(tmp_path):
    path = tmp_path / "latin.arff"
    path.write_bytes("@relation r\n@attribute a {José}\n@data\nJosé\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"is not UTF-8 text .* save the ARFF file as UTF-8"):
        read_arff(path)


# -- kinds -----------------------------------------------------------------------------


def test_set_kinds():
    frame = pd.DataFrame(
        {
            "code": [1.0, 2.0, np.nan, 10.5],
            "text": ["1", "2.5", None, "4"],
            "cat": pd.Categorical(["1", "2", "1", None]),
            "flag": [True, False, True, False],
        }
    )
    out = set_kinds(frame, nominal=["code", "flag"], numeric=["text", "cat"])
    assert out["code"].tolist() == ["1", "2", None, "10.5"]
    assert out["flag"].tolist() == [True, False, True, False]
    assert out["text"].dtype == np.float64
    assert out["text"].isna().tolist() == [False, False, True, False]
    assert out["cat"].tolist()[:3] == [1.0, 2.0, 1.0]
    assert frame["code"].dtype == np.float64  # the input is left alone
    assert set_kinds(frame) is frame


def test_set_kinds_errors():
    frame = pd.DataFrame({"a": ["1", "x"], "b": [1, 2]})
    with pytest.raises(DataError, match=r"column 'a' of t.csv is declared numeric, but it holds "
                       r"'x' \(data row 2\), which is not a number"):  # fmt: skip
        set_kinds(frame, numeric=["a"], source="t.csv")
    with pytest.raises(DataError, match="nominal columns 'c', 'd' are not in the data; the "
                       "columns are a, b"):  # fmt: skip
        set_kinds(frame, nominal=["c", "d"])
    with pytest.raises(DataError, match="declared both nominal and numeric"):
        set_kinds(frame, nominal="b", numeric="b")
