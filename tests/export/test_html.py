"""export_html without a browser: the embedded data, its escaping, the page's policy, writing."""

import base64
import hashlib
import json
import os
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from _export_models import EVIL_CATEGORY, EVIL_CLASS, EVIL_NAME, c45_like_model, evil_model

from treelearn import CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.datasets import load_dataset
from treelearn.exceptions import ParameterError
from treelearn.export import export_html
from treelearn.export.html import script_json, table_data
from treelearn.tree import TreeView


class Page(HTMLParser):
    """The page's elements as the HTML parser sees them: tags, scripts, styles, metas."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.scripts, self.styles, self.metas = [], [], [], []
        self._open = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append(tag)
        if tag == "meta":
            self.metas.append(attrs)
        if tag in ("script", "style"):
            self._open = (tag, attrs, [])

    def handle_data(self, data):
        if self._open:
            self._open[2].append(data)

    def handle_endtag(self, tag):
        if self._open and tag == self._open[0]:
            kind, attrs, parts = self._open
            (self.scripts if kind == "script" else self.styles).append((attrs, "".join(parts)))
            self._open = None


def page_data(page):
    parsed = Page(page)
    blocks = [text for attrs, text in parsed.scripts if attrs.get("type") == "application/json"]
    assert len(blocks) == 1
    return json.loads(blocks[0])


@pytest.fixture(scope="module")
def play_tennis():
    X, y = load_dataset("play_tennis")
    return ID3Classifier().fit(X, y)


def test_the_data_describes_every_node(play_tennis):
    page = export_html(play_tennis)
    assert page.startswith("<!DOCTYPE html>")
    data = page_data(page)
    view = TreeView(play_tennis)
    assert len(data["nodes"]) == view.node_count
    assert data["classes"] == ["no", "yes"] and data["collapse_depth"] == 4
    assert data["title"] == "ID3Classifier"
    assert data["summary"] == "8 nodes, 5 leaves, depth 2, criterion: entropy"
    for node, info in zip(view, data["nodes"], strict=True):
        assert info["id"] == node.index and info["children"] == list(node.children)
        assert info["leaf"] == node.is_leaf and info["depth"] == node.depth
        assert info["value"] == list(node.value)
        assert len(info["path"]) == node.depth
    root = data["nodes"][0]
    assert root["head"] == "outlook" and root["feature"] == "outlook"
    # The impurity decrease of ID3's root split is the textbook's information gain.
    assert dict(root["split"]["stats"])["impurity decrease"] == "0.247"
    assert [b["condition"] for b in root["split"]["branches"]] == [
        "outlook = overcast",
        "outlook = rainy",
        "outlook = sunny",
    ]
    assert root["size"] == view.node_count
    leaf = data["nodes"][1]
    assert leaf["head"] == "class = yes" and leaf["split"] is None
    assert leaf["edge"] == ["= overcast"] and leaf["path"] == ["outlook = overcast"]
    assert leaf["counts"] == ["0", "4"] and leaf["shares"] == ["0", "1"]


def test_watermelon_gain_and_missing_routes_by_weight():
    X, y = load_dataset("watermelon2")
    data = page_data(export_html(ID3Classifier().fit(X, y)))
    assert dict(data["nodes"][0]["split"]["stats"])["impurity decrease"] == "0.381"
    [empty] = [n for n in data["nodes"] if n["stats"][0] == ["samples", "0"]]
    assert empty["lines"] == ["samples = 0 (parent's counts)"]
    assert dict(empty["stats"])["note"].startswith("no training rows")
    c45 = page_data(export_html(c45_like_model(), decimals=2))
    branches = c45["nodes"][0]["split"]["branches"]
    assert [b["missing"] for b in branches] == [
        "by weight (0.36)",
        "by weight (0.29)",
        "by weight (0.36)",
    ]
    assert c45["nodes"][1]["edge"] == ["= sunny", "+ missing (by weight: 0.36)"]
    assert c45["nodes"][5]["path"] == [
        "outlook = sunny (+ missing, by weight: 0.36)",
        "humidity > 75 (+ missing)",
    ]
    assert c45["nodes"][1]["split"]["branches"][1]["missing"] == "yes"


def test_hostile_labels_stay_inside_the_data_block():
    model = evil_model()
    page = export_html(model, title="</title><script>window.__pwned = 3</script>")
    parsed = Page(page)
    # Exactly the page's own two scripts and one style; nothing a label brought.
    assert [attrs.get("type") for attrs, _ in parsed.scripts] == ["application/json", None]
    assert parsed.tags.count("script") == 2 and "img" not in parsed.tags
    assert len(parsed.styles) == 1
    assert page.count("</script>") == 2 and page.count("<script") == 2
    assert "<!--" not in page
    assert "<title>&lt;/title&gt;&lt;script&gt;window.__pwned = 3&lt;/script&gt;</title>" in page
    data = page_data(page)
    assert data["title"] == "</title><script>window.__pwned = 3</script>"
    assert data["nodes"][0]["feature"] == EVIL_NAME
    assert EVIL_CLASS in data["classes"]
    assert any(EVIL_CATEGORY in line for n in data["nodes"] for line in n["edge"])


def test_script_json_escapes_what_could_end_a_script():
    value = {"a": "</script><!-- & \u2028 \ud800 é 纹理"}
    text = script_json(value)
    assert re.fullmatch(r"[\x20-\x7e]*", text)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


def test_the_policy_allows_only_the_pages_own_style_and_script(play_tennis):
    page = export_html(play_tennis)
    parsed = Page(page)
    policy = next(
        m["content"] for m in parsed.metas if m.get("http-equiv") == "Content-Security-Policy"
    )

    def digest(text):
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    script = next(text for attrs, text in parsed.scripts if "type" not in attrs)
    assert f"script-src {digest(script)};" in policy
    assert f"style-src {digest(parsed.styles[0][1])};" in policy
    assert policy.startswith("default-src 'none';")
    # Nothing is fetched: no URL, no external resource.
    assert not re.search(r"https?:|//[a-z]|\bsrc=|@import|url\(", page, re.IGNORECASE)


def test_explain_tables_are_embedded_as_text():
    X, y = load_dataset("play_tennis")
    model = CARTClassifier(max_depth=2).fit(X, y)
    table = pd.DataFrame(
        {
            "attribute": ["outlook", "<b>humidity</b>"],
            "gain": [0.24675, np.nan],
            "chosen": [True, False],
            "n": np.array([14, 7], dtype=np.int64),
        },
        index=pd.Index(["a", "b"], name="key"),
    )
    data = page_data(
        export_html(model, explain_tables={0: table, np.int64(2): table.reset_index()})
    )
    assert data["nodes"][0]["explain"] == {
        "columns": ["attribute", "gain", "chosen", "n"],
        "index": ["a", "b"],
        "rows": [["outlook", "0.247", "yes", "14"], ["<b>humidity</b>", "", "no", "7"]],
    }
    assert data["nodes"][2]["explain"]["index"] is None
    assert data["nodes"][2]["explain"]["columns"][0] == "key"
    assert data["nodes"][1]["explain"] is None
    assert table_data(pd.DataFrame({"x": [1.5]}), 0)["rows"] == [["2"]]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"explain_tables": [pd.DataFrame()]}, "explain_tables must be a mapping"),
        ({"explain_tables": {"root": pd.DataFrame()}}, "keys must be node indices"),
        ({"explain_tables": {99: pd.DataFrame()}}, "names node 99, but the tree has nodes 0 to"),
        ({"explain_tables": {0: {"a": [1]}}}, r"explain_tables\[0\] must be a pandas DataFrame"),
        ({"collapse_depth": -1}, "collapse_depth must be None or an integer >= 0"),
        ({"collapse_depth": True}, "collapse_depth must be None"),
        ({"decimals": "3"}, "decimals must be an integer"),
    ],
)
def test_parameter_errors(play_tennis, options, message):
    with pytest.raises(ParameterError, match=message):
        export_html(play_tennis, **options)


def test_regression_and_bare_trees():
    X, _ = load_dataset("iris")
    model = CARTRegressor(max_depth=2).fit(X.iloc[:, 1:], X.iloc[:, 0])
    data = page_data(export_html(model, collapse_depth=None))
    assert data["classes"] is None and data["collapse_depth"] is None
    assert data["nodes"][1]["lines"][-1].startswith("value = ")
    assert dict(data["nodes"][0]["stats"])["value"] == "5.843"
    bare = page_data(export_html(model.tree_, title="t"))
    assert bare["nodes"][0]["feature"] == f"x{model.tree_.feature[0]}" and bare["title"] == "t"


def test_writes_utf8_atomically(tmp_path, play_tennis, monkeypatch):
    path = tmp_path / "tree.html"
    path.write_text("old page", encoding="utf-8")
    assert export_html(play_tennis, path) is None
    assert path.read_text(encoding="utf-8") == export_html(play_tennis)

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        export_html(play_tennis, str(path), title="new")
    assert path.read_text(encoding="utf-8") == export_html(play_tennis)
    assert [p.name for p in tmp_path.iterdir()] == ["tree.html"]


def test_id3_and_c45_pages_carry_their_explain_tables_by_default(play_tennis):
    data = page_data(export_html(play_tennis))
    root = data["nodes"][0]["explain"]
    assert root["index"] == ["outlook", "temperature", "humidity", "windy"]
    gain = root["columns"].index("information_gain")
    assert [row[gain] for row in root["rows"]] == ["0.247", "0.029", "0.152", "0.048"]
    searched = sorted(play_tennis.split_records_)
    assert [i for i, node in enumerate(data["nodes"]) if node["explain"]] == searched
    # Trees without split records (CART) carry none unless given.
    X, y = load_dataset("play_tennis")
    cart = page_data(export_html(CARTClassifier(max_depth=2).fit(X, y)))
    assert all(node["explain"] is None for node in cart["nodes"])
