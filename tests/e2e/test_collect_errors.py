"""A test module that fails to import is a failure (exit 1, a diagnostic where it failed), never a
usage error: for the whole project, a test file path and `--test <id in that file>` alike."""

import json

import pytest
from helpers.cli import heal_check, heal_ls, write

pytestmark = pytest.mark.e2e

MISSING_NAME = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "pkg/__init__.py": "",
    "pkg/mod.py": "def present(x):\n    return x + 1\n",
    "tests/test_mod.py": (
        '"""Written first."""\nfrom pkg.mod import missing_name, present\n\n\n'
        "def test_missing():\n    assert missing_name(present(1)) == 2\n"
    ),
    "tests/test_ok.py": "from pkg.mod import present\n\n\ndef test_ok():\n    assert present(1) == 2\n",
}


def check_json(root, *args):
    result = heal_check("--json", *args, cwd=root)
    assert result.returncode == 1, result.stderr
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    "args",
    [(), ("tests/test_mod.py",), ("--test", "tests/test_mod.py::test_missing")],
    ids=["project", "file", "test-id"],
)
def test_a_name_the_module_lacks_is_blamed_on_that_module(tmp_path, args):
    write(tmp_path, MISSING_NAME)
    doc = check_json(tmp_path, *args)
    [failure] = doc["failures"]
    assert failure["id"] == "collect:tests/test_mod.py" and failure["exc_type"] == "ImportError"
    assert (failure["test_path"], failure["test_line"]) == ("tests/test_mod.py", 2)
    [suspect] = failure["suspects"]
    assert (suspect["path"], suspect["qualname"], suspect["focus_line"]) == (
        "pkg/mod.py",
        "<module>",
        1,
    )
    assert not failure["healable"]
    assert failure["reason"] == (
        "tests/test_mod.py:2 imports missing_name from pkg.mod, which pkg/mod.py does not define:"
        " write it there first (heal-ls heals functions that exist)"
    )
    assert doc["errors"] == 1 and doc["passed"] == (1 if not args else 0)


def test_the_human_line_points_at_the_module_and_names_the_failing_line(tmp_path):
    write(tmp_path, MISSING_NAME)
    result = heal_check("--short", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith(
        "pkg/mod.py:1:1: collect:tests/test_mod.py failed: ImportError: cannot import name"
    )
    assert "-> not healable: tests/test_mod.py:2 imports missing_name from pkg.mod" in result.stdout
    assert result.stderr.splitlines()[-1].startswith("1 error, 1 passed in ")


def test_an_unknown_id_in_a_healthy_file_is_still_a_usage_error(tmp_path):
    write(tmp_path, MISSING_NAME)
    result = heal_check("--test", "tests/test_ok.py::test_nothing_here", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert "usage error" in result.stderr and "test_nothing_here" in result.stderr


BROKEN = {
    "pytest.ini": "[pytest]\npythonpath = .\n",
    "pkg/__init__.py": "",
    "pkg/mod.py": "def f():\n    return 1\n\n\nVALUE = undefined_name\n",
    "tests/test_import.py": "from pkg.mod import f\n\n\ndef test_f():\n    assert f() == 1\n",
    "tests/test_syntax.py": "def test_s(:\n    pass\n",
}


@pytest.mark.parametrize(
    ("test_id", "where", "exc_type"),
    [
        ("tests/test_import.py::test_f", ("pkg/mod.py", 5), "NameError"),
        ("tests/test_syntax.py::test_s", ("tests/test_syntax.py", 1), "SyntaxError"),
    ],
)
def test_a_module_that_raises_while_collected_is_a_failure_for_its_test_ids(
    tmp_path, test_id, where, exc_type
):
    write(tmp_path, BROKEN)
    for args in [("--test", test_id), (test_id.split("::")[0],)]:
        [failure] = check_json(tmp_path, *args)["failures"]
        assert failure["exc_type"] == exc_type and not failure["healable"]
        assert (failure["frames"][-1]["path"], failure["frames"][-1]["line"]) == where


def test_a_conftest_that_fails_to_import_is_a_failure(tmp_path):
    write(
        tmp_path,
        {
            "pytest.ini": "[pytest]\npythonpath = .\n",
            "pkg/__init__.py": "",
            "conftest.py": "from pkg import nothing\n",
            "tests/test_ok.py": "def test_ok():\n    pass\n",
        },
    )
    [failure] = check_json(tmp_path)["failures"]
    assert failure["id"] == "collect:conftest.py" and failure["exc_type"] == "ImportError"
    assert failure["suspects"][0]["path"] == "pkg/__init__.py"


def test_fix_says_what_is_missing_and_writes_nothing(tmp_path):
    write(tmp_path, MISSING_NAME)
    proc = heal_ls("fix", str(tmp_path), "--provider", "local", "--json", "--no-cache")
    assert proc.returncode == 1, proc.stderr
    [row] = json.loads(proc.stdout)["results"]
    assert (row["test"], row["status"]) == ("collect:tests/test_mod.py", "skipped")
    assert row["reason"].startswith("tests/test_mod.py:2 imports missing_name from pkg.mod")
    assert (tmp_path / "pkg" / "mod.py").read_text() == MISSING_NAME["pkg/mod.py"]


def test_a_test_file_of_a_project_without_markers_runs_from_the_current_folder(tmp_path):
    files = {k: v for k, v in MISSING_NAME.items() if k != "pytest.ini"}
    write(tmp_path, files)  # no pytest.ini, setup.py, .git...: pytest imports pkg from cwd
    doc = check_json(tmp_path, "tests/test_mod.py")
    [failure] = doc["failures"]
    assert failure["exc_type"] == "ImportError" and failure["suspects"][0]["path"] == "pkg/mod.py"
    assert doc["root"] == str(tmp_path)


def test_a_module_that_exits_while_imported_is_a_failure_not_an_internal_error(tmp_path):
    # pytest re-raises SystemExit out of collection (INTERNALERROR, exit 3, "no tests ran")
    write(
        tmp_path,
        {
            "pytest.ini": "[pytest]\npythonpath = .\n",
            "tool.py": "import argparse\n\nARGS = argparse.ArgumentParser().parse_args()\n",
            "tests/test_tool.py": "import tool\n\n\ndef test_args():\n    assert tool.ARGS\n",
        },
    )
    doc = check_json(tmp_path)
    [failure] = doc["failures"]
    assert failure["id"] == "collect:tests/test_tool.py" and failure["exc_type"] == "SystemExit"
    assert failure["message"].startswith("2 (raised while pytest collected tests/test_tool.py")
    assert [(f["path"], f["line"]) for f in failure["frames"]][-2:] == [
        ("tests/test_tool.py", 1),
        ("tool.py", 3),
    ]
    assert "module level at tool.py:3" in failure["reason"]


def test_a_settings_plugin_that_raises_names_where_when_pytest_cannot_start(tmp_path):
    # pytest-django style: a -p plugin loads the settings in pytest_configure; pytest itself
    # stops with an INTERNALERROR before any test is collected
    write(
        tmp_path,
        {
            "pytest.ini": "[pytest]\naddopts = -p settings_plugin\npythonpath = .\n",
            "settings_plugin.py": (
                "import settings\n\n\ndef pytest_configure(config):\n    settings.load()\n"
            ),
            "settings.py": "def load():\n    return {}['DEBUG']\n",
            "tests/test_ok.py": "def test_ok():\n    pass\n",
        },
    )
    result = heal_check(cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr.splitlines()[-1] == (
        "heal-ls check: pytest failed to run (internal error): KeyError: 'DEBUG'"
        " (raised at settings.py:2 in load)"
    )
