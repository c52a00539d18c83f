"""The package's modules, for the tests that read every kernel of treelearn."""

import importlib
import pkgutil

import treelearn


def treelearn_modules():
    """Every module of treelearn, imported."""
    for info in pkgutil.walk_packages(treelearn.__path__, "treelearn."):
        yield importlib.import_module(info.name)
