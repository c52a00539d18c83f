"""Model files of ID3 and C4.5 trees keep their split records, checked on load."""

import json

import numpy as np
import pandas as pd
import pytest

import treelearn
from treelearn import C45Classifier, ID3Classifier, explain
from treelearn.exceptions import ModelFormatError


@pytest.fixture
def golf(data_dir):
    frame = pd.read_csv(data_dir / "golf_missing.csv", dtype={"windy": str})
    return frame.drop(columns=["play"]), frame["play"]


def test_c45_round_trip_predicts_and_explains_the_same(tmp_path, golf):
    X, y = golf
    model = C45Classifier().fit(X, y)
    path = tmp_path / "golf.json"
    model.save(path)
    loaded = treelearn.load(path)
    probe = pd.concat(
        [X, X.assign(outlook=None), X.assign(humidity=np.nan, windy=None)], ignore_index=True
    )
    np.testing.assert_array_equal(loaded.predict_proba(probe), model.predict_proba(probe))
    np.testing.assert_array_equal(loaded.predict(probe), model.predict(probe))
    assert sorted(loaded.split_records_) == sorted(model.split_records_)
    for node in model.split_records_:
        pd.testing.assert_frame_equal(explain(loaded, node), explain(model, node))
        assert explain(loaded, node).attrs == explain(model, node).attrs
    assert loaded.get_params() == model.get_params()


def test_id3_round_trip_keeps_its_records(tmp_path, data_dir):
    frame = pd.read_csv(data_dir / "play_tennis.csv")
    model = ID3Classifier().fit(frame.drop(columns=["play"]), frame["play"])
    path = tmp_path / "tennis.json"
    model.save(path)
    loaded = treelearn.load(path)
    pd.testing.assert_frame_equal(explain(loaded, 0), explain(model, 0))
    assert explain(loaded, 0).attrs["chosen"] == "outlook"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r["nodes"].update(data=[99, *r["nodes"]["data"][1:]]), "increasing node"),
        (lambda r: r.update(rules=["median"] * len(r["rules"])), "split_records.rules"),
        (lambda r: r["features"].update(data=[7] * len(r["features"]["data"])), "feature indices"),
        (lambda r: r["tables"].update(shape=[1, 2, 3]), "split_records.tables"),
        (lambda r: r.pop("tables"), "expected the fields"),
        (lambda r: r["in_average"].update(data=[5] * len(r["in_average"]["data"])), "-1, 0 and 1"),
    ],
)
def test_corrupt_split_records_are_refused(tmp_path, golf, edit, message):
    X, y = golf
    path = tmp_path / "golf.json"
    C45Classifier().fit(X, y).save(path)
    document = json.loads(path.read_text(encoding="utf-8"))
    edit(document["split_records"])
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(ModelFormatError, match=message):
        treelearn.load(path)
