"""Small trees built by hand, shared by the tests of the Tree and of its readers."""

from treelearn._dtypes import NO_CHILD, NODE_SUBSET, NODE_THRESHOLD
from treelearn.tree import TreeBuilder


def hand_built_tree():
    """
    node 0: x1 <= 0.5 ?                      (10 rows, weight 10, gini 0.48)
      node 1: leaf [4, 0]                    (4 rows)
      node 2: x0 in {cat 0} ? (cat 1 right, cat 2 unseen; missing -> right)   (6 rows)
        node 3: leaf [0, 2]
        node 4: x2 <= 2.0 ? (missing -> left) (4 rows)
          node 5: leaf [1, 0]
          node 6: leaf [1, 2]
    """
    b = TreeBuilder(n_features=3, n_classes=2)
    root = b.add_node([6, 4], 10, 10.0, 0.48)
    n1 = b.add_node([4, 0], 4, 4.0, 0.0)
    n2 = b.add_node([2, 4], 6, 6.0, 4 / 9)
    b.set_split(root, 1, NODE_THRESHOLD, [n1, n2], 1, threshold=0.5)
    n3 = b.add_node([0, 2], 2, 2.0, 0.0)
    n4 = b.add_node([2, 2], 4, 4.0, 0.5)
    b.set_split(n2, 0, NODE_SUBSET, [n3, n4], 1, category_child=[0, 1, NO_CHILD])
    n5 = b.add_node([1, 0], 1, 1.0, 0.0)
    n6 = b.add_node([1, 2], 3, 3.0, 4 / 9)
    b.set_split(n4, 2, NODE_THRESHOLD, [n5, n6], 0, threshold=2.0)
    return b.build()
