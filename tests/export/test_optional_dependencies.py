"""matplotlib is optional: treelearn imports without it, and its absence is explained."""

import subprocess
import sys

import pytest

from treelearn import CARTClassifier
from treelearn.datasets import load_dataset
from treelearn.export import plot_tree, save_image


def test_importing_treelearn_does_not_import_matplotlib():
    code = (
        "import sys, treelearn, treelearn.export, treelearn.export.image, treelearn.export.html\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_without_matplotlib_the_error_says_how_to_install_it(monkeypatch, tmp_path):
    X, y = load_dataset("play_tennis")
    model = CARTClassifier(max_depth=1).fit(X, y)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    install = r'pip install "treelearn\[plot\]"'
    with pytest.raises(ImportError, match=rf"plot_tree needs matplotlib.*{install}"):
        plot_tree(model)
    with pytest.raises(ImportError, match=rf"save_image needs matplotlib.*{install}"):
        save_image(model, tmp_path / "tree.png")
    assert list(tmp_path.iterdir()) == []
    # DOT text needs neither matplotlib nor Graphviz.
    save_image(model, tmp_path / "tree.dot")
    assert (tmp_path / "tree.dot").read_text(encoding="utf-8").startswith("digraph Tree {")
