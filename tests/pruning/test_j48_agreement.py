"""C4.5's error-based pruning against Weka's J48 (Weka 3.6.14, ``-C 0.25 -M 2``).

The ARFF files are the example datasets shipped with Weka (Debian package
``weka``, in ``/usr/share/doc/weka/examples``, or the folder named by
``TREELEARN_WEKA_DATA``; UCI data, not copied into this repository); without
them these tests skip. J48's numbers were measured with
``java weka.classifiers.trees.J48 -t FILE -no-cv -C 0.25 -M 2`` (pruned) and
``-U -M 2`` (unpruned; J48 still applies C4.5's collapse rule). Here the tree
is grown by ``C45Classifier`` (Release 8's growth), then cut by C4.5's collapse
rule and pruned by :func:`prune_error_based` with its defaults (cf = 0.25,
subtree raising, the exact normal deviate as J48 uses): the same number of
leaves and nodes, and the same training accuracy, on nominal data without
missing values, with missing values (fractional cases), and numeric data.
"""

import os
from pathlib import Path

import pytest

from treelearn import C45Classifier
from treelearn.data.readers import read_arff
from treelearn.pruning import prune_collapse, prune_error_based

DATA = Path(os.environ.get("TREELEARN_WEKA_DATA", "/usr/share/doc/weka/examples"))

#: name: (J48 -U leaves/size, J48 leaves/size, J48 training accuracy %)
J48 = {
    "weather.nominal": ((5, 8), (5, 8), 100.0),
    "contact-lenses": ((4, 7), (4, 7), 91.6667),
    "vote": ((19, 37), (6, 11), 97.2414),
    "breast-cancer": ((152, 179), (4, 6), 75.8741),
    "labor": ((13, 22), (3, 5), 87.7193),
    "iris": ((5, 9), (5, 9), 98.0),
    "diabetes": ((22, 43), (20, 39), 84.1146),
    "glass": ((30, 59), (30, 59), 96.2617),
    "ionosphere": ((18, 35), (18, 35), 99.7151),
    "soybean": ((121, 175), (61, 93), 96.3397),
    "credit-g": ((359, 466), (103, 140), 85.5),
}


def load(name):
    """An ARFF file read by treelearn's reader (nominal columns as categories in
    declared order, ``?`` missing) and its last column as the target."""
    path = DATA / f"{name}.arff"
    if not path.exists():
        pytest.skip(f"{path} not found: install Debian's weka or set TREELEARN_WEKA_DATA")
    frame = read_arff(path)
    return frame.iloc[:, :-1], frame.iloc[:, -1]


@pytest.mark.parametrize("name", list(J48))
def test_same_tree_size_as_j48(name):
    X, y = load(name)
    (unpruned_leaves, unpruned_size), (leaves, size), accuracy = J48[name]
    collapsed = prune_collapse(C45Classifier(pruning=None, collapse=False).fit(X, y))
    assert (collapsed.get_n_leaves(), collapsed.tree_.node_count) == (
        unpruned_leaves,
        unpruned_size,
    )
    pruned = prune_error_based(collapsed, X, y)
    assert (pruned.get_n_leaves(), pruned.tree_.node_count) == (leaves, size)
    assert 100 * pruned.score(X, y) == pytest.approx(accuracy, abs=1e-4)
    # The estimator's own defaults are J48's: collapse, then error-based pruning.
    unpruned = C45Classifier(pruning=None).fit(X, y)
    assert (unpruned.get_n_leaves(), unpruned.tree_.node_count) == (
        unpruned_leaves,
        unpruned_size,
    )
    default = C45Classifier().fit(X, y)
    assert (default.get_n_leaves(), default.tree_.node_count) == (leaves, size)
    assert 100 * default.score(X, y) == pytest.approx(accuracy, abs=1e-4)
