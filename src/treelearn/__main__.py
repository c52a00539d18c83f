"""``python -m treelearn``: the ``treelearn`` command (see :mod:`treelearn.cli`)."""

import sys

from treelearn.cli import main

if __name__ == "__main__":
    sys.exit(main())
