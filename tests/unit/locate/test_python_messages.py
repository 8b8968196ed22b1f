"""The ranking reads Python's own exception messages; it reads them as each Python users run
(3.8-3.13) words them. tests/helpers/python_messages.py makes each message on each pyenv build
(a version without one is skipped), and each reading is checked on what that version said:
`re`'s `, got 'NoneType'` (3.11+) as well as other builtins' `, not X`, and a property without
a setter in 3.8-3.10's words, which name no class (`can't set attribute 'netmask'`)."""

from __future__ import annotations

import glob
import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from heal_ls.locate import locate
from heal_ls.locate.evidence import (
    crashed_on_a_value,
    protocol_error_method,
    refused_kind,
    signature_error_callee,
    uncallable_kind,
)
from heal_ls.locate.keywords import RefusedKeyword, refused_keyword
from heal_ls.locate.missing import (
    CANNOT_IMPORT,
    NO_MODULE,
    NO_MODULE_ATTRIBUTE,
    UNHASHABLE,
    UNSUPPORTED_OPERAND,
)
from heal_ls.locate.state import lacked
from heal_ls.locate.testline import built_in_calls
from heal_ls.locate.written import checked_text
from heal_ls.models import Chained, Frame, RunResult
from heal_ls.pysource import paths

from tests.helpers.locate import failing_test, keys_of, line_of, write_project

HELPER = Path(__file__).resolve().parents[2] / "helpers" / "python_messages.py"
VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]
PYENV = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))


@pytest.fixture(scope="module", params=VERSIONS)
def report(request) -> dict:
    """What one version's Python said (python_messages.py's report), or a skip without its
    build."""
    builds = sorted(glob.glob(f"{PYENV}/versions/{request.param}.*/bin/python"))
    if not builds:
        pytest.skip(f"pyenv has no build of Python {request.param}")
    out = subprocess.run([builds[-1], str(HELPER)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    found = json.loads(out.stdout)
    assert found["version"] == request.param
    return found


@pytest.fixture(scope="module")
def said(report) -> tuple[tuple[int, int], dict[str, str]]:
    """(version, the messages that version's Python words)."""
    major, minor = report["version"].split(".")
    return (int(major), int(minor)), report["messages"]


def test_names_modules_and_attributes_read_on_every_version(said):
    _, m = said
    assert CANNOT_IMPORT.match(m["cannot_import_name"])["name"] == "absent"
    assert NO_MODULE.match(m["no_module"])["module"] == "heal_probe_absent_module"
    assert NO_MODULE_ATTRIBUTE.match(m["module_no_attribute"])["name"] == "absent_name"
    assert lacked(m["object_no_attribute"]) == ("Owner", "absent_name")
    for key in ("unsupported_operand", "unsupported_operand_augmented", "unsupported_operand_pow"):
        assert UNSUPPORTED_OPERAND.match(m[key])["left"] == "Owner"
    assert UNHASHABLE.match(m["unhashable"])["owner"] == "list"
    assert checked_text(m["assert_in"]) == "'bc'"
    assert built_in_calls(m["built_in_repr"]) == {"join"}


def test_signatures_and_protocols_read_on_every_version(said):
    version, m = said
    for key in ("signature_unexpected_keyword", "signature_missing", "signature_too_many"):
        assert signature_error_callee(_failure("TypeError", m[key])) == "_message"
    # a method by its qualname since 3.10, by its bare name before (the ranker takes both)
    method = signature_error_callee(_failure("TypeError", m["signature_method_missing"]))
    assert method == ("Owner.mask" if version >= (3, 10) else "mask")
    assert protocol_error_method(_failure("TypeError", m["protocol_iter"])) == "__iter__"
    assert protocol_error_method(_failure("TypeError", m["protocol_str"])) == "__str__"


def test_a_refused_keyword_reads_as_each_version_words_it(said):
    """A def's `_message() got an unexpected keyword argument 'nope'`; C's `'row_limit' is an
    invalid keyword argument for int()` (`for this function` unnamed), which 3.13 words as a
    def's (`int() got ...`, `this function got ...`)."""
    _, m = said
    read = lambda key: refused_keyword(_failure("TypeError", m[key]))  # noqa: E731
    assert read("signature_unexpected_keyword") == RefusedKeyword("nope", "_message")
    assert read("keyword_refused_by_c_unnamed") == RefusedKeyword("row_limit", None)
    assert read("keyword_refused_by_c_named") == RefusedKeyword("row_limit", "int")


def test_a_refused_kind_reads_as_each_version_names_it(said):
    """`, not Owner` / `, not 'Owner'` everywhere; `re` names the kind only since 3.11
    (`, got 'Owner'`); 3.8-3.10's `expected string or bytes-like object` names none."""
    version, m = said
    for key in ("open_refused_kind", "int_refused_kind"):
        assert refused_kind(m[key]) == "Owner"
    named = version >= (3, 11)
    assert refused_kind(m["re_refused_kind"]) == ("Owner" if named else None)
    assert refused_kind(m["re_refused_none"]) == ("NoneType" if named else None)


def test_a_method_on_another_kind_and_an_uncallable_read_on_every_version(said):
    """`bytes.decode(None)` names the kind it was handed, `SEND()` the kind it could not call,
    in the same words on 3.8-3.13."""
    _, m = said
    assert refused_kind(m["descriptor_refused_none"]) == "NoneType"
    assert uncallable_kind(m["uncallable_kind"]) == "str"


def test_a_value_of_the_wrong_kind_on_the_tests_line_reads_on_every_version(said, tmp_path):
    """`3[0]`, `3()` everywhere; `with 3:` only since 3.11 (3.8-3.10 raise AttributeError
    `__enter__`, naming no kind)."""
    version, m = said
    tests = paths.TestFiles(str(tmp_path), [str(tmp_path / "test_a.py")])
    for key in ("wrong_kind_subscript", "wrong_kind_call"):
        assert crashed_on_a_value(_failure("TypeError", m[key], tmp_path), tests)
    if version >= (3, 11):
        assert crashed_on_a_value(_failure("TypeError", m["wrong_kind_with"], tmp_path), tests)


OWNERS = """\
class Owner:
    def __init__(self):
        self.mask = 0

    @property
    def netmask(self):
        return self.mask
"""
TEST = """\
from owners import Owner


def test_mask():
    o = Owner()
    assert o.netmask == 0
    o.netmask = 24
"""


def test_a_property_without_a_setter_names_its_class_on_every_version(said, tmp_path):
    """3.11+ name the class; before, the test's line `o.netmask = 24` and `o`'s recorded repr
    do."""
    _, m = said
    here, test_path = write_project(tmp_path, "owners", OWNERS, TEST)
    keys = [f"{here}:{line_of(OWNERS, 'def __init__(')}"]
    error = ("AttributeError", m["no_setter"])
    failure = failing_test(test_path, "tests/test_owners.py::test_mask", 7, error, [], keys)
    failure.frames[0] = replace(failure.frames[0], locals={"o": "<owners.Owner object at 0x1>"})
    found = locate(failure, str(tmp_path), RunResult(str(tmp_path), failures=[failure]))
    assert found.suspects[0].qualname == "Owner" and found.healable  # a heal adds the setter
    assert found.suspects[0].member == "netmask.setter"
    assert found.suspects[0].reason == (
        "lacks a setter for netmask, which tests/test_owners.py:7 assigns"
    )


def _failure(exc_type: str, message: str, root: Path | None = None):
    test_path = str((root or Path("/w")) / "test_a.py")
    return failing_test(test_path, "test_a.py::test_a", 3, (exc_type, message), [], [])


MANAGERS = """\
class Owner:
    def __init__(self):
        self.open = True


class Entered:
    def __init__(self):
        self.open = True

    def __enter__(self):
        return self

    async def __aenter__(self):
        return self
"""
STATEMENTS = {  # the message's key: the test's statement, the class and member it names
    "context_manager": ("with Owner() as m:", "Owner", "__enter__"),
    "context_manager_exit": ("with Entered() as m:", "Entered", "__exit__"),
    "async_context_manager": ("async with Owner() as m:", "Owner", "__aenter__"),
    "async_context_manager_exit": ("async with Entered() as m:", "Entered", "__aexit__"),
}


@pytest.mark.parametrize("key", sorted(STATEMENTS))
def test_a_with_of_a_class_lacking_the_protocol_names_the_class_on_every_version(
    report, tmp_path, key
):
    """3.11+ name the class (and the exit method when only it is missing); 3.8-3.10 raise
    AttributeError naming the method alone, 3.8 `__aexit__` before `__aenter__`: the test's
    `with` statement names the class (zeep-8d4f2353: `AsyncClient` without `__aenter__`)."""
    statement, owner, member = STATEMENTS[key]
    if report["version"] == "3.8" and key == "async_context_manager":
        member = "__aexit__"  # 3.8 looks the exit up first: it is the one it says is missing
    test = f"from managers import Entered, Owner\n\n\nasync def test_open():\n    {statement}\n"
    test += "        assert m.open\n"
    here, test_path = write_project(tmp_path, "managers", MANAGERS, test)
    keys = [f"{here}:{line_of(MANAGERS, 'def __init__(')}"]
    error = (report["raised"]["context_manager"][0], report["messages"][key])
    failure = failing_test(test_path, "tests/test_managers.py::test_open", 5, error, [], keys)
    found = locate(failure, str(tmp_path), RunResult(str(tmp_path), failures=[failure]))
    top = found.suspects[0]
    assert (top.qualname, top.member, found.healable) == (owner, member, True)
    used = statement.split(" ")[0] if "async" not in statement else "async with"
    assert top.reason == f"lacks {member} for the {used} that tests/test_managers.py:5 uses"


ROWS = """\
def rows(table):
    it = iter(table)
    yield next(it)
    yield from it


async def arows(table):
    if not table:
        raise StopAsyncIteration
    for row in table:
        yield row


def head(table, n):
    return list(rows(table))[:n]
"""


@pytest.mark.parametrize("key", ["generator_stopped", "async_generator_stopped"])
def test_a_stop_a_generator_let_out_is_the_raise_site_on_every_version(report, tmp_path, key):
    """PEP 479's words on every version: the RuntimeError is raised from the StopIteration
    (its cause), whose frames the record's chain keeps; the generator's `next(it)` (or raise)
    comes before `head`, the consumer the reported frames end in (petl-96cdc782)."""
    here, test_path = write_project(tmp_path, "rows", ROWS, "def test_head():\n    pass\n")
    raised, cause = report["raised"][key]
    generator = "rows" if key == "generator_stopped" else "arows"
    at = line_of(ROWS, "yield next(it)" if generator == "rows" else "raise StopAsyncIteration")
    consumer = Frame(here, line_of(ROWS, "return list"), "head")
    failure = failing_test(
        test_path, "tests/test_rows.py::test_head", 2, (raised, report["messages"][key]),
        [consumer], keys_of(here, ROWS, ("rows", "head")),
    )  # fmt: skip
    failure.chain = [Chained(cause, "", [Frame(here, at, generator)], cause=True)]
    found = locate(failure, str(tmp_path), RunResult(str(tmp_path), failures=[failure]))
    assert [s.qualname for s in found.suspects[:2]] == [generator, "head"]
    assert found.suspects[0].focus_line == at
    assert found.suspects[0].reason == (
        "let a StopIteration out of a generator: Python raised it as the RuntimeError"
    )
