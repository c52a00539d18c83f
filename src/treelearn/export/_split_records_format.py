"""The ``split_records`` field of a model file: what ID3 and C4.5 weighed at each node.

Layout (every array as in :mod:`treelearn.export._json_values`), for ``k``
searched nodes and ``d`` features::

    "split_records": {
      "nodes":         int64 (k,)       node index of each record, increasing
      "features":      int64 (k,)       feature chosen there, -1 for none
      "rules":         [str] * k        "gain_ratio", "entropy" or "gini"
      "average_gain":  float64 (k,)     C4.5's average gain ("NaN" for other rules)
      "in_average":    int8 (k, d)      C4.5's rule per feature: 1, 0, or -1 (no such rule)
      "above_average": int8 (k, d)      likewise
      "tables":        float64 (k, d, N_CAND)
      "pruned":        int8 (k,)        1 where the node's split was pruned away
    }

See :class:`~treelearn.splitting.gain_ratio.SplitRecord` and
:mod:`treelearn.splitting._gain_ratio_kernels` for what the numbers are.
"""

import numpy as np

from treelearn.export._json_values import Invalid, decode_array, encode_array, require
from treelearn.splitting._gain_ratio_kernels import N_CAND
from treelearn.splitting.gain_ratio import SplitRecord

RULES = ("gain_ratio", "entropy", "gini")
_FIELDS = (
    "nodes",
    "features",
    "rules",
    "average_gain",
    "in_average",
    "above_average",
    "tables",
    "pruned",
)


def encode_split_records(records, n_features):
    """The JSON-ready ``split_records`` object of ``{node: SplitRecord}``."""
    nodes = sorted(records)
    ordered = [records[node] for node in nodes]

    def flags(name):
        rows = [getattr(r, name) for r in ordered]
        return np.array(
            [
                np.full(n_features, -1) if row is None else np.asarray(row, dtype=np.int8)
                for row in rows
            ],
            dtype=np.int8,
        ).reshape(len(nodes), n_features)

    return {
        "nodes": encode_array(np.array(nodes, dtype=np.int64)),
        "features": encode_array(np.array([r.feature for r in ordered], dtype=np.int64)),
        "rules": [r.rule for r in ordered],
        "average_gain": encode_array(np.array([r.average_gain for r in ordered], dtype=float)),
        "in_average": encode_array(flags("in_average")),
        "above_average": encode_array(flags("above_average")),
        "pruned": encode_array(np.array([r.pruned for r in ordered], dtype=np.int8)),
        "tables": encode_array(
            np.array([r.table for r in ordered], dtype=float).reshape(
                len(nodes), n_features, N_CAND
            )
        ),
    }


def decode_split_records(spec, node_count, n_features):
    """``{node: SplitRecord}`` from a ``split_records`` object, every field checked."""
    where = "split_records"
    require(spec, dict, where, "an object")
    if set(spec) != set(_FIELDS):
        raise Invalid(where, f"expected the fields {sorted(_FIELDS)}, got {sorted(spec)}")
    nodes = decode_array(spec["nodes"], f"{where}.nodes", np.int64, 1)
    k = nodes.shape[0]
    if np.any(np.diff(nodes) <= 0) or (k and (nodes[0] < 0 or nodes[-1] >= node_count)):
        raise Invalid(
            f"{where}.nodes", f"expected increasing node indices in [0, {node_count - 1}]"
        )
    features = decode_array(spec["features"], f"{where}.features", np.int64, 1)
    average = decode_array(spec["average_gain"], f"{where}.average_gain", np.float64, 1)
    rules = require(spec["rules"], list, f"{where}.rules", "a list of rule names")
    flags = {
        name: decode_array(spec[name], f"{where}.{name}", np.int8, 2)
        for name in ("in_average", "above_average")
    }
    tables = decode_array(spec["tables"], f"{where}.tables", np.float64, 3)
    pruned = decode_array(spec["pruned"], f"{where}.pruned", np.int8, 1)
    shapes = {
        "features": (features.shape, (k,)),
        "average_gain": (average.shape, (k,)),
        "in_average": (flags["in_average"].shape, (k, n_features)),
        "above_average": (flags["above_average"].shape, (k, n_features)),
        "tables": (tables.shape, (k, n_features, N_CAND)),
        "pruned": (pruned.shape, (k,)),
    }
    for name, (shape, expected) in shapes.items():
        if shape != expected:
            raise Invalid(f"{where}.{name}", f"has shape {list(shape)}, expected {list(expected)}")
    if len(rules) != k or any(rule not in RULES for rule in rules):
        raise Invalid(f"{where}.rules", f"expected {k} names among {list(RULES)}")
    if np.any((features < -1) | (features >= n_features)):
        raise Invalid(f"{where}.features", f"expected feature indices in [-1, {n_features - 1}]")
    for name, values in flags.items():
        if np.any((values < -1) | (values > 1)):
            raise Invalid(f"{where}.{name}", "expected the values -1, 0 and 1")
    if np.any((pruned < 0) | (pruned > 1)):
        raise Invalid(f"{where}.pruned", "expected the values 0 and 1")
    records = {}
    for j in range(k):
        in_average, above = (flags[name][j] for name in ("in_average", "above_average"))
        records[int(nodes[j])] = SplitRecord(
            tables[j],
            int(features[j]),
            rules[j],
            float(average[j]),
            None if (in_average < 0).any() else in_average.astype(bool),
            None if (above < 0).any() else above.astype(bool),
            bool(pruned[j]),
        )
    return records
