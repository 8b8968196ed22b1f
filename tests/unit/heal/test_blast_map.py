"""Blast radius counts the guards the impact map holds, not only those of the runs at hand."""

from __future__ import annotations

import time

from heal_ls.heal.blast import blast_radius
from heal_ls.impact.store import ImpactMap
from heal_ls.models import RunResult, Suspect
from heal_ls.models import TestOutcome as Outcome


def test_the_maps_fresh_guards_count(tmp_path):
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "test_calc.py").write_text("from calc import add\n\ndef test_add():\n    pass\n")
    suspect = Suspect(str(tmp_path / "calc.py"), "add", 1, 0, 2, 16, "test", def_line=1)
    assert blast_radius(str(tmp_path), suspect, []).guards is None  # no map yet: not known
    covered = [f"{tmp_path / 'calc.py'}:1"]
    run = RunResult(
        str(tmp_path), tests=[Outcome("test_calc.py::test_add", "passed", covered=covered)]
    )
    with ImpactMap.open(str(tmp_path)) as impact:
        impact.record(run, started=time.time() + 1)
    assert blast_radius(str(tmp_path), suspect, []).guards == 1
    assert blast_radius(str(tmp_path), suspect, [run]).guards == 1  # one test, seen twice
