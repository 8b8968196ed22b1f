"""Shared fixtures: paths to the repository and its examples, and throwaway copies of examples."""

import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


@pytest.fixture
def repo_root() -> Path:
    return REPO


@pytest.fixture
def example_copy(tmp_path):
    """Return a function that copies examples/<name> into tmp_path and returns the copy's path."""

    def copy(name: str) -> Path:
        dest = tmp_path / name
        shutil.copytree(EXAMPLES / name, dest, ignore=shutil.ignore_patterns("__pycache__"))
        return dest

    return copy
