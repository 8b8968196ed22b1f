"""locate(): test code kept outside a test file is never a suspect (issue 22, ranking): an
assertion helper whose whole body asserts on its parameters (`def eq_(a, b): assert a == b`)
and a method of a unittest TestCase in a helper module only checked what the test computed;
the failure they raise is the test's own check."""

from pathlib import Path

import pytest
from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failing_test, keys_of, line_of, write_project

FMT = """\
def reformat(source):
    return source.replace("  ", " ")
"""
EQ = """\
def eq_(a, b, msg=None):
    \"\"\"Assert a == b.\"\"\"
    assert a == b, msg or "%r != %r" % (a, b)
"""
CASE = """\
import unittest


class CodeTest(unittest.TestCase):
    def assertCodeEqual(self, expected, code):
        if code != expected:
            self.fail("Code format mismatch")
"""


@pytest.mark.parametrize(
    ("helper", "name", "raising", "folder"),
    [(EQ, "eq_", "assert a == b", "."), (CASE, "assertCodeEqual", "self.fail", "fmttests")],
)
def test_the_check_kept_in_a_helper_module_is_no_suspect(tmp_path, helper, name, raising, folder):
    test = "from checks import *\nfrom fmt import reformat\n\n\ndef test_spaces():\n"
    test += f"    {name}('a  b', reformat('a  b'))\n"
    here, test_path = write_project(tmp_path, "fmt", FMT, test)
    (tmp_path / folder).mkdir(exist_ok=True)
    (tmp_path / folder / "spacing_test.py").write_text("def test_nothing():\n    pass\n")
    checks = Path(tmp_path / folder / "checks.py")
    checks.write_text(helper)
    keys = [*keys_of(here, FMT, ("reformat",)), *keys_of(str(checks), helper, (name,))]
    frames = [Frame(str(checks), line_of(helper, raising), name)]
    error = ("AssertionError", "'a  b' != 'a b'")
    failure = failing_test(test_path, "tests/test_fmt.py::test_spaces", 6, error, frames, keys)
    suspects = [s.qualname for s in locate(failure, str(tmp_path)).suspects]
    assert suspects and all(not q.endswith(name) for q in suspects)
    assert suspects[0] == "reformat"


def test_a_def_that_asserts_on_its_own_state_is_code_under_test(tmp_path):
    code = "def pop(stack):\n    assert len(stack) > LIMIT\n    return stack.pop()\n\n\nLIMIT = 0\n"
    here, test_path = write_project(tmp_path, "stack", code, "def test_pop():\n    pop([])\n")
    frames = [Frame(here, 2, "pop")]
    failure = failing_test(
        test_path, "tests/test_stack.py::test_pop", 2, ("AssertionError", ""), frames, []
    )
    assert locate(failure, str(tmp_path)).suspects[0].qualname == "pop"


LIBRARY_CASE = """\
import unittest


class HtmlTestCase(unittest.TestCase):
    def assertHtmlEqual(self, expected, html):
        if html.strip() != expected:
            self.fail("HTML mismatch")
"""


def test_a_testing_librarys_own_testcase_is_code_under_test(tmp_path):
    """A TestCase in a package with no test file beside it is what a testing library ships
    (Django's SimpleTestCase): a wrong assertion there is the bug, and stays the suspect."""
    test = "from htmltest.case import HtmlTestCase\n\n\ndef test_spaces():\n"
    test += "    HtmlTestCase().assertHtmlEqual('<a>', '<a >')\n"
    here, test_path = write_project(tmp_path, "fmt", FMT, test)
    (tmp_path / "htmltest").mkdir()
    case = tmp_path / "htmltest" / "case.py"
    case.write_text(LIBRARY_CASE)
    keys = keys_of(str(case), LIBRARY_CASE, ())
    keys.append(f"{case}:{line_of(LIBRARY_CASE, 'def assertHtmlEqual(')}")
    frames = [Frame(str(case), line_of(LIBRARY_CASE, "self.fail"), "assertHtmlEqual")]
    error = ("AssertionError", "HTML mismatch")
    failure = failing_test(test_path, "tests/test_fmt.py::test_spaces", 5, error, frames, keys)
    suspects = [s.qualname for s in locate(failure, str(tmp_path)).suspects]
    assert suspects[:1] == ["HtmlTestCase.assertHtmlEqual"]
