"""Shared fixtures."""

from pathlib import Path

import pytest

DATA_DIR = Path(__file__).parent / "data"


@pytest.fixture
def data_dir():
    """Folder of the small reference datasets (copies of shared/data)."""
    return DATA_DIR
