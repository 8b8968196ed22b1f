"""Helpers for the VS Code tests: paths of the cached tools, processes in the background, the
workspace copy and the fake model's answer. Tools are installed by scripts/vscode/setup.sh."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

# Per test, fixtures excluded: the first test of a fresh machine installs the tools in a fixture
# (scripts/vscode/setup.sh, up to 1500 s), and the fixtures' subprocesses have timeouts of their own.
TIMEOUT = pytest.mark.timeout(900, func_only=True)

REPO = Path(__file__).resolve().parents[2]
# scripts/vscode/setup.sh's tools, once per machine
USER_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
CACHE = Path(os.environ.get("HEAL_VSCODE_CACHE") or USER_CACHE / "heal-ls-dev" / "vscode")
EXT_DIR = REPO / "client-vscode"
HERE = Path(__file__).resolve().parent


@dataclass
class Tools:
    node: Path
    code_server_dir: Path  # node_modules/code-server
    node_path: Path  # where playwright-core and @vscode/vsce live

    def env(self, **extra: str) -> dict[str, str]:
        env = dict(os.environ, NODE_PATH=str(self.node_path), **extra)
        env["PATH"] = f"{self.node.parent}{os.pathsep}{env['PATH']}"
        env["npm_config_nodedir"] = str(self.node.parent.parent)
        return env

    def run(self, argv: list[str], env: dict[str, str], timeout: float, cwd: Path | None = None):
        return subprocess.run(
            argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
        )

    def run_node(self, script: Path, env: dict[str, str], timeout: float):
        return self.run([str(self.node), str(script)], env, timeout)

    def run_npm(self, args: list[str], timeout: float):
        return self.run(["npm", *args], self.env(), timeout, cwd=EXT_DIR)

    def vsce_package(self, out: Path):
        vsce = self.node_path / "@vscode" / "vsce" / "vsce"
        argv = [str(self.node), str(vsce), "package", "--no-dependencies", "--out", str(out)]
        return self.run(argv, self.env(), timeout=180, cwd=EXT_DIR)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_http(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args[:2]} exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(url, timeout=2).close()
            return
        time.sleep(0.2)
    raise TimeoutError(f"nothing answered on {url} within {timeout} s")


@contextlib.contextmanager
def background(argv: list[str], *, env: dict[str, str], log: Path, cwd: Path | None = None):
    """Run argv in its own process group; kill the whole group afterwards."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        yield proc
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def fixed_remove() -> str:
    """The fixed Inventory.remove, as the fake model will answer it."""
    source = (REPO / "examples" / "inventory" / "shop" / "inventory.py").read_text()
    start = source.index("    def remove(")
    end = source.index("    def __contains__")
    body = source[start:end].rstrip() + "\n"
    assert "<= 1" in body
    lines = [line[4:] for line in body.replace("<= 1", "== 0").splitlines()]
    return "\n".join(lines) + "\n"


def workspace_copy(dest: Path, settings: dict) -> Path:
    """A copy of examples/inventory with .vscode/settings.json."""
    shutil.copytree(
        REPO / "examples" / "inventory",
        dest,
        ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"),
    )
    (dest / ".vscode").mkdir()
    (dest / ".vscode" / "settings.json").write_text(json.dumps(settings, indent=2))
    return dest


def heal_settings() -> dict:
    return {
        "heal.interpreter": sys.executable,
        "heal.provider": "openai",
        "heal.model": "fake",
        "heal.maxAttempts": 2,
    }


def model_env(fake_model: dict) -> dict[str, str]:
    return {"OPENAI_BASE_URL": fake_model["url"] + "/v1", "OPENAI_API_KEY": "sk-fake-for-tests"}


@dataclass
class UiSession:
    """What one UI session's driver printed (ui_session.js), stdout then stderr."""

    output: str

    def stage(self, drive: str) -> str:
        """The output of the stage `drive`, asserted to have passed."""
        sections = re.split(r"^=== stage (\w+)$", self.output, flags=re.M)
        found = dict(zip(sections[1::2], sections[2::2], strict=True)).get(drive, "")
        assert f"STAGE PASS {drive}" in found, (found or self.output)[-4000:]
        return found


def code_server_ui(
    tools: Tools, vsix: Path, profile: Path, env: dict[str, str], stages: list[dict[str, str]]
) -> UiSession:
    """Install the .vsix into a clean code-server profile (its own user data and extensions
    folders, and a heal-ls cache of its own: no fix remembered from another test's heal), start
    one code-server and run the UI driver's stages in one headless Chromium, one after the other
    (ui_session.js; a stage: {"drive": "quickfix" | "diagnostic" | "testing" | "report", "ws":
    the folder it opens, ...}). A failed stage fails only the tests that read it."""
    env = {**env, "HEAL_LS_CACHE_DIR": str(profile / "heal-ls-cache")}
    code_server = [
        str(tools.node),
        str(tools.code_server_dir / "out" / "node" / "entry.js"),
        "--user-data-dir",
        str(profile / "user"),
        "--extensions-dir",
        str(profile / "ext"),
    ]
    install = tools.run(code_server + ["--install-extension", str(vsix)], env, timeout=120)
    assert install.returncode == 0, install.stdout + install.stderr
    port = free_port()
    serve = ["--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry"]
    serve += ["--disable-update-check", "--disable-workspace-trust"]
    shots = CACHE / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    with background(code_server + serve, env=env, log=profile / "code-server.log") as server:
        wait_for_http(f"http://127.0.0.1:{port}/healthz", server)
        driver_env = tools.env(PORT=str(port), SHOTS=str(shots), STAGES=json.dumps(stages))
        run = tools.run_node(HERE / "ui_session.js", driver_env, timeout=300 * len(stages))
    sys.stdout.write(run.stdout + run.stderr)
    return UiSession(run.stdout + run.stderr)
