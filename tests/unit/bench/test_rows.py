"""The bench's --json documents (bench/rows.py) keep their keys, in their order, and their
values: `heal-ls bench --json` and `--suite localise --json` print what they always printed."""

from __future__ import annotations

import json

from heal_ls import payload
from heal_ls.bench import localise
from heal_ls.bench.heal_case import empty_row
from heal_ls.bench.rows import BenchDocument, BenchSummary, LocaliseDocument, LocaliseRow, Timing
from heal_ls.bench.suites import examples_suite
from heal_ls.bench.table import summary, table_lines, totals_line

BENCH_ROW = [
    "name", "suite", "located", "status", "fixed", "correct", "hidden_failed", "equal", "weak",
    "attempts", "guard_stops", "model_calls", "tokens", "heal_seconds", "seconds", "note",
]  # fmt: skip
BENCH_SUMMARY = [
    "bugs", "located", "fixed", "hidden", "correct", "verified_wrong", "weak_wrong", "equal",
    "same_ast", "weak", "attempts", "guard_stops", "model_calls", "tokens", "total_seconds",
    "median_seconds", "max_seconds",
]  # fmt: skip


def _rows():
    cases = {c.name: c for c in examples_suite()}
    healed, missed = empty_row(cases["sum_to"]), empty_row(cases["clamp"])
    healed.located = healed.fixed = healed.correct = True
    healed.status, healed.equal, healed.attempts, healed.seconds = "verified", "same", 3, 1.25
    healed.heal_seconds = 0.5
    missed.note, missed.seconds = "no failing test", 0.25
    return healed, missed


def test_the_bench_document_has_its_keys_in_order_and_plain_values():
    healed, missed = _rows()
    text = json.dumps(payload.to_object(BenchDocument([healed, missed], summary([healed, missed]))))
    document = json.loads(text)
    assert list(document) == ["rows", "summary"]
    assert [list(row) for row in document["rows"]] == [BENCH_ROW, BENCH_ROW]
    assert list(document["summary"]) == BENCH_SUMMARY
    assert document["rows"][0] == {
        "name": "sum_to", "suite": "examples", "located": True, "status": "verified",
        "fixed": True, "correct": True, "hidden_failed": [], "equal": "same", "weak": False,
        "attempts": 3, "guard_stops": 0, "model_calls": 0, "tokens": 0, "heal_seconds": 0.5,
        "seconds": 1.25, "note": "",
    }  # fmt: skip
    totals = document["summary"]
    assert (totals["bugs"], totals["fixed"], totals["hidden"], totals["correct"]) == (2, 1, 2, 1)
    assert totals["total_seconds"] == 1.5 and totals["median_seconds"] == 0.8


def test_the_text_table_and_totals_read_the_same_rows():
    healed, missed = _rows()
    lines = table_lines([healed, missed])
    assert lines[1].split() == ["sum_to", "yes", "yes", "yes", "same", "no", "3", "0", "0", "0",
                                "1.2"]  # fmt: skip
    assert lines[2].endswith("  no failing test")
    assert lines[-1] == totals_line(BenchSummary(**payload.to_object(summary([healed, missed]))))
    assert lines[-1].startswith("fixed 1/2, correct 1/2 (hidden tests pass), verified but wrong 0")


def test_the_localise_document_has_its_keys_in_order():
    rows = [
        LocaliseRow("tiny", "calc.py:3 + -> -", "arith", True, 2, [1, None], 0.5),
        LocaliseRow("tiny", "calc.py:9 0 -> 1", "const", False, 1, [2], 0.25),
    ]
    timings = [Timing("tiny", 0.5, 0.6, 1.2, 1.1)]
    document = json.loads(
        json.dumps(payload.to_object(LocaliseDocument(rows, timings, localise.summarise(rows))))
    )
    assert list(document) == ["rows", "timings", "summary"]
    assert document["rows"][0] == {
        "package": "tiny", "bug": "calc.py:3 + -> -", "kind": "arith", "nested": True,
        "failures": 2, "ranks": [1, None], "seconds": 0.5,
    }  # fmt: skip
    assert document["timings"] == [
        {"package": "tiny", "pytest": 0.5, "check": 0.6, "ratio": 1.2, "cpu_ratio": 1.1}
    ]
    assert document["summary"] == {
        "bugs": 2,
        "failures": 3,
        "top1": 1 / 3,
        "top3": 2 / 3,
        "top5": 2 / 3,
        "none": 1 / 3,
    }
    assert localise.table(rows, timings)[-1] == (
        "| all | 2 | 3 | 33% | 67% | 67% | 33% | 1.10x cpu, 1.20x wall (worst) |"
    )
    assert localise.kinds_line(rows) == (
        "top-1 by kind: arith 50% of 2, const 0% of 1, closures 50% of 2"
    )
