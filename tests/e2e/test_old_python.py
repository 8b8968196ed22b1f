"""The code that runs in the user's interpreter works on the oldest Python the README promises.

That code is the pytest plugin, the warm server with its forked children, and the script runner
(stdlib + pytest only). It runs here for real under Debian bullseye's python3.9, unpacked by
scripts/old_python/setup.sh (this machine has 3.11 only; no 3.8 build is published on the package
registries it reaches), and its source is checked for Python 3.8: grammar (ast feature_version)
and the standard-library names added in 3.9 or later.
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


@pytest.fixture(scope="module")
def old_python() -> str:
    setup = subprocess.run(
        ["bash", str(REPO / "scripts" / "old_python" / "setup.sh")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert setup.returncode == 0, setup.stdout[-2000:] + setup.stderr[-2000:]
    return setup.stdout.strip().splitlines()[-1]


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


def test_user_side_code_is_python_3_8(old_python):
    files = user_side_files(old_python)
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


def test_check_fix_and_the_warm_runner_work_under_the_old_python(old_python, example_copy):
    from heal_ls.testing.invocation import build_pytest_invocation
    from heal_ls.testing.warm.client import WarmRunner

    root = example_copy("inventory")
    env = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    heal = [sys.executable, "-m", "heal_ls"]
    check = subprocess.run(
        [*heal, "check", str(root), "--python", old_python, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    assert check.returncode == 1, check.stderr
    assert json.loads(check.stdout)["failed"] == 1
    fix = subprocess.run(
        [*heal, "fix", str(root), "--python", old_python, "--provider", "local", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    assert json.loads(fix.stdout)["results"][0]["status"] == "verified", fix.stderr
    assert "warm runner unavailable" not in fix.stderr

    async def warm_run():
        runner = WarmRunner(old_python, str(root))
        inv = build_pytest_invocation(root, python=old_python)
        try:
            returncode, _ = await runner.run(inv, 120)
            return returncode, runner.cold_runs, runner.server is not None
        finally:
            inv.cleanup()
            runner.close()

    assert asyncio.run(warm_run()) == (1, 0, True)  # served warm, no fallback to a cold run
