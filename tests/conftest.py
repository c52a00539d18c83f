"""Shared fixtures."""

from pathlib import Path

import pytest

from treelearn.growing import settings as settings_module

DATA_DIR = Path(__file__).parent / "data"


@pytest.fixture
def data_dir():
    """Folder of the small reference datasets (copies of shared/data)."""
    return DATA_DIR


@pytest.fixture
def numba_loop_at_any_size(monkeypatch):
    """The numba growing loops on every table, however small (the Grower leaves tables
    under ``NUMBA_LOOP_MIN_ROWS`` rows to the Python loop): for the tests that compare
    them with the Python loop."""
    monkeypatch.setattr(settings_module, "NUMBA_LOOP_MIN_ROWS", 0)
