"""The tidy layout: nothing overlaps, parents sit centred over their children, rows stack."""

from itertools import pairwise

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treelearn.export._layout import tidy_layout


def random_tree(seed, n_nodes, max_children):
    """(children, widths, heights, label heights) of a random tree in which nodes follow parents."""
    rng = np.random.default_rng(seed)
    children, frontier, count = {}, [0], 1
    while frontier and count < n_nodes:
        node = frontier.pop(int(rng.integers(len(frontier))))
        k = int(rng.integers(2, max_children + 1))
        kids = list(range(count, count + k))
        count += k
        children[node] = kids
        frontier.extend(kids)
    widths = {i: float(rng.uniform(10, 80)) for i in range(count)}
    heights = {i: float(rng.uniform(10, 40)) for i in range(count)}
    labels = {i: 0.0 if i == 0 else float(rng.uniform(0, 20)) for i in range(count)}
    return children, widths, heights, labels


def depths(children):
    depth, stack = {0: 0}, [0]
    while stack:
        node = stack.pop()
        for kid in children.get(node, ()):
            depth[kid] = depth[node] + 1
            stack.append(kid)
    return depth


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_nodes=st.integers(1, 120), fan=st.integers(2, 5))
def test_no_overlap_and_centred_parents(seed, n_nodes, fan):
    children, widths, heights, labels = random_tree(seed, n_nodes, fan)
    gap, level_gap = 7.0, 5.0
    layout = tidy_layout(children, widths, heights, labels, gap=gap, level_gap=level_gap)
    depth = depths(children)
    assert set(layout.x) == set(depth)
    rows = {}
    for node, d in depth.items():
        rows.setdefault(d, []).append((layout.x[node] - widths[node] / 2, node))
        assert layout.top[node] == layout.row_top[d]
    for row in rows.values():
        row.sort()
        for (left, a), (next_left, _) in pairwise(row):
            assert left + widths[a] + gap <= next_left + 1e-9
    for node, kids in children.items():
        # In order, centred, and the row below starts below the tallest box and label.
        xs = [layout.x[k] for k in kids]
        assert xs == sorted(xs)
        assert abs(layout.x[node] - (xs[0] + xs[-1]) / 2) < 1e-9
        d = depth[node] + 1
        assert layout.bar[d] >= layout.top[node] + heights[node] + level_gap - 1e-9
        for kid in kids:
            assert layout.top[kid] >= layout.bar[d] + labels[kid] + level_gap - 1e-9
    lefts = [layout.x[n] - widths[n] / 2 for n in depth]
    rights = [layout.x[n] + widths[n] / 2 for n in depth]
    assert abs(min(lefts)) < 1e-9 and abs(max(rights) - layout.width) < 1e-9
    assert layout.height == max(layout.top[n] + heights[n] for n in depth)


def test_a_single_node_and_a_deep_chain():
    layout = tidy_layout({}, {0: 30.0}, {0: 12.0}, {0: 0.0}, gap=5, level_gap=4)
    assert layout.x == {0: 15.0} and layout.width == 30.0 and layout.height == 12.0
    # Deeper than Python's recursion limit.
    n = 1500
    children = {i: [i + 1, i + 2] for i in range(0, 2 * n, 2)}
    count = 2 * n + 1
    sizes = {i: 10.0 for i in range(count)}
    layout = tidy_layout(children, sizes, sizes, sizes, gap=2, level_gap=1)
    assert len(layout.x) == count and len(layout.row_top) == n + 1
