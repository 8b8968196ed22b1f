"""The real-bug corpus: bugs fixed in open-source projects' histories, rebuilt from their sdists.

Only small data is in git, under benchmarks/corpus/: `projects.json` (per project: where its
modules import from, its pinned test dependencies, pytest arguments) and one folder per bug with
`bug.json` (the sdist at the buggy release pinned by sha256, the fixing commit and its url, the
failing test ids, the functions the fix touches) and the fixing commit's diff split in two:
`test.patch` (its test files) and `source.patch` (the rest of its Python files). Everything large
lives in `.cache/corpus/` (gitignored): the sdists, their unpacked trees and one venv per project.

A bug's *buggy* tree is the sdist with test.patch applied (the new tests fail); its *fixed* tree
adds source.patch (they pass). `verify` proves both for every bug, so a bug that does not
reproduce is found, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from xml.etree import ElementTree

from heal_ls import payload
from heal_ls.bench.patches import touched_functions
from heal_ls.bench.sdist import FetchError, fetch_sdist
from heal_ls.testing.invocation import pytest_arguments

CORPUS = Path(__file__).resolve().parents[3] / "benchmarks" / "corpus"
BUGS = CORPUS / "bugs"  # one folder per bug; a miner may keep its finds elsewhere (mine.py --out)
CACHE = Path(__file__).resolve().parents[3] / ".cache" / "corpus"

T = TypeVar("T")


class CorpusError(Exception):
    """A corpus folder that is missing or malformed, or a bug that cannot be set up (one line)."""


# a field that is not in the JSON file: the file's key or folder for it, or another file's text
IN_FOLDER = {payload.LOCAL: True}


@dataclass(frozen=True)
class Project:
    """One project of projects.json (`{name: {pythonpath, deps, pytest_args}}`)."""

    name: str = field(metadata=IN_FOLDER)  # its PyPI name: the entry's key
    pythonpath: str = "."  # where its modules import from, relative to the sdist root ("src")
    deps: tuple[str, ...] = ("pytest",)  # pinned test requirements, installed into its venv
    pytest_args: tuple[str, ...] = ()  # e.g. ("-o", "addopts=") against a coverage plugin


@dataclass(frozen=True)
class Bug:
    """One bug: its folder's bug.json, the folder's name and its two patches."""

    id: str = field(metadata=IN_FOLDER)  # the folder's name
    project: str
    version: str  # the buggy release whose sdist is the tree
    sha256: str
    commit: str  # the fixing commit
    url: str
    failing_tests: tuple[str, ...]  # node ids relative to the sdist root
    functions: tuple[str, ...]  # "path::qualname" of each def the source patch changes
    round: int  # the mining round that found it (1, 2, ...): each later round was measured blind
    source_patch: str = field(repr=False, metadata=IN_FOLDER)
    test_patch: str = field(repr=False, metadata=IN_FOLDER)


def load_projects(folder: Path = CORPUS) -> dict[str, Project]:
    path = folder / "projects.json"
    if not path.is_file():
        raise CorpusError(f"no corpus at {folder} (projects.json)")
    entries = _read(str(path), dict[str, object], _json(path))
    return {
        name: _read(f"{path}[{name!r}]", Project, entry, name=name)
        for name, entry in entries.items()
    }


def load_bugs(
    folder: Path = BUGS, only: Collection[str] = (), rounds: Collection[int] = ()
) -> list[Bug]:
    """Every `<folder>/<id>/bug.json` with its two patches, sorted by id; `only` these bugs or
    projects, of `rounds` (empty: all)."""
    bugs = [_load_bug(d) for d in sorted(folder.glob("*")) if (d / "bug.json").is_file()]
    known = {b.id for b in bugs} | {b.project for b in bugs}
    unknown = set(only) - known
    if unknown:
        raise CorpusError(f"no such bug(s) or project(s): {', '.join(sorted(unknown))}")
    missing = set(rounds) - {b.round for b in bugs}
    if missing:
        raise CorpusError(f"no bug of round(s) {', '.join(map(str, sorted(missing)))}")
    return [
        b
        for b in bugs
        if (not only or b.id in only or b.project in only) and (not rounds or b.round in rounds)
    ]


def _load_bug(folder: Path) -> Bug:
    try:
        patches = {
            "source_patch": (folder / "source.patch").read_text(encoding="utf-8"),
            "test_patch": (folder / "test.patch").read_text(encoding="utf-8"),
        }
    except OSError as exc:
        raise CorpusError(f"{folder}: malformed bug ({exc})") from None
    path = folder / "bug.json"
    return _read(str(path), Bug, _json(path), id=folder.name, **patches)


def _json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CorpusError(f"{path}: not readable JSON ({exc})") from None


def _read(where: str, cls: type[T], data: object, **local: str) -> T:
    """`cls` read from a file's JSON by the one reader (`local`: its IN_FOLDER fields); what
    does not fit is a CorpusError naming the file, the field and what is wrong with it."""
    try:
        return payload.from_object(cls, data, local or None)
    except payload.PayloadError as exc:
        raise CorpusError(f"{where}: malformed: {exc}") from None


def save_bug(bug: Bug, folder: Path = BUGS) -> Path:
    where = folder / bug.id
    where.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload.to_object(bug), indent=2) + "\n"
    (where / "bug.json").write_text(text, encoding="utf-8")
    (where / "source.patch").write_text(bug.source_patch, encoding="utf-8")
    (where / "test.patch").write_text(bug.test_patch, encoding="utf-8")
    return where


def venv(project: Project, cache: Path = CACHE) -> str:
    """The project's interpreter: a venv in the cache holding its pinned test deps (made once;
    a changed dependency list makes a new one). No deps: this interpreter (it has pytest)."""
    if not project.deps:
        return sys.executable
    key = hashlib.sha256("\n".join(project.deps).encode()).hexdigest()[:10]
    home = cache / "venvs" / f"{project.name}-{key}"
    python = home / "bin" / "python"
    if not (home / ".ready").is_file():
        shutil.rmtree(home, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        done = subprocess.run([*pip, *project.deps], capture_output=True, text=True, check=False)
        if done.returncode:
            raise FetchError(f"{project.name}: pip install failed: {done.stderr.strip()[-300:]}")
        (home / ".ready").write_text("\n".join(project.deps), encoding="utf-8")
    return str(python)


def tree(bug: Bug, dest: Path, *, fixed: bool = False, cache: Path = CACHE) -> Path:
    """A fresh copy of the bug's buggy tree at `dest` (sdist + test.patch; + source.patch when
    `fixed`)."""
    pristine = fetch_sdist(bug.project, bug.version, bug.sha256, cache)
    # links stay links: an sdist may ship one to a file it lacks (wtforms 3.1.0's .hgignore)
    shutil.copytree(pristine, dest, symlinks=True)
    apply_patch(dest, bug.test_patch, "test.patch")
    if fixed:
        apply_patch(dest, bug.source_patch, "source.patch")
    return dest


def apply_patch(root: Path, patch: str, label: str, *, check: bool = False) -> None:
    """`patch` applied to the tree `root` (`check`: only whether it applies), or a CorpusError.
    Where it does not apply as it is, it is tried once more ignoring whitespace in its context:
    an sdist built on Windows has CRLF lines where the commit's diff has LF."""
    command = ["git", "apply", "-C1", "--whitespace=nowarn", *(["--check"] if check else [])]
    errors = []
    for leniency in ([], ["--ignore-whitespace"]):
        done = subprocess.run(
            [*command, *leniency, "-"],
            input=patch,
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        if not done.returncode:
            return
        errors.append(done.stderr.strip())
    raise CorpusError(f"{label} does not apply: {errors[0][:300]}")


def test_env(project: Project, root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(root / project.pythonpath)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def pytest_command(
    python: str, project: Project, root: Path, ids: Sequence[str], report: Path
) -> list[str]:
    """Plain pytest on `ids`, as the project runs it, every outcome written to `report` as JUnit
    XML (xunit1: each test names its file; a test id may hold spaces, `-rA` lines cannot)."""
    junit = ["-p", "no:cacheprovider", "-q", f"--junitxml={report}", "-o", "junit_family=xunit1"]
    return [
        python,
        "-m",
        "pytest",
        *pytest_arguments(str(root), project.pytest_args, ids, extra=junit),
    ]


def outcomes(report: Path) -> dict[str, str]:
    """Node id -> PASSED/FAILED/ERROR/SKIPPED/XFAIL from pytest's JUnit XML (a collection error
    is kept under its file); {} when pytest wrote none."""
    try:
        cases = ElementTree.parse(report).iter("testcase")
    except (OSError, ElementTree.ParseError):
        return {}
    found: dict[str, str] = {}
    for case in cases:
        path = case.get("file") or ""
        module = path.removesuffix(".py").replace("/", ".")
        if not case.get("classname"):  # a module that did not collect: `name` is its module
            found.setdefault(path, _outcome(case))
            continue
        classes = case.get("classname", "").removeprefix(module).strip(".")
        parts = [path, *(classes.split(".") if classes else []), case.get("name", "")]
        found.setdefault("::".join(parts), _outcome(case))
    return found


def _outcome(case: ElementTree.Element) -> str:
    tags = {child.tag: child.get("type", "") for child in case}
    if "failure" in tags:
        return "FAILED"
    if "error" in tags:
        return "ERROR"
    if "skipped" in tags:
        return "XFAIL" if tags["skipped"] == "pytest.xfail" else "SKIPPED"
    return "PASSED"


def run_tests(
    python: str, project: Project, root: Path, ids: Sequence[str], timeout: float = 600
) -> dict[str, str]:
    """Plain pytest on `ids` in `root`: node id -> outcome."""
    with tempfile.TemporaryDirectory(prefix="heal-junit-") as folder:
        report = Path(folder) / "report.xml"
        subprocess.run(
            pytest_command(python, project, root, ids, report),
            cwd=root,
            env=test_env(project, root),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return outcomes(report)


def verify(bug: Bug, project: Project, scratch: Path, cache: Path = CACHE) -> str:
    """ "" when the bug reproduces (every failing test fails on the buggy tree and passes on the
    fixed one, and the recorded functions are the ones the source patch changes), else why not."""
    python = venv(project, cache)
    try:
        buggy = tree(bug, scratch / f"{bug.id}-buggy", cache=cache)
        fixed = tree(bug, scratch / f"{bug.id}-fixed", fixed=True, cache=cache)
    except (CorpusError, FetchError) as exc:
        return str(exc)
    touched = tuple(touched_functions(buggy, fixed, bug.source_patch))
    if touched != bug.functions:
        return f"the source patch touches {list(touched)}, recorded {list(bug.functions)}"
    before = run_tests(python, project, buggy, bug.failing_tests)
    after = run_tests(python, project, fixed, bug.failing_tests)
    for test in bug.failing_tests:
        if before.get(test) != "FAILED":
            return f"{test} is {before.get(test, 'not run')} before the fix, not FAILED"
        if after.get(test) != "PASSED":
            return f"{test} is {after.get(test, 'not run')} after the fix, not PASSED"
    return ""


def count_tests(python: str, project: Project, root: Path) -> int | None:
    """How many tests the project's whole suite collects in `root` (None: pytest said not)."""
    collect = ["--collect-only", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [python, "-m", "pytest", *pytest_arguments(str(root), project.pytest_args, extra=collect)],
        cwd=root,
        env=test_env(project, root),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return collected_count(done.stdout)


def collected_count(output: str) -> int | None:
    """The tests `pytest --collect-only -q` selected: "12 tests collected", or with a `-k`/`-m`
    in the project's options "2344/2353 tests collected (9 deselected)"."""
    found = re.findall(r"(?m)^(\d+)(?:/\d+)? tests? collected", output)
    return int(found[-1]) if found else None
