"""save_image: SVG, PNG and PDF by extension, Graphviz on request, written atomically."""

import os
import shutil
import struct
import xml.etree.ElementTree as ET

import pytest
from _export_models import EVIL_CATEGORY, EVIL_CLASS, EVIL_NAME, evil_model

from treelearn import CARTClassifier, ID3Classifier
from treelearn.datasets import load_dataset
from treelearn.exceptions import ParameterError
from treelearn.export import export_dot, save_image
from treelearn.tree import TreeView

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def watermelon():
    X, y = load_dataset("watermelon2")
    return ID3Classifier().fit(X, y)


def svg_texts(root):
    return ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]


def test_svg_holds_one_group_per_node_and_the_labels_as_text(tmp_path, watermelon):
    pytest.importorskip("matplotlib")
    path = tmp_path / "tree.svg"
    assert save_image(watermelon, path) is None
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    view = TreeView(watermelon)
    groups = {element.get("id") for element in root.iter(f"{SVG}g")}
    assert {f"node-{i}" for i in range(view.node_count)} <= groups
    assert f"node-{view.node_count}" not in groups
    assert sum(1 for g in groups if g and g.startswith("edge-") and g.endswith("-label")) == (
        view.node_count - 1
    )
    texts = svg_texts(root)
    assert "否" in texts and "是" in texts  # the legend
    assert "纹理" in texts and "= 清晰" in texts and "+ missing" in texts
    assert sum(t.startswith("samples = ") for t in texts) == view.node_count
    # Made twice, the same bytes (no date, fixed ids).
    save_image(watermelon, tmp_path / "again.svg")
    assert (tmp_path / "again.svg").read_bytes() == path.read_bytes()


def test_svg_escapes_hostile_labels(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "evil.svg"
    save_image(evil_model(), path)
    raw = path.read_text(encoding="utf-8")
    assert "<script" not in raw and "<img" not in raw and "<!--" not in raw.split("<svg", 1)[1]
    texts = svg_texts(ET.fromstring(raw))
    assert EVIL_NAME in texts and EVIL_CLASS in texts
    assert any(EVIL_CATEGORY in text for text in texts)


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_png_and_pdf(tmp_path, watermelon):
    pytest.importorskip("matplotlib")
    save_image(watermelon, tmp_path / "a.PNG", dpi=100)
    save_image(watermelon, tmp_path / "b.png", dpi=200)
    small, large = (
        png_size((tmp_path / "a.PNG").read_bytes()),
        png_size((tmp_path / "b.png").read_bytes()),
    )
    assert small[0] > 300 and small[1] > 300
    assert abs(large[0] - 2 * small[0]) <= 2 and abs(large[1] - 2 * small[1]) <= 2
    pdf = (tmp_path / "c.pdf").resolve()
    save_image(watermelon, str(pdf))
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")


def test_dot_file_is_export_dot(tmp_path, watermelon):
    save_image(watermelon, tmp_path / "tree.dot", decimals=2)
    assert (tmp_path / "tree.dot").read_text(encoding="utf-8") == export_dot(watermelon, decimals=2)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_engine(tmp_path, watermelon):
    save_image(watermelon, tmp_path / "tree.svg", engine="graphviz")
    root = ET.parse(tmp_path / "tree.svg").getroot()
    texts = " ".join(svg_texts(root))
    assert "纹理" in texts and "class = 是" in texts
    view = TreeView(watermelon)
    nodes = [g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]
    assert len(nodes) == view.node_count
    save_image(watermelon, tmp_path / "tree.png", engine="graphviz")
    png_size((tmp_path / "tree.png").read_bytes())


def test_graphviz_missing(tmp_path, watermelon, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(FileNotFoundError, match="needs Graphviz's 'dot' program"):
        save_image(watermelon, tmp_path / "tree.svg", engine="graphviz")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("path", "options", "message"),
    [
        ("tree.bmp", {}, r"must end with one of \.svg, \.png, \.pdf, \.dot \(got '\.bmp'\)"),
        ("tree", {}, "got 'no extension'"),
        ("tree.svg", {"engine": "cairo"}, "engine must be 'matplotlib' or 'graphviz'"),
        ("tree.svg", {"engine": "graphviz", "max_depth": 2}, "max_depth applies to pictures"),
        ("tree.dot", {"fontsize": 8, "legend": False}, "fontsize, legend apply to pictures"),
        ("tree.png", {"dpi": 0}, "dpi must be a positive number"),
        ("tree.png", {"max_depth": -2}, "max_depth must be None"),
    ],
)
def test_errors_write_nothing(tmp_path, watermelon, path, options, message):
    if path == "tree.png":
        pytest.importorskip("matplotlib")
    with pytest.raises(ParameterError, match=message):
        save_image(watermelon, tmp_path / path, **options)
    assert list(tmp_path.iterdir()) == []


def test_replaces_atomically(tmp_path, monkeypatch):
    matplotlib = pytest.importorskip("matplotlib")
    X, y = load_dataset("play_tennis")
    model = CARTClassifier(max_depth=1).fit(X, y)
    path = tmp_path / "tree.png"
    path.write_bytes(b"old picture")
    save_image(model, path)
    png_size(path.read_bytes())
    first = path.read_bytes()

    def fail(*args, **kwargs):
        raise RuntimeError("disk full")

    # A failure while drawing, or while writing, leaves the old file and no temporary file.
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", fail)
    with pytest.raises(RuntimeError, match="disk full"):
        save_image(model, path)
    monkeypatch.undo()
    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(RuntimeError, match="disk full"):
        save_image(model, path, dpi=300)
    assert path.read_bytes() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tree.png"]
