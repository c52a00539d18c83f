"""The order in which nodes waiting to be split are taken."""

import heapq


class DepthFirstFrontier:
    """Last in, first out; children are pushed so the first child is split first."""

    def __init__(self):
        self._stack = []

    def push_children(self, nodes):
        self._stack.extend(reversed(nodes))

    def pop(self):
        return self._stack.pop()

    def __len__(self):
        return len(self._stack)


class BestFirstFrontier:
    """Largest gain first; equal gains in the order the nodes were created."""

    def __init__(self):
        self._heap = []

    def push_children(self, nodes):
        for node in nodes:
            heapq.heappush(self._heap, (-node.gain, node.index, node))

    def pop(self):
        return heapq.heappop(self._heap)[2]

    def __len__(self):
        return len(self._heap)
