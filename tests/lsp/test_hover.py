"""textDocument/hover on a heal diagnostic: the failure's frames with the locals the run
captured, and the last commits that changed the suspect function (`git log -L`), in a real git
repository whose history touched that function twice and another function once."""

import subprocess

import pytest
from helpers.lsp import eventually
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "stats/mean.py"
FIRST = "def average(values):\n    count = len(values)\n    return sum(values) / count\n"
SECOND = "def average(values):\n    count = len(values) - 1\n    return sum(values) / count\n"
OTHER = "\n\ndef spread(values):\n    return max(values) - min(values)\n"
TEST = """\
from stats.mean import average


def test_average_of_one():
    single = [4]
    assert average(single) == 4
"""


@pytest.fixture
def project() -> str:
    return "hover-history"


def git(root, *args):
    identity = ["-c", "user.name=Ada Lovelace", "-c", "user.email=ada@example.org"]
    identity += ["-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]
    subprocess.run(["git", *identity, *args], cwd=root, check=True, capture_output=True)


def history(root):
    """Three commits: `average` written, `spread` added, then `average` broken."""
    (root / "stats").mkdir()
    (root / "stats" / "__init__.py").write_text("")
    (root / "tests").mkdir()
    (root / "tests" / "test_mean.py").write_text(TEST)
    (root / MODULE).write_text(FIRST)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "average: the mean of the values")
    (root / MODULE).write_text(FIRST + OTHER)
    git(root, "commit", "-q", "-am", "spread: max minus min")
    (root / MODULE).write_text(SECOND + OTHER)
    git(root, "commit", "-q", "-am", "average: leave out the header row")


async def test_hover_shows_frames_with_locals_and_the_commits_of_the_function(client, workspace):
    history(workspace)
    editor = client.editor
    uri = editor.open(MODULE)
    result = await editor.command("heal.runTests")
    assert result["failed"] == 1, result
    [error] = await eventually(lambda: editor.diagnostics(MODULE), what="the diagnostic")
    assert error.range.start.line == 2  # `return sum(values) / count`

    params = t.HoverParams(t.TextDocumentIdentifier(uri), error.range.start)
    found = await client.text_document_hover_async(params)
    assert found is not None and found.contents.kind == t.MarkupKind.Markdown
    text = found.contents.value
    assert "`ZeroDivisionError`" in text
    test_frame, suspect_frame = text.index("`test_average_of_one`"), text.index("`average`")
    assert test_frame < suspect_frame  # innermost last
    assert "`single = [4]`" in text
    assert "`stats/mean.py:3` ← suspect" in text
    assert "`values = [4]`" in text and "`count = 0`" in text
    assert "average: leave out the header row" in text
    assert "average: the mean of the values" in text
    assert "spread" not in text  # a commit that did not touch `average`
    assert text.index("leave out the header") < text.index("the mean of the values")
    assert "Ada Lovelace" in text

    elsewhere = t.HoverParams(t.TextDocumentIdentifier(uri), t.Position(5, 4))
    assert await client.text_document_hover_async(elsewhere) is None
