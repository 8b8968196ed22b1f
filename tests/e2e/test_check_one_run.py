"""`heal-ls check --test X` is one run of X's file, as `pytest <its file>` would be.

The file's other passing tests contrast the spectrum (the callee with the bug ranks first); its
other failing test is not reported; another test file importing the suspect's module never runs
before the report (it would on a big project be nearly the whole suite).
"""

import json
import os
import subprocess
import sys

import pytest
from helpers.cli import heal_check, write

pytestmark = pytest.mark.e2e

TARGET = "tests/test_filters.py::test_parse"


@pytest.fixture
def project(tmp_path):
    write(
        tmp_path,
        {
            "pytest.ini": "[pytest]\n",
            "shop/__init__.py": "",
            "shop/filters.py": """
                def parse(text):
                    return [clause(c) for c in text.split(",") if c]


                def clause(c):
                    return c.upper()
            """,
            "tests/test_filters.py": """
                from shop.filters import parse


                def test_parse():
                    assert parse("a,b") == ["a", "b"]


                def test_parse_nothing():
                    assert parse("") == []


                def test_also_broken():
                    assert parse("") == [1]
            """,
            # imports the suspects' module: a coverage run around them would run it
            "tests/test_elsewhere.py": """
                import pathlib

                from shop.filters import clause


                def test_clause():
                    pathlib.Path(__file__).with_name("elsewhere-ran").write_text("yes")
                    assert clause("a") == "A"
            """,
        },
    )
    return tmp_path


def test_check_runs_the_file_once_and_reports_only_the_requested_test(project):
    done = heal_check("--json", "--test", TARGET, project)
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert [f["test"] for f in document["failures"]] == [TARGET]
    suspects = [s["qualname"] for s in document["failures"][0]["suspects"]]
    assert suspects[:2] == ["clause", "parse"]  # test_parse_nothing ran parse(), not clause()
    assert not (project / "tests" / "elsewhere-ran").exists()


def test_the_summary_counts_the_requested_tests(project):
    done = heal_check("--short", "--test", TARGET, project)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("1 failed in ")
    assert "test_also_broken" not in done.stdout
    assert not (project / "tests" / "elsewhere-ran").exists()


def test_a_requested_test_the_file_run_did_not_reach_runs_alone(project):
    """-x stops the file's run at its first failure, before the requested test: it runs alone."""
    last = "tests/test_filters.py::test_also_broken"
    done = heal_check("--json", "--test", last, "--pytest-args=-x", project)
    assert done.returncode == 1, done.stderr
    assert [f["test"] for f in json.loads(done.stdout)["failures"]] == [last]


# Put on the PYTHONPATH of `heal-ls check`: notes, in order, each pytest spawned (an audit event
# of subprocess.Popen running agent/heal_pytest_main.py) and the import of the models and of
# diagnose (heal-ls's engine: the run's data, the run-and-locate; heavy to import).
ORDER_HOOK = """
import os, sys

def _note(event, args):
    if event == "subprocess.Popen" and "heal_pytest_main" in list(args[1] or ()):
        seen = "pytest"
    elif event == "import" and args[0] in ("heal_ls.models", "heal_ls.diagnose"):
        seen = args[0]
    else:
        return
    with open(os.environ["ORDER_FILE"], "a") as handle:
        handle.write(seen + "\\n")

sys.addaudithook(_note)
"""


# Put on the PYTHONPATH of `heal-ls check`: at the first pytest spawned, notes which of the
# modules named in WATCHED (comma-separated) heal-ls has imported by then.
LOADED_HOOK = """
import os, sys

def _note(event, args):
    if event == "subprocess.Popen" and "heal_pytest_main" in list(args[1] or ()):
        watched = os.environ["WATCHED"].split(",")
        loaded = [m for m in watched if m in sys.modules]
        if not os.path.exists(os.environ["ORDER_FILE"]):
            with open(os.environ["ORDER_FILE"], "w") as handle:
                handle.write(" ".join(loaded) or "-")

sys.addaudithook(_note)
"""


def hooked_check(project, tmp_path, hook: str, target: str | None, **env_vars: str) -> str:
    """`heal-ls check --json [--test target] project` with `hook` as its sitecustomize; what
    the hook wrote to ORDER_FILE."""
    hooks = tmp_path / "hooks"
    write(hooks, {"sitecustomize.py": hook})
    order = tmp_path / "order"
    paths = [str(hooks), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "ORDER_FILE": str(order)}
    env.update(env_vars, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    args = ["--test", target] if target else []
    cmd = [sys.executable, "-m", "heal_ls", "check", "--json", *args, str(project)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 1, done.stderr
    assert TARGET in [f["test"] for f in json.loads(done.stdout)["failures"]]
    return order.read_text()


@pytest.mark.parametrize("target", [TARGET, None])
def test_pytest_starts_before_heal_ls_imports_the_rest_and_runs_once(project, tmp_path, target):
    """The file's run is spawned as soon as the arguments are read, heal-ls's own imports go
    on while it runs, and diagnose takes that run over: one pytest, started before the engine is
    imported (`--test X` and the whole project alike; testing/head_start.py)."""
    order = hooked_check(project, tmp_path, ORDER_HOOK, target)
    assert order.split() == ["pytest", "heal_ls.models", "heal_ls.diagnose"]


# What `check` has no use for before its first run is spawned: sqlite (the impact map's
# schema; the hits cache's folder is named without it), the sandbox's machinery (a RunOptions
# holds only the user's policy), and `secrets` with its hmac and hashlib (the seal is
# os.urandom, as secrets.token_bytes is).
NOT_BEFORE_THE_SPAWN = ("sqlite3", "heal_ls.impact.schema", "heal_ls.testing.sandbox", "secrets")


def test_the_first_run_is_spawned_without_the_map_the_sandbox_or_secrets(project, tmp_path):
    loaded = hooked_check(
        project, tmp_path, LOADED_HOOK, TARGET, WATCHED=",".join(NOT_BEFORE_THE_SPAWN)
    )
    assert loaded == "-"


# What loads while pytest's launcher starts Python and pytest (testing/prestart.py): heal-ls's
# config, the run's options, the impact map's question, the wire's record classes (the launcher
# needs only heal_env's names) and the model providers' package (the output's masking does not
# need it), with typing and dataclasses, which only they would load before the spawn,
# pathlib (pysource/paths.py needs it only to tell a test file from a script) and the output's
# masking patterns (redact: check masks its output once the launcher is spawned).
NOT_BEFORE_THE_LAUNCHER = (
    "heal_ls.heal.config",
    "heal_ls.testing.options",
    "heal_ls.testing.focus",
    "heal_ls.impact.vouch",
    "heal_ls.testing.agent.heal_protocol",
    "heal_ls.llm",
    "typing",
    "dataclasses",
    "pathlib",
    "heal_ls.redact",
)


def test_pytest_is_launched_before_heal_ls_loads_its_config(project, tmp_path):
    """The launcher is the one pytest of the check (the test above counts them): it starts
    before the run is built, and takes the run once it is."""
    loaded = hooked_check(
        project, tmp_path, LOADED_HOOK, TARGET, WATCHED=",".join(NOT_BEFORE_THE_LAUNCHER)
    )
    assert loaded == "-"
