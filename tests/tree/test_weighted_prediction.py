"""C4.5's weighted classification of rows with missing values, against a recursive oracle."""

import numpy as np
import pandas as pd
from _oracles import weighted_distribution_oracle
from hypothesis import given, settings
from hypothesis import strategies as st

from treelearn import C45Classifier


@st.composite
def data_with_holes(draw):
    n = draw(st.integers(12, 60))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    frame = pd.DataFrame(
        {
            "x": rng.integers(0, 6, n).astype(float),
            "colour": rng.choice(["red", "green", "blue"], n),
            "z": rng.normal(size=n).round(1),
        }
    )
    y = np.where(frame.x + (frame.colour == "red") * 2 + frame.z > 3, "a", "b")
    y[rng.random(n) < 0.15] = "c"
    holes = rng.random(frame.shape) < draw(st.sampled_from([0.0, 0.1, 0.3]))
    frame = frame.mask(holes)
    return frame, y, rng


@settings(max_examples=40, deadline=None)
@given(data_with_holes())
def test_predict_proba_is_the_recursive_weighted_combination(data):
    frame, y, rng = data
    if frame.isna().all().any():
        return
    model = C45Classifier(min_samples_leaf=1).fit(frame, y)
    probe = frame.sample(frac=1.0, random_state=0).reset_index(drop=True)
    probe = probe.mask(rng.random(probe.shape) < 0.3)
    proba = model.predict_proba(probe)
    matrix = model._prediction_matrix(probe)
    expected = np.array([weighted_distribution_oracle(model.tree_, row) for row in matrix])
    np.testing.assert_allclose(proba, expected, atol=1e-12)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (model.predict(probe) == model.classes_[proba.argmax(axis=1)]).all()
