"""``treelearn.__all__`` is explicit, sorted, and every name in it exists.

Modelled on httpx's ``tests/test_exported_members.py``. The order is ruff's
"isort-style" order (rule RUF022, which ``ruff check`` enforces too):
SCREAMING_CASE constants, then CamelCase classes, then everything else, each
group in natural order; so ``ruff check --fix`` and this test agree.
"""

import re
import types

import treelearn


def _isort_style_key(name):
    if len(name) > 1 and name.isupper():
        group = 0
    elif name[:1].isupper():
        group = 1
    else:
        group = 2
    natural = [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]
    return group, natural


def test_all_is_a_sorted_list_without_duplicates():
    assert isinstance(treelearn.__all__, list)
    assert len(set(treelearn.__all__)) == len(treelearn.__all__)
    assert treelearn.__all__ == sorted(treelearn.__all__, key=_isort_style_key)


def test_every_exported_name_exists():
    missing = [name for name in treelearn.__all__ if not hasattr(treelearn, name)]
    assert missing == []


def test_every_public_name_is_exported():
    """No public name reaches the package namespace without being listed in ``__all__``.

    Submodules are attributes of the package once imported, so they are not
    counted; helpers imported in ``__init__`` must be imported under a private
    name (``import importlib.metadata as _metadata``).
    """
    public = {
        name
        for name, value in vars(treelearn).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert sorted(public - set(treelearn.__all__)) == []


def test_version_is_a_string():
    assert "__version__" in treelearn.__all__
    assert isinstance(treelearn.__version__, str) and treelearn.__version__
