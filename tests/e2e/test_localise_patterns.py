"""Localisation patterns of real projects, on one small src-layout project run for real.

unittest classes (traced, failing line behind unittest's case.py), mock assertions (unittest.mock
and pytest-mock's `mocker`), signature
errors, a caller/callee pair with sibling tests, closures two levels deep inside a method,
hypothesis and approx, doctests; each failing test names the function that holds its bug.
"""

import asyncio
from pathlib import Path

import pytest
from heal_ls.commands.check_report import to_json
from heal_ls.diagnose import diagnose
from heal_ls.heal.guards import find_guards
from heal_ls.testing.options import RunOptions
from helpers.projects import write_files

pytestmark = pytest.mark.venv_plugins  # the project's tests use pytest-mock's `mocker`

FILES = {
    "pytest.ini": "[pytest]\npythonpath = src\naddopts = --doctest-modules\ntestpaths = tests src\n",
    "src/recap/__init__.py": "",
    "src/recap/client.py": """
        class Client:
            def __init__(self, base):
                self.base = base

            def extract(self, text):
                return {"id": text.strip().upper(), "base": self.base}

            def name(self):
                return self.base
    """,
    "src/recap/recorder.py": """
        class Recorder:
            def __init__(self, name):
                self.name = name


        def start(name):
            return Recorder(name, limit=3)
    """,
    "src/recap/notify.py": """
        def run(sender, users):
            for user in users:
                _deliver(sender, user)


        def _deliver(sender, user):
            sender.send(user.upper())
    """,
    "src/recap/filters.py": """
        def parse_filter(text):
            return [_match_clause(c) for c in text.split(",") if c]


        def _match_clause(clause):
            key, _, value = clause.partition("=")
            return key, value.lower()
    """,
    "src/recap/builder.py": """
        class Builder:
            def build(self, rows):
                def _make(key):
                    def select(row):
                        return row.get(key.upper())

                    return select

                pick = _make("name")
                return [pick(row) for row in rows]
    """,
    "src/recap/maths.py": """
        def mean(values):
            return sum(values) / (len(values) + 1)


        def twice(x):
            '''
            >>> twice(2)
            4
            '''
            return x * 2
    """,
    "src/recap/words.py": """
        RULES = []


        def _rule(word, plural):
            RULES.append((word, plural + "x"))


        _rule("person", "people")


        def pluralize(word):
            return dict(RULES).get(word, word + "s")
    """,
    "src/recap/mailer.py": """
        def send(address, text):
            raise RuntimeError("no network in tests")


        def notify(users):
            for user in users:
                _post(user)


        def _post(user):
            send(user, "hello " + user.title())
    """,
    "tests/test_mocker.py": """
        from recap.mailer import notify


        def test_notify_greets(mocker):
            send = mocker.patch("recap.mailer.send")
            notify(["bob"])
            send.assert_called_once_with("bob", "hello bob")
    """,
    "tests/test_words.py": """
        from recap.words import pluralize


        def test_pluralize():
            assert pluralize("person") == "people"
    """,
    "tests/test_unit_style.py": """
        import unittest

        from recap.client import Client


        class ClientTest(unittest.TestCase):
            def setUp(self):
                self.client = Client("b")

            def test_extract(self):
                res = self.client.extract(" X ")
                self.assertEqual(res["id"], "x")

            def test_name(self):
                self.assertEqual(self.client.name(), "b")
    """,
    "tests/test_calls.py": """
        from unittest import mock

        import pytest
        from hypothesis import given, strategies as st
        from recap.builder import Builder
        from recap.filters import parse_filter
        from recap.maths import mean
        from recap.notify import run
        from recap.recorder import start


        def test_start():
            assert start("a").name == "a"


        def test_notify():
            sender = mock.Mock()
            run(sender, ["bob"])
            sender.send.assert_called_once_with("bob")


        def test_parse_filter():
            assert parse_filter("a=B") == [("a", "B")]


        def test_parse_filter_empty():
            assert parse_filter("") == []


        def test_build():
            assert Builder().build([{"name": "a"}]) == ["a"]


        def test_build_empty():
            assert Builder().build([]) == []


        def test_mean():
            assert mean([1, 2]) == pytest.approx(1.5)


        @given(st.lists(st.integers(), min_size=1, max_size=3))
        def test_mean_of_one_value(values):
            assert mean(values[:1]) == values[0]
    """,
}

EXPECTED = {  # failing test -> (the function that holds the bug, the enclosing def offered next)
    "tests/test_unit_style.py::ClientTest::test_extract": ("Client.extract", None),
    "tests/test_calls.py::test_start": ("Recorder.__init__", None),
    "tests/test_calls.py::test_notify": ("_deliver", None),
    "tests/test_calls.py::test_parse_filter": ("_match_clause", None),
    "tests/test_calls.py::test_build": (
        "Builder.build.<locals>._make.<locals>.select",
        "Builder.build.<locals>._make",
    ),
    "tests/test_calls.py::test_mean": ("mean", None),
    "tests/test_calls.py::test_mean_of_one_value": ("mean", None),
    "tests/test_words.py::test_pluralize": ("pluralize", None),
    "tests/test_mocker.py::test_notify_greets": ("_post", None),  # pytest-mock's wrapper
}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    return write_files(tmp_path_factory.mktemp("recap"), FILES)


@pytest.fixture(scope="module")
def checked(project, tmp_path_factory):
    return asyncio.run(diagnose(project, RunOptions(test_timeout=60)))


def top(located, nodeid):
    for failure, where in located:
        if failure.id == nodeid:
            return where
    raise AssertionError(f"{nodeid} did not fail")


def test_every_item_kind_records_the_functions_it_ran(checked, project):
    run, _ = checked
    by_id = {t.nodeid: t for t in run.tests}
    names = {nodeid: {Path(k).name for k in t.covered} for nodeid, t in by_id.items()}
    client = str(project / "src/recap/client.py")
    assert f"{client}:8" in by_id["tests/test_unit_style.py::ClientTest::test_name"].covered
    assert f"{client}:2" in by_id["tests/test_unit_style.py::ClientTest::test_name"].covered
    assert by_id["src/recap/maths.py::recap.maths.twice"].outcome == "passed"
    assert names["src/recap/maths.py::recap.maths.twice"] == {"maths.py:5"}


@pytest.mark.parametrize("nodeid", sorted(EXPECTED))
def test_the_buggy_function_is_the_top_suspect(checked, nodeid):
    _, located = checked
    where = top(located, nodeid)
    qualnames = [s.qualname for s in where.suspects]
    bug, enclosing = EXPECTED[nodeid]
    assert qualnames[0] == bug, where.suspects[:3]
    if enclosing:
        assert qualnames[1] == enclosing


def test_signature_error_names_the_refusing_callee_with_the_reason(checked):
    where = top(checked[1], "tests/test_calls.py::test_start")
    assert "unexpected keyword argument 'limit'" in where.suspects[0].reason
    assert where.suspects[1].qualname == "start"  # the calling line comes next


@pytest.mark.parametrize(
    ("nodeid", "caller"),
    [
        ("tests/test_calls.py::test_notify", "run"),
        ("tests/test_mocker.py::test_notify_greets", "notify"),
    ],
)
def test_mock_assertion_blames_the_caller_of_the_mock(checked, nodeid, caller):
    """unittest.mock directly, and through pytest-mock's `mocker` (its assertion wrapper)."""
    where = top(checked[1], nodeid)
    assert where.suspects[0].reason == "called the mock the failing assertion checks"
    assert caller in [s.qualname for s in where.suspects[1:]]


def test_json_gives_every_failure_with_workspace_code_a_suspect(checked, project):
    run, located = checked
    document = to_json(run, located, str(project))
    failures = document["failures"]
    assert len(failures) == len(EXPECTED)
    assert all(f["healable"] and f["suspects"] for f in failures)


def test_a_single_failing_test_ranks_against_its_file_mates_from_the_one_run(project):
    nodeid = "tests/test_calls.py::test_parse_filter"
    run, located = asyncio.run(diagnose(project, RunOptions(test_timeout=60), tests=[nodeid]))
    assert [t.nodeid for t in run.tests] == [nodeid]  # the report holds what was asked for
    assert (run.failed, run.passed) == (1, 0)
    ((failure, where),) = located
    assert where.suspects[0].qualname == "_match_clause"
    assert where.suspects[1].qualname == "parse_filter"
    # Guard discovery for a heal finds test_parse_filter_empty, whose name extends the
    # failing test's, and holds it against a fix.
    guards = asyncio.run(find_guards(str(project), where.suspects[1], [failure], run, RunOptions()))
    assert guards.error is None
    assert "tests/test_calls.py::test_parse_filter_empty" in guards.tests


def test_failing_line_is_the_last_test_frame_not_unittest_or_mock_code(checked):
    lines = {failure.id: failure.test_line for failure, _ in checked[1]}
    assert lines["tests/test_unit_style.py::ClientTest::test_extract"] == 12
    assert lines["tests/test_calls.py::test_notify"] == 19
    assert lines["tests/test_mocker.py::test_notify_greets"] == 7


def test_functions_that_built_module_data_at_import_are_suspects_too(checked):
    where = top(checked[1], "tests/test_words.py::test_pluralize")
    rule = next(s for s in where.suspects if s.qualname == "_rule")
    assert rule.reason == "ran when its module was imported (it made module-level data)"
