"""Where to draw each node of a tree: a tidy top-down layout for binary and multiway trees.

Horizontal
    A Reingold–Tilford-style layout (Reingold and Tilford 1981): every
    subtree is laid out on its own, its *contour* kept as the leftmost and
    rightmost extent of each of its rows; a node's subtrees are then placed
    left to right, each moved as close to the ones before it as their contours
    allow (at least ``gap`` apart on every row they share), and the node is
    centred above its first and last child. Every node has its own width (its
    box, or the label of the edge above it when that is wider), so boxes and
    edge labels never overlap, whatever the number of children. The work is
    O(nodes x depth), without recursion (deep trees do not reach Python's
    recursion limit).
Vertical
    All nodes of one depth share a row; a row is as tall as its tallest box,
    and the band above it as tall as its tallest edge label.

The layout knows nothing of drawing: sizes come in, coordinates go out (in
the same unit, y growing downwards), so that the matplotlib picture and any
other renderer share it.
"""

from dataclasses import dataclass

__all__ = ["Layout", "tidy_layout"]


@dataclass(frozen=True)
class Layout:
    """Node positions.

    Attributes
    ----------
    x : dict
        Node -> horizontal centre of its box.
    top : dict
        Node -> top of its box (y grows downwards; the root's top is 0).
    row_top : list of float
        Top of each row's boxes.
    bar : list of float
        Per row (depth >= 1), the y of the horizontal connector above the row's
        edge labels (row 0: same as its top).
    width, height : float
        Extent of the whole drawing (x from 0 to width, y from 0 to height).
    """

    x: dict
    top: dict
    row_top: list
    bar: list
    width: float
    height: float


def _postorder(children, root):
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(children.get(node, ()))
    return order[::-1]


def _place_children(kids, contours, gap):
    """Offsets of the children from the first one, and their merged contour."""
    merged = list(contours[kids[0]])
    offsets = [0.0]
    for kid in kids[1:]:
        contour = contours[kid]
        shared = min(len(merged), len(contour))
        shift = max(merged[d][1] - contour[d][0] + gap for d in range(shared))
        offsets.append(shift)
        for d in range(len(contour)):
            left, right = contour[d][0] + shift, contour[d][1] + shift
            if d < len(merged):
                merged[d] = (merged[d][0], right)
            else:
                merged.append((left, right))
    return offsets, merged


def tidy_layout(children, widths, heights, label_heights, gap, level_gap, root=0):
    """Lay out a tree top-down (see the module docstring).

    Parameters
    ----------
    children : mapping
        Node -> its children in order (leaves may be missing).
    widths : mapping
        Node -> the width it needs (box, or the label of the edge above it).
    heights : mapping
        Node -> the height of its box.
    label_heights : mapping
        Node -> the height of the label on the edge above it (0 for the root).
    gap : float
        Least horizontal distance between two nodes of one row.
    level_gap : float
        Vertical distance between a box and the connector below it, and between
        a connector and the labels and boxes below it.
    root : hashable, default=0

    Returns
    -------
    Layout
    """
    contours, offsets = {}, {}
    for node in _postorder(children, root):
        half = widths[node] / 2.0
        kids = list(children.get(node, ()))
        if not kids:
            contours[node] = [(-half, half)]
            continue
        placed, merged = _place_children(kids, contours, gap)
        centre = (placed[0] + placed[-1]) / 2.0
        for kid, offset in zip(kids, placed, strict=True):
            offsets[kid] = offset - centre
            del contours[kid]
        contours[node] = [(-half, half)] + [(lo - centre, hi - centre) for lo, hi in merged]
    contour = contours[root]
    x, depth = {root: -min(lo for lo, _ in contour)}, {root: 0}
    stack = [root]
    while stack:
        node = stack.pop()
        for kid in children.get(node, ()):
            x[kid] = x[node] + offsets[kid]
            depth[kid] = depth[node] + 1
            stack.append(kid)
    rows = len(contour)
    row_height, band = [0.0] * rows, [0.0] * rows
    for node, d in depth.items():
        row_height[d] = max(row_height[d], heights[node])
        if d > 0:
            band[d] = max(band[d], label_heights[node])
    row_top, bar = [0.0], [0.0]
    for d in range(1, rows):
        bar.append(row_top[d - 1] + row_height[d - 1] + level_gap)
        row_top.append(bar[d] + band[d] + level_gap)
    top = {node: row_top[d] for node, d in depth.items()}
    width = max(hi for _, hi in contour) - min(lo for lo, _ in contour)
    return Layout(x, top, row_top, bar, width, row_top[-1] + row_height[-1])
