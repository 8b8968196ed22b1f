"""Loaded: it is below confcutdir."""
import pytest


@pytest.fixture
def prices():
    return [10, 20]
