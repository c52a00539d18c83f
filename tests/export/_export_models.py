"""Models shared by the picture and HTML tests: a C4.5-like hand-built tree and hostile labels."""

from types import SimpleNamespace

import numpy as np
import pandas as pd

from treelearn import CARTClassifier
from treelearn._dtypes import MISSING_BY_WEIGHT, NO_CHILD, NODE_MULTIWAY, NODE_THRESHOLD
from treelearn.data.schema import FeatureSchema
from treelearn.tree import TreeBuilder

EVIL_NAME = "<script>window.__pwned = 1</script>"
EVIL_CATEGORY = '"a" -> b </script><img src=x onerror="window.__pwned = 2">'
EVIL_CLASS = "</script><!-- $\\frac{$ & more"


def as_model(tree, names, categories, classes=None):
    """A stand-in for a fitted estimator: the tree with its feature schema and classes."""
    kinds = tuple("numeric" if c is None else "nominal" for c in categories)
    schema = FeatureSchema(tuple(names), kinds, tuple(categories), from_frame=True)
    if classes is None and tree.n_classes:
        classes = np.arange(tree.n_classes)
    return SimpleNamespace(tree_=tree, feature_schema_=schema, classes_=classes)


def c45_like_model():
    """A multiway tree with a threshold node and missing values split by weight::

    node 0: outlook (multiway; missing by weight; "fog" unseen)      14 rows
      = sunny     -> node 1: humidity <= 75 ? (missing -> right)   5 rows
                       node 4: leaf [0, 2]     node 5: leaf [3, 0]
      = overcast  -> node 2: leaf [0, 4]
      = rainy     -> node 3: leaf [2, 3]
    """
    b = TreeBuilder(n_features=2, n_classes=2)
    root = b.add_node([5, 9], 14, 14.0, 0.940)
    sunny = b.add_node([3, 2], 5, 5.0, 0.971)
    overcast = b.add_node([0, 4], 4, 4.0, 0.0)
    rainy = b.add_node([2, 3], 5, 5.0, 0.971)
    b.set_split(
        root,
        0,
        NODE_MULTIWAY,
        [sunny, overcast, rainy],
        MISSING_BY_WEIGHT,
        category_child=[0, 1, 2, NO_CHILD],
    )
    humid_low = b.add_node([0, 2], 2, 2.0, 0.0)
    humid_high = b.add_node([3, 0], 3, 3.0, 0.0)
    b.set_split(sunny, 1, NODE_THRESHOLD, [humid_low, humid_high], 1, threshold=75.0)
    return as_model(
        b.build(),
        ["outlook", "humidity"],
        [("sunny", "overcast", "rainy", "fog"), None],
        classes=np.array(["no", "yes"], dtype=object),
    )


def evil_model():
    """A fitted tree whose feature name, categories and classes hold markup, quotes and ``$``."""
    X = pd.DataFrame(
        {
            EVIL_NAME: [EVIL_CATEGORY, "plain", "c\\d{|}", EVIL_CATEGORY, "plain", "c\\d{|}"] * 3,
            "x": np.arange(18.0),
        }
    )
    y = np.array([EVIL_CLASS, "ok", EVIL_CLASS, EVIL_CLASS, "ok", "z"] * 3)
    return CARTClassifier(max_depth=2).fit(X, y)


def wide_data(seed=0, n=400):
    """Nominal and numeric columns with a target that needs many leaves."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "颜色": rng.choice(["青绿", "乌黑", "浅白", "红"], n),
            "shape": rng.choice(list("abcde"), n),
            "weight (kg)": rng.normal(5, 2, n).round(2),
            "length": rng.normal(0, 1, n).round(2),
        }
    )
    signal = (X["颜色"] == "青绿") ^ (X["weight (kg)"] > 5) ^ (X["shape"].isin(["a", "b"]))
    y = np.where(rng.random(n) < 0.15, ~signal, signal)
    return X, np.where(y, "是", "否")
