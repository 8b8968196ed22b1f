"""benchmarks/trail_recorder.py and trail_study.py (issue 22, class A, a study): the recorder
keeps each workspace call's argument and returned reprs, bounded, without changing a test's
outcome; the study names the first call that returned the value a failing check compared."""

import json
import os
import subprocess
import sys

import pytest
from helpers.benchmarks import BENCHMARKS, load_script


@pytest.fixture(scope="module")
def recorder():
    return load_script("trail_recorder")


@pytest.fixture(scope="module")
def study():
    return load_script("trail_study")


MAKER = """\
def parse(text):
    return clean(text).split(",")


def clean(text):
    return text.strip(" ")  # the bug: should strip "[]" too


def total(n):
    return sum(square(i) for i in range(n))


def square(i):
    return i * i
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "maker.py").write_text(MAKER, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("maker", None)
    import maker

    return tmp_path, maker


def test_records_workspace_calls_with_arguments_and_return_order(recorder, project):
    root, maker = project
    kept = recorder.Recorder(str(root))
    kept.start()
    try:
        maker.parse(" [a,b] ")
    finally:
        kept.stop()
    assert [c[0] for c in kept.calls] == ["maker.py::parse", "maker.py::clean"]
    parse, clean = kept.calls
    assert clean[1] == ["text=' [a,b] '"] and clean[2] == "'[a,b]'"
    assert parse[2] == "['[a', 'b]']"
    assert clean[3] < parse[3]  # the inner call returned first
    assert kept.parents == [None, 0]
    assert sys.getprofile() is None  # the hook is gone after stop


def test_bounded_calls_and_reprs(recorder, project):
    root, maker = project
    kept = recorder.Recorder(str(root), max_calls=5)
    kept.start()
    try:
        maker.total(50)
    finally:
        kept.stop()
    assert len(kept.calls) == 5 and kept.dropped > 40  # counted, not kept
    assert len(recorder.short_repr("x" * 10_000)) == recorder.MAX_CHARS

    class Broken:
        def __repr__(self):
            raise ValueError("no")

    assert recorder.short_repr(Broken()) == "<Broken repr failed>"


def test_the_recorded_run_keeps_outcomes_and_names_the_maker(study, tmp_path):
    (tmp_path / "maker.py").write_text(MAKER, encoding="utf-8")
    (tmp_path / "test_maker.py").write_text(
        "from maker import parse, total\n\n\n"
        "def test_parse():\n    items = parse(' [a,b] ')\n    assert items == ['a', 'b']\n\n\n"
        "def test_total():\n    assert total(4) == 14\n",
        encoding="utf-8",
    )
    out = tmp_path / "trail.json"
    env = dict(os.environ, TRAIL_ROOT=str(tmp_path), TRAIL_OUT=str(out))
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(BENCHMARKS)])
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)]
    plain = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    traced = subprocess.run(
        [*command, "-p", "trail_recorder"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert "1 failed, 1 passed" in plain.stdout and "1 failed, 1 passed" in traced.stdout
    tests = json.loads(out.read_text(encoding="utf-8"))
    assert not tests["test_maker.py::test_total"]["failed"]
    failed = tests["test_maker.py::test_parse"]
    assert failed["compared"]["locals"] == {"items": "['[a', 'b]']"}
    wanted, _parts = study.values_compared(failed["compared"])
    assert "['[a', 'b]']" in wanted and "['a', 'b']" in wanted
    index, value = study.maker(failed["calls"], wanted)
    assert failed["calls"][index][0] == "maker.py::parse" and value == "['[a', 'b]']"
    assert failed["parents"] == [None, 0]  # clean was called by parse, parse by the test


def test_values_compared_reads_pytest_and_unittest_messages(study):
    pytest_message = {
        "message": "assert 'x1' == 'x2'\n  + where 'x1' = f('a')\n  At index 0 diff: 'p' != 'q'",
        "locals": {"flag": "True"},
    }
    assert study.values_compared(pytest_message)[0] == ["'x1'", "'x2'", "'p'", "'q'"]
    unittest_message = {"message": "[1, 'got'] != [1, 'want']"}
    assert study.values_compared(unittest_message) == (
        ["[1, 'got']", "[1, 'want']"],
        ["'got'", "'want'"],
    )


def test_cut_reprs_match_up_to_the_cut(study):
    long = "[" + ", ".join(map(str, range(100))) + "]"
    assert study.same(long[:60] + "...", long)
    assert not study.same("[1, 2]...", "[1, 3]")


def test_differing_parts_are_the_innermost_differences(study):
    actual = "Binding(key='\\ufeffa', value='b', line=1)"
    expected = "Binding(key='a', value='b', line=1)"
    assert study.differing_parts(actual, expected) == ["'\\ufeffa'", "'a'"]
    assert study.differing_parts("{'ns:root': {'a': 1}}", "{'root': {'a': 1}}") == [
        "'ns:root'",
        "'root'",
    ]
    ordered = "OrderedDict([('ns:root', OrderedDict([('a', 1)]))])"
    assert study.differing_parts(ordered, "{'root': {'a': 1}}") == ["'ns:root'", "'root'"]
    assert study.differing_parts("<object at 0x1>", "[]") == []  # not an expression
