"""Small bundled datasets with known answers (no download needed).

- ``watermelon2``: 17 melons, 6 nominal attributes, target ``好瓜`` (8 是, 9 否).
  Zhou Zhihua, *Machine Learning* (2016), table 4.1.
- ``watermelon3``: watermelon 2.0 plus 2 numeric attributes (``密度`` density,
  ``含糖率`` sugar content); same book, table 4.3.
- ``play_tennis``: 14 days, 4 nominal weather attributes, target ``play``
  (9 yes, 5 no). Quinlan (1986), "Induction of Decision Trees", table 1.
- ``play_tennis_numeric``: the same 14 days with ``temperature`` (°F) and
  ``humidity`` (%) as numbers, row for row. Quinlan (1993), *C4.5: Programs
  for Machine Learning*, table 1-1 (Weka's ``weather.numeric.arff``).
- ``iris``: 150 flowers, 4 numeric measurements, target ``species`` (50 of
  each of 3). Fisher (1936), from scikit-learn's bundled copy.

The watermelon tables number their rows in a column ``编号`` ("number"). It
is not a feature: :func:`load_dataset` makes it the index of ``X`` and ``y``
(index name ``编号``), so the book's row numbers stay at hand, e.g.
``X.loc[[1, 2, 3]]``. In the CSV files the target is the last column.

Nominal columns are strings (``windy`` in play tennis is ``bool``), so the
estimators treat them as nominal without any encoding.
"""

from dataclasses import dataclass
from importlib import resources

import pandas as pd

from treelearn.exceptions import ParameterError

__all__ = ["DatasetInfo", "dataset_info", "list_datasets", "load_dataset"]


@dataclass(frozen=True)
class DatasetInfo:
    """What a bundled dataset is.

    Attributes
    ----------
    name : str
        The name :func:`load_dataset` takes.
    title : str
        One-line description.
    source : str
        Where the table comes from.
    target : str
        Name of the target column.
    task : {"classification", "regression"}
    id_column : str or None
        Row-number column of the file, used as the index rather than as a feature.
    """

    name: str
    title: str
    source: str
    target: str
    task: str = "classification"
    id_column: str | None = None


_DATASETS = {
    info.name: info
    for info in (
        DatasetInfo(
            "iris",
            "Iris flowers: 3 species, 4 numeric measurements (cm)",
            "Fisher (1936); scikit-learn's bundled copy",
            "species",
        ),
        DatasetInfo(
            "play_tennis",
            "Play tennis: 14 days, 4 nominal weather attributes",
            "Quinlan (1986), 'Induction of Decision Trees', table 1",
            "play",
        ),
        DatasetInfo(
            "play_tennis_numeric",
            "Play tennis: the same 14 days, temperature and humidity as numbers",
            "Quinlan (1993), C4.5: Programs for Machine Learning, table 1-1",
            "play",
        ),
        DatasetInfo(
            "watermelon2",
            "Watermelon 2.0: 17 melons, 6 nominal attributes (Chinese labels)",
            "Zhou Zhihua, Machine Learning (2016), table 4.1",
            "好瓜",
            id_column="编号",
        ),
        DatasetInfo(
            "watermelon3",
            "Watermelon 3.0: watermelon 2.0 plus density and sugar content (numeric)",
            "Zhou Zhihua, Machine Learning (2016), table 4.3",
            "好瓜",
            id_column="编号",
        ),
    )
}


def list_datasets():
    """Names of the bundled datasets, sorted.

    Returns
    -------
    list of str
    """
    return sorted(_DATASETS)


def dataset_info(name):
    """The :class:`DatasetInfo` of a bundled dataset.

    Raises
    ------
    ParameterError
        If ``name`` is not a bundled dataset (the message lists the names).
    """
    try:
        return _DATASETS[name]
    except (KeyError, TypeError):
        raise ParameterError(
            f"Unknown dataset {name!r}; the bundled datasets are {', '.join(list_datasets())}."
        ) from None


def load_dataset(name, as_frame=True):
    """Load a bundled dataset as features ``X`` and target ``y``.

    Parameters
    ----------
    name : str
        One of :func:`list_datasets`: ``"iris"``, ``"play_tennis"``,
        ``"play_tennis_numeric"``, ``"watermelon2"``, ``"watermelon3"``.
    as_frame : bool, default=True
        Return a DataFrame and a Series (column names, nominal columns as
        strings). With False, numpy arrays: ``X.to_numpy()`` (``object``
        dtype when some column is nominal) and ``y.to_numpy()``.

    Returns
    -------
    X : DataFrame or ndarray of shape (n_samples, n_features)
    y : Series or ndarray of shape (n_samples,)

    Raises
    ------
    ParameterError
        If ``name`` is not a bundled dataset.

    Examples
    --------
    >>> from treelearn.datasets import load_dataset
    >>> X, y = load_dataset("watermelon2")
    >>> X.shape, y.value_counts().to_dict()
    ((17, 6), {'否': 9, '是': 8})
    """
    info = dataset_info(name)
    frame = _iris_frame() if name == "iris" else _read_bundled_csv(name, info.id_column)
    X = frame.drop(columns=[info.target])
    y = frame[info.target]
    if not as_frame:
        return X.to_numpy(), y.to_numpy()
    return X, y


def _read_bundled_csv(name, id_column):
    source = resources.files(__name__).joinpath("data", f"{name}.csv")
    with source.open("r", encoding="utf-8") as handle:
        frame = pd.read_csv(handle)
    if id_column is not None:
        frame = frame.set_index(id_column)
    return frame


def _iris_frame():
    from sklearn.datasets import load_iris

    bunch = load_iris(as_frame=True)
    frame = bunch.data.copy()
    species = bunch.target_names[bunch.target.to_numpy()].tolist()
    frame["species"] = pd.Series(species, index=frame.index)
    return frame
