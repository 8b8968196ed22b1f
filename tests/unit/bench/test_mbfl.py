"""benchmarks/mbfl_study.py and mbfl_plugin.py (issue 22, a study): the mutants of a def, the
plugin's in-process swap of a live function's code (through a property, a classmethod, a
`super()` closure) and re-run of the tests, a looping mutant stopped by its CPU limit, and the
re-rankings read from the per-mutant counts."""

import ast
import json
import os
import subprocess
import sys

import pytest
from helpers.benchmarks import BENCHMARKS, load_script


@pytest.fixture(scope="module")
def study():
    return load_script("mbfl_study")


CODE = """\
class Base:
    def size(self):
        return 1


class Box(Base):
    def size(self):
        return super().size() + 1

    @property
    def full(self):
        return self.size() > 2

    @classmethod
    def make(cls, n):
        return [cls() for _ in range(n)]

    def __init__(self):
        self.__items = [1]

    def count(self):
        return len(self.__items)


def clamp(x, top):
    if x > top + 1:  # the bug: should be `x > top`
        return top
    return x


def spin(n):
    while n < 3:
        n = n + 1
    return n
"""

TESTS = """\
from code import Box, clamp, spin


def test_clamp_fails():
    assert clamp(5, 4) == 4


def test_clamp_below():
    assert clamp(1, 5) == 1


def test_box():
    assert Box().size() == 2 and not Box().full and len(Box.make(2)) == 2
    assert Box().count() == 1


def test_spin():
    assert spin(0) == 3
"""


def test_mutants_start_with_the_identity_and_take_each_kind_in_turn(study):
    function = ast.parse(CODE).body[2]
    made = study.mutants(function, cap=6)
    assert made[0] == {"op": "identity", "source": study.source_of(function)}
    kinds = ["negate", "compare", "return-none", "const+1", "const-1", "delete"]
    assert [m["op"] for m in made[1:]] == kinds  # cap=6, one of each kind first
    assert "if not x > top + 1:" in made[1]["source"] and "if x <= top + 1:" in made[2]["source"]
    assert len({m["source"] for m in made}) == len(made)  # no two alike
    assert study.mutants(function) == study.mutants(function)  # the same order every time


def run_plugin(tmp_path, suspects, failing, cpu_limit=2.0):
    (tmp_path / "code.py").write_text(CODE, encoding="utf-8")
    (tmp_path / "test_code.py").write_text(TESTS, encoding="utf-8")
    out, spec = tmp_path / "out.jsonl", tmp_path / "spec.json"
    document = {"out": str(out), "cpu_limit": cpu_limit, "failing": failing, "suspects": suspects}
    spec.write_text(json.dumps(document), encoding="utf-8")
    env = dict(os.environ, MBFL_SPEC=str(spec))
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(BENCHMARKS)])
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p"]
    subprocess.run(
        [*command, "mbfl_plugin", str(tmp_path)], cwd=tmp_path, env=env, capture_output=True
    )
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    return lines[0]["baseline"], lines[1:]


def suspect_of(study, tmp_path, qualname, def_line, tests, cap=20):
    function = next(
        n
        for n in ast.walk(ast.parse(CODE))
        if isinstance(n, ast.FunctionDef) and n.lineno == def_line
    )
    first = def_line - len(function.decorator_list)
    return {
        "path": str(tmp_path / "code.py"), "qualname": qualname, "first": first,
        "last": def_line, "passing": tests, "mutants": study.mutants(function, cap=cap),
    }  # fmt: skip


def test_the_plugin_swaps_each_mutant_in_and_reruns_the_tests(study, tmp_path):
    failing = ["test_code.py::test_clamp_fails"]
    suspects = [
        suspect_of(study, tmp_path, "clamp", 25, ["test_code.py::test_clamp_below"]),
        suspect_of(study, tmp_path, "Box.size", 7, ["test_code.py::test_box"]),
        suspect_of(study, tmp_path, "Box.full", 11, ["test_code.py::test_box"]),
        suspect_of(study, tmp_path, "Box.make", 15, ["test_code.py::test_box"]),
        suspect_of(study, tmp_path, "Box.count", 21, ["test_code.py::test_box"]),
    ]
    base, records = run_plugin(tmp_path, suspects, failing)
    assert base["test_code.py::test_clamp_fails"][0] == "failed"
    assert all(r["swapped"] for r in records)  # a property, a classmethod, super(), self.__x
    by = {}
    for r in records:
        by.setdefault(r["suspect"], []).append(r)
    for rows in by.values():  # the identity changes nothing
        assert rows[0]["op"] == "identity"
        assert rows[0]["failing"] == {failing[0]: base[failing[0]]}
        assert all(v == ["passed", ""] for v in rows[0]["passing"].values())
    clamp_rows = by[0][1:]
    assert any(r["failing"][failing[0]][0] == "passed" for r in clamp_rows)  # const-1 on top
    assert any(r["passing"]["test_code.py::test_clamp_below"][0] == "failed" for r in clamp_rows)
    size_rows = by[1][1:]
    assert any(r["passing"]["test_code.py::test_box"][0] == "failed" for r in size_rows)
    assert all(r["failing"][failing[0]] == base[failing[0]] for r in size_rows)  # not run by it
    result = study.SuspectResult("clamp", "code.py", 1, 1.0, True, made=len(by[0]) - 1)
    study.score(result, by[0], base)
    assert result.identity_ok and result.swapped == result.made and result.green >= 1


def test_a_looping_mutant_is_stopped_and_counted(study, tmp_path):
    spin = suspect_of(study, tmp_path, "spin", 31, ["test_code.py::test_spin"])
    loops = [m for m in spin["mutants"] if "n = n + 0" in m["source"]]  # for ever
    spin["mutants"] = [spin["mutants"][0], *loops]
    _base, records = run_plugin(tmp_path, [spin], [], cpu_limit=0.5)
    assert records[1]["passing"]["test_code.py::test_spin"] == ["timeout", ""]


def test_the_rerankings(study):
    def suspect(position, score, fixed, mutants, passing=2):
        return {"position": position, "score": score, "fixed": fixed, "passing": passing,
                "green": sum(m["green"] for m in mutants), "mutants": mutants,
                "swapped": len(mutants), "why_not": "", "identity_ok": True,
                "changed": 0, "broken": 0, "timeouts": 0}  # fmt: skip

    killer = {"op": "compare", "fk": 1, "green": 1, "pk": 0}
    breaker = {"op": "delete", "fk": 1, "green": 0, "pk": 2}
    bug = {"bug": "b", "rank": 2, "failing": 1, "suspects": [
        suspect(1, 0.9, False, [breaker]), suspect(2, 0.9, True, [killer]),
        suspect(3, 0.5, False, []),
    ]}  # fmt: skip
    assert study.reorder(bug, "metallaxis") == 1
    assert study.reorder(bug, "tie") == 1  # equal scores: MBFL breaks the tie
    assert study.reorder(bug, "green-first") == 1
    bug["suspects"][0] = suspect(1, 0.9, False, [dict(killer, green=1), breaker])
    assert study.reorder(bug, "green-first") == 2  # both turned a test green: order stands
    bug["suspects"][1] = suspect(2, 0.9, True, [dict(killer, green=2)])
    assert study.reorder(bug, "most-green") == 1
    assert "green in 1" in study.premise(bug["suspects"][1:2], True)
    bug["suspects"][0]["score"] = 0.99
    assert study.reorder(bug, "tie") == 2  # not tied: the ranking's order stands
    assert study.reorder(dict(bug, rank=7), "metallaxis") == 7  # below K: unchanged


def test_a_clean_green_mutant_within_the_first_three_comes_first(study):
    def suspect(position, fixed, green, pk, passing=3):
        mutants = [{"op": "negate", "fk": 1, "green": green, "pk": pk}]
        return {"position": position, "score": 1.0, "fixed": fixed, "passing": passing,
                "green": green, "mutants": mutants}  # fmt: skip

    ss = [suspect(1, False, 1, 3), suspect(2, False, 0, 0), suspect(3, True, 1, 0)]
    bug = {"bug": "b", "rank": 3, "failing": 1, "suspects": ss}
    assert study.reorder(bug, "clean-green-3") == 1  # green, no passing test broken
    ss[2]["passing"] = 0  # none was run: "broke none" says nothing
    assert study.reorder(bug, "clean-green-3") == 3
    ss[2]["passing"], ss[0]["mutants"][0]["pk"] = 3, 0  # the first has one too: it stays
    assert study.reorder(bug, "clean-green-3") == 3
    bug["suspects"] = [suspect(1, False, 0, 0), *ss[1:], suspect(4, False, 1, 0)]
    bug["suspects"][2]["fixed"], bug["rank"] = False, 5
    assert study.reorder(bug, "clean-green-3") == 5  # below K: unchanged
    deep = [suspect(1, False, 0, 0), suspect(2, False, 0, 0), suspect(3, False, 0, 0)]
    deep.append(suspect(4, True, 1, 3))
    bug = {"bug": "b", "rank": 4, "failing": 1, "suspects": deep}
    assert study.reorder(bug, "green-below-2") == 3  # the first two kept


def test_ids_are_masked_and_an_unstable_identity_trusts_only_greens(study):
    base = {"f": ["failed", "<Mock id='140323183382992'> is not Strong"], "p": ["passed", ""]}

    def record(op, message, outcome="failed", passing="passed"):
        return {"swapped": True, "op": op, "failing": {"f": [outcome, message]},
                "passing": {"p": [passing, ""]}}  # fmt: skip

    steady = study.SuspectResult("f", "m.py", 1, 1.0, True, made=2)
    identity = record("identity", "<Mock id='140323173390416'> is not Strong")
    study.score(steady, [identity, record("negate", "other"), record("delete", "", "passed")], base)
    assert steady.identity_ok and [m["fk"] for m in steady.mutants] == [1, 1]
    unstable = study.SuspectResult("f", "m.py", 1, 1.0, True, made=2)
    drifted = record("identity", "<Mock id='1'> is not Strong, grown")
    study.score(
        unstable, [drifted, record("negate", "other"), record("delete", "", "passed")], base
    )
    assert not unstable.identity_ok and [m["fk"] for m in unstable.mutants] == [0, 1]
    assert unstable.green == 1 and unstable.changed == 0
