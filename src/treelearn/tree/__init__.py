"""The Tree (flat arrays), its builder and its prediction kernels."""

from treelearn.tree.builder import TreeBuilder
from treelearn.tree.structure import Tree

__all__ = ["Tree", "TreeBuilder"]
