import pytest

from basket.stock import load


@pytest.fixture
def stock():
    return load("pear 2\n\napple 3\n")
