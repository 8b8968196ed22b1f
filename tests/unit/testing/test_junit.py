"""pytest's JUnit XML as heal-ls reads it: the ids pytest itself writes, outcomes in run order,
and nothing but a plain, bounded, entity-free file."""

from __future__ import annotations

import os

import pytest
from _pytest.junitxml import mangle_test_address
from heal_ls.testing.junit import LIMIT, Case, case_key, read_cases

XML = """<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">
<testcase classname="tests.test_m" name="test_ok" time="0.001" />
<testcase classname="tests.test_m.TestA" name="test_x[1-2]" time="0.001">
<failure message="assert 1 == 2">details</failure></testcase>
<testcase classname="tests.test_m" name="test_skip"><skipped type="pytest.skip" message="no"/>
</testcase><testcase classname="tests.test_m" name="test_err"><error message="boom"/></testcase>
</testsuite></testsuites>"""


@pytest.mark.parametrize(
    "nodeid",
    [
        "tests/test_m.py::test_ok",
        "tests/test_m.py::TestA::test_x[1-2]",
        "test_m.py::test_x[a::b/c.py]",
        "pkg/sub/test_n.py::TestA::TestB::test_y",
    ],
)
def test_the_key_is_the_one_pytest_writes(nodeid):
    names = mangle_test_address(nodeid)
    assert case_key(nodeid) == (".".join(names[:-1]), names[-1])


def test_cases_in_order_with_their_outcomes(tmp_path):
    path = tmp_path / "junit.xml"
    path.write_text(XML)
    assert read_cases(str(path)) == [
        Case("tests.test_m", "test_ok", "passed", seconds=0.001),
        Case("tests.test_m.TestA", "test_x[1-2]", "failed", "assert 1 == 2", "details", 0.001),
        Case("tests.test_m", "test_skip", "skipped", "no"),
        Case("tests.test_m", "test_err", "error", "boom"),
    ]


def test_a_symlink_a_doctype_a_cut_or_broken_file_is_refused(tmp_path):
    private = tmp_path / "private.xml"
    private.write_text(XML)
    link = tmp_path / "link.xml"
    os.symlink(private, link)
    with pytest.raises(OSError):
        read_cases(str(link))
    entity = tmp_path / "entity.xml"
    entity.write_text('<!DOCTYPE x [<!ENTITY a "aaaa">]><testsuites>&a;</testsuites>')
    with pytest.raises(ValueError, match="document type"):
        read_cases(str(entity))
    big = tmp_path / "big.xml"
    big.write_text(XML.replace("details", "x" * LIMIT))
    with pytest.raises(ValueError, match="over"):
        read_cases(str(big))
    broken = tmp_path / "broken.xml"
    broken.write_text(XML[:200])
    with pytest.raises(ValueError, match="does not parse"):
        read_cases(str(broken))
