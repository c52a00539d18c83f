"""The Tree (flat arrays), its builder, its prediction kernels and a read-only view."""

from treelearn.tree.builder import TreeBuilder
from treelearn.tree.structure import Tree
from treelearn.tree.view import Branch, Condition, NodeInfo, Surrogate, TreeView

__all__ = ["Branch", "Condition", "NodeInfo", "Surrogate", "Tree", "TreeBuilder", "TreeView"]
