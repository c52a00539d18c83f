"""The one grower, its frontiers and stop rules, and the algorithm presets."""

from treelearn.growing.grower import Grower
from treelearn.growing.spec import CART, ID3, GrowthSpec

__all__ = ["CART", "ID3", "Grower", "GrowthSpec"]
