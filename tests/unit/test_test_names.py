"""Test files are modules without packages: two files of one basename break collection."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
# Projects the tests copy and run on their own (conftest.py's collect_ignore), not our tests.
NOT_COLLECTED = (TESTS / "setups", TESTS / "e2e" / "multinode")


def test_test_file_basenames_are_unique():
    ours = [
        path
        for path in TESTS.rglob("test_*.py")
        if not any(path.is_relative_to(folder) for folder in NOT_COLLECTED)
    ]
    names = Counter(path.name for path in ours)
    assert [name for name, count in names.items() if count > 1] == []
