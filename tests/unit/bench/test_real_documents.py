"""The real-bug bench reads its children's `heal-ls check --json` and `fix --json` into their
document classes (payload.from_object): a good document fills the row, and output that is not
JSON, or a document that is malformed, is the row's note saying why, never a crash."""

from __future__ import annotations

import json
import subprocess

from heal_ls import payload
from heal_ls.bench import corpus, real
from heal_ls.documents.check import CheckDocument, FailureRow, FrameRow, SuspectRow
from heal_ls.documents.fix import FixDocument
from heal_ls.models import OperatorCount
from helpers.rows import fix_row

BUG = corpus.Bug("b", "p", "1", "0", "c", "u", ("t.py::test_a",), ("m.py::f",), 1, "", "")


def done(stdout: str, returncode: int = 1, stderr: str = "") -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(["heal-ls"], returncode, stdout, stderr)


def suspect(qualname: str) -> SuspectRow:
    return SuspectRow("m.py", qualname, 1, 2, "raised here", 1, 2, 0, 10, 0.9)


def check_output(*suspects: SuspectRow) -> str:
    failure = FailureRow(
        id="t.py::test_a", test="t.py::test_a", script=None, exc_type="AssertionError",
        message="", timed_out=False, when="call", duration=0.1, test_path="t.py", test_line=3,
        frames=[FrameRow("t.py", 3, "test_a"), FrameRow("m.py", 2, "f")],
        suspects=list(suspects), healable=True, reason=None,
    )  # fmt: skip
    document = CheckDocument("/w", 0, 1, 0, 0, 0.5, False, None, [failure])
    return json.dumps(payload.to_object(document))


def test_a_check_document_ranks_the_fixed_function():
    row = real.empty_row(BUG)
    real.record_check(row, BUG, done(check_output(suspect("g"), suspect("f"))))
    assert (row.check_ran, row.rank, row.listed, row.note) == (True, 2, True, "")


def test_check_output_that_is_no_json_is_the_rows_note_with_the_end_of_stderr():
    row = real.empty_row(BUG)
    real.record_check(row, BUG, done("", 2, "heal-ls: error: no such option\n"))
    assert row.note == "check exit 2: heal-ls: error: no such option"
    assert (row.check_ran, row.rank) == (False, None)


def test_a_malformed_check_document_is_the_rows_note_saying_where():
    document = json.loads(check_output(suspect("f")))
    document["failures"][0]["suspects"][0]["score"] = "high"
    row = real.empty_row(BUG)
    real.record_check(row, BUG, done(json.dumps(document)))
    assert row.note == (
        "check --json malformed: CheckDocument.failures[0].suspects[0].score:"
        " expected float, got a string"
    )
    assert (row.check_ran, row.rank) == (False, None)
    del document["failures"][0]["frames"]
    real.record_check(row, BUG, done(json.dumps(document)))
    assert (
        row.note == "check --json malformed: CheckDocument.failures[0]: field 'frames' is missing"
    )
    real.record_check(row, BUG, done("[]"))
    assert row.note == "check --json malformed: CheckDocument: expected an object, got an array"


def fix_output(*rows) -> str:
    return json.dumps(payload.to_object(FixDocument(list(rows))), indent=2)


def test_a_fix_document_says_verified_which_function_and_which_operator_won():
    won = fix_row("verified", suspect="m.py::f", operators={"compare": OperatorCount(3, 1.5, 1)})
    row = real.empty_row(BUG)
    real.record_fix(row, BUG, done(fix_output(won, fix_row("fixed", suspect=None)), 0))
    assert (row.fix, row.verified, row.same_function, row.fix_kind) == (
        "verified,fixed", True, True, "compare"
    )  # fmt: skip
    assert row.operators == {"compare": OperatorCount(3, 1.5, 1)}


def test_a_malformed_fix_document_is_the_rows_note_and_keeps_an_earlier_one():
    document = json.loads(fix_output(fix_row("verified")))
    document["results"][0]["status"] = "healed"
    row = real.empty_row(BUG)
    real.record_fix(row, BUG, done(json.dumps(document)))
    assert row.note.startswith("fix --json malformed: FixDocument.results[0].status: expected one")
    assert (row.fix, row.verified) == ("-", False)
    document["results"][0].update(status="verified", operators={"compare": {"tried": True}})
    row.note = ""
    real.record_fix(row, BUG, done(json.dumps(document)))
    assert row.note == (
        "fix --json malformed: FixDocument.results[0].operators['compare'].tried:"
        " expected int, got a boolean"
    )
    row.note = "check exit 1: earlier"
    real.record_fix(row, BUG, done("Traceback (most recent call last):"))
    assert row.note == "check exit 1: earlier"
