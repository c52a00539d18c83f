"""The engine's dtypes (``treelearn._dtypes``)."""

import numpy as np
from sklearn.datasets import make_classification

from treelearn import CARTClassifier
from treelearn._dtypes import row_index_dtype
from treelearn.growing import _loop_kernels as loop_kernels


def test_row_indices_are_int32_while_they_fit():
    assert row_index_dtype(0) == np.int32
    assert row_index_dtype(2**31 - 1) == np.int32  # (indices up to 2**31 - 2)
    assert row_index_dtype(2**31) == np.int64


def test_the_growing_loop_reads_int32_rows(monkeypatch):
    """The rows in node order, the loop's largest array of a row each but the codes,
    take four bytes a row."""
    seen = []
    grow = loop_kernels.grow_depth_first
    monkeypatch.setattr(
        loop_kernels,
        "grow_depth_first",
        lambda data, *a: seen.append(data[1].dtype) or grow(data, *a),
    )
    X, y = make_classification(500, 4, random_state=0)
    CARTClassifier(n_jobs=1).fit(X, y)
    assert seen == [np.dtype(np.int32)]
