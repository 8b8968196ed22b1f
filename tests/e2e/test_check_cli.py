"""`heal-ls check` edge cases: formatting on hand-built results, exit codes, broken projects."""

import argparse
import base64
import json
import os
import re
import subprocess
import sys

import pytest
from heal_ls.cli import EXIT_PIPE_CLOSED, YOUNG_OBJECTS
from heal_ls.commands.check import add_arguments, project_root, resolve_target, run
from heal_ls.commands.check_report import human_lines, summary_line, to_json
from heal_ls.locate import Located, locate
from heal_ls.models import Failure, Frame, RunResult, Suspect
from helpers.cli import heal_check, write

pytestmark = pytest.mark.e2e


@pytest.fixture
def project(tmp_path):
    write(
        tmp_path,
        {
            "pytest.ini": "[pytest]\n",
            "pkg/__init__.py": "",
            "pkg/good.py": "def ok():\n    return 1\n",
            "tests/test_good.py": "from pkg.good import ok\n\ndef test_ok():\n    assert ok() == 1\n",
        },
    )
    return tmp_path


def test_formats_a_located_crash_and_a_not_healable_failure(tmp_path):
    write(tmp_path, {"pkg/m.py": "X = 1\n\ndef f(a):\n    return a[0] / 0\n"})
    path = str(tmp_path / "pkg" / "m.py")
    crash = Failure(
        id="tests/test_m.py::test_f",
        exc_type="ZeroDivisionError",
        message="division by zero\nsecond line",
        frames=[Frame(path, 4, "f")],
    )
    module = Failure(id="collect:tests/test_m.py", exc_type="NameError", message="x" * 300)
    module.frames = [Frame(path, 1, "<module>")]
    run = RunResult(root=str(tmp_path), passed=2, failed=1, errors=1, seconds=1.25)
    located = [(f, locate(f, str(tmp_path), run)) for f in (crash, module)]
    lines = human_lines(run, located, str(tmp_path), traceback=False)
    assert lines[0] == (
        "pkg/m.py:4:5: tests/test_m.py::test_f failed: ZeroDivisionError: division by zero"
        " -> heal target f"
    )
    assert human_lines(run, located, str(tmp_path))[1:4] == [
        "    pkg/m.py:4 in f <- heal target",
        lines[1],
        "    pkg/m.py:1 in <module>",
    ]
    assert lines[1].startswith("pkg/m.py:1:1: collect:tests/test_m.py failed: NameError: xxx")
    assert "...-> not healable" not in lines[1] and len(lines[1]) < 400
    assert lines[1].endswith(
        "-> not healable: raised at module level at pkg/m.py:1, not inside a function"
    )
    assert summary_line(run) == "1 failed, 1 error, 2 passed in 1.2s"


def test_a_class_that_lacks_the_called_method_is_the_heal_target(tmp_path):
    write(
        tmp_path, {"pkg/sets.py": "class Set:\n    def __init__(self):\n        self.items = {}\n"}
    )
    write(
        tmp_path,
        {"tests/test_sets.py": "from pkg.sets import Set\n\n\ndef test_pop():\n    Set().pop()\n"},
    )
    sets, test = str(tmp_path / "pkg/sets.py"), str(tmp_path / "tests/test_sets.py")
    failure = Failure(
        id="tests/test_sets.py::test_pop",
        exc_type="AttributeError",
        message="'Set' object has no attribute 'pop'",
        frames=[Frame(test, 5, "test_pop")],
        test="tests/test_sets.py::test_pop",
        test_path=test,
        test_line=5,
        covered=[f"{sets}:2"],
    )
    run = RunResult(root=str(tmp_path), failed=1, failures=[failure])
    lines = human_lines(run, [(failure, locate(failure, str(tmp_path), run))], str(tmp_path))
    assert lines[0].endswith("-> heal target Set")  # a heal adds pop to it (heal/member.py)
    assert lines[2] == (
        "    heal target Set at pkg/sets.py:1 (lacks the method pop that tests/test_sets.py:5 calls)"
    )


def test_json_paths_are_relative_with_slashes_and_foreign_ones_stay_absolute(tmp_path):
    write(tmp_path, {"pkg/m.py": "def f():\n    raise KeyError('k')\n"})
    failure = Failure(
        id="script:tools/run.py",
        exc_type="KeyError",
        message="'k'",
        script=str(tmp_path / "tools" / "run.py"),
        frames=[
            Frame("/usr/lib/python3/x.py", 3, "g"),
            Frame(str(tmp_path / "pkg" / "m.py"), 2, "f"),
        ],
    )
    run = RunResult(root=str(tmp_path), failed=1, failures=[failure])
    doc = to_json(run, [(failure, locate(failure, str(tmp_path)))], str(tmp_path))
    json.dumps(doc)  # serialisable
    (item,) = doc["failures"]
    assert item["script"] == "tools/run.py" and item["test"] is None
    assert [f["path"] for f in item["frames"]] == ["/usr/lib/python3/x.py", "pkg/m.py"]
    assert item["suspects"][0]["path"] == "pkg/m.py" and item["healable"] is True


def test_summary_when_nothing_ran():
    assert summary_line(RunResult(root="/x", seconds=0.04)) == "no tests ran in 0.0s"


def test_timed_out_run_is_reported():
    run = RunResult(root="/x", timed_out=True)
    assert human_lines(run, [], "/x") == ["/x: the run timed out before every test finished"]


def test_nothing_fails_exits_0(project):
    result = heal_check(project)
    assert (result.returncode, result.stdout) == (0, "")
    assert re.fullmatch(r"1 passed in \d+\.\ds\n", result.stderr)


def test_xfailed_and_xpassed_are_counted_as_pytest_counts_them(project):
    write(
        project,
        {
            "tests/test_marks.py": "import pytest\n\n\n"
            "@pytest.mark.xfail(reason='known')\ndef test_known():\n    assert False\n\n\n"
            "@pytest.mark.xfail(reason='fixed since')\ndef test_fixed():\n    pass\n\n\n"
            "@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n",
        },
    )
    result = heal_check(project)
    assert result.returncode == 0
    # pytest's own words: "1 passed, 1 skipped, 1 xfailed, 1 xpassed"
    assert re.fullmatch(r"1 passed, 1 skipped, 1 xfailed, 1 xpassed in \d+\.\ds\n", result.stderr)
    document = json.loads(heal_check(project, "--json").stdout)
    assert (document["passed"], document["skipped"], document["xfailed"], document["xpassed"]) == (
        2,
        2,
        1,
        1,
    )


def test_broken_modules_are_reported_and_never_stop_the_rest(project):
    write(
        project,
        {
            "pkg/broken.py": "def broken(:\n    pass\n",
            "pkg/boom.py": "VALUE = 1 / 0\n",
            "tests/test_broken.py": "from pkg.broken import broken\n\ndef test_b():\n    broken()\n",
            "tests/test_boom.py": "import pkg.boom\n\ndef test_c():\n    pass\n",
        },
    )
    result = heal_check(project, "--json")
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    assert doc["passed"] == 1
    by_id = {f["id"]: f for f in doc["failures"]}
    boom = by_id["collect:tests/test_boom.py"]
    assert not boom["healable"] and "module level at pkg/boom.py:1" in boom["reason"]
    broken = by_id["collect:tests/test_broken.py"]
    assert broken["exc_type"] == "SyntaxError" and not broken["healable"]
    assert broken["reason"].startswith("pkg/broken.py:1 does not parse")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{missing}"], "not a directory or a .py file"),
        (["{root}", "--script", "nope.py"], "no such script: nope.py"),
        (["{root}", "--python", "/no/such/python"], "not an executable interpreter"),
        (["{root}", "--test-timeout", "0"], "timeouts must be positive"),
    ],
)
def test_usage_errors_exit_2_with_one_line(project, args, message, capsys):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = [a.format(root=project, missing=project / "missing") for a in args]
    assert run(parser.parse_args(args)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_the_real_command_reports_usage_errors_in_one_line(tmp_path):
    result = heal_check(tmp_path / "missing")
    assert (result.returncode, result.stdout) == (2, "")
    assert (
        result.stderr == f"heal-ls check: not a directory or a .py file: {tmp_path / 'missing'}\n"
    )


def test_an_interpreter_without_pytest_is_an_internal_error(project):
    fake = project / "fakepy"
    fake.write_text("#!/bin/sh\necho 'No module named pytest' >&2\nexit 1\n")
    fake.chmod(0o755)
    result = heal_check(project, "--python", fake)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("heal-ls check: ") and result.stderr.count("\n") == 1
    assert "No module named pytest" in result.stderr


def test_path_can_be_a_test_file_a_test_id_or_a_script(example_copy):
    inventory = example_copy("inventory")
    test_file = inventory / "tests" / "test_inventory.py"
    assert resolve_target(str(test_file), None, None) == (
        str(inventory),
        ["tests/test_inventory.py"],
        None,
    )
    assert resolve_target(f"{test_file}::test_remove_all", None, None)[1] == [
        "tests/test_inventory.py::test_remove_all"
    ]
    module = inventory / "shop" / "inventory.py"
    assert resolve_target(str(module), None, None) == (str(inventory), None, str(module))
    assert resolve_target(str(inventory), ["t"], None) == (str(inventory), ["t"], None)


# jmespath's shape: setup.py, a package, unittest classes in tests/
UNITTEST_PROJECT = {
    "setup.py": "",
    "pkg/__init__.py": "",
    "pkg/compare.py": "def comparable(x):\n    return isinstance(x, int)\n",
    "tests/__init__.py": "",
    "tests/test_compare.py": """\
        import unittest
        from pkg.compare import comparable


        class TestCompare(unittest.TestCase):
            def test_strings(self):
                self.assertTrue(comparable("2016"))

            def test_ints(self):
                self.assertTrue(comparable(3))
        """,
}


def test_a_folder_of_a_project_runs_its_part_of_the_project(tmp_path):
    """`heal-ls check tests`, as `pytest tests` (jmespath: setup.py, unittest classes in tests/):
    the project's root stays the root, so its package is the workspace and ids keep `tests/`."""
    write(tmp_path, UNITTEST_PROJECT)
    assert resolve_target(str(tmp_path / "tests"), None, None) == (
        str(tmp_path),
        ["tests"],
        None,
    )
    assert resolve_target(str(tmp_path), None, None) == (str(tmp_path), None, None)
    result = heal_check("tests", "--short", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith(
        "pkg/compare.py:1:1: tests/test_compare.py::TestCompare::test_strings failed: "
        "AssertionError: False is not true -> heal target comparable"
    )


def test_a_failure_tied_to_no_function_points_at_the_test_not_the_stdlib(tmp_path):
    """Nothing of the workspace ran (a unittest assertTrue fails in unittest/case.py, json
    raises in json/decoder.py): the linter line points at the failing test's line."""
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "tests/test_x.py": """\
                import json
                import unittest


                class TestX(unittest.TestCase):
                    def test_loads(self):
                        self.assertTrue(json.loads("null"))

                    def test_bad(self):
                        json.loads("{")
                """,
        },
    )
    result = heal_check("--short", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    heads = sorted(line.split(" failed: ")[0] for line in result.stdout.splitlines()[:2])
    assert heads == [
        "tests/test_x.py:10:9: tests/test_x.py::TestX::test_bad",
        "tests/test_x.py:7:9: tests/test_x.py::TestX::test_loads",
    ]


def test_fix_of_a_folder_of_a_project_heals_the_projects_function(tmp_path):
    """`heal-ls fix tests` as `check tests`: the package is healed, not skipped as foreign."""
    write(tmp_path, UNITTEST_PROJECT)
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    command = [sys.executable, "-m", "heal_ls", "fix", "tests", "--provider", "local"]
    command += ["--local-seconds", "2", "--flaky-runs", "0"]
    result = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert result.stdout.startswith("pkg/compare.py::comparable: "), result.stdout + result.stderr


def test_a_file_of_a_projects_own_python_files_runs_its_tests(tmp_path):
    # rope's python_files is `*test.py`: its tests/ folder's `parsetest.py` is no script
    (tmp_path / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\npython_files = ["*test.py"]\n'
    )
    (tmp_path / "ropetest").mkdir()
    checks = tmp_path / "ropetest" / "parsetest.py"
    checks.write_text("import os\n\n\nclass TestParse:\n    def test_one(self):\n        pass\n")
    assert resolve_target(str(checks), None, None) == (
        str(tmp_path),
        ["ropetest/parsetest.py"],
        None,
    )
    script = tmp_path / "ropetest" / "run_all.py"
    script.write_text("def main():\n    pass\n\n\nmain()\n")
    assert resolve_target(str(script), None, None) == (str(tmp_path), None, str(script))


def test_project_root_falls_back_to_the_folder_itself(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "pytest.ini").write_text("[pytest]\n")
    assert project_root(str(tmp_path / "a" / "b")) == str(tmp_path / "a")


def test_checking_one_test_and_one_script_by_path(example_copy):
    inventory = example_copy("inventory")
    result = heal_check(f"{inventory / 'tests' / 'test_inventory.py'}::test_remove_some", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["passed"] == 1
    script = example_copy("script_crash") / "tools" / "report.py"
    result = heal_check(script)
    assert result.returncode == 1
    assert result.stdout.startswith("tools/report.py:11:5: script:tools/report.py failed: ")


def test_traceback_folds_foreign_frames_and_explains_targets_off_the_traceback(tmp_path):
    write(
        tmp_path,
        {
            "pkg/m.py": "def f():\n    return 1\n",
            "tests/test_m.py": "from pkg.m import f\n\ndef test_f():\n    assert f() == 2\n",
        },
    )
    test_path = str(tmp_path / "tests" / "test_m.py")
    failure = Failure(
        id="tests/test_m.py::test_f",
        exc_type="AssertionError",
        message="assert 1 == 2",
        frames=[
            Frame(test_path, 4, "test_f"),
            Frame("/usr/lib/a.py", 1, "a"),
            Frame("<string>", 1, "b"),
        ],
    )
    run = RunResult(root=str(tmp_path), failed=1)
    lines = human_lines(run, [(failure, locate(failure, str(tmp_path)))], str(tmp_path))
    assert lines[1:] == [
        "    tests/test_m.py:4 in test_f",
        "    ... 2 frames outside the workspace",
        "    heal target f at pkg/m.py:1 (called on the failing line tests/test_m.py:4)",
    ]


def test_short_is_one_line_per_failure(tmp_path):
    """--short (tinydb's LRUCache: four lines a failure before, the runner-ups as `also`)."""
    write(tmp_path, {"pkg/m.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"})
    test_path = str(tmp_path / "tests" / "test_m.py")
    failure = Failure(
        id="tests/test_m.py::test_f",
        exc_type="AssertionError",
        message="assert 1 == 2",
        frames=[Frame(test_path, 4, "test_f")],
    )
    path = str(tmp_path / "pkg" / "m.py")
    suspects = [
        Suspect(path, name, line, 0, line + 1, 12, "called on the failing line", 0.9, line)
        for name, line in (("f", 1), ("g", 5))
    ]
    located = Located(suspects=suspects, healable=True)
    run = RunResult(root=str(tmp_path), failed=1)
    full = human_lines(run, [(failure, located)], str(tmp_path))
    assert "    also g at pkg/m.py:5 (called on the failing line)" in full
    assert human_lines(run, [(failure, located)], str(tmp_path), traceback=False) == [
        "pkg/m.py:1:1: tests/test_m.py::test_f failed: AssertionError: assert 1 == 2"
        " -> heal target f"
    ]


def test_pytest_args_reach_pytest(project):
    """--pytest-args is one string, split like a shell: here it deselects the only test."""
    write(project, {"tests/test_bad.py": "def test_bad():\n    assert False\n"})
    plain = heal_check(project, "--json")
    assert plain.returncode == 1
    chosen = heal_check(project, "--json", "--pytest-args", "-k 'test_ok and not bad'")
    assert chosen.returncode == 0, chosen.stderr
    assert json.loads(chosen.stdout)["passed"] == 1
    broken = heal_check(project, "--pytest-args", "-k 'unclosed")
    assert broken.returncode == 2 and "pytest argument list" in broken.stderr


def test_a_reader_that_went_away_ends_the_command_quietly(project):
    """`heal-ls check --json | head`: the reader closes the pipe before the report is written.
    stdout block-buffered, as in a user's shell: the short report is still in the buffer at the
    end, so the gone reader shows at the last flush."""
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    env.pop("PYTHONUNBUFFERED", None)
    command = [sys.executable, "-m", "heal_ls", "check", "--json", str(project)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # like `head` after its lines: every write from now on is EPIPE
    _, stderr = proc.communicate(timeout=120)
    assert (proc.returncode, stderr.decode()) == (EXIT_PIPE_CLOSED, "")


def test_secrets_a_test_prints_never_reach_the_terminal(tmp_path):
    """A test (or a candidate) can put any secret it can read into its failure: check's report,
    JSON and progress mask every known one, reversed or encoded too."""
    token, db = "hf_QmVyeVNlY3JldFZhbHVlMTIz", "postgres://app:s3cr3t-pw@db.internal/app"
    write(
        tmp_path,
        {
            ".env": f"DATABASE_URL={db}\n",
            "test_leak.py": """\
                import base64, os

                def leak():
                    token = os.environ["HF_TOKEN"]
                    db = open(".env").read().split("=", 1)[1].strip()
                    return token[::-1] + " " + base64.b64encode(db.encode()).decode() + " " + token

                def test_leak():
                    assert leak() == ""
                """,
        },
    )
    env = {**os.environ, "HF_TOKEN": token, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    for extra in ([], ["--json"]):
        cmd = [sys.executable, "-m", "heal_ls", "check", str(tmp_path), *extra]
        done = subprocess.run(
            cmd, capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path
        )
        shown = done.stdout + done.stderr
        assert done.returncode == 1 and "test_leak" in shown and "***" in shown
        for secret in (token, token[::-1], db, base64.b64encode(db.encode()).decode()[:-4]):
            assert secret not in shown


def test_a_noisy_project_adds_nothing_after_the_summary(project):
    """Warnings and prints from the project's pytest plugins (deprecation warnings at import, at
    configure, at exit, like old pytest-asyncio's) stay in the runs: check prints its report and
    ends with its one-line summary."""
    noise = ("IMPORT-WARN", "CONFIG-WARN", "CONFIGURE-PRINT", "UNCONFIGURE-PRINT", "EXIT-PRINT")
    write(
        project,
        {
            "tests/test_bad.py": "def test_bad():\n    assert False\n",
            "conftest.py": """\
                import atexit, sys, warnings
                import pytest

                warnings.warn("IMPORT-WARN", DeprecationWarning)
                atexit.register(lambda: sys.stderr.write("EXIT-PRINT\\n"))

                def pytest_configure(config):
                    config.issue_config_time_warning(
                        pytest.PytestDeprecationWarning("CONFIG-WARN"), stacklevel=2
                    )
                    print("CONFIGURE-PRINT", file=sys.stderr)

                def pytest_unconfigure(config):
                    print("UNCONFIGURE-PRINT", file=sys.stderr)
                    warnings.warn("UNCONFIGURE-WARN", DeprecationWarning)
                """,
        },
    )
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTHONWARNINGS": "default"}
    command = [sys.executable, "-m", "heal_ls", "check", str(project)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    shown = done.stdout + done.stderr
    assert done.returncode == 1 and "tests/test_bad.py::test_bad failed" in done.stdout
    assert done.stderr.strip().splitlines()[-1].startswith("1 failed, 1 passed in ")
    assert [word for word in noise if word in shown] == []


def test_the_command_collects_garbage_in_fewer_rounds(project):
    """The heal-ls process (cli.entry) runs the cyclic garbage collector once per YOUNG_OBJECTS
    new objects, not Python's default 700 (what it allocates lives to the end)."""
    said = "import atexit, gc, sys; atexit.register(lambda: print(gc.get_threshold()[0]))"
    run = "sys.argv = ['heal-ls', 'check', sys.argv[1]]; from heal_ls.cli import entry; entry()"
    command = [sys.executable, "-c", f"{said}; {run}", str(project)]
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == str(YOUNG_OBJECTS)
