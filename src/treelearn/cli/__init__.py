"""The ``treelearn`` command line (see :mod:`treelearn.cli.main`)."""

from treelearn.cli.main import main

__all__ = ["main"]
