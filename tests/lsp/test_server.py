"""Server basics over stdio: capabilities, settings and their errors, malformed requests."""

import pytest
from helpers.lsp import eventually
from lsprotocol import types as t

pytestmark = pytest.mark.lsp

COMMANDS = {
    "heal.healFunction",
    "heal.healFailingTest",
    "heal.runTests",
    "heal.rerunFailed",
    "heal.runScript",
    "heal.debugTest",
    "heal.loadReport",
}


# Tests that only ask (capabilities, refused commands, the state before any run, the warm
# runner's start) share one server; settings are the same for both client profiles.
SHARED = pytest.mark.asyncio(loop_scope="module")


@pytest.mark.parametrize("settings", [{"provider": "local", "maxAttempts": "many"}])
async def test_invalid_setting_is_reported_and_replaced_by_the_default(vscode_client, settings):
    await eventually(
        lambda: [m for m in vscode_client.messages if "heal.maxAttempts" in m.message],
        what="message",
    )
    [message] = [m for m in vscode_client.messages if "heal.maxAttempts" in m.message]
    assert message.type == t.MessageType.Warning and "using 3" in message.message
    assert any("heal.maxAttempts" in m.message for m in vscode_client.log_messages)


@SHARED
async def test_settings_are_re_read_on_did_change_configuration(shared_client):
    shared_client.set_configuration({"heal": {"testTimeout": -1}})
    shared_client.workspace_did_change_configuration(t.DidChangeConfigurationParams(settings=None))
    await eventually(
        lambda: [m for m in shared_client.messages if "heal.testTimeout" in m.message],
        what="the re-read settings to be checked",
    )


@SHARED
async def test_commands_are_advertised_and_bad_arguments_are_errors(shared_client):
    editor = shared_client.editor
    assert set(editor.capabilities.execute_command_provider.commands) == COMMANDS
    with pytest.raises(Exception, match="outside the workspace"):
        await editor.command("heal.runScript", {"uri": "file:///etc/passwd"})
    with pytest.raises(Exception, match="expected an object"):
        await editor.command("heal.runTests", 42)
    with pytest.raises(Exception, match="no known failure"):
        await editor.command("heal.healFunction", {"failure": "nope"})
    # the server still serves after all that
    assert (await shared_client.protocol.send_request_async("heal/failures", {})).failures == []


@SHARED
async def test_failures_request_and_status_before_any_run(shared_client):
    failures = await shared_client.protocol.send_request_async("heal/failures", {})
    assert failures.failures == []
    status = await eventually(
        lambda: shared_client.editor.statuses, what="a heal/status notification"
    )
    expected = {"running": False, "failing": 0, "healing": None, "lastHeal": None}
    assert status[-1]._asdict() == expected


@pytest.mark.parametrize("settings", [{"provider": "local", "runOnStartup": True}])
async def test_run_on_startup_publishes_without_a_command(vscode_client, settings):
    editor = vscode_client.editor
    await eventually(
        lambda: editor.diagnostics("shop/inventory.py"), timeout=60, what="diagnostics"
    )
    [error] = editor.diagnostics("shop/inventory.py")
    assert error.code == "KeyError"
    assert any(s.running for s in editor.statuses)


async def test_run_tests_for_a_file(vscode_client):
    editor = vscode_client.editor
    test_file = await editor.command(
        "heal.runTests", {"uri": editor.uri("tests/test_inventory.py")}
    )
    assert (test_file["passed"], test_file["failed"]) == (3, 1)
    module = await editor.command("heal.runTests", {"uri": editor.uri("shop/inventory.py")})
    assert module["passed"] + module["failed"] == 4  # the tests that exercised the module
    assert editor.diagnostics("shop/inventory.py")


@SHARED
async def test_the_warm_runner_is_started_when_the_workspace_opens(shared_client):
    await eventually(
        lambda: [m for m in shared_client.log_messages if m.message.startswith("warm runner ")],
        what="the warm runner start",
        timeout=120,
    )
    assert any(m.message == "warm runner ready" for m in shared_client.log_messages)
