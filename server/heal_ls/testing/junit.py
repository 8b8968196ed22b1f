"""pytest's own JUnit XML, read by heal-ls's process: which test ended how, in run order.

Two readers: the confirmation run below, and a CI run's report (testing/ci_report.py), which
parse the same way (`parse_cases`).

The plugin-free confirmation run (testing/confirm.py) has no heal-ls reporter; what it says comes
from pytest's exit status and this file, written by pytest's built-in junitxml plugin. The file
is in the run's exchange folder (writable from inside the sandbox), so it is opened like every
exchange file (no symlink followed, a plain file only, bounded) and parsed without entities.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from xml.etree import ElementTree

from heal_ls.testing.agent.heal_exchange import read_exchange

LIMIT = 8 * 1024 * 1024  # bytes read; a longer file is cut, fails to parse and proves nothing


@dataclass(frozen=True)
class Case:
    classname: str
    name: str
    outcome: str  # passed | failed | error | skipped
    message: str = ""
    text: str = ""  # the failure's or error's text: pytest's traceback in the run's --tb style
    seconds: float = 0.0


def case_key(nodeid: str) -> tuple[str, str]:
    """(classname, name) pytest's junitxml writes for a test id (its `mangle_test_address`):
    `tests/test_m.py::TestA::test_x[1-2]` -> (`tests.test_m.TestA`, `test_x[1-2]`)."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = re.sub(r"\.py$", "", names[0].replace("/", "."))
    names[-1] += bracket + params
    return ".".join(names[:-1]), names[-1]


def read_cases(path: str) -> list[Case]:
    """The file's test cases in the order pytest ran them; OSError or ValueError when it is
    missing, not a plain file, cut or not JUnit XML."""
    data = read_exchange(path, LIMIT + 1)
    if len(data) > LIMIT:
        raise ValueError(f"the JUnit XML is over {LIMIT} bytes")
    return parse_cases(data)


def parse_cases(data: bytes) -> list[Case]:
    """The test cases of a JUnit XML document; ValueError when it is not one."""
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise ValueError("the JUnit XML declares a document type (pytest's never does)")
    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise ValueError(f"the JUnit XML does not parse: {exc}") from exc
    if root.tag not in ("testsuites", "testsuite"):
        raise ValueError(f"not JUnit XML: its root is <{root.tag}>, not <testsuite>")
    return [_case(node) for node in root.iter("testcase")]


def _case(node: ElementTree.Element) -> Case:
    outcome, message, text = "passed", "", ""
    for child in node:
        if child.tag in ("failure", "error", "skipped"):
            outcome = "failed" if child.tag == "failure" else child.tag
            message, text = child.get("message", ""), child.text or ""
            break
    try:
        seconds = float(node.get("time") or 0)
    except ValueError:
        seconds = 0.0
    return Case(node.get("classname", ""), node.get("name", ""), outcome, message, text, seconds)
