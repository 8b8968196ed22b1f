"""Installable like a real tool (issue 25): `make package` builds the wheel and the .vsix; the
wheel goes into a clean venv and runs from a temporary folder (no editable install, no checkout
on sys.path); the .vsix goes into a clean code-server profile whose server is that venv's heal-ls
(`heal.interpreter`), and shows the example's diagnostic."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from vscode_harness import REPO, TIMEOUT, code_server_ui, workspace_copy

pytestmark = [pytest.mark.vscode, pytest.mark.e2e, TIMEOUT]


@pytest.fixture(scope="module")
def dist(vscode_tools, wheelhouse, tmp_path_factory) -> Path:
    """`make package` into a temporary DIST, with the cached vsce and the session's wheelhouse
    (its build backend; no network)."""
    out = tmp_path_factory.mktemp("dist")
    vsce = vscode_tools.node_path / ".bin" / "vsce"
    env = vscode_tools.env(DIST=str(out), VSCE=str(vsce), **wheelhouse)
    run = vscode_tools.run(["make", "package"], env, timeout=600, cwd=REPO)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def user(dist, wheelhouse, tmp_path_factory) -> dict[str, Path]:
    """A user's machine: a home folder and a clean venv with the wheel (and pytest) installed,
    its dependencies resolved by pip from the session's wheelhouse.

    The venv gets no pip of its own (this pip installs into it: `pip --python`) and pip compiles
    no bytecode (the modules the tests import compile when imported; heal_ls's own are compiled
    here, so every module of the wheel is still proven to compile): 36 -> 15 s of CPU."""
    home = tmp_path_factory.mktemp("home")
    venv = home / "venv"
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    wheel = only(dist, "heal_ls-*.whl")
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-compile"]
    pip += ["--no-index", "--find-links", wheelhouse["PIP_FIND_LINKS"]]
    install = run_as_user(home, [*pip, str(wheel), "pytest"])
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    [package] = (venv / "lib").glob("python3*/site-packages/heal_ls")
    compiled = run_as_user(home, [str(python), "-m", "compileall", "-q", str(package)])
    assert compiled.returncode == 0, compiled.stdout[-3000:] + compiled.stderr[-3000:]
    return {"home": home, "python": python, "bin": venv / "bin"}


def only(folder: Path, pattern: str) -> Path:
    (found,) = folder.glob(pattern)
    return found


def user_env(home: Path, **extra: str) -> dict[str, str]:
    """No PYTHONPATH, no API key, no heal-ls setting from the test run: a fresh login."""
    env = {"HOME": str(home), "PATH": f"{home / 'venv' / 'bin'}:/usr/local/bin:/usr/bin:/bin"}
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        env[name] = str(home / f".{name.lower()}")
    return {**env, **extra}


def run_as_user(home: Path, argv: list[str], cwd: Path | None = None, timeout: float = 600):
    return subprocess.run(
        argv,
        cwd=cwd or home,
        env=user_env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def example(dest: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", ".pytest_cache")
    return Path(shutil.copytree(REPO / "examples" / "inventory", dest, ignore=ignore))


def test_the_wheel_holds_heal_ls_and_its_data(dist):
    names = zipfile.ZipFile(only(dist, "heal_ls-*.whl")).namelist()
    assert {n.split("/")[0] for n in names} == {"heal_ls", "heal_ls-0.1.0.dist-info"}
    assert "heal_ls/heal/prices.json" in names
    assert [n for n in names if n.startswith("heal_ls/testing/agent/")]


def test_the_vsix_holds_the_bundle_and_no_python(dist):
    names = zipfile.ZipFile(only(dist, "heal-ls-*.vsix")).namelist()
    assert "extension/dist/extension.js" in names and "extension/package.json" in names
    assert not [n for n in names if "/bundled/" in n or "/node_modules/" in n]


def test_the_installed_heal_ls_runs_outside_the_checkout(user):
    version = run_as_user(user["home"], ["heal-ls", "--version"])
    assert version.returncode == 0 and version.stdout.strip() == "heal-ls 0.1.0", version.stderr
    where = run_as_user(
        user["home"], [str(user["python"]), "-c", "import heal_ls; print(heal_ls.__file__)"]
    )
    assert where.stdout.startswith(str(user["home"] / "venv" / "lib")), where.stdout + where.stderr


def test_the_installed_check_and_fix_heal_the_example(user, tmp_path):
    project = example(tmp_path / "inventory")
    check = run_as_user(user["home"], ["heal-ls", "check", "."], cwd=project)
    assert check.returncode == 1, check.stdout + check.stderr
    assert (
        "test_remove_all failed: KeyError: 'pear' -> heal target Inventory.remove" in check.stdout
    )
    argv = ["heal-ls", "fix", "--provider", "local", "--no-cache", "--apply", "."]
    fix = run_as_user(user["home"], argv, cwd=project)
    assert fix.returncode == 0, fix.stdout + fix.stderr
    assert "<= 1" not in (project / "shop" / "inventory.py").read_text()
    again = run_as_user(user["home"], ["heal-ls", "check", "."], cwd=project)
    assert again.returncode == 0, again.stdout + again.stderr


def test_the_installed_vsix_shows_the_diagnostic_from_the_installed_server(
    vscode_tools, dist, user, tmp_path
):
    """A clean profile: the .vsix installed with --install-extension, heal.interpreter set to
    the venv the wheel went into, Heal: Run Tests from the palette; the diagnostic is in the Problems
    panel and the extension's log names the venv's server."""
    settings = {"heal.interpreter": str(user["python"]), "heal.provider": "local"}
    ws = workspace_copy(tmp_path / "inventory", settings)
    env = user_env(user["home"])
    env["PATH"] = f"{vscode_tools.node.parent}:{env['PATH']}"
    profile = tmp_path / "profile"
    vsix = only(dist, "heal-ls-*.vsix")
    stages = [{"drive": "diagnostic", "ws": str(ws)}]
    out = code_server_ui(vscode_tools, vsix, profile, env, stages).stage("diagnostic")
    assert [p.name for p in (profile / "ext").glob("heal-ls.heal-ls-*")] == [
        "heal-ls.heal-ls-0.1.0"
    ]
    assert "problems: " in out and "test_remove_all failed" in out
    heal_log = "".join(p.read_text() for p in (profile / "user" / "logs").rglob("Heal.log"))
    assert f"starting: {user['python']} -m heal_ls serve" in heal_log, heal_log[-3000:]
