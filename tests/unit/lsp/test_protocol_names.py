"""Every wire name is defined once per language: lsp/protocol.py and client-vscode's
constants.ts, equal to each other, and no other module spells one out."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from heal_ls.lsp import protocol
from heal_ls.payload import to_object

REPO = Path(__file__).resolve().parents[3]
CLIENT_SRC = REPO / "client-vscode" / "src"
LSP = Path(protocol.__file__).resolve().parent


def python_names() -> dict[str, str]:
    return {
        name: value
        for name, value in vars(protocol).items()
        if name.isupper() and isinstance(value, str)
    }


def typescript_names() -> dict[str, str]:
    text = (CLIENT_SRC / "constants.ts").read_text(encoding="utf-8")
    return dict(re.findall(r"^export const ([A-Z_]+) = '([^']+)';$", text, re.M))


def test_the_client_constants_mirror_the_server_protocol():
    assert typescript_names() == python_names()
    assert set(protocol.COMMANDS) == set(protocol.HEALS) | set(protocol.RUNS) | {
        protocol.DEBUG_TEST
    }


def test_no_other_server_module_spells_a_wire_name():
    wire = set(python_names().values())
    found = []
    for path in sorted(LSP.rglob("*.py")):  # every package of lsp/
        if path == LSP / "protocol.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in wire:
                found.append(f"{path.relative_to(LSP)}:{node.lineno} {node.value}")
    assert found == []


def test_no_other_client_module_spells_a_wire_name():
    wire = set(python_names().values())
    found = [
        f"{path.name}: {value}"
        for path in sorted(CLIENT_SRC.glob("*.ts"))
        if path.name != "constants.ts"
        for value in re.findall(r"'([^']+)'", path.read_text(encoding="utf-8"))
        if value in wire
    ]
    assert found == []


def test_heal_outcome_keeps_its_wire_shape():
    plain = protocol.HealOutcome("failed", "no verified fix", told=True)
    assert to_object(plain) == {
        "status": "failed",
        "message": "no verified fix",
        "applied": False,
        "qualname": None,
    }
    fixed = to_object(protocol.HealOutcome("verified", "ok", True, "f", touched=["f"]))
    assert fixed["touched"] == ["f"] and "told" not in fixed
