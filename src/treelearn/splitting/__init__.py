"""Finding the best split of a node from its statistics, and applying it."""
