"""The one grower, its frontiers and stop rules, and the algorithm presets."""

from treelearn.growing.grower import Grower
from treelearn.growing.spec import CART, GrowthSpec

__all__ = ["CART", "Grower", "GrowthSpec"]
