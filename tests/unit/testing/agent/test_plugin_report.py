"""The pytest plugin's report, from one real pytest run over a small project built in tmp."""

import asyncio
import os
import sys
import textwrap
from pathlib import Path

import pytest
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest

FILES = {
    "shop/__init__.py": "",
    "shop/inventory.py": """
        import functools


        class Inventory:
            def __init__(self):
                self.items = {"apple": 2}

            def remove(self, name):
                count = self.items[name]
                self.items[name] = count - 1


        def add(a, b):
            return a - b


        def logged(func):
            @functools.wraps(func)
            def wrapper(*args):
                return func(*args)

            return wrapper


        @logged
        def double(x):
            return x * 2


        def unused():
            return 0
    """,
    "shop/helpers_test_free.py": "def helper():\n    return 1\n",
    "tests/conftest.py": "",
    "tests/test_shop.py": """
        import pytest
        from shop.inventory import Inventory, add, double


        class Broken:
            def __repr__(self):
                raise RuntimeError("no repr for you")


        def test_remove_missing():
            inv = Inventory()
            broken = Broken()
            huge = "x" * 100000
            inv.remove("pear")


        def test_add():
            assert add(2, 2) == 4


        def test_double():
            assert double(3) == 6


        def test_raises_mismatch():
            with pytest.raises(KeyError):
                add(1, 1)


        def test_prints():
            print("hello from the test")
            assert add(1, 0) == 2


        @pytest.fixture
        def bad_fixture():
            raise ValueError("fixture broke")


        def test_setup_error(bad_fixture):
            pass


        @pytest.mark.skip(reason="not today")
        def test_skipped():
            pass
    """,
    "tests/test_group.py": """
        import sys

        import pytest
        from shop.inventory import Inventory


        def gather():
            errors = []
            try:
                Inventory().remove("kiwi")
            except KeyError as exc:
                errors.append(exc)
            raise ExceptionGroup("gathered", errors)


        @pytest.mark.skipif(sys.version_info < (3, 11), reason="ExceptionGroup is 3.11+")
        def test_group():
            gather()
    """,
    "tests/test_import_error.py": "from shop.inventory import missing_name\n",
    "tests/test_syntax_error.py": "def broken(:\n    pass\n",
}


def build_project(root: Path, files: dict[str, str] = FILES) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = build_project(tmp_path_factory.mktemp("proj"))
    return asyncio.run(run_pytest(root, RunOptions(test_timeout=10, run_timeout=120)))


def failure(run, suffix):
    found = [f for f in run.failures if f.id.endswith(suffix)]
    assert found, [f.id for f in run.failures]
    return found[0]


def test_counts(run):
    assert run.error is None
    group = 1 if sys.version_info >= (3, 11) else 0
    assert (run.passed, run.failed, run.errors, run.skipped) == (1, 4 + group, 3, 1 + 1 - group)
    assert not run.timed_out


def test_exception_in_workspace_function_has_all_frames(run):
    fail = failure(run, "test_remove_missing")
    assert (fail.exc_type, fail.message) == ("KeyError", "'pear'")
    assert [(Path(f.path).name, f.function) for f in fail.frames] == [
        ("test_shop.py", "test_remove_missing"),
        ("inventory.py", "remove"),
    ]
    assert fail.frames[-1].line == 9
    assert fail.test_path.endswith("tests/test_shop.py") and fail.test_line == 14
    assert fail.test == "tests/test_shop.py::test_remove_missing"


def test_locals_are_bounded_and_survive_broken_repr(run):
    test_frame, inner = failure(run, "test_remove_missing").frames
    assert inner.locals["name"] == "'pear'"
    assert test_frame.locals["broken"].startswith("<Broken instance")
    assert len(test_frame.locals["huge"]) <= 200


def test_assertion_failure_points_at_test_line(run):
    fail = failure(run, "test_add")
    assert fail.exc_type == "AssertionError"
    assert "where 0 = add(2, 2)" in fail.message
    assert fail.test_line == 18


def test_covered_lists_workspace_functions_outside_tests(run):
    fail = failure(run, "test_add")
    names = {Path(key.rsplit(":", 1)[0]).name + ":" + key.rsplit(":", 1)[1] for key in fail.covered}
    assert names == {"inventory.py:13"}
    double = next(t for t in run.tests if t.nodeid.endswith("test_double"))
    lines = sorted(int(key.rsplit(":", 1)[1]) for key in double.covered)
    assert lines == [18, 25]  # both decorated: co_firstlineno is the decorator line


def test_pytest_raises_mismatch_is_failed(run):
    fail = failure(run, "test_raises_mismatch")
    assert fail.exc_type == "Failed" and "DID NOT RAISE" in fail.message
    assert fail.test_line == 26


def test_captured_output_is_kept(run):
    assert failure(run, "test_prints").stdout.count("hello from the test") == 1


def test_setup_error_is_an_error_with_fixture_frame(run):
    outcome = next(t for t in run.tests if t.nodeid.endswith("test_setup_error"))
    assert outcome.outcome == "error"
    fail = failure(run, "test_setup_error")
    assert fail.exc_type == "ValueError" and fail.frames[-1].function == "bad_fixture"


def test_import_error_in_collection_is_a_failure_with_frames(run):
    fail = failure(run, "collect:tests/test_import_error.py")
    assert fail.exc_type == "ImportError" and fail.test is None
    assert [(Path(f.path).name, f.line) for f in fail.frames] == [("test_import_error.py", 1)]


def test_syntax_error_in_collection_ends_at_its_own_line(run):
    fail = failure(run, "collect:tests/test_syntax_error.py")
    assert fail.exc_type == "SyntaxError"
    assert fail.frames[-1].path.endswith("tests/test_syntax_error.py")
    assert fail.frames[-1].line == 1


@pytest.mark.skipif(sys.version_info < (3, 11), reason="ExceptionGroup is 3.11+")
def test_exception_group_reports_its_first_leaf_with_all_frames(run):
    fail = failure(run, "test_group")
    assert (fail.exc_type, fail.message) == ("KeyError", "'kiwi'")
    functions = [f.function for f in fail.frames]
    assert functions == ["test_group", "gather", "gather", "remove"]
    assert fail.frames[-1].locals["name"] == "'kiwi'"


def test_passing_and_skipped_tests_have_locations(run):
    skipped = next(t for t in run.tests if t.nodeid.endswith("test_skipped"))
    assert skipped.outcome == "skipped" and skipped.line == 44  # its decorator line
    assert all(t.path and t.path.endswith(("test_shop.py", "test_group.py")) for t in run.tests)


BRANCHES = {
    "calc.py": "def sign(x):\n    if x < 0:\n        return -1\n    return 1\n",
    "tests/test_calc.py": (
        "from calc import sign\n\n\ndef test_pos():\n    assert sign(2) == 1\n\n\n"
        "def test_neg():\n    assert sign(-2) == 1\n"
    ),
}


def test_a_block_recording_run_reports_the_blocks_each_test_ran(tmp_path):
    build_project(tmp_path, BRANCHES)
    options = RunOptions(test_timeout=10, run_timeout=120, blocks=True)
    run = asyncio.run(run_pytest(str(tmp_path), options))
    calc = os.path.realpath(tmp_path / "calc.py")
    passing = next(t for t in run.tests if t.nodeid.endswith("test_pos"))
    assert passing.covered == [f"{calc}:1"] and passing.blocks == {calc: [4]}
    (fail,) = run.failures
    assert fail.covered == [f"{calc}:1"] and fail.blocks == {calc: [3]}
    plain = asyncio.run(run_pytest(str(tmp_path), RunOptions(test_timeout=10, run_timeout=120)))
    assert plain.failures[0].blocks is None and all(t.blocks is None for t in plain.tests)
    assert plain.failures[0].covered == fail.covered


FAKED_OPEN = {
    "shop/__init__.py": "",
    "shop/late.py": "def read_config(path):\n    with open(path) as handle:\n        return handle.read()\n",
    "tests/test_late.py": (
        "from unittest import mock\n\n\ndef test_reads_through_open():\n"
        "    with mock.patch('builtins.open', mock.mock_open(read_data='x = 1')) as fake:\n"
        "        from shop.late import read_config\n\n"
        "        assert read_config('cfg') == 'x = 1'\n"
        "    fake.assert_called_once_with('cfg')\n"
    ),
}


def test_a_module_imported_while_a_test_fakes_open_is_recorded_and_unseen_by_the_mock(tmp_path):
    # the recorder's cache of instrumented code is read and written with the real functions
    build_project(tmp_path, FAKED_OPEN)
    run = asyncio.run(run_pytest(str(tmp_path), RunOptions(test_timeout=10, run_timeout=120)))
    late = os.path.realpath(tmp_path / "shop" / "late.py")
    (test,) = run.tests
    assert (test.outcome, test.covered) == ("passed", [f"{late}:1"])


SHARED_SETUP = {
    "db.py": (
        "def connect():\n    return {'rows': []}\n\n\n"
        "def seed(db):\n    db['rows'].append(1)\n    return db\n\n\n"
        "def count(db):\n    return len(db['rows'])\n"
    ),
    "tests/conftest.py": (
        "import pytest\nfrom db import connect\n\n\n"
        "@pytest.fixture(scope='session')\ndef base():\n    return connect()\n\n\n"
        "@pytest.fixture\ndef fresh():\n    return {'rows': []}\n"
    ),
    "tests/test_db.py": (
        "import pytest\nimport unittest\nfrom db import count, seed\n\n\n"
        "@pytest.fixture(scope='module')\ndef db(base):\n    return seed(base)\n\n\n"
        "def test_first(db):\n    assert count(db) == 1\n\n\n"
        "def test_second(db):\n    assert count(db) == 2\n\n\n"
        "def test_without(fresh):\n    assert count(fresh) == 0\n\n\n"
        "class TestClass(unittest.TestCase):\n"
        "    @classmethod\n    def setUpClass(cls):\n        cls.db = seed({'rows': []})\n\n"
        "    def test_a(self):\n        assert count(self.db) == 1\n\n"
        "    def test_b(self):\n        assert count(self.db) == 2\n"
    ),
}


def test_a_shared_fixtures_setup_counts_for_every_test_that_uses_it(tmp_path):
    """A module- or session-scoped fixture (or setUpClass) sets up once, inside the first test
    that uses it; every later test that uses it ran that setup too (a bug there fails them)."""
    build_project(tmp_path, SHARED_SETUP)
    run = asyncio.run(run_pytest(str(tmp_path), RunOptions(test_timeout=10, run_timeout=120)))
    db = os.path.realpath(tmp_path / "db.py")
    connect, seed, count = (f"{db}:{line}" for line in (1, 5, 10))
    covered = {t.nodeid.rpartition("::")[2]: t.covered for t in run.tests}
    covered.update({f.id.rpartition("::")[2]: f.covered for f in run.failures})
    for name in ("test_first", "test_second"):
        assert covered[name] == sorted([connect, seed, count]), name
    assert covered["test_without"] == [count]  # never asked for the shared ones
    for name in ("test_a", "test_b"):
        assert covered[name] == sorted([seed, count]), name
