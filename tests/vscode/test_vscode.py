"""The VS Code extension in a real VS Code (code-server 4.139 = VS Code 1.139, headless Chromium).

- build checks: `npm run check` (tsc + eslint) and an offline `vsce package`;
- extension-host checks: exthost/suite.js runs inside the real extension host on a copy of
  examples/inventory, with the real server and the fake model server (one VS Code session,
  one pytest test per check);
- one UI test: the lightbulb menu (Ctrl+.) -> "AI heal ..." -> the fixed code is in the editor.
"""

from __future__ import annotations

import json
import re
import sys
import zipfile

import pytest
from vscode_harness import (
    CACHE,
    EXT_DIR,
    HERE,
    TIMEOUT,
    background,
    fixed_remove,
    free_port,
    heal_settings,
    model_env,
    wait_for_http,
    workspace_copy,
)

pytestmark = [pytest.mark.vscode, TIMEOUT]

EXTHOST_CHECKS = [
    "activates",
    "run tests puts a heal diagnostic on the suspect function",
    "status item shows the failing count",
    "the Testing view shows the failed test, where it starts, no inline message over the quick fix",
    "code actions there list AI heal",
    "running AI heal changes the document to the fixed function",
    "diagnostics and the failing count clear once the fix is in",
    "the Testing view shows the test passing once the fix is in",
    "status tooltip shows the last heal's budget",
    "heal failing test from the palette with one failure",
    "preview fixes: the fix waits in the refactor preview; discard keeps the code",
    "a function with more callers than previewAboveCallers is always previewed",
    "debug failing test code action starts debugpy and attaches to it",
    "the Testing view follows the user's own pytest runs",
    "the Testing view's Run asks the server; the message is inline where the failure starts",
    "heal from a failed test item (the context menu's command) fixes the function",
    "set API key stores the secret and restarts the server",
]


def test_typecheck_and_lint(vscode_tools):
    check = vscode_tools.run_npm(["run", "check"], timeout=240)
    assert check.returncode == 0, check.stdout + check.stderr


def test_package_vsix_offline(vsix):
    names = zipfile.ZipFile(vsix).namelist()
    assert "extension/dist/extension.js" in names
    manifest = json.loads(zipfile.ZipFile(vsix).read("extension/package.json"))
    assert manifest["main"] == "./dist/extension.js"
    assert not [n for n in names if "/node_modules/" in n or n.startswith("extension/src/")]


def test_bundled_libs_run_without_the_venv(vscode_tools, wheelhouse, tmp_path):
    """`npm run bundle-python` makes heal-ls importable from bundled/libs alone (site disabled);
    its pip builds heal-ls and installs the dependencies from the session's wheelhouse."""
    libs = tmp_path / "libs"
    env = vscode_tools.env(BUNDLE_TARGET=str(libs), PYTHON=sys.executable, **wheelhouse)
    bundle = vscode_tools.run(["npm", "run", "bundle-python"], env, timeout=600, cwd=EXT_DIR)
    assert bundle.returncode == 0, bundle.stdout[-3000:] + bundle.stderr[-3000:]
    probe = "import heal_ls, heal_ls.lsp.serve, anthropic, openai, pygls; print(heal_ls.__file__)"
    argv = [sys.executable, "-S", "-c", probe]
    # a hang guard, not a speed test: the bundle has no bytecode (--no-compile), so the import
    # compiles the SDKs first, ~12 s of CPU; 60 s tripped in a `make test` with 3 workers at load 11
    env = {"PYTHONPATH": str(libs), "PATH": "/usr/bin:/bin"}
    run = vscode_tools.run(argv, env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(libs / "heal_ls" / "__init__.py")


def test_settings_contributed_with_defaults():
    properties = json.loads((EXT_DIR / "package.json").read_text())["contributes"]["configuration"][
        "properties"
    ]
    expected = {
        "heal.provider": "auto",
        "heal.model": "",
        "heal.baseUrl": "",
        "heal.maxAttempts": 3,
        "heal.candidates": 1,
        "heal.python": "",
        "heal.pytestArgs": [],
        "heal.testTimeout": 10,
        "heal.verifySeconds": 30,
        "heal.requestTimeout": 60,
        "heal.localBudget": 300,
        "heal.localSeconds": 60,
        "heal.useCache": True,
        "heal.maxNodes": 3,
        "heal.allowImports": True,
        "heal.autoVerifyOnSave": True,
        "heal.runOnStartup": False,
        "heal.followPytestRuns": True,
        "heal.flakyRuns": 14,
        "heal.maxTokensPerHeal": 0,
        "heal.prices": {},
        "heal.previewAboveCallers": 10,
        "heal.testEnv": [],
        "heal.allowUnisolated": False,
        "heal.previewFixes": False,
        "heal.interpreter": "",
    }
    assert {k: v["default"] for k, v in properties.items()} == expected
    assert all(v.get("description") for v in properties.values())


@pytest.fixture(scope="module")
def exthost_output(vscode_tools, fake_model, tmp_path_factory) -> str:
    """One VS Code session running exthost/suite.js; returns the driver's output."""
    tmp = tmp_path_factory.mktemp("exthost")
    # files.autoSave off, as desktop VS Code has it (code-server's default is afterDelay, 1 s):
    # the suite saves when a step says so. With autosave on, a step's save() that reaches the
    # workbench more than 1 s after its edit (a loaded machine) lands while the autosave runs
    # its save participants, and VS Code refuses it ("refusing to save() recursively from save
    # participant") and answers false, though the autosave writes the file a moment later.
    ws = workspace_copy(tmp / "inventory", {**heal_settings(), "files.autoSave": "off"})
    port = free_port()
    data = tmp / "vscode-data"
    server_main = vscode_tools.code_server_dir / "lib" / "vscode" / "out" / "server-main.js"
    argv = [
        str(vscode_tools.node),
        str(server_main),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--without-connection-token",
        "--accept-server-license-terms",
        "--telemetry-level",
        "off",
        "--enable-smoke-test-driver",
        "--disable-workspace-trust",
        "--server-data-dir",
        str(data / "srv"),
        "--user-data-dir",
        str(data / "user"),
        "--extensions-dir",
        str(data / "ext"),
    ]
    # its own heal-ls cache: the first heal asks the model (its budget is checked), whatever
    # the session's other VS Code tests healed and remembered before
    env = vscode_tools.env(
        WS=str(ws),
        HEAL_FIXED_REMOVE=fixed_remove(),
        HEAL_LS_CACHE_DIR=str(tmp / "heal-ls-cache"),
        **model_env(fake_model),
    )
    log = tmp / "vscode-server.log"
    with background(argv, env=env, log=log) as server:
        wait_for_http(f"http://127.0.0.1:{port}/version", server)
        # the suite's own budget: under a load of 14 on 2 cores one heal takes a minute or two
        driver_env = vscode_tools.env(
            PORT=str(port),
            EXT_DIR=str(EXT_DIR),
            SUITE=str(HERE / "exthost" / "suite.js"),
            WS=str(ws),
            EXTHOST_TIMEOUT_MS="720000",
        )
        run = vscode_tools.run_node(HERE / "run_exthost.js", driver_env, timeout=780)
    output = run.stdout + run.stderr
    heal_logs = "".join(p.read_text() for p in (data / "user" / "logs").rglob("Heal.log"))
    (CACHE / "exthost-last.log").write_text(
        f"{output}\n--- VS Code server ---\n{log.read_text()}\n--- Heal output channel ---\n{heal_logs}"
    )
    sys.stdout.write(output)
    return output


@pytest.mark.parametrize("check", EXTHOST_CHECKS)
def test_extension_host(exthost_output, check):
    passed = re.search(rf"CHECK PASS {re.escape(check)}\b", exthost_output)
    failed = re.search(rf"CHECK FAIL {re.escape(check)}: (.*)", exthost_output)
    reason = failed.group(1) if failed else "did not run; see .cache/vscode/exthost-last.log"
    assert passed, f"{check}: {reason}"
