"""`heal-ls index`: a real pytest run (under pytest-xdist and serial) fills the impact map; a
later index runs only what an edit touched; a hanging test is cut at the short per-test timeout
and the tests after it still run."""

from __future__ import annotations

import json
import sys

import pytest
from heal_ls.impact.store import Function, ImpactMap
from helpers.cli import heal_ls, write

pytestmark = pytest.mark.venv_plugins  # its runs go through the pytest-xdist installed here

PROJECT = {
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/calc.py": """\
        def add(a, b):
            return a + b


        def neg(x):
            return -x
        """,
    "tests/test_add.py": """\
        from pkg.calc import add

        def test_add():
            assert add(1, 2) == 3

        def test_add_wrong():
            assert add(1, 1) == 3
        """,
    "tests/test_neg.py": """\
        from pkg.calc import neg

        def test_neg():
            assert neg(1) == -1
        """,
}
HANGING = """\
    import time
    from pkg.calc import add

    def test_first():
        assert add(1, 1) == 2

    def test_hangs():
        time.sleep(600)

    def test_after():
        assert add(2, 2) == 4
    """


def index(root, *args):
    done = heal_ls("index", str(root), "--json", *args, timeout=240)
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout)


@pytest.mark.parametrize("workers", ["2", "0"], ids=["xdist", "serial"])
def test_index_fills_the_map_then_runs_only_what_an_edit_touched(tmp_path, workers):
    write(tmp_path, PROJECT)
    first = index(tmp_path, "--workers", workers)
    assert first["ran"] == "all"
    assert first["tests"] == {"passed": 2, "failed": 1, "errors": 0, "skipped": 0}
    assert first["workers"] == (None if workers == "0" else "2")
    assert first["map"]["rows"] == 3 and first["map"]["tests"] == 3
    assert first["map"]["megabytes"] > 0 and first["peak_memory_mb"]["tests"] > 0
    with ImpactMap.open(str(tmp_path)) as impact:
        guards = impact.tests_running(Function("pkg/calc.py", "add"))
        assert [t.nodeid for t in guards] == ["tests/test_add.py::test_add"]

    assert index(tmp_path, "--workers", workers)["ran"] == 0  # nothing changed

    calc = tmp_path / "pkg" / "calc.py"
    calc.write_text(calc.read_text().replace("return -x", "return 0 - x"))
    again = index(tmp_path, "--workers", workers)
    assert again["ran"] == 1  # test_neg alone: nothing of add() was touched
    assert again["tests"]["passed"] == 1 and again["map"]["rows"] == 3


@pytest.mark.parametrize("workers", ["2", "0"], ids=["xdist", "serial"])
def test_a_hanging_test_does_not_stall_indexing(tmp_path, workers):
    write(tmp_path, {**PROJECT, "tests/test_hang.py": HANGING})
    filled = index(tmp_path, "--workers", workers, "--test-timeout", "1")
    assert filled["timed_out"] == 1
    with ImpactMap.open(str(tmp_path)) as impact:
        add = {t.nodeid: t.outcome for t in impact.touching(Function("pkg/calc.py", "add"))}
        assert add["tests/test_hang.py::test_after"] == "passed"  # ran after the hang
        assert "tests/test_hang.py::test_hangs" not in add  # it ran nothing of the workspace
        timed = [t for t in impact.outcomes(["tests/test_hang.py"]) if "hangs" in t.nodeid]
        assert timed == []  # a timed-out test is neither a guard nor a failure


def test_without_xdist_the_index_runs_serially_and_says_so(tmp_path):
    """The project's interpreter cannot import xdist: one note, then a serial run."""
    write(tmp_path, PROJECT)
    hidden = tmp_path / "no-xdist"
    hidden.mkdir()
    (hidden / "xdist.py").write_text("raise ImportError('no pytest-xdist here')\n")
    python = tmp_path / "python"
    python.write_text(
        f"#!/bin/sh\nexport PYTHONPATH={hidden}${{PYTHONPATH:+:$PYTHONPATH}}\n"
        f'export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1\nexec {sys.executable} "$@"\n'
    )
    python.chmod(0o755)
    done = heal_ls("index", str(tmp_path), "--python", str(python), "--json")
    assert done.returncode == 0, done.stderr
    assert "pytest-xdist is not installed" in done.stderr
    filled = json.loads(done.stdout)
    assert filled["workers"] is None and filled["map"]["rows"] == 3
