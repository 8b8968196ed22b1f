"""The code that runs in the user's interpreter works on the oldest and the newest Python.

That code is the pytest plugin, the warm server with its forked children, and the script runner
(stdlib + pytest only). `heal-ls check`, `heal-ls fix --provider local` and the warm runner run
here for real with `--python` a venv of pyenv's CPython 3.8 and one of 3.13, each with pytest 8
from PyPI (scripts/project_python/setup.sh, cached under .cache/project-python/); a version
pyenv has no build of is skipped with that reason. The source is also checked for Python 3.8:
grammar (ast feature_version) and the standard-library names added in 3.9 or later, which a run
reaches only on the paths it takes.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
AGENT = REPO / "server" / "heal_ls" / "testing" / "agent"  # top-level modules in the user's Python
OLDEST = (3, 8)  # the README's promise for the project's own interpreter
# Names that do not exist on 3.8, as they would be spelled in this code.
NEWER_APIS = re.compile(
    r"waitstatus_to_exitcode|\.removeprefix\(|\.removesuffix\(|functools\.cache\b|\bzoneinfo\b"
    r"|\bgraphlib\b|\btomllib\b|randbytes|math\.lcm|\.bit_count\(|\bpairwise\b|to_thread\("
    r"|\baiter\(|\banext\(|orig_argv|platlibdir|strict=True|sys\.exception\(|datetime\.UTC"
    r"|StrEnum|contextlib\.chdir|file_digest|get_annotations|pidfd_open|NoneType|UnionType"
    r"|slots=True|kw_only=|importlib\.resources\.files|\bTypeAlias\b|typing\.Self|ParamSpec"
)
BUILTIN_GENERICS = {"list", "dict", "tuple", "set", "frozenset", "type"}


SETUP = REPO / "scripts" / "project_python" / "setup.sh"
NO_BUILD = 3  # setup.sh's exit status when pyenv has no build of that version


def project_python(version: str) -> str:
    """The venv's python for `version` (made once, then cached), or a skip saying why not."""
    setup = subprocess.run(
        ["bash", str(SETUP), version], capture_output=True, text=True, timeout=900
    )
    if setup.returncode == NO_BUILD:
        pytest.skip(setup.stderr.strip())
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-2000:]
    return setup.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def oldest_python() -> str:
    return project_python(".".join(map(str, OLDEST)))


@pytest.fixture(scope="module", params=["3.8", "3.13"])
def any_python(request) -> str:
    return project_python(request.param)


def user_side_files(python: str) -> list[Path]:
    """Every heal-ls file the user's interpreter imports: the warm server and the plugin."""
    probe = (
        "import json, sys; sys.path[:0] = [sys.argv[1]];"
        "import warm_server, heal_pytest_plugin, heal_overlay;"
        "print(json.dumps(sorted(m.__file__ for m in list(sys.modules.values())"
        " if (getattr(m, '__file__', None) or '').startswith(sys.argv[2]))))"
    )
    args = [python, "-c", probe, str(AGENT), str(REPO / "server")]
    out = subprocess.run(args, capture_output=True, text=True, timeout=60, check=True)
    return [Path(p) for p in json.loads(out.stdout)]


def too_new(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, str(path), feature_version=OLDEST)  # 3.9+ grammar fails here
    problems = [f"{path.name}: {m[0]}" for m in NEWER_APIS.finditer(text)]
    postponed = "from __future__ import annotations" in text
    skipped = set()
    if postponed:  # annotations are never evaluated: list[str] there is fine on 3.8
        for node in ast.walk(tree):
            for ann in (getattr(node, "annotation", None), getattr(node, "returns", None)):
                skipped |= {id(n) for n in ast.walk(ann)} if ann is not None else set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id in BUILTIN_GENERICS
            and id(node) not in skipped
        ):
            problems.append(f"{path.name}:{node.lineno}: {node.value.id}[...] needs 3.9")
    return problems


def test_user_side_code_is_python_3_8(oldest_python):
    files = user_side_files(oldest_python)
    names = {f.name for f in files}
    assert {"warm_server.py", "warm_child.py", "heal_pytest_plugin.py", "heal_overlay.py"} <= names
    assert [p for f in files for p in too_new(f)] == []


def test_the_checker_catches_what_broke_on_3_8(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n\ndef f(s) -> list[int]:\n    return os.waitstatus_to_exitcode(s)\n")
    assert len(too_new(bad)) == 2
    bad.write_text("def f(x):\n    match x:\n        case 1:\n            pass\n")
    with pytest.raises(SyntaxError):
        too_new(bad)


def test_check_fix_and_the_warm_runner_work_under_the_project_python(any_python, example_copy):
    from heal_ls.testing.invocation import build_pytest_invocation
    from heal_ls.testing.warm.client import WarmRunner

    root = example_copy("inventory")
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    heal = [sys.executable, "-m", "heal_ls"]
    check = subprocess.run(
        [*heal, "check", str(root), "--python", any_python, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    assert check.returncode == 1, check.stderr
    assert json.loads(check.stdout)["failed"] == 1
    fix = subprocess.run(
        [*heal, "fix", str(root), "--python", any_python, "--provider", "local", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    healed = json.loads(fix.stdout)["results"][0]
    assert (healed["status"], healed["warning"]) == ("verified", None), fix.stderr  # sandboxed
    assert "warm runner unavailable" not in fix.stderr

    async def warm_run():
        runner = WarmRunner(any_python, str(root))
        inv = build_pytest_invocation(root, python=any_python)
        try:
            returncode, _ = await runner.run(inv, 120)
            return returncode, runner.cold_runs, runner.server is not None
        finally:
            inv.cleanup()
            runner.close()

    assert asyncio.run(warm_run()) == (1, 0, True)  # served warm, no fallback to a cold run
