"""plot_tree: one box per node, labelled edges, nothing overlapping, CJK text, no mathtext."""

import re
import warnings
from itertools import combinations

import numpy as np
import pytest
from _export_models import EVIL_CLASS, EVIL_NAME, c45_like_model, evil_model, wide_data

from treelearn import CARTClassifier, CARTRegressor, ID3Classifier
from treelearn.datasets import load_dataset
from treelearn.exceptions import ParameterError
from treelearn.export import plot_tree
from treelearn.export._labels import branch_lines
from treelearn.tree import TreeView

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from treelearn.export.plot import cjk_font, font_family  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def artists(ax):
    """{gid: artist} of everything plot_tree drew."""
    found = {}
    for artist in [*ax.patches, *ax.texts, *ax.lines]:
        if artist.get_gid():
            found[artist.get_gid()] = artist
    return found


def ids(found, prefix, suffix=""):
    """Sorted node indices of the gids ``<prefix><index><suffix>``."""
    pattern = re.compile(re.escape(prefix) + r"(\d+)" + re.escape(suffix))
    return sorted(int(m[1]) for gid in found if (m := pattern.fullmatch(gid)))


def test_one_box_per_node_and_one_labelled_edge_per_branch():
    X, y = load_dataset("iris")
    model = CARTClassifier(max_depth=3).fit(X, y)
    view = TreeView(model)
    ax = plot_tree(model)
    found = artists(ax)
    assert ids(found, "node-") == list(range(view.node_count))
    assert ids(found, "node-", "-text") == list(range(view.node_count))
    assert ids(found, "edge-") == list(range(1, view.node_count))
    assert ids(found, "edge-", "-label") == list(range(1, view.node_count))
    for node in view:
        text = found[f"node-{node.index}-text"].get_text().split("\n")
        if node.is_leaf:
            assert text[0].startswith("impurity = ")
        else:
            assert text[0] == node.feature_name
        assert f"samples = {node.n_samples}" in text
        assert text[-1] == f"class = {node.prediction}"
        for branch in view.branches(node.index):
            label = found[f"edge-{branch.child}-label"].get_text()
            assert label == "\n".join(branch_lines(branch, 3))
    assert "<= " in found["edge-1-label"].get_text()
    # The legend names the classes in the order of the counts.
    assert [found[f"legend-{k}-text"].get_text() for k in range(3)] == list(view.classes)
    assert found["legend-0"].get_facecolor() != found["legend-1"].get_facecolor()


def test_multiway_nodes_and_missing_values_by_weight():
    model = c45_like_model()
    found = artists(plot_tree(model, decimals=2))
    assert found["edge-1-label"].get_text() == "= sunny\n+ missing (by weight: 0.36)"
    assert found["edge-2-label"].get_text() == "= overcast\n+ missing (by weight: 0.29)"
    assert found["edge-3-label"].get_text() == "= rainy\n+ missing (by weight: 0.36)"
    assert found["edge-4-label"].get_text() == "<= 75"
    assert found["edge-5-label"].get_text() == "> 75\n+ missing"
    assert found["node-0-text"].get_text().split("\n")[0] == "outlook"
    # Boxes are filled like export_dot's: the majority class's colour.
    yes, no = found["node-2"].get_facecolor(), found["node-5"].get_facecolor()
    assert yes != no


def boxes_in_pixels(ax, gids):
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    found = artists(ax)
    return {gid: found[gid].get_window_extent(renderer) for gid in gids}


def assert_no_overlap(extents):
    for (a, box_a), (b, box_b) in combinations(extents.items(), 2):
        overlap_x = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
        overlap_y = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
        assert overlap_x <= 0.5 or overlap_y <= 0.5, (a, b)


@pytest.mark.parametrize("kind", ["binary", "multiway"])
def test_thirty_leaves_without_overlaps(kind):
    X, y = wide_data()
    if kind == "binary":
        model = CARTClassifier(max_leaf_nodes=30, random_state=0).fit(X, y)
    else:
        model = ID3Classifier(max_depth=3, discretize="quantile", n_bins=3).fit(X, y)
    view = TreeView(model)
    assert view.node_count - len(view.leaves()) >= 8 and len(view.leaves()) >= 25
    ax = plot_tree(model)
    found = artists(ax)
    gids = [g for g in found if g.startswith(("node-", "legend-")) or g.endswith("-label")]
    texts = [g for g in gids if g.endswith(("-text", "-label"))]
    extents = boxes_in_pixels(ax, gids)
    # Boxes, edge labels and legend items: none overlaps another, none leaves the figure.
    assert_no_overlap({g: e for g, e in extents.items() if not g.endswith("-text")})
    figure_box = ax.figure.bbox
    for gid, extent in extents.items():
        assert figure_box.x0 <= extent.x0 and extent.x1 <= figure_box.x1, gid
        assert figure_box.y0 <= extent.y0 and extent.y1 <= figure_box.y1, gid
    # Each node's text lies inside its box.
    for gid in texts:
        if gid.endswith("-text") and not gid.startswith("legend"):
            box, text = extents[gid[: -len("-text")]], extents[gid]
            assert box.x0 <= text.x0 and text.x1 <= box.x1 and box.y0 <= text.y0, gid
            assert text.y1 <= box.y1, gid


def test_max_depth_truncates_and_a_given_ax_holds_the_tree():
    X, y = load_dataset("iris")
    model = CARTClassifier(random_state=0).fit(X, y)
    view = TreeView(model)
    _, ax = plt.subplots(figsize=(6, 4))
    assert plot_tree(model, ax=ax, max_depth=2) is ax
    found = artists(ax)
    drawn = ids(found, "node-")
    assert drawn == sorted(n.index for n in view if n.depth <= 2)
    assert ids(found, "truncated-") == sorted(
        n.index for n in view if n.depth == 2 and not n.is_leaf
    )
    assert found[f"truncated-{ids(found, 'truncated-')[0]}"].get_text() == "(...)"
    # Scaled to the axes: every box inside it.
    extents = boxes_in_pixels(ax, [f"node-{i}" for i in drawn])
    box = ax.get_window_extent()
    for extent in extents.values():
        assert box.x0 - 1 <= extent.x0 and extent.x1 <= box.x1 + 1
        assert box.y0 - 1 <= extent.y0 and extent.y1 <= box.y1 + 1
    assert found["node-0-text"].get_fontsize() < 10
    assert ids(artists(plot_tree(model, max_depth=0)), "node-") == [0]


def test_regression_boxes_are_stronger_for_higher_values():
    X, _ = load_dataset("iris")
    model = CARTRegressor(max_depth=2).fit(X.iloc[:, 1:], X.iloc[:, 0])
    view = TreeView(model)
    found = artists(plot_tree(model, legend=True))
    assert not any(g.startswith("legend") for g in found)
    whiteness = {n.index: sum(found[f"node-{n.index}"].get_facecolor()[:3]) for n in view}
    order = sorted(view, key=lambda n: n.prediction)
    assert whiteness[order[0].index] > whiteness[order[-1].index]
    assert found["node-0-text"].get_text().split("\n")[-1].startswith("value = ")


def test_chinese_labels_use_a_cjk_font_when_one_is_installed():
    X, y = load_dataset("watermelon2")
    model = ID3Classifier().fit(X, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = plot_tree(model)
        ax.figure.canvas.draw()
    found = artists(ax)
    assert found["node-0-text"].get_text().split("\n")[0] == "纹理"
    assert "是" in [found[f"legend-{k}-text"].get_text() for k in range(2)]
    font = cjk_font()
    if font is None:
        pytest.skip("no CJK font installed (install fonts-noto-cjk to check the fallback)")
    assert font in font_family()
    assert font in found["node-0-text"].get_fontfamily()
    assert not [w for w in caught if "missing from font" in str(w.message)]


def test_labels_are_text_not_mathtext_and_options():
    model = evil_model()
    ax = plot_tree(model, node_ids=True, impurity=False)
    ax.figure.canvas.draw()  # "$\\frac{$" would fail to parse as mathtext
    found = artists(ax)
    lines = found["node-0-text"].get_text().split("\n")
    assert lines[:2] == ["node #0", EVIL_NAME]
    assert not any(line.startswith("impurity") for line in lines)
    assert EVIL_CLASS in [found[f"legend-{k}-text"].get_text() for k in range(3)]
    colours = {"ok": "#000000"}
    assert artists(plot_tree(model, class_colors=colours))["legend-1"].get_facecolor()[:3] == (
        0,
        0,
        0,
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_depth": -1}, "max_depth must be None or an integer >= 0"),
        ({"max_depth": 1.5}, "max_depth must be None"),
        ({"fontsize": 0}, "fontsize must be a positive number"),
        ({"fontsize": np.nan}, "fontsize must be a positive number"),
        ({"legend": "yes"}, "legend must be True or False"),
        ({"decimals": -1}, "decimals must be an integer"),
        ({"class_colors": ["red"]}, "class_colors"),
        ({"feature_names": ["a"]}, "feature_names has 1 names"),
    ],
)
def test_parameter_errors(options, message):
    X, y = load_dataset("play_tennis")
    model = CARTClassifier(max_depth=1).fit(X, y)
    with pytest.raises(ParameterError, match=message):
        plot_tree(model, **options)


def test_unfitted_model():
    with pytest.raises(ParameterError, match="plot_tree needs a fitted"):
        plot_tree(CARTClassifier())
