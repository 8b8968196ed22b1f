"""A shared cause is healed once: the second failure is reported `fixed by`, never healed; when
the cause's fix is weak (not applied), the second is grouped under it, and still never healed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers.cli import NO_TRIAGE
from helpers.fakemodel import FakeModelServer
from helpers.projects import FIXED_SUBTOTAL, INNOCENT_TOTAL, write_shared_cause

pytestmark = pytest.mark.e2e


def fix_command(root, server, *more):
    env = {**os.environ, "OPENAI_API_KEY": "k-not-real", "OPENAI_BASE_URL": server.openai_url}
    command = [sys.executable, "-m", "heal_ls", "fix", str(root), "--provider", "openai"]
    return subprocess.run(
        [*command, "--no-cache", *NO_TRIAGE, *more],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )


def test_shared_cause_is_healed_once(tmp_path):
    applied = write_shared_cause(tmp_path / "applied")
    shown = write_shared_cause(tmp_path / "shown")
    with FakeModelServer(functions={"subtotal": FIXED_SUBTOTAL}) as server:
        proc = fix_command(applied, server, "--apply", "--json")
        assert len(server.requests) == 1  # one heal: the second failure is never sent
        text = fix_command(shown, server)
        assert len(server.requests) == 2
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = json.loads(proc.stdout)["results"]
    assert [r["status"] for r in rows] == ["verified", "fixed"]
    assert rows[0]["suspect"] == "orders.py::Order.subtotal" and rows[0]["applied"]
    assert rows[1]["tests"] == ["tests/test_orders.py::test_total_with_tax"]
    assert rows[1]["fixed_by"] == "orders.py::Order.subtotal"
    assert "return sum(self.prices)\n" in (applied / "orders.py").read_text()
    assert text.returncode == 0, text.stdout + text.stderr
    assert (
        "tests/test_orders.py::test_total_with_tax: fixed by orders.py::Order.subtotal"
        in text.stdout
    )


def test_a_weak_fix_of_the_shared_cause_groups_the_other_failure(tmp_path):
    """No passing test runs subtotal: its fix is weak and not applied; the failure of total's
    test passes on it, so it is grouped under that fix and total (innocent) is never asked for."""
    root = write_shared_cause(tmp_path / "weak", guarded=False)
    before = (root / "orders.py").read_text()
    answers = {"subtotal": FIXED_SUBTOTAL, "total": INNOCENT_TOTAL}
    with FakeModelServer(functions=answers) as server:
        proc = fix_command(root, server, "--apply", "--json")
        asked = [r.prompt_text for r in server.requests]
        text = fix_command(root, server)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # weak: nothing verified
    assert len(asked) == 1 and "def subtotal" in asked[0]  # total's failure is never sent
    rows = json.loads(proc.stdout)["results"]
    assert [(r["status"], r["suspect"]) for r in rows] == [
        ("weak", "orders.py::Order.subtotal"),
        ("grouped", "orders.py::Order.total"),
    ]
    assert rows[1]["tests"] == ["tests/test_orders.py::test_total_with_tax"]
    assert rows[1]["fixed_by"] == "orders.py::Order.subtotal" and not rows[1]["applied"]
    assert rows[1]["diff"] == "" and rows[1]["attempts"] == 0
    assert (root / "orders.py").read_text() == before  # a weak fix is never written unasked
    assert text.returncode == 1, text.stdout + text.stderr
    assert (
        "tests/test_orders.py::test_total_with_tax: would be fixed by"
        " orders.py::Order.subtotal's weak fix (not applied)" in text.stdout
    )
