"""A shared cause is healed once: the second failure is reported `fixed by`, never healed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from helpers.fakemodel import FakeModelServer
from helpers.projects import FIXED_SUBTOTAL, write_shared_cause

pytestmark = pytest.mark.e2e


def test_shared_cause_is_healed_once(tmp_path):
    applied = write_shared_cause(tmp_path / "applied")
    shown = write_shared_cause(tmp_path / "shown")
    with FakeModelServer(functions={"subtotal": FIXED_SUBTOTAL}) as server:
        env = {**os.environ, "OPENAI_API_KEY": "k-not-real", "OPENAI_BASE_URL": server.openai_url}

        def fix(root, *more):
            command = [sys.executable, "-m", "heal_ls", "fix", str(root), "--provider", "openai"]
            return subprocess.run(
                [*command, "--no-cache", *more],
                capture_output=True,
                text=True,
                env=env,
                timeout=180,
            )

        proc = fix(applied, "--apply", "--json")
        assert len(server.requests) == 1  # one heal: the second failure is never sent
        text = fix(shown)
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
