"""Following the user's own pytest runs: a run in a terminal rewrites .pytest_cache's lastfailed;
the server re-runs those tests and shows their failures. VS Code's profile offers file watching
(the editor tells the server); Neovim's does not (the server's own watcher notices)."""

import asyncio
import subprocess
import sys

import pytest
from helpers.lsp import eventually

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "shop/inventory.py"
LASTFAILED = ".pytest_cache/v/cache/lastfailed"


async def user_runs_pytest(workspace) -> None:
    """The user's own `python -m pytest` in a terminal (it writes the lastfailed cache)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pytest", "-q", cwd=workspace,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    await process.wait()


def client_watches_files(client) -> bool:
    """True for the VS Code profile, False for Neovim's (no dynamic registration there)."""
    watched = client.capabilities.workspace.did_change_watched_files
    return bool(watched and watched.dynamic_registration)


async def test_a_run_in_the_terminal_shows_up(client, workspace):
    editor = client.editor
    assert editor.diagnostics(MODULE) == []
    if client_watches_files(client):  # the server asks for it once initialized
        await eventually(editor.watched_globs, what="the lastfailed watcher registration")
    await user_runs_pytest(workspace)
    assert (workspace / LASTFAILED).is_file()
    told = editor.file_changed(workspace / LASTFAILED)  # only where the server asked for it
    assert told == client_watches_files(client)
    found = await eventually(lambda: editor.diagnostics(MODULE), what="the terminal's failure")
    assert "test_remove_all failed: KeyError" in found[0].message

    fixed = (workspace / MODULE).read_text().replace("<= 1:", "<= 0:")
    (workspace / MODULE).write_text(fixed)
    await user_runs_pytest(workspace)  # now all pass: lastfailed empties
    editor.file_changed(workspace / LASTFAILED)
    await eventually(lambda: editor.diagnostics(MODULE) == [], what="the fixed run to clear it")


async def test_a_run_the_editors_watcher_missed_shows_up(vscode_client, workspace):
    """VS Code's watcher can miss the file for good (pytest makes .pytest_cache atomically and
    writes v/cache/lastfailed before the watcher watches the new folders): the editor here tells
    the server nothing, and the server's own poller notices the run anyway."""
    editor = vscode_client.editor
    await eventually(editor.watched_globs, what="the lastfailed watcher registration")
    await user_runs_pytest(workspace)  # no editor.file_changed: the watcher missed it
    found = await eventually(lambda: editor.diagnostics(MODULE), what="the terminal's failure")
    assert "test_remove_all failed: KeyError" in found[0].message


@pytest.mark.parametrize("settings", [{"provider": "local", "followPytestRuns": False}])
async def test_following_can_be_turned_off(vscode_client, workspace, settings):
    editor = vscode_client.editor
    await eventually(editor.watched_globs, what="the lastfailed watcher registration")
    await user_runs_pytest(workspace)
    assert editor.file_changed(workspace / LASTFAILED)  # the watcher is there, the run is not
    await asyncio.sleep(1.5)
    assert editor.diagnostics(MODULE) == []
    assert not [r for r in vscode_client.progress_reports.values() if r]


@pytest.fixture
def workspace(example_copy, request):
    """A copy of the example; for the `_at_start` test, after the user's failing pytest run; for
    the `_elsewhere` test, inside a repo whose tox.ini (the rootdir) names its own cache_dir."""
    copy = example_copy("inventory")
    if request.node.name.startswith("test_failures_of_the_last_run_show_at_start"):
        subprocess.run([sys.executable, "-m", "pytest", "-q"], cwd=copy, capture_output=True)
    if request.node.name.startswith("test_a_cache_elsewhere"):
        repo = copy.parent / "repo"
        repo.mkdir()
        (copy / "pytest.ini").unlink()
        copy = copy.rename(repo / "inventory")
        (repo / "tox.ini").write_text("[pytest]\npythonpath = inventory\ncache_dir = .cache/pt\n")
    return copy


async def test_failures_of_the_last_run_show_at_start(vscode_client, workspace):
    """A folder opened after a failing run (or a CI checkout with its cache) shows them."""
    assert (workspace / LASTFAILED).is_file()
    editor = vscode_client.editor
    found = await eventually(lambda: editor.diagnostics(MODULE), what="the last run's failure")
    assert "test_remove_all failed: KeyError" in found[0].message


async def test_a_cache_elsewhere_is_followed(client, workspace):
    """pytest's rootdir is the repo above the folder and its cache_dir is not .pytest_cache: the
    server finds the cache there (the client's watcher would not see it: the server polls) and
    names the tests as its own runs in the folder do."""
    editor = client.editor
    await user_runs_pytest(workspace)  # from the folder, as in its terminal
    cache = workspace.parent / ".cache" / "pt" / "v" / "cache" / "lastfailed"
    assert "inventory/tests/test_inventory.py::test_remove_all" in cache.read_text()
    assert not (workspace / LASTFAILED).exists()
    found = await eventually(lambda: editor.diagnostics(MODULE), what="the terminal's failure")
    assert "test_remove_all failed: KeyError" in found[0].message
    failures = await client.protocol.send_request_async("heal/failures", {})
    assert [f.test for f in failures.failures] == ["tests/test_inventory.py::test_remove_all"]
