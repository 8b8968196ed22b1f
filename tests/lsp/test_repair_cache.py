"""The repair cache in the editor (issue 25, item 9): `heal.useCache` turns it off, and a fix the
local repairer found is taken from the cache only within the heal's `localBudget`."""

from pathlib import Path

import pytest
import pytest_lsp
from helpers.fakemodel import fake_model  # noqa: F401 - the fixture
from helpers.lsp import CONFIG, NO_TRIAGE, ServerConfig, eventually, failing, start_session
from helpers.projects import FIXED_REMOVE as FIXED
from lsprotocol import types as t
from pytest_lsp import LanguageClient

pytestmark = [pytest.mark.lsp, pytest.mark.e2e]

MODULE = "shop/inventory.py"
NODEID = "tests/test_inventory.py::test_remove_all"


def reconfigure(client, **changed) -> None:
    """The user changes settings: the editor sends didChangeConfiguration."""
    config = {"heal": {**client.editor.settings, **changed}}
    client.editor.settings = config["heal"]
    client.set_configuration(config)
    client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=config))


def heal_messages(client) -> list[str]:
    """Every progress message of every heal so far, in order."""
    reports = [r for r in client.progress_reports.values() if r and r[0].title.startswith("heal:")]
    return [r.message or "" for report in reports for r in report]


async def heal_again(client, uri: str, original: str) -> dict:
    """Put the bug back (typed and saved), see it fail, then heal it."""
    editor = client.editor
    if editor.text(uri) != original:
        await eventually(lambda: editor.diagnostics(MODULE) == [], what="the fix's re-run")
        editor.type_text(uri, original)
        editor.save(uri)
    await failing(editor)
    return await editor.command("heal.healFunction", {"failure": NODEID}, timeout=240)


@pytest.fixture
def settings(fake_model):  # noqa: F811
    return {"provider": "openai", "baseUrl": fake_model.openai_url, "model": "fake", **NO_TRIAGE}


async def test_use_cache_false_asks_the_model_again(vscode_client, fake_model, settings):  # noqa: F811
    editor = vscode_client.editor
    editor.settings = settings
    uri = editor.open(MODULE)
    original = editor.text(uri)
    fake_model.push(FIXED)
    assert (await heal_again(vscode_client, uri, original))["status"] == "verified"
    assert len(fake_model.requests) == 1
    # the same bug again: the remembered fix, re-verified, and no model call
    assert (await heal_again(vscode_client, uri, original))["status"] == "verified"
    assert len(fake_model.requests) == 1
    assert "re-verifying a cached fix" in heal_messages(vscode_client)
    # heal.useCache off: the model is asked again, the cache is not read
    reconfigure(vscode_client, useCache=False)
    cached_before = heal_messages(vscode_client).count("re-verifying a cached fix")
    fake_model.push(FIXED)
    third = await heal_again(vscode_client, uri, original)
    assert third["status"] == "verified", third
    assert len(fake_model.requests) == 2
    assert heal_messages(vscode_client).count("re-verifying a cached fix") == cached_before


# The local search's candidates are verified unsandboxed here (allowUnisolated): this is about
# which candidates run, not where, and each sandboxed run costs seconds on a loaded machine.
UNSANDBOXED = ServerConfig(
    server_command=CONFIG.server_command, extra_env={"HEAL_LS_SANDBOX": "none"}
)
LOCAL = {"provider": "local", "allowUnisolated": True, "localSeconds": 300, **NO_TRIAGE}


@pytest_lsp.fixture(config=UNSANDBOXED, params=["visual_studio_code"])
async def local_client(request, lsp_client: LanguageClient, workspace: Path):
    await start_session(request, lsp_client, workspace, LOCAL)
    lsp_client.editor.settings = LOCAL
    yield
    await lsp_client.shutdown_session()


async def test_a_cached_local_fix_is_used_only_within_the_local_budget(local_client):
    editor = local_client.editor
    uri = editor.open(MODULE)
    original = editor.text(uri)
    first = await heal_again(local_client, uri, original)
    assert first["status"] == "verified", first
    [won] = [m for m in heal_messages(local_client) if m.startswith("verified: local edit #")]
    rank = int(won.removeprefix("verified: local edit #").split(";")[0])
    assert rank > 1, won  # the inventory's fix is not the repairer's first edit
    # a budget that stops before that edit: the search alone would not find it, so neither
    # does the cache (a note says why)
    reconfigure(local_client, localBudget=rank - 1)
    seen = len(heal_messages(local_client))
    smaller = await heal_again(local_client, uri, original)
    assert smaller["status"] != "verified", smaller
    said = heal_messages(local_client)[seen:]
    assert "re-verifying a cached fix" not in said
    note = f"a cached fix (local edit #{rank}) is beyond the local budget of {rank - 1}: not used"
    assert note in said, said
    # the budget reaches it again: the cached fix answers, re-verified, with no search
    reconfigure(local_client, localBudget=rank)
    seen = len(heal_messages(local_client))
    again = await heal_again(local_client, uri, original)
    assert again["status"] == "verified", again
    said = heal_messages(local_client)[seen:]
    assert "re-verifying a cached fix" in said
    assert not any(m.startswith("local candidate ") for m in said), said
