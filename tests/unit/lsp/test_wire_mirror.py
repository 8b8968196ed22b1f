"""client-vscode/src/wire.ts is the TypeScript mirror of the payloads in lsp/protocol.py, written
by scripts/ts_mirror.py: the committed file must be what the Python types make, and a field
added, dropped or retyped on either side alone must fail this check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import attrs
from heal_ls.lsp import protocol
from heal_ls.payload import to_object

REPO = Path(__file__).resolve().parents[3]
SCRIPT = REPO / "scripts" / "ts_mirror.py"
WIRE_TS = REPO / "client-vscode" / "src" / "wire.ts"


def check(out: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), "--check", "--out", str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_the_committed_mirror_is_what_the_python_types_make():
    done = check(WIRE_TS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_field_on_the_typescript_side_only_fails_the_check(tmp_path):
    text = WIRE_TS.read_text(encoding="utf-8")
    drifted = tmp_path / "wire.ts"
    drifted.write_text(
        text.replace("  healable: boolean;\n", "  healable: boolean;\n  new: string;\n", 1)
    )
    done = check(drifted)
    assert done.returncode == 1
    assert "-  new: string;" in done.stdout and "differs from the Python types" in done.stderr


def test_a_field_on_the_python_side_only_fails_the_check(tmp_path, monkeypatch):
    """A field added to a payload class changes the mirror, so the committed file differs."""
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import ts_mirror
    finally:
        sys.path.remove(str(SCRIPT.parent))
    widened = attrs.make_class(
        "SuspectInfo",
        {
            "path": attrs.field(type=str),
            "qualname": attrs.field(type=str),
            "line": attrs.field(type=int),
            "column": attrs.field(type=int),
        },
    )
    widened.__doc__ = protocol.SuspectInfo.__doc__
    monkeypatch.setattr(
        protocol.FailureInfo,
        "__annotations__",
        {
            **protocol.FailureInfo.__annotations__,
            "suspect": widened | None,
        },
    )
    rendered = ts_mirror.render()
    assert rendered != WIRE_TS.read_text(encoding="utf-8")
    assert "  column: number;\n" in rendered


def test_payloads_go_on_the_wire_with_the_mirrors_names():
    info = protocol.FailureInfo(
        id="t::a",
        test="t::a",
        message="boom",
        exc_type="ValueError",
        suspect=protocol.SuspectInfo(path="/p/m.py", qualname="f", line=3),
        healable=True,
        reason=None,
        flaky=None,
        blast=None,
    )
    wire = to_object(protocol.FailuresPayload(failures=[info]))
    assert wire == {
        "failures": [
            {
                "id": "t::a",
                "test": "t::a",
                "message": "boom",
                "exc_type": "ValueError",
                "suspect": {"path": "/p/m.py", "qualname": "f", "line": 3},
                "healable": True,
                "reason": None,
                "flaky": None,
                "blast": None,
            }
        ]
    }
    fields = {
        line.split(":")[0].strip().rstrip("?")
        for line in WIRE_TS.read_text().splitlines()
        if line.startswith("  ") and ":" in line
    }
    assert set(wire["failures"][0]) <= fields
