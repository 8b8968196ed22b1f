"""The LSP tests' fork server imports the server's modules once: an import that read a variable
the test sets otherwise would be stale in the forked server, so such a server refuses to start."""

import sys

import pytest
from helpers import server_fork


@pytest.fixture
def module(tmp_path, monkeypatch):
    """Write a module `name` with `body`; it is imported fresh and forgotten after the test."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(name: str, body: str) -> str:
        (tmp_path / f"{name}.py").write_text(f"import os\n{body}\n")
        monkeypatch.delitem(sys.modules, name, raising=False)
        return name

    yield write


def test_the_variables_an_import_reads_are_noted_with_their_values(module, monkeypatch):
    monkeypatch.setenv("FORK_TEST_SET", "one")
    monkeypatch.delenv("FORK_TEST_UNSET", raising=False)
    name = module(
        "reads_two", "A = os.environ.get('FORK_TEST_SET')\nB = os.getenv('FORK_TEST_UNSET')"
    )
    assert server_fork.preload((name,)) == {"FORK_TEST_SET": "one", "FORK_TEST_UNSET": None}
    assert server_fork.changed({"FORK_TEST_SET": "one", "FORK_TEST_UNSET": None}) == []
    monkeypatch.setenv("FORK_TEST_SET", "two")  # a test that sets it otherwise
    monkeypatch.setenv("FORK_TEST_UNSET", "")
    assert server_fork.changed({"FORK_TEST_SET": "one", "FORK_TEST_UNSET": None}) == [
        "FORK_TEST_SET",
        "FORK_TEST_UNSET",
    ]


@pytest.mark.parametrize(
    "body", ["C = os.environ['HEAL_LS_CACHE_DIR']", "C = dict(os.environ)"], ids=["cache", "all"]
)
def test_an_import_reading_what_the_server_sets_after_the_fork_is_refused(
    module, body, monkeypatch
):
    monkeypatch.setenv("HEAL_LS_CACHE_DIR", "/tmp/x")
    with pytest.raises(SystemExit, match="PRELOAD's imports read"):
        server_fork.preload((module("reads_own", body),))
