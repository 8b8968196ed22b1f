"""A failed check about an exception workspace code raised blames the function that raised it,
on a small project run for real.

`pytest.raises(E, match=...)` that does not match, `assertRaisesRegex` alike, and an assert on
an exception the test kept (`with pytest.raises(E) as info:`, then `assert str(info.value) ==`;
`kept = error` in an `except E as error:`, then `self.assertEqual(str(kept), ...)` over
several lines) all fail in the test with an AssertionError; the function whose message is wrong raised the
exception they were about. Contrast ranking alone put the parser's entry point first (the test
calls it) or functions that ran only in this test (the error path).
"""

import asyncio
from pathlib import Path

import pytest
from heal_ls.diagnose import diagnose
from heal_ls.testing.options import RunOptions
from helpers.projects import write_files

FILES = {
    "pytest.ini": "[pytest]\npythonpath = src\ntestpaths = tests\n",
    "src/conf/__init__.py": "",
    "src/conf/parse.py": """
        class ConfigError(ValueError):
            pass


        def fail(message, at):
            raise ConfigError(f"{message} at {at}")


        def parse_pair(text, at):
            if "=" not in text:
                fail("expected '=' in {text!r}", at)
            key, value = text.split("=", 1)
            return key.strip(), value.strip()


        def parse(text):
            try:
                return dict(parse_pair(line, n) for n, line in enumerate(text.splitlines(), 1))
            except ConfigError as error:
                raise ValueError(f"bad config: {error}") from error
    """,
    "tests/test_parse.py": """
        import unittest

        import pytest

        from conf.parse import parse


        def test_pairs():
            assert parse("a = 1\\nb=2") == {"a": "1", "b": "2"}


        def test_match():
            with pytest.raises(ValueError, match="expected '=' in 'oops'"):
                parse("oops")


        def test_kept():
            with pytest.raises(ValueError) as info:
                parse("a=1\\noops")
            assert str(info.value) == "bad config: expected '=' in 'oops' at 2"


        def test_handled_then_other():
            try:
                parse("oops")
            except ValueError:
                pass
            assert parse("a=1") == {"a": "2"}


        class Rule:
            def __getattr__(self, name):  # a parser's node: an unknown rule is a bug to assert
                assert False, f"no rule named {name}"


        def test_with_a_local_that_refuses_every_attribute():
            rule = Rule()
            assert parse("a=1") == {"a": "2"}, rule


        class Regex(unittest.TestCase):
            def test_regex(self):
                with self.assertRaisesRegex(ValueError, "in 'oops'"):
                    parse("oops")

            def test_kept_by_unittest(self):
                try:
                    parse("a=1\\noops")
                except ValueError as error:
                    kept = error
                self.assertEqual(
                    str(kept),
                    "bad config: expected '=' in 'oops' at 2",
                )
    """,
}

FAILING = (
    "tests/test_parse.py::test_match",
    "tests/test_parse.py::test_kept",
    "tests/test_parse.py::Regex::test_regex",
    "tests/test_parse.py::Regex::test_kept_by_unittest",
)


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    project: Path = write_files(tmp_path_factory.mktemp("conf"), FILES)
    return asyncio.run(diagnose(project, RunOptions(test_timeout=60)))


@pytest.mark.parametrize("nodeid", FAILING)
def test_the_function_that_built_the_checked_exception_ranks_first(checked, nodeid):
    _, located = checked
    (where,) = [where for failure, where in located if failure.id == nodeid]
    names = [s.qualname for s in where.suspects]
    # `fail` always raises: the blame passes to its caller, which chose the (wrong) message
    assert names[:3] == ["parse_pair", "fail", "parse"], where.suspects[:3]
    assert where.suspects[0].reason == "called fail, which always raises: the raise was chosen here"


def test_a_local_whose_getattr_raises_leaves_the_failure_as_the_test_made_it(checked):
    """The probe for a kept exception reads the test's locals: one whose `__getattr__` raises
    (arpeggio's parse tree nodes assert) turned the run into pytest's INTERNALERROR and the
    failure into ours."""
    run, _ = checked
    (failure,) = [
        f for f in run.failures if f.id.endswith("test_with_a_local_that_refuses_every_attribute")
    ]
    assert failure.exc_type == "AssertionError"
    assert "{'a': '1'} == {'a': '2'}" in failure.message, failure.message
    assert failure.caught == []


def test_a_failure_about_no_caught_exception_records_none(checked):
    run, _ = checked
    caught = {f.id: [frame.function for frame in f.caught] for f in run.failures}
    assert caught["tests/test_parse.py::test_handled_then_other"] == []
    assert caught["tests/test_parse.py::test_kept"] == ["parse", "<genexpr>", "parse_pair", "fail"]
