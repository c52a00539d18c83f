"""``python -m treelearn.cli``: the ``treelearn`` command."""

import sys

from treelearn.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
