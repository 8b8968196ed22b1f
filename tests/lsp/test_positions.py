"""Positions in the client's encoding (UTF-16 for VS Code, UTF-8 as Neovim prefers), scripts,
and module-level crashes (a diagnostic, no heal action)."""

from pathlib import Path

import pytest
from heal_ls.models import MAX_FRAMES
from helpers.lsp import eventually
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

FAILING_LINE = "    return text.upper()[99]  # 👋 é IndexError"
UNICODE_PROJECT = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "greeting.py": f'"""Greetings ✓."""\n\n\ndef shout(name):\n    text = f"héllo {{name}} 👋"\n{FAILING_LINE}\n',
    "tests/test_greeting.py": 'from greeting import shout\n\n\ndef test_shout():\n    assert shout("wörld") == "HÉLLO"\n',
}
CRASH_PROJECT = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "tools/boom.py": '"""Crashes while importing."""\nVALUES = {"a": 1}\nTOTAL = VALUES["b"]\n',
}


def write_project(root: Path, files: dict[str, str]) -> Path:
    for relpath, text in files.items():
        (root / relpath).parent.mkdir(parents=True, exist_ok=True)
        (root / relpath).write_text(text, encoding="utf-8")
    return root


def units(text: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def actions_at(client, uri: str, line: int, diagnostics=()):
    return client.text_document_code_action_async(
        t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri),
            range=t.Range(t.Position(line, 0), t.Position(line, 0)),
            context=t.CodeActionContext(diagnostics=list(diagnostics)),
        )
    )


@pytest.mark.parametrize("project", ["unicode"])
async def test_ranges_are_in_the_client_position_encoding(client, tmp_path, project):
    editor = client.editor
    root = write_project(editor.root, UNICODE_PROJECT)
    result = await editor.command("heal.runTests")
    assert result["failed"] == 1, result
    [error] = editor.diagnostics("greeting.py")
    encoding = editor.capabilities.position_encoding or "utf-16"
    assert error.range.start == t.Position(5, 4)
    assert error.range.end == t.Position(5, units(FAILING_LINE, encoding))
    assert units(FAILING_LINE, encoding) != len(FAILING_LINE)  # the test means something
    assert error.message == "test_shout failed: IndexError: string index out of range"
    assert (root / "greeting.py").exists()


@pytest.mark.parametrize("project", ["script_crash"])
async def test_a_crashing_script_points_at_its_function(vscode_client, project):
    editor = vscode_client.editor
    uri = editor.uri("tools/report.py")
    summary = await editor.command("heal.runScript", {"uri": uri})
    assert summary["ran"] is True
    [error] = editor.diagnostics("tools/report.py")
    assert error.code == "ValueError" and error.range.start.line == 10
    assert error.message.startswith("report.py failed: ValueError: invalid literal for int()")
    editor.open("tools/report.py")
    titles = [a.title for a in await actions_at(vscode_client, uri, 10)]
    assert titles == [
        "AI heal parse_amount \N{EM DASH} 2 call sites",
        "Re-run script",
    ]


@pytest.mark.parametrize("project", ["crash"])
async def test_a_module_level_crash_has_a_diagnostic_and_no_heal_action(vscode_client, project):
    editor = vscode_client.editor
    write_project(editor.root, CRASH_PROJECT)
    await editor.command("heal.runScript", {"script": "tools/boom.py"})
    [error] = editor.diagnostics("tools/boom.py")
    assert error.range.start.line == 2 and error.code == "KeyError"
    assert "no heal action" in error.message
    assert error.data["healable"] is False
    uri = editor.open("tools/boom.py")
    titles = [a.title for a in await actions_at(vscode_client, uri, 2)]
    assert titles == ["Re-run script"]


SYNTAX_PROJECT = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "mod.py": "def f(:\n    return 1\n",
    "tests/test_mod.py": "from mod import f\n\n\ndef test_f():\n    assert f() == 1\n",
}


@pytest.mark.parametrize("project", ["syntax"])
async def test_a_collection_error_clears_when_the_fixed_file_is_saved(vscode_client, project):
    editor = vscode_client.editor
    write_project(editor.root, SYNTAX_PROJECT)
    await editor.command("heal.runTests")
    [error] = editor.diagnostics("mod.py")
    assert error.code == "SyntaxError" and "no heal action" in error.message
    assert error.message.startswith("collecting tests/test_mod.py failed")
    uri = editor.open("mod.py")
    editor.type_text(uri, "def f():\n    return 1\n")
    editor.save(uri)
    await eventually(lambda: editor.diagnostics("mod.py") == [], timeout=60, what="cleared")
    assert editor.diagnostics("tests/test_mod.py") == []


DEEP_PROJECT = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "walk.py": "def depth(node):\n    return 1 + depth(node)\n",
    "tests/test_walk.py": "from walk import depth\n\n\ndef test_depth():\n    assert depth({}) == 1\n",
}


@pytest.mark.parametrize("project", ["deep"])
async def test_a_recursion_error_keeps_its_diagnostic_light(vscode_client, project):
    """About a thousand frames: the diagnostic carries the outer and inner ones, says how many
    it skipped, and the code action on it still offers the heal."""
    editor = vscode_client.editor
    write_project(editor.root, DEEP_PROJECT)
    assert (await editor.command("heal.runTests"))["failed"] == 1
    [error] = editor.diagnostics("walk.py")
    assert error.code == "RecursionError" and error.range.start.line == 1
    related = error.related_information
    assert len(related) <= MAX_FRAMES + 2  # the frames kept, the skip note, the failing test
    [note] = [info for info in related if "more frames skipped" in info.message]
    assert int(note.message.split()[0]) > 800
    uri = editor.open("walk.py")
    titles = [a.title for a in await actions_at(vscode_client, uri, 1)]
    assert titles[0].startswith("AI heal depth")
    # with the Error in the request's context, as VS Code sends it: each action names it by
    # what editors key diagnostics on, and does not send its frames back (issue 25, item 11)
    actions = await actions_at(vscode_client, uri, 1, [error])
    assert actions[0].title.startswith("AI heal depth")
    for action in actions:
        [named] = action.diagnostics
        assert (named.range, named.message, named.code) == (error.range, error.message, error.code)
        assert (named.source, named.severity) == (error.source, error.severity)
        assert named.related_information is None and named.data is None
