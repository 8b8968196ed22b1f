"""The code that runs in the user's interpreter works on every Python users run, 3.8 to 3.13.

That code is the pytest plugin (with its record of which functions ran), the warm server with
its forked children, the sandbox's launcher inside them, `heal_serve` and the script runner
(stdlib + pytest only). Each version gets one venv of pyenv's CPython X.Y with pytest 8 from
PyPI (scripts/project_python/setup.sh, made once and cached under ~/.cache/heal-ls-dev/; a
version pyenv has no build of is skipped with that reason), shared by the tests of this module.
Per version, one row: a real `heal-ls check --python` (the plugin's report and its record of the
functions the failing test ran), then on one warm runner a run of the saved code, the fix served
to a sandboxed run and the plugin-free confirmation of it in the sandbox. `heal-ls fix --provider
local` runs whole on the oldest version. The source is also checked for Python 3.8: grammar (ast
feature_version) and the standard-library names added in 3.9 or later, which a run reaches only
on the paths it takes.
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


VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]


@pytest.fixture(scope="module", params=VERSIONS)
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


FAILING = "tests/test_inventory.py::test_remove_all"


def heal_ls(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    command = [sys.executable, "-m", "heal_ls", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)


def test_check_warm_runs_and_the_sandbox_work_under_each_python(any_python, example_copy):
    from heal_ls.testing.confirm import CONFIRMED, confirm_run
    from heal_ls.testing.options import RunOptions
    from heal_ls.testing.runner import run_pytest
    from heal_ls.testing.warm.client import WarmRunner

    root = example_copy("inventory")
    check = heal_ls("check", str(root), "--python", any_python, "--json")
    assert check.returncode == 1, check.stderr
    (failure,) = json.loads(check.stdout)["failures"]
    reasons = {s["qualname"]: s["reason"] for s in failure["suspects"]}
    assert reasons["Inventory.remove"] == "raised here"
    assert reasons["Inventory.add"].startswith("ran during the failing test")  # the plugin's hits

    module = root / "shop" / "inventory.py"
    fixed = {str(module): module.read_text().replace("<= 1:", "<= 0:")}

    async def warm_runs():
        runner = WarmRunner(any_python, str(root))
        warm = RunOptions(python=any_python, warm=runner)
        candidate = RunOptions(python=any_python, warm=runner, overlay=fixed, sandbox=True)
        try:
            saved = await run_pytest(root, warm, nodeids=[FAILING])
            served = await run_pytest(root, candidate, nodeids=[FAILING])
            confirmed = await confirm_run(str(root), [FAILING], candidate)
            return saved, served, confirmed, runner.cold_runs, runner.server is not None
        finally:
            runner.close()

    saved, served, confirmed, cold_runs, served_warm = asyncio.run(warm_runs())
    assert (saved.failed, saved.passed, served.passed, served.failed) == (1, 0, 1, 0), served.error
    assert confirmed.summary == CONFIRMED
    assert (cold_runs, served_warm) == (0, True)  # served warm, no fallback to a cold run


def test_fix_verifies_under_the_oldest_python(oldest_python, example_copy):
    root = example_copy("inventory")
    fix = heal_ls("fix", str(root), "--python", oldest_python, "--provider", "local", "--json")
    healed = json.loads(fix.stdout)["results"][0]
    assert (healed["status"], healed["warning"]) == ("verified", None), fix.stderr  # sandboxed
    assert "warm runner unavailable" not in fix.stderr
