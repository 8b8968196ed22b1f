"""Common pytest setups, for real: plain pytest and `heal-ls check` on each tests/setups/ project.

    python benchmarks/setups.py [NAME ...]

Each folder of tests/setups/ (see its README.md) is copied twice to a temp dir, one copy per run
so neither sees the other's cache; plain pytest runs on one with the setup's interpreter and its
own config, `heal-ls check --json` on the other. One table row per setup: both runs' failed and
passed counts (and errors: setup and collection errors) and whether the failing test ids are
the same. Exit 1 when a row differs.
tests/e2e/test_setups.py asserts the same, row by row.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SETUPS = REPO / "tests" / "setups"
VENVS = REPO / ".cache" / "setups"  # interpreters for setups that need other packages
PROJECT_PYTHON = REPO / "scripts" / "project_python" / "setup.sh"  # finds pyenv's builds
NO_BUILD = 3  # its exit status when pyenv has no build of that version
SPEC_FILE = "heal-setup.json"
RUN_TIMEOUT = 240
# The harness's own pytest variables must not reach the runs; plugin autoloading stays on.
DROPPED_ENV = ("PYTEST_ADDOPTS", "PYTEST_CURRENT_TEST", "PYTEST_DISABLE_PLUGIN_AUTOLOAD")
COUNT = re.compile(r"(\d+) (failed|passed|errors?)\b")
SUMMARY_ID = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.M)


class Unavailable(Exception):
    """The setup needs an interpreter this machine does not have."""


@dataclass
class Counts:
    failed: int = 0
    passed: int = 0
    errors: int = 0  # setup/teardown and collection errors, which pytest counts apart
    ids: list[str] = field(default_factory=list)  # failing (and erroring) test ids, sorted
    exit: int = 0


@dataclass
class Row:
    name: str
    note: str = ""
    pytest: Counts | None = None
    heal: Counts | None = None
    unavailable: str = ""

    @property
    def same(self) -> bool:
        return (
            self.pytest is not None
            and self.heal is not None
            and (
                (self.pytest.failed, self.pytest.passed, self.pytest.errors, self.pytest.ids)
                == (self.heal.failed, self.heal.passed, self.heal.errors, self.heal.ids)
            )
        )


def names() -> list[str]:
    return sorted(p.name for p in SETUPS.iterdir() if p.is_dir() and not p.name.startswith("."))


def spec(name: str) -> dict:
    path = SETUPS / name / SPEC_FILE
    return json.loads(path.read_text()) if path.exists() else {}


def installed(package: str) -> bool:
    try:
        importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def interpreter(wanted: dict) -> str:
    """This interpreter when it has every package the setup asks for; a version alone:
    scripts/project_python/setup.sh's venv of it (pytest 8, the one tests/e2e/test_project_python
    makes too); else a cached venv."""
    packages = list(wanted.get("pip", []))
    version = wanted.get("python")
    if version is None and all(installed(p) for p in packages):
        return sys.executable
    if version is not None and not packages:
        with contextlib.suppress(Unavailable):  # no pyenv build: pythonX.Y on PATH, below
            return project_python(version)
    base = base_python(version) if version else sys.executable
    if version is None:  # the same pytest as heal-ls's own tests use
        packages.insert(0, f"pytest=={importlib.metadata.version('pytest')}")
    else:
        packages.insert(0, "pytest")
    key = hashlib.sha256(json.dumps([base, packages]).encode()).hexdigest()[:12]
    venv = VENVS / key
    python = venv / "bin" / "python"
    if not (venv / "ready").exists():
        shutil.rmtree(venv, ignore_errors=True)
        make_venv(base, venv, packages)
        (venv / "ready").touch()
    return str(python)


def make_venv(base: str, venv: Path, packages: list[str]) -> None:
    """A venv of `base` with `packages`: without pip of its own, `base`'s pip installing into it
    (pip >= 22.3: --python), which skips ensurepip's copy of pip (~9 of a venv's ~13 s of CPU);
    else with its own pip, as scripts/project_python/setup.sh does."""
    python = str(venv / "bin" / "python")
    quiet = ["install", "-q", "--disable-pip-version-check"]
    try:
        subprocess.run(
            [base, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=RUN_TIMEOUT
        )
        subprocess.run(
            [base, "-m", "pip", "--python", python, *quiet, *packages],
            check=True, timeout=RUN_TIMEOUT, capture_output=True,
        )  # fmt: skip
    except subprocess.CalledProcessError:
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([base, "-m", "venv", str(venv)], check=True, timeout=RUN_TIMEOUT)
        subprocess.run(
            [python, "-m", "pip", *quiet, *packages],
            check=True, timeout=RUN_TIMEOUT, capture_output=True,
        )  # fmt: skip


def project_python(version: str) -> str:
    """scripts/project_python/setup.sh's venv of `version` (made once, shared with the tests of
    the code that runs in the user's interpreter), or Unavailable."""
    made = subprocess.run(
        ["bash", str(PROJECT_PYTHON), version], capture_output=True, text=True, timeout=900
    )
    if made.returncode == NO_BUILD:
        raise Unavailable(f"no python{version} on this machine ({made.stderr.strip()})")
    if made.returncode != 0:
        raise RuntimeError(f"setup.sh {version} failed: {made.stderr.strip()[-1000:]}")
    return made.stdout.strip().splitlines()[-1]


def base_python(version: str) -> str:
    """pyenv's newest X.Y build (scripts/project_python/setup.sh finds it), else pythonX.Y on
    PATH when it really runs: pyenv's shims there answer only for the selected version."""
    found = subprocess.run(
        ["bash", str(PROJECT_PYTHON), "--build", version], capture_output=True, text=True
    )
    if found.returncode == 0:
        return found.stdout.strip()
    path = shutil.which(f"python{version}")
    if path and subprocess.run([path, "-c", ""], capture_output=True).returncode == 0:
        return path
    raise Unavailable(f"no python{version} on this machine ({found.stderr.strip()})")


def clean_env(addopts: str = "") -> dict[str, str]:
    """This environment without the harness's own pytest variables; `addopts`: a
    PYTEST_ADDOPTS both sides get (heal-ls's tests: `-p no:` this venv's own test tools)."""
    env = {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}
    return {**env, "PYTEST_ADDOPTS": addopts} if addopts else env


def run_pytest(python: str, folder: Path, addopts: str = "") -> Counts:
    """Plain pytest with the project's own config; -rfE only makes sure the ids are listed."""
    cmd = [python, "-m", "pytest", "-rfE"]
    env = clean_env(addopts)
    done = subprocess.run(
        cmd, cwd=folder, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env
    )
    lines = [line for line in done.stdout.splitlines() if COUNT.search(line)]
    found = {kind.rstrip("s"): int(n) for n, kind in COUNT.findall(lines[-1] if lines else "")}
    return Counts(
        failed=found.get("failed", 0),
        passed=found.get("passed", 0),
        errors=found.get("error", 0),
        ids=sorted(set(SUMMARY_ID.findall(done.stdout))),
        exit=done.returncode,
    )


def run_check(python: str, folder: Path, addopts: str = "") -> Counts:
    cmd = [sys.executable, "-m", "heal_ls", "check", "--json", "--python", python, str(folder)]
    env = clean_env(addopts)
    done = subprocess.run(
        cmd, cwd=folder, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=env
    )
    try:
        data = json.loads(done.stdout)
    except ValueError:
        return Counts(exit=done.returncode, ids=[f"<no JSON: {done.stderr.strip()[-300:]}>"])
    # a collection error is `collect:<path>` for heal-ls, `ERROR <path>` for pytest
    ids = {f.get("test") or f["id"].removeprefix("collect:") for f in data["failures"]}
    return Counts(data["failed"], data["passed"], data["errors"], sorted(ids), done.returncode)


def run_setup(name: str, addopts: str = "") -> Row:
    wanted = spec(name)
    row = Row(name, note=wanted.get("note", ""))
    try:
        python = interpreter(wanted)
    except Unavailable as exc:
        row.unavailable = str(exc)
        return row
    with tempfile.TemporaryDirectory(prefix=f"heal-ls-setup-{name}-") as tmp:
        copies = []
        for side in ("pytest", "heal-ls"):
            copy = Path(tmp) / side / name
            shutil.copytree(SETUPS / name, copy, ignore=shutil.ignore_patterns(SPEC_FILE))
            copies.append(copy)
        row.pytest = run_pytest(python, copies[0], addopts)
        row.heal = run_check(python, copies[1], addopts)
    return row


def table(rows: list[Row]) -> list[str]:
    out = [
        "| setup | pytest failed/passed/errors | heal-ls failed/passed/errors | same failing ids |",
        "| --- | --- | --- | --- |",
    ]
    for row in rows:
        if row.unavailable:
            out.append(f"| {row.name} | - | - | skipped: {row.unavailable} |")
            continue
        assert row.pytest is not None and row.heal is not None
        same = "yes" if row.same else f"no: {row.pytest.ids} vs {row.heal.ids}"
        out.append(
            f"| {row.name} | {row.pytest.failed}/{row.pytest.passed}/{row.pytest.errors} "
            f"| {row.heal.failed}/{row.heal.passed}/{row.heal.errors} | {same} |"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="setups to run (default: all)")
    args = parser.parse_args(argv)
    rows = [run_setup(name) for name in args.names or names()]
    print("\n".join(table(rows)))
    return 0 if all(row.same or row.unavailable for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
