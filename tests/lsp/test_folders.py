"""Multi-root: two workspace folders, each with its own settings scope, failures and runs;
workspace/didChangeWorkspaceFolders drops one (its diagnostics cleared) and adds another."""

import pytest
import pytest_lsp
from helpers.lsp import CONFIG, eventually, start_session
from lsprotocol import types as t
from pytest_lsp import LanguageClient

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]


@pytest_lsp.fixture(config=CONFIG, params=["visual_studio_code", "neovim"])
async def two_folders(request, lsp_client: LanguageClient, example_copy):
    inventory, stats = example_copy("inventory"), example_copy("stats")
    # the stats folder's own scope: only its two `mean` tests run there (not median/spread)
    lsp_client.set_configuration({"heal": {"pytestArgs": ["-k", "mean"]}}, scope_uri=stats.as_uri())
    await start_session(request, lsp_client, inventory, {"provider": "local"}, [inventory, stats])
    lsp_client.folders = (inventory, stats)
    yield
    await lsp_client.shutdown_session()


def diagnostics_of(client, path) -> list[t.Diagnostic]:
    return list(client.diagnostics.get(path.as_uri(), []))


async def failure_tests(client) -> set[str]:
    answer = await client.protocol.send_request_async("heal/failures", {})
    return {f.test for f in answer.failures}


async def test_two_folders_each_served_with_its_own_settings(two_folders, example_copy):
    client = two_folders
    editor, stats = client.editor, client.folders[1]
    summary = await editor.command("heal.runTests")  # no argument: every folder
    assert summary["failed"] == 2
    stats_module = stats / "figures" / "stats.py"
    await eventually(lambda: diagnostics_of(client, stats_module), what="stats diagnostics")
    assert editor.diagnostics("shop/inventory.py")
    assert await failure_tests(client) == {
        "tests/test_inventory.py::test_remove_all",
        "tests/test_stats.py::test_mean",
    }

    stats_tests = (stats / "tests" / "test_stats.py").as_uri()
    scoped = await editor.command("heal.runTests", {"uri": stats_tests})
    # -k mean, its folder's scope: test_mean fails, test_mean_of_one passes; the three
    # median/spread tests of that file do not run (unscoped it would be (4, 1))
    assert (scoped["passed"], scoped["failed"]) == (1, 1)

    uri = editor.open(str(stats_module))  # an absolute path: a file of the second folder
    line = diagnostics_of(client, stats_module)[0].range.start.line
    actions = await client.text_document_code_action_async(
        t.CodeActionParams(
            text_document=t.TextDocumentIdentifier(uri=uri),
            range=t.Range(t.Position(line, 0), t.Position(line, 0)),
            context=t.CodeActionContext(diagnostics=[]),
        )
    )
    assert [a.title for a in actions][0].startswith("AI heal mean \N{EM DASH} ")

    nested = example_copy("nested")
    client.workspace_did_change_workspace_folders(
        t.DidChangeWorkspaceFoldersParams(
            t.WorkspaceFoldersChangeEvent(
                added=[t.WorkspaceFolder(nested.as_uri(), "nested")],
                removed=[t.WorkspaceFolder(stats.as_uri(), "stats")],
            )
        )
    )
    await eventually(lambda: diagnostics_of(client, stats_module) == [], what="stats cleared")
    nested_tests = (nested / "tests" / "test_render.py").as_uri()
    added = await editor.command("heal.runTests", {"uri": nested_tests})
    assert added["failed"] == 1
    assert await failure_tests(client) == {
        "tests/test_inventory.py::test_remove_all",
        "tests/test_render.py::test_render_table",
    }


@pytest_lsp.fixture(config=CONFIG, params=["visual_studio_code"])
async def twin_folders(request, lsp_client: LanguageClient, tmp_path, example_copy):
    """Two folders holding the same project: the same test id fails in both."""
    left = example_copy("inventory").rename(tmp_path / "left")
    right = example_copy("inventory").rename(tmp_path / "right")
    await start_session(request, lsp_client, left, {"provider": "local"}, [left, right])
    lsp_client.folders = (left, right)
    yield
    await lsp_client.shutdown_session()


async def test_the_palette_names_the_folder_of_each_failure(twin_folders):
    client = twin_folders
    editor, right = client.editor, client.folders[1]
    assert (await editor.command("heal.runTests"))["failed"] == 2
    editor.open(str(right / "shop" / "inventory.py"))  # the fix goes into its buffer
    editor.answer = lambda params: next(
        a.title for a in params.actions if a.title.endswith("right")
    )
    result = await editor.command("heal.healFailingTest", timeout=240)
    buttons = [action.title for action in editor.questions[-1].actions]
    assert buttons == [
        "Inventory.remove (test_remove_all) in left",
        "Inventory.remove (test_remove_all) in right",
    ]
    assert result["status"] == "verified" and result["applied"], result
    [edit] = editor.applied
    [change] = edit.edit.document_changes
    assert change.text_document.uri == (right / "shop" / "inventory.py").as_uri()
