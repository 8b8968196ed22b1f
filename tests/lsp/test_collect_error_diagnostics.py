"""A test module that fails to import (a name its module lacks yet) is an Error on that module
and a Hint on the importing line, for a run of one test id as for a whole run; never a usage
error. It clears when the module gains the name and is saved."""

import pytest
from helpers.cli import write
from helpers.lsp import eventually
from lsprotocol import types as t

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MISSING_NAME = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "pkg/__init__.py": "",
    "pkg/mod.py": "def present(x):\n    return x + 1\n",
    "tests/test_mod.py": (
        "from pkg.mod import present\nfrom pkg.mod import missing_name\n\n\n"
        "def test_missing():\n    assert missing_name(present(1)) == 2\n"
    ),
}


@pytest.mark.parametrize("project", ["missing-name"])
async def test_a_missing_name_is_an_error_on_its_module(vscode_client, project):
    editor = vscode_client.editor
    write(editor.root, MISSING_NAME)
    summary = await editor.command("heal.runTests", {"test": "tests/test_mod.py::test_missing"})
    assert summary["errors"] == 1, summary
    [error] = editor.diagnostics("pkg/mod.py")
    assert (error.range.start.line, error.severity, error.code) == (
        0,
        t.DiagnosticSeverity.Error,
        "ImportError",
    )
    assert error.message.startswith(
        "collecting tests/test_mod.py failed: ImportError: cannot import name 'missing_name'"
    )
    assert "(no heal action: tests/test_mod.py:2 imports missing_name from pkg.mod" in error.message
    [hint] = editor.diagnostics("tests/test_mod.py")
    assert (hint.range.start.line, hint.severity) == (1, t.DiagnosticSeverity.Hint)
    uri = editor.open("pkg/mod.py")
    editor.type_text(uri, MISSING_NAME["pkg/mod.py"] + "\n\ndef missing_name(x):\n    return x\n")
    editor.save(uri)
    # one publish a file: the module's may arrive before the test file's
    await eventually(
        lambda: editor.diagnostics("pkg/mod.py") == editor.diagnostics("tests/test_mod.py") == [],
        timeout=60,
        what="both cleared",
    )


LACKING_METHOD = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "pkg/__init__.py": "",
    "pkg/sets.py": (
        '"""Sets."""\n\n\nclass Set:\n    def __init__(self, items=()):\n'
        "        self.items = dict.fromkeys(items)\n"
    ),
    "tests/test_sets.py": (
        "from pkg.sets import Set\n\n\n"
        "def test_disjoint():\n    assert Set([1]).isdisjoint(Set([2]))\n"
    ),
}
ISDISJOINT = (
    "\n    def isdisjoint(self, other):\n"
    "        return not any(item in self.items for item in other.items)\n"
)


@pytest.mark.parametrize("project", ["lacking-method"])
async def test_a_method_its_class_lacks_is_an_error_on_the_class_healed_by_adding_it(
    vscode_client, project
):
    """class M (issue 22): the test calls a method the class has yet to have. The Error sits on
    the `class` line, and the heal offered adds that member to the class (heal/member.py)."""
    editor = vscode_client.editor
    write(editor.root, LACKING_METHOD)
    summary = await editor.command("heal.runTests", {"test": "tests/test_sets.py::test_disjoint"})
    assert summary["failed"] == 1, summary
    [error] = editor.diagnostics("pkg/sets.py")
    assert (error.range.start.line, error.severity, error.code) == (
        3,
        t.DiagnosticSeverity.Error,
        "AttributeError",
    )
    assert error.message.startswith(
        "test_disjoint failed: AttributeError: 'Set' object has no attribute 'isdisjoint'"
    )
    assert "no heal action" not in error.message
    assert error.data["suspect"]["qualname"] == "Set" and error.data["healable"] is True
    uri = editor.open("pkg/sets.py")
    params = t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        range=error.range,
        context=t.CodeActionContext(diagnostics=[error]),
    )
    actions = await vscode_client.text_document_code_action_async(params)
    assert actions[0].title.startswith("AI heal class Set: add isdisjoint")
    assert [a.title for a in actions][1:] == ["Debug failing test", "Re-run test"]
    editor.type_text(uri, LACKING_METHOD["pkg/sets.py"] + ISDISJOINT)
    editor.save(uri)
    await eventually(lambda: editor.diagnostics("pkg/sets.py") == [], timeout=60, what="cleared")
