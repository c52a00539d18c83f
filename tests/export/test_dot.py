"""export_dot: structure, colours, missing routes, and labels that cannot escape."""

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from treelearn import CARTClassifier, CARTRegressor
from treelearn._dtypes import MISSING_BY_WEIGHT, NO_CHILD, NODE_MULTIWAY, NODE_THRESHOLD
from treelearn.data.schema import FeatureSchema
from treelearn.datasets import load_dataset
from treelearn.exceptions import ParameterError
from treelearn.export import export_dot
from treelearn.export._labels import escape_dot_string, escape_html
from treelearn.export.dot import PALETTE, _tint
from treelearn.tree import TreeBuilder, TreeView

NODE_LINE = re.compile(r'^(\d+) \[label=<(.*)>, fillcolor="(#[0-9a-f]{6})"\];$')
EDGE_LINE = re.compile(r"^(\d+) -> (\d+) \[label=<(.*)>\];$")
EVIL_NAME = "<script>alert(1)</script>"
EVIL_CATEGORY = '"a" -> b'


def parse(dot):
    """{node: (label, colour)} and [(parent, child, label)], checking every line's shape."""
    lines = dot.splitlines()
    assert lines[0] == "digraph Tree {" and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[4:-1]:
        if match := NODE_LINE.match(line):
            nodes[int(match[1])] = (match[2], match[3])
        else:
            match = EDGE_LINE.match(line)
            assert match, line
            edges.append((int(match[1]), int(match[2]), match[3]))
    for label in [label for label, _ in nodes.values()] + [e[2] for e in edges]:
        # Only our own tags inside a label; every other "<" ">" "&" is an entity.
        text = re.sub(r"<BR/>|</?B>", "", label)
        assert "<" not in text and ">" not in text
        assert re.fullmatch(r"([^&]|&(lt|gt|amp|quot|#\d+);)*", text), label
    return nodes, edges


def evil_model():
    """A fitted tree whose feature name, categories and classes hold markup and quotes."""
    X = pd.DataFrame(
        {
            EVIL_NAME: [EVIL_CATEGORY, "c\\d{|}", "plain", EVIL_CATEGORY, "plain", "c\\d{|}"] * 3,
            "x": np.arange(18.0),
        }
    )
    y = np.array(['say "hi"', "line\nbreak", 'say "hi"', 'say "hi"', "line\nbreak", "z"] * 3)
    return CARTClassifier(max_depth=2).fit(X, y)


def test_labels_are_escaped():
    model = evil_model()
    dot = export_dot(model)
    nodes, edges = parse(dot)
    assert EVIL_NAME not in dot and "<script" not in dot and '"a"' not in dot
    assert "<B>&lt;script&gt;alert(1)&lt;/script&gt;</B>" in dot
    assert "&quot;a&quot; -&gt; b" in dot
    assert "c&#92;d&#123;&#124;&#125;" in dot
    assert "say &quot;hi&quot;" in dot
    # A newline in a label is shown as its escape, so that a label stays on one line.
    assert "class = line&#92;nbreak" in dot
    assert "\nbreak" not in dot
    assert len(nodes) == model.tree_.node_count and len(edges) == model.tree_.node_count - 1


@pytest.mark.parametrize(
    ("text", "html", "dot"),
    [
        (
            '<a href="x">&</a>',
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;",
            '<a href=\\"x\\">&</a>',
        ),
        ("{a|b}\\", "&#123;a&#124;b&#125;&#92;", "{a|b}\\\\"),
        ("one\ntwo\tthree\x00", "one<BR/>two three\ufffd", "one\\ntwo three\ufffd"),
        ("it's 浅白", "it&#39;s 浅白", "it's 浅白"),
    ],
)
def test_escaping_helpers(text, html, dot):
    assert escape_html(text) == html
    assert escape_dot_string(text) == dot


def test_structure_and_colours_of_a_classification_tree():
    X, y = load_dataset("play_tennis")
    model = CARTClassifier(max_depth=2).fit(X, y)
    nodes, edges = parse(export_dot(model))
    tree = model.tree_
    assert sorted(nodes) == list(range(tree.node_count))
    assert sorted((p, c) for p, c, _ in edges) == sorted(
        (p, int(c)) for p in range(tree.node_count) for c in tree.children_of(p)
    )
    root_label, root_colour = nodes[0]
    assert root_label.startswith("<B>outlook</B><BR/>impurity = 0.459<BR/>samples = 14")
    assert "value = [no: 5, yes: 9]<BR/>class = yes" in root_label
    # A pure node has the strongest tint of its class colour; "yes" is the second class.
    pure = next(n for n in range(tree.node_count) if tree.value[n].tolist() == [0.0, 4.0])
    assert nodes[pure][1] == _tint(PALETTE[1], 0.85)
    # The root (9 of 14) is lighter than the pure node, in the same hue.
    assert root_colour != nodes[pure][1]
    labels = {(p, c): label for p, c, label in edges}
    left, right = tree.children_of(0)
    assert labels[(0, left)] == "in &#123;rainy, sunny&#125;<BR/>+ missing"
    assert labels[(0, right)] == "in &#123;overcast&#125;"


def test_class_colors():
    X, y = load_dataset("play_tennis")
    model = CARTClassifier(max_depth=1).fit(X, y)
    nodes, _ = parse(export_dot(model, class_colors=["#000000", "#FF0000"]))
    pure = next(n for n, (label, _) in nodes.items() if "yes: 4]" in label)
    assert nodes[pure][1] == _tint("#ff0000", 0.85)
    nodes, _ = parse(export_dot(model, class_colors={"yes": "#00ff00"}))
    assert nodes[pure][1] == _tint("#00ff00", 0.85)
    for bad, message in [
        (["#000000"], "has 1 colours but the tree has 2 classes"),
        (["#000000", 'red"];evil'], r"class_colors\[1\] must be a colour"),
        ({"maybe": "#000000"}, "names 'maybe', which is not a class"),
        ("#000000", "must be a sequence of colours"),
    ]:
        with pytest.raises(ParameterError, match=message):
            export_dot(model, class_colors=bad)
    with pytest.raises(ParameterError, match="decimals must be an integer"):
        export_dot(model, decimals=-2)
    with pytest.raises(ParameterError, match="export_dot needs a fitted"):
        export_dot(CARTClassifier())


def multiway_tree():
    b = TreeBuilder(n_features=1, n_classes=2)
    root = b.add_node([4, 3], 7, 7.0, 0.49)
    kids = [b.add_node(v, sum(v), float(sum(v)), 0.0) for v in ([4, 0], [0, 2], [0, 1])]
    b.set_split(
        root, 0, NODE_MULTIWAY, kids, MISSING_BY_WEIGHT, category_child=[0, 1, 2, 1, NO_CHILD]
    )
    tree = b.build()
    schema = FeatureSchema(
        ("outlook",), ("nominal",), (("sunny", "overcast", "rainy", "fog", "snow"),), True
    )
    return SimpleNamespace(tree_=tree, feature_schema_=schema, classes_=np.array(["no", "yes"]))


def test_multiway_edges_and_missing_by_weight():
    _, edges = parse(export_dot(multiway_tree(), decimals=2))
    assert [label for _, _, label in edges] == [
        "= sunny<BR/>+ missing (by weight: 0.57)",
        "in &#123;overcast, fog&#125;<BR/>+ missing (by weight: 0.29)",
        "= rainy<BR/>+ missing (by weight: 0.14)",
    ]


def surrogate_tree():
    b = TreeBuilder(n_features=2, n_classes=2)
    root = b.add_node([3, 3], 6, 6.0, 0.5)
    left = b.add_node([3, 0], 3, 3.0, 0.0)
    right = b.add_node([0, 3], 3, 3.0, 0.0)
    surrogates = [(1, NODE_THRESHOLD, 3.0, 1, (), 0.9, 0.8)]
    b.set_split(root, 0, NODE_THRESHOLD, [left, right], 1, threshold=1.0, surrogates=surrogates)
    return b.build()


def test_surrogates_and_renamed_features():
    view = TreeView(surrogate_tree(), feature_names=["age", "income & tax"])
    nodes, edges = parse(export_dot(view))
    assert nodes[0][0].startswith("<B>age</B><BR/>surrogates: income &amp; tax<BR/>")
    assert [label for _, _, label in edges] == ["&lt;= 1", "&gt; 1<BR/>+ missing"]


def test_regression_tree():
    X, _ = load_dataset("iris")
    model = CARTRegressor(max_depth=2).fit(X.iloc[:, 1:], X.iloc[:, 0])
    nodes, _ = parse(export_dot(model, decimals=2))
    values = model.tree_.value[:, 0]
    assert nodes[0][0].endswith(f"value = {round(float(values[0]), 2):g}")
    highest, lowest = int(np.argmax(values)), int(np.argmin(values))
    assert nodes[highest][1] == _tint(PALETTE[0], 0.85)
    assert nodes[lowest][1] == _tint(PALETTE[0], 0.08)
    nodes, _ = parse(export_dot(model, class_colors="#123456"))
    assert nodes[highest][1] == _tint("#123456", 0.85)
    with pytest.raises(ParameterError, match="one colour '#rrggbb'"):
        export_dot(model, class_colors=["#123456"])


def test_weights_are_shown_when_they_differ_from_rows():
    b = TreeBuilder(n_features=1, n_classes=3)
    b.add_node([0.5, 2.0, 0.25], 3, 2.75, 0.5)
    nodes, edges = parse(export_dot(b.build()))
    assert edges == []
    assert nodes[0][0] == (
        "impurity = 0.5<BR/>samples = 3, weight = 2.75<BR/>value = [0: 0.5, 1: 2, 2: 0.25]"
        "<BR/>class = 1"
    )


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_graphviz_accepts_the_output(tmp_path, data_dir):
    data = pd.read_csv(data_dir / "watermelon2.csv").drop(columns="编号")
    X, y = load_dataset("iris")
    models = {
        "watermelon": CARTClassifier().fit(data.drop(columns="好瓜"), data["好瓜"]),
        "iris": CARTClassifier(max_depth=4).fit(X, y),
        "regression": CARTRegressor(max_depth=3).fit(X.iloc[:, 1:], X.iloc[:, 0]),
        "multiway": multiway_tree(),
        "surrogates": surrogate_tree(),
        "evil": evil_model(),
    }
    for name, model in models.items():
        source = tmp_path / f"{name}.dot"
        source.write_text(export_dot(model), encoding="utf-8")
        result = subprocess.run(
            ["dot", "-Tsvg", str(source)], capture_output=True, timeout=60, check=False
        )
        assert result.returncode == 0, (name, result.stderr.decode())
        assert b"Warning" not in result.stderr and b"Error" not in result.stderr, name
        svg = ET.fromstring(result.stdout)
        tags = {element.tag.rsplit("}", 1)[-1] for element in svg.iter()}
        assert "script" not in tags
        if name == "evil":
            texts = [element.text or "" for element in svg.iter() if element.tag.endswith("text")]
            assert EVIL_NAME in texts
            assert any(EVIL_CATEGORY in text for text in texts)
