"""A class that lacks the member a failing test uses (`unhashable type: 'OUI'`): the heal adds
that one member to the class, verified by the real test runs in the sandbox (the guards: the
passing tests that ran a method of the class); an answer that also changes another member, or
reaches past the rails, is rejected and nothing is verified."""

from __future__ import annotations

from pathlib import Path

import pytest
from heal_ls.heal.config import HealConfig
from heal_ls.models import HealResult
from helpers.cli import openai_env
from helpers.fakemodel import FakeModelServer
from helpers.heal import heal_first_target
from helpers.projects import OUI, OUI_HASH, OUI_REWRITES_EQ, OUI_SECOND_MEMBER, OUI_TESTS

pytestmark = pytest.mark.e2e


def project(tmp_path: Path) -> Path:
    (tmp_path / "tests").mkdir()
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    (tmp_path / "conftest.py").write_text('"""Puts this folder on sys.path."""\n')
    (tmp_path / "oui.py").write_text(OUI)
    (tmp_path / "tests" / "test_oui.py").write_text(OUI_TESTS)
    return tmp_path


def heal(root: Path, answer: str, monkeypatch) -> tuple[HealResult, str]:
    with FakeModelServer(default=answer) as server:
        for variable, value in openai_env(server).items():
            monkeypatch.setenv(variable, value)
        config = HealConfig(provider="openai", max_attempts=1, use_cache=False)
        result = heal_first_target(root, config)
        prompt = server.requests[0].prompt_text if server.requests else ""
    return result, prompt


def test_the_missing_dunder_is_added_to_the_class_and_verified(tmp_path, monkeypatch):
    root = project(tmp_path)
    result, prompt = heal(root, OUI_HASH, monkeypatch)
    assert result.status == "verified", (result.reason, result.attempts)
    assert result.suspect is not None and result.suspect.member == "__hash__"
    assert result.touched == ["OUI.__hash__"]
    assert result.guards == ["tests/test_oui.py::test_equal_by_value"]
    assert "1 guard that runs a method of OUI" in result.proof
    # only an insertion inside the class: every other byte of the file is the original's
    at = OUI.index("self.value == other.value\n") + len("self.value == other.value\n")
    added = "\n    def __hash__(self):\n        return hash(self.value)\n"
    assert result.new_source == OUI[:at] + added + OUI[at:]
    assert (root / "oui.py").read_text() == OUI  # nothing written without --apply
    assert "lacks the member `__hash__`" in prompt
    assert (
        'The test\'s line: `assert {OUI(3): "acme"}[OUI(3)] == "acme"`' in prompt
    )  # the test's line that needs it


@pytest.mark.parametrize(
    "answer, words",
    [
        (OUI_REWRITES_EQ, "changes `OUI.__eq__`"),
        (OUI_SECOND_MEMBER, "adds `OUI.__ne__`"),
        (  # the value the test expects, read off its frame
            "```python\ndef __hash__(self):\n    import sys\n"
            "    return hash(sys._getframe(1).f_locals.get('oui'))\n```\n",
            "sys._getframe",
        ),
    ],
)
def test_an_answer_beyond_the_one_member_is_rejected_unverified(
    answer, words, tmp_path, monkeypatch
):
    root = project(tmp_path)
    result, _ = heal(root, answer, monkeypatch)
    assert result.status == "failed" and result.new_source is None
    assert [a.outcome for a in result.attempts] == ["rejected"]
    assert words in result.attempts[0].failure
