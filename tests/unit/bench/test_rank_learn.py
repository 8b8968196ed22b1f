"""benchmarks/rank_learn.py (issue 22, a study): its extraction ranks exactly as `locate` does
and keeps every rule that offered a suspect, not only the strongest. (Its model needs numpy and
runs outside the project's venv: `python3 benchmarks/rank_learn.py study`.)"""

from heal_ls.locate import locate
from heal_ls.models import TestOutcome as Outcome
from helpers.benchmarks import load_script
from helpers.locate import failed_run, keys_of, write_project

CODE = "def parse(text):\n    return [clause(c) for c in text]\n\n\ndef clause(c):\n    return c\n"
TEST = "from filters import parse\n\n\ndef test_parse():\n    assert parse('ab') == []\n"


def test_extraction_ranks_as_locate_and_keeps_every_rule_that_offered_a_suspect(tmp_path):
    learn = load_script("rank_learn")
    module, test_path = write_project(tmp_path, "filters", CODE, TEST)
    covered = keys_of(module, CODE, ("parse", "clause"))
    error = ("AssertionError", "assert [...] == []")
    nodeid = "tests/test_filters.py::test_parse"
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, [], covered)
    run.tests = [
        Outcome(nodeid, "failed", covered=covered),
        Outcome("tests/test_filters.py::test_empty", "passed", covered=covered[:1]),
    ]
    plain = [s.qualname for s in locate(failure, str(tmp_path), run).suspects]
    suspects, rows = learn.ranked(failure, str(tmp_path), run)
    assert [s.qualname for s in suspects] == plain == ["clause", "parse"]
    assert [(r["position"], r["qualname"]) for r in rows] == [(1, "clause"), (2, "parse")]
    heads = {name: {learn.HEADS[rule] for rule in row["rules"]} for name, row in zip(plain, rows)}
    # clause: ran only in failing tests (the strongest, its reason) and its Ochiai (kept too)
    assert heads["clause"] == {"ran only in failing tests", "ran during the failing test"}
    assert "called on the failing line" in heads["parse"]
    assert rows[0]["ochiai"] == 1.0 and rows[1]["ochiai"] < 1.0
    assert rows[1]["called_on_line"] and not rows[0]["called_on_line"]
    assert rows[0]["reason"] == suspects[0].reason


def test_a_reason_head_drops_its_details():
    learn = load_script("rank_learn")
    assert learn.reason_head("called on the failing line tests/t.py:7") == (
        "called on the failing line"
    )
    assert learn.reason_head("ran during the failing test (Ochiai 0.50); lifted") == (
        "ran during the failing test"
    )
