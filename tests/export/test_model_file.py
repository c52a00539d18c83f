"""Model files: JSON round trips, refusals at save time, corrupt files, atomic writes."""

import contextlib
import datetime
import json
import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError

import treelearn
from treelearn import CARTClassifier, CARTRegressor
from treelearn.exceptions import ModelFormatError
from treelearn.export.model_file import (
    FORMAT_VERSION,
    load_model,
    model_document,
    model_from_document,
    save_model,
)

TREE_ARRAYS = [
    "feature",
    "kind",
    "threshold",
    "child_ptr",
    "children",
    "category_ptr",
    "category_child",
    "missing_child",
    "value",
    "n_samples",
    "weight",
    "impurity",
    "surrogate_ptr",
    "surrogate_feature",
    "surrogate_kind",
    "surrogate_threshold",
    "surrogate_reverse",
    "surrogate_category_ptr",
    "surrogate_category_child",
    "surrogate_agreement",
    "surrogate_adjusted",
]


# -- data ----------------------------------------------------------------------------
def _numeric(n=300, missing=0.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y_class = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1)
    y_reg = X[:, 0] * 2 + np.sin(X[:, 1]) + rng.normal(scale=0.1, size=n)
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    return X, y_class, y_reg


def _frame(n=200, seed=1):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "size": pd.Categorical(rng.choice([3, 1, 2], n), categories=[3, 1, 2]),
            "ripe": rng.random(n) < 0.4,
            "weight": rng.normal(size=n),
            "grade": pd.Series(rng.choice(["a", "b", None], n), dtype="category"),
        }
    )
    y = np.where((frame["colour"] == "red") ^ frame["ripe"], "yes", "no")
    return frame, y


def _watermelon(data_dir):
    frame = pd.read_csv(data_dir / "watermelon2.csv")
    return frame.drop(columns=["编号", "好瓜"]), frame["好瓜"]


def _surrogate_table(data_dir):
    frame = pd.read_csv(data_dir / "surrogate_table.csv")
    return frame[["x0", "x1", "x2", "c3", "x4"]], frame["y"], frame["yr"]


def _cases(data_dir):
    """(name, fitted model, X to predict on) for every kind of model the format holds."""
    X, y_class, y_reg = _numeric()
    Xm, ym_class, ym_reg = _numeric(missing=0.15, seed=3)
    frame, y_frame = _frame()
    melon_X, melon_y = _watermelon(data_dir)
    sur_X, sur_y, sur_yr = _surrogate_table(data_dir)
    mixed = np.array([[1, "a"], ["a", 2.5], [2, "b"], [1, "b"], ["a", 2.5], [2, "a"]] * 5, object)
    mixed_y = np.tile([0, 1, 1, 0, 1, 0], 5)
    X_probe = np.vstack([X[:50], Xm[:50], np.full((1, 4), np.nan)])
    frame_probe = pd.concat([frame, pd.DataFrame({"colour": ["purple", None]})], ignore_index=True)
    frame_probe["size"] = frame_probe["size"].astype(frame["size"].dtype)
    frame_probe["grade"] = frame_probe["grade"].astype(frame["grade"].dtype)
    frame_probe["ripe"] = frame_probe["ripe"].fillna(False).astype(bool)
    return [
        ("numeric", CARTClassifier(max_depth=6).fit(X, y_class), X_probe),
        ("numeric missing", CARTClassifier(criterion="entropy").fit(Xm, ym_class), X_probe),
        ("regression", CARTRegressor(max_leaf_nodes=20).fit(Xm, ym_reg), X_probe),
        (
            "absolute_error",
            CARTRegressor(criterion="absolute_error", max_depth=4).fit(X, y_reg),
            X_probe,
        ),
        ("huber", CARTRegressor(criterion="huber", huber_delta=0.5).fit(X, y_reg), X_probe),
        (
            "surrogate numeric",
            CARTClassifier(missing="surrogate", max_depth=4).fit(Xm, ym_class),
            X_probe,
        ),
        ("nominal frame", CARTClassifier(max_depth=5).fit(frame, y_frame), frame_probe),
        (
            "nominal frame regression",
            CARTRegressor(max_depth=5, missing="surrogate").fit(frame, frame["weight"] * 2),
            frame_probe,
        ),
        ("watermelon", CARTClassifier().fit(melon_X, melon_y), melon_X),
        (
            "watermelon surrogate",
            CARTClassifier(missing="surrogate").fit(melon_X, melon_y),
            melon_X,
        ),
        ("surrogate table", CARTClassifier(missing="surrogate").fit(sur_X, sur_y), sur_X),
        (
            "surrogate table regression",
            CARTRegressor(missing="surrogate", max_depth=3).fit(sur_X, sur_yr),
            sur_X,
        ),
        (
            "mixed categories",
            CARTClassifier(categorical_features=[0, 1]).fit(mixed, mixed_y),
            mixed,
        ),
        (
            "float categories, bool classes",
            CARTClassifier(categorical_features=[1]).fit(X[:, :2].round(0), y_class > 0),
            X[:, :2].round(0),
        ),
        (
            "float classes, params",
            CARTClassifier(
                class_weight={1.0: 2.0, 2.0: 1.0, 3.0: 0.5},
                max_features="sqrt",
                random_state=7,
                min_samples_leaf=0.02,
                categorical_features=np.array([False, False, False, True]),
            ).fit(X.round(1), y_class + 1.0),
            X.round(1),
        ),
    ]


@pytest.fixture(scope="module")
def cases():
    return _cases(Path(__file__).parents[1] / "data")


def _assert_same_model(original, loaded, X):
    assert type(loaded) is type(original)
    _assert_same_params(original, loaded)
    for name in TREE_ARRAYS:
        a, b = getattr(original.tree_, name), getattr(loaded.tree_, name)
        assert a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert loaded.tree_.n_features == original.tree_.n_features
    assert loaded.tree_.n_classes == original.tree_.n_classes
    assert loaded.feature_schema_ == original.feature_schema_
    for a, b in zip(
        original.feature_schema_.categories, loaded.feature_schema_.categories, strict=True
    ):
        assert [type(v) for v in (a or ())] == [type(v) for v in (b or ())]
    assert loaded.n_features_in_ == original.n_features_in_
    assert hasattr(loaded, "feature_names_in_") == hasattr(original, "feature_names_in_")
    if hasattr(original, "feature_names_in_"):
        np.testing.assert_array_equal(loaded.feature_names_in_, original.feature_names_in_)
    np.testing.assert_array_equal(loaded.apply(X), original.apply(X))
    predicted, expected = loaded.predict(X), original.predict(X)
    assert predicted.dtype == expected.dtype
    np.testing.assert_array_equal(predicted, expected)
    if hasattr(original, "classes_"):
        assert loaded.classes_.dtype == original.classes_.dtype
        np.testing.assert_array_equal(loaded.classes_, original.classes_)
        assert loaded.n_classes_ == original.n_classes_
        np.testing.assert_array_equal(loaded.predict_proba(X), original.predict_proba(X))


def _assert_same_params(original, loaded):
    a, b = original.get_params(), loaded.get_params()
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            assert list(a[key]) == b[key], key
        else:
            assert a[key] == b[key], key


# -- round trips ------------------------------------------------------------------------
def test_round_trips(cases, tmp_path):
    for name, model, X in cases:
        path = tmp_path / f"{name}.json"
        model.save(path)
        loaded = treelearn.load(path)
        _assert_same_model(model, loaded, X)
        # a second trip writes the same bytes
        loaded.save(tmp_path / "again.json")
        assert (tmp_path / "again.json").read_bytes() == path.read_bytes(), name


def test_file_is_plain_json_without_pickle(cases, tmp_path):
    _, model, _ = next(c for c in cases if c[0] == "watermelon surrogate")
    path = tmp_path / "m.json"
    model.save(str(path))
    raw = path.read_bytes()
    with pytest.raises(pickle.UnpicklingError):
        pickle.loads(raw)

    def refuse(name):
        raise AssertionError(f"non-standard JSON constant {name}")

    document = json.loads(raw.decode("utf-8"), parse_constant=refuse)
    with path.open(encoding="utf-8") as handle:
        assert json.load(handle) == document
    assert document["format"] == "treelearn-model"
    assert document["format_version"] == FORMAT_VERSION
    assert document["treelearn_version"] == treelearn.__version__
    assert document["estimator"] == "CARTClassifier"
    assert document["params"]["missing"] == "surrogate"
    assert document["schema"]["names"][0] == "色泽"
    assert "色泽" in raw.decode("utf-8")  # written as UTF-8, not \u escapes
    assert document["schema"]["categories"][0] == {
        "type": "str",
        "values": ["乌黑", "浅白", "青绿"],
    }
    assert document["classes"] == {"type": "str", "dtype": "object", "values": ["否", "是"]}
    assert set(document["tree"]["arrays"]) == set(TREE_ARRAYS)
    assert document["tree"]["arrays"]["kind"]["dtype"] == "int8"

    def strings(value):
        if isinstance(value, dict):
            for item in value.values():
                yield from strings(item)
        elif isinstance(value, list):
            for item in value:
                yield from strings(item)
        elif isinstance(value, str):
            yield value

    assert max(len(s) for s in strings(document)) < 100  # no embedded blobs


def test_typed_values_in_the_document(cases):
    by_name = {name: model for name, model, _ in cases}
    schema = model_document(by_name["nominal frame"])["schema"]
    assert schema["kinds"] == ["nominal", "nominal", "nominal", "numeric", "nominal"]
    assert schema["categories"][1] == {"type": "int", "values": [3, 1, 2]}
    assert schema["categories"][2] == {"type": "bool", "values": [False, True]}
    assert schema["categories"][3] is None
    mixed = model_document(by_name["mixed categories"])["schema"]["categories"][0]
    assert mixed == {"type": "mixed", "types": ["int", "int", "str"], "values": [1, 2, "a"]}
    document = model_document(by_name["float classes, params"])
    assert document["classes"] == {"type": "float", "dtype": "float64", "values": [1.0, 2.0, 3.0]}
    assert document["params"]["class_weight"] == {
        "type": "dict",
        "keys": {"type": "float", "values": [1.0, 2.0, 3.0]},
        "values": [2.0, 1.0, 0.5],
    }
    assert document["params"]["categorical_features"] == [False, False, False, True]
    threshold = model_document(by_name["watermelon"])["tree"]["arrays"]["threshold"]["data"]
    assert set(threshold) == {"NaN"}  # subset nodes have no threshold


def test_non_finite_parameter_and_random_state(tmp_path):
    X, y, _ = _numeric(n=60)
    model = CARTClassifier(min_impurity_decrease=np.inf).fit(X, y)
    model.save(tmp_path / "inf.json")
    assert treelearn.load(tmp_path / "inf.json").min_impurity_decrease == np.inf
    model = CARTClassifier(random_state=np.random.RandomState(0), max_features=2).fit(X, y)
    with pytest.warns(UserWarning, match="random_state=RandomState.* saved as None"):
        model.save(tmp_path / "rs.json")
    loaded = treelearn.load(tmp_path / "rs.json")
    assert loaded.random_state is None
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


# -- refused at save time ------------------------------------------------------------
def test_values_json_cannot_hold_are_refused_naming_the_column(tmp_path):
    X = np.array([[1.0], [np.inf], [2.0], [1.0]])
    model = CARTClassifier(categorical_features=[0]).fit(X, [0, 1, 1, 0])
    with pytest.raises(ModelFormatError, match=r"column 'x0'.*inf.*JSON cannot hold exactly"):
        model.save(tmp_path / "m.json")
    day = datetime.date(2024, 1, 1)
    frame = pd.DataFrame({"when": pd.Series([day, day.replace(day=2)] * 3, dtype=object)})
    model = CARTClassifier(categorical_features=["when"]).fit(frame, [0, 1] * 3)
    with pytest.raises(ModelFormatError, match=r"column 'when'.*type date"):
        model.save(tmp_path / "m.json")
    assert list(tmp_path.iterdir()) == []


def test_unfitted_foreign_and_extended_models_are_refused(tmp_path):
    with pytest.raises(NotFittedError):
        CARTClassifier().save(tmp_path / "m.json")

    class MyTree(CARTClassifier):
        pass

    X, y, _ = _numeric(n=40)
    with pytest.raises(ModelFormatError, match="Cannot save a MyTree"):
        save_model(MyTree().fit(X, y), tmp_path / "m.json")
    model = CARTClassifier().fit(X, y)
    model.calibration_ = 1.0
    with pytest.raises(ModelFormatError, match=r"fitted attributes \['calibration_'\]"):
        model.save(tmp_path / "m.json")
    assert list(tmp_path.iterdir()) == []


# -- corrupt files -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def saved(tmp_path_factory, cases):
    """Bytes and document of a saved watermelon model with surrogates."""
    _, model, _ = next(c for c in cases if c[0] == "watermelon surrogate")
    path = tmp_path_factory.mktemp("saved") / "melon.json"
    model.save(path)
    raw = path.read_bytes()
    return raw, json.loads(raw)


def _load_bytes(tmp_path, raw):
    path = tmp_path / "bad.json"
    path.write_bytes(raw)
    return load_model(path)


def _load_document(tmp_path, document):
    return _load_bytes(tmp_path, json.dumps(document, ensure_ascii=False).encode("utf-8"))


def _edited(document, edit):
    copy = json.loads(json.dumps(document))
    edit(copy)
    return copy


def test_the_saved_fixture_loads(tmp_path, saved):
    raw, document = saved
    assert isinstance(_load_bytes(tmp_path, raw), CARTClassifier)
    assert isinstance(_load_document(tmp_path, document), CARTClassifier)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda raw: raw[: len(raw) // 2], r"not valid JSON .*truncated or corrupt"),
        (lambda raw: raw[:-3], r"not valid JSON"),
        (lambda raw: b"", "the file is empty"),
        (lambda raw: b"hello world", r"not valid JSON"),
        (lambda raw: pickle.dumps({"format": "treelearn-model"}), r"not UTF-8 text|not valid JSON"),
        (lambda raw: b"\xff\xfe\x00", "not UTF-8 text"),
        (lambda raw: b"[1, 2, 3]", "JSON list, not an object"),
        (lambda raw: b'{"name": "something else"}', "no 'format' field"),
        (lambda raw: b"[" * 100000 + b"]" * 100000, "nested too deeply|not valid JSON"),
        (
            lambda raw: raw.replace(
                f'"format_version":{FORMAT_VERSION}'.encode(), b'"format_version":NaN'
            ),
            "NaN",
        ),
        (lambda raw: raw.replace(b"{", b'{"format":"x","format":"y",', 1), "repeats the keys"),
    ],
)
def test_unreadable_files(tmp_path, saved, make, message):
    with pytest.raises(ModelFormatError, match=message) as info:
        _load_bytes(tmp_path, make(saved[0]))
    assert "bad.json" in str(info.value) and "not a valid treelearn model file" in str(info.value)


def _set(path, value):
    def edit(document):
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


def _array(name, field="data"):
    return ("tree", "arrays", name, field)


def _shorten(name):
    def edit(document):
        spec = document["tree"]["arrays"][name]
        row = int(np.prod(spec["shape"][1:]))
        spec["data"] = spec["data"][:-row]
        spec["shape"] = [spec["shape"][0] - 1, *spec["shape"][1:]]

    return edit


def _set_item(name, index, value):
    def edit(document):
        document["tree"]["arrays"][name]["data"][index] = value

    return edit


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_set(("format",), "sklearn-pickle"), r"format \"sklearn-pickle\", expected 'treelearn"),
        (
            _set(("format_version",), FORMAT_VERSION + 1),
            rf"format version {FORMAT_VERSION + 1} .*newer than this treelearn reads "
            rf"\(version {FORMAT_VERSION}\); upgrade",
        ),
        (_set(("format_version",), "1"), r"format_version: expected a positive integer"),
        (_set(("format_version",), 0), r"format_version: expected a positive integer"),
        (lambda d: d.pop("schema"), r"lacks the fields \['schema'\]"),
        (_set(("extra",), 1), r"unknown fields \['extra'\]"),
        (_set(("estimator",), "os.system"), r"estimator: \"os.system\" is not an estimator"),
        (_set(("estimator",), "DecisionTreeClassifier"), "is not an estimator a model file"),
        (
            _set(("estimator",), "CARTRegressor"),
            r"CARTRegressor has no parameters \['cf', 'class_weight'\]",
        ),
        (_set(("params", "criterion"), "nonsense"), r"params: criterion='nonsense' is not"),
        (_set(("params", "shell"), "rm -rf"), r"CARTClassifier has no parameters \['shell'\]"),
        (_set(("params", "max_depth"), [1, [2]]), r"params.max_depth\[1\]: expected a number"),
        (_shorten("kind"), r"Invalid tree: kind has shape \(12,\), expected \(13,\)"),
        (_shorten("value"), r"Invalid tree: value has shape"),
        (_shorten("surrogate_agreement"), r"surrogate_agreement has shape"),
        (_set(_array("feature", "shape"), [14]), r"tree.arrays.feature: has 13 values but"),
        (_set(_array("children", "shape"), [12, 1]), r"tree.arrays.children.shape: expected 1"),
        (_set_item("children", 0, 99), r"every child must come after its parent and be a node"),
        (_set_item("children", 1, -5), r"every child must come after its parent"),
        (_set_item("child_ptr", 1, 7), r"Invalid tree"),
        (_set_item("category_child", 0, 4), r"a category map points outside its node's children"),
        (_set_item("feature", 0, 17), r"tests a feature out of range"),
        (_set_item("kind", 0, 9), r"unknown node kinds \[9\]"),
        (_set_item("kind", 0, 300), r"tree.arrays.kind: holds values outside the range of int8"),
        (_set_item("kind", 0, 1.0), r"tree.arrays.kind: holds 1.0 in an array of int8"),
        (_set_item("kind", 0, True), r"holds true in an array of int8"),
        (_set_item("value", 0, "lots"), r"tree.arrays.value: holds \"lots\" in an array of float"),
        (_set_item("value", 0, "Infinity"), r"tree.arrays.value: holds a non-finite number"),
        (_set(_array("kind", "dtype"), "float64"), r"has dtype \"float64\", expected 'int8'"),
        (lambda d: d["tree"]["arrays"].pop("impurity"), r"missing arrays \['impurity'\]"),
        (_set(("tree", "n_classes"), 3), r"n_classes is 3 .* 2 classes"),
        (_set(("tree", "n_features"), 7), r"n_features: is 7 but the schema has 6 columns"),
        (_set(("classes", "values"), ["否", "是", "?"]), r"n_classes is 2 .*3 classes"),
        (_set(("classes", "values"), ["否", "否"]), r"classes: repeats a value"),
        (_set(("classes", "dtype"), "V8"), r"classes.dtype: \"V8\" is not a dtype"),
        (_set(("classes", "dtype"), "int64"), r"classes: its values do not fit dtype int64"),
        (_set(("classes", "type"), "pickle"), r"classes.type: \"pickle\" is not one of"),
        (
            _set(("schema", "categories", 0, "type"), "int"),
            r"schema.categories\[0\] \(column '色泽'\).values\[0\]: holds \"乌黑\" where its "
            r"type says int",
        ),
        (
            _set(("schema", "categories", 0, "values"), ["乌黑", "浅白"]),
            r"node \d+ maps 3 categories, but its column has 2",
        ),
        (
            _set(("schema", "categories", 1, "values"), ["a", "a", "b"]),
            r"schema.categories\[1\] \(column '根蒂'\): repeats a value",
        ),
        (_set(("schema", "kinds", 0), "ordinal"), r"schema.kinds\[0\]: \"ordinal\" is not"),
        (_set(("schema", "names", 1), "色泽"), r"schema.names: repeats a column name"),
        (_set(("schema", "from_frame"), 1), r"schema.from_frame: expected true or false"),
        (
            lambda d: (
                d["schema"]["kinds"].__setitem__(3, "numeric")
                or d["schema"]["categories"].__setitem__(3, None)
            ),
            r"nominal split of a numeric column",
        ),
    ],
)
def test_corrupt_documents(tmp_path, saved, edit, message):
    document = _edited(saved[1], edit)
    with pytest.raises(ModelFormatError, match=message):
        _load_document(tmp_path, document)
    with pytest.raises(ModelFormatError, match="Invalid treelearn model document"):
        model_from_document(document)


def _as_format_version_1(document):
    """``document`` as treelearn wrote it in format version 1: the Tree's node
    indices (int32 since version 2) as int64 arrays."""
    document["format_version"] = 1
    for name in ("feature", "child_ptr", "children", "category_child", "missing_child"):
        assert document["tree"]["arrays"][name]["dtype"] == "int32", name
        document["tree"]["arrays"][name]["dtype"] = "int64"


def test_a_format_version_1_file_loads_as_it_was_saved(tmp_path, cases):
    """Every case saved, rewritten as a version 1 file, loads to the same model
    (arrays, dtypes, predictions); the version 2 dtypes are refused in it."""
    for _name, model, X in cases:
        document = _edited(model_document(model), _as_format_version_1)
        _assert_same_model(model, _load_document(tmp_path, document), X)
        document["tree"]["arrays"]["children"]["dtype"] = "int32"
        with pytest.raises(
            ModelFormatError, match="children: has dtype \"int32\", expected 'int64'"
        ):
            _load_document(tmp_path, document)


def test_a_format_version_1_index_past_int32_is_refused(tmp_path, saved):
    document = _edited(saved[1], _as_format_version_1)
    document["tree"]["arrays"]["feature"]["data"][0] = 2**31
    with pytest.raises(ModelFormatError, match=r"tree: Tree.feature holds 2147483648, outside"):
        _load_document(tmp_path, document)


def test_loading_imports_nothing_named_in_the_file(tmp_path, saved):
    document = _edited(saved[1], _set(("estimator",), "treelearn_evil_module.Payload"))
    with pytest.raises(ModelFormatError, match="nothing named in a file is imported or run"):
        _load_document(tmp_path, document)
    assert "treelearn_evil_module" not in sys.modules


def test_a_threshold_split_of_a_nominal_column_is_refused(tmp_path, cases):
    _, model, _ = next(c for c in cases if c[0] == "numeric")
    document = model_document(model)
    document["schema"]["kinds"][0] = "nominal"
    document["schema"]["categories"][0] = {"type": "float", "values": [0.0, 1.0]}
    with pytest.raises(ModelFormatError, match="threshold split of a nominal column"):
        model_from_document(json.loads(json.dumps(document)))


def test_a_regression_model_has_no_classes(cases):
    _, model, _ = next(c for c in cases if c[0] == "regression")
    document = model_document(model)
    assert document["classes"] is None
    document["classes"] = {"type": "int", "dtype": "int64", "values": [0, 1]}
    with pytest.raises(ModelFormatError, match="classes: must be null for a CARTRegressor"):
        model_from_document(document)


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        treelearn.load(tmp_path / "nowhere.json")


# -- atomic writes ---------------------------------------------------------------------------
def _interrupting(monkeypatch, name, error):
    real = getattr(os, name)

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(os, name, fail)
    return real


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("replace", OSError("disk gone")),
        ("fsync", OSError("I/O error")),
        ("replace", KeyboardInterrupt()),
    ],
)
def test_an_interrupted_save_leaves_the_old_file(tmp_path, monkeypatch, cases, name, error):
    _, old_model, _ = cases[0]
    _, new_model, _ = cases[2]
    path = tmp_path / "model.json"
    old_model.save(path)
    before = path.read_bytes()
    _interrupting(monkeypatch, name, error)
    with pytest.raises(type(error)):
        new_model.save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]
    assert type(treelearn.load(path)) is type(old_model)


def test_a_failed_write_midway_leaves_the_old_file(tmp_path, monkeypatch, cases):
    _, old_model, _ = cases[0]
    path = tmp_path / "model.json"
    old_model.save(path)
    before = path.read_bytes()
    real_open = open

    class Breaking:
        """A file that accepts a few bytes, then fails (a full disk)."""

        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[:100])
            raise OSError(28, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.handle, name)

    def breaking_open(file, *args, **kwargs):
        return Breaking(real_open(file, *args, **kwargs))

    monkeypatch.setattr("builtins.open", breaking_open)
    with pytest.raises(OSError, match="No space left"):
        cases[2][1].save(path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]


def test_save_replaces_and_respects_the_umask(tmp_path, cases):
    path = tmp_path / "model.json"
    cases[0][1].save(path)
    cases[2][1].save(path)
    assert isinstance(treelearn.load(path), CARTRegressor)
    assert [p.name for p in tmp_path.iterdir()] == ["model.json"]
    if os.name == "posix":
        mask = os.umask(0o022)
        os.umask(mask)
        assert path.stat().st_mode & 0o777 == 0o666 & ~mask


def _paths(value, path=()):
    """Paths to every field of a document (the first and last items of long lists)."""
    yield path
    if isinstance(value, dict):
        for key in value:
            yield from _paths(value[key], (*path, key))
    elif isinstance(value, list):
        for i in sorted({0, 1, len(value) - 1} & set(range(len(value)))):
            yield from _paths(value[i], (*path, i))


def test_every_single_edit_fails_cleanly_or_loads(saved):
    """No edit of one field lets anything but ModelFormatError escape (a small fuzzer)."""
    document = saved[1]
    replacements = [None, True, 0, -1, 7, 10**30, 0.5, "x", "NaN", [], [1], ["a"], {}]
    replacements += [{"type": "int", "values": [1]}, {"type": "float", "value": "NaN"}]
    for path in list(_paths(document))[1:]:
        for value in [*replacements, "DELETE"]:
            edited = json.loads(json.dumps(document))
            target = edited
            for key in path[:-1]:
                target = target[key]
            if value == "DELETE":
                del target[path[-1]]
            else:
                target[path[-1]] = value
            with contextlib.suppress(ModelFormatError):
                model_from_document(edited)


def test_id3_round_trip_and_discretized_refusal(data_dir, tmp_path):
    from treelearn import ID3Classifier

    X, y = _watermelon(data_dir)
    model = ID3Classifier(max_depth=3).fit(X, y)
    model.save(tmp_path / "id3.json")
    loaded = treelearn.load(tmp_path / "id3.json")
    assert type(loaded) is ID3Classifier
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.tree_.category_child, model.tree_.category_child)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    frame = pd.read_csv(data_dir / "watermelon3.csv")
    discretized = ID3Classifier(discretize="quantile", n_bins=3).fit(
        frame.drop(columns=["编号", "好瓜"]), frame["好瓜"]
    )
    with pytest.raises(ModelFormatError, match="discretizer_"):
        discretized.save(tmp_path / "discretized.json")
    assert not (tmp_path / "discretized.json").exists()
