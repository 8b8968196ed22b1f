"""The report's record kinds and the warm server's ops and events are named once, in
testing/agent/heal_protocol.py, and both sides use those names: no other module of heal-ls (the
server side or the agent) spells one where the protocol is written or read."""

from __future__ import annotations

import ast
from pathlib import Path

import heal_protocol as wire

PACKAGE = Path(wire.__file__).resolve().parents[2]  # server/heal_ls
KEYS = {"kind", "op", "event"}  # the protocol's tag fields
NAMES = {
    wire.START,
    wire.TEST,
    wire.TIMEOUT,
    wire.ABORT,
    wire.COLLECT_ERROR,
    wire.COLLECTED,
    wire.SESSION,
    wire.RUN,
    wire.KILL,
    wire.EXIT,
    wire.READY,
    wire.STARTED,
    wire.DONE,
    wire.ERROR,
    wire.LEARNED,
    wire.TAINTED,
    wire.DOUBT,
    wire.DOUBT_PLAIN,
}


def is_tag(node: ast.AST) -> bool:
    """`kind`, `msg["op"]`, `row.get("kind")`, `exc.kind`: an expression holding a tag."""
    if isinstance(node, ast.Name):
        return node.id in KEYS
    if isinstance(node, ast.Attribute):
        return node.attr in KEYS
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in KEYS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        first = node.args[0] if node.args else None
        return node.func.attr == "get" and isinstance(first, ast.Constant) and first.value in KEYS
    return False


def spelled(node: ast.AST) -> list[str]:
    """Protocol names written out as string literals in a tag position."""
    if isinstance(node, ast.Constant) and node.value in NAMES:
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [name for item in node.elts for name in spelled(item)]
    return []


def literal_tags(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        values: list[ast.AST] = []
        if isinstance(node, ast.Dict):  # {"kind": "test", ...}
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            values = [v for k, v in zip(keys, node.values) if k in KEYS]
        elif isinstance(node, ast.Call):  # send(event="done"), dict(request, op="run")
            values = [kw.value for kw in node.keywords if kw.arg in KEYS]
            if isinstance(node.func, ast.Attribute) and is_tag(node.func.value):
                values += node.args  # kind.startswith("doubt")
        elif isinstance(node, ast.Compare):  # kind == "start", op in ("run", ...)
            sides = [node.left, *node.comparators]
            if any(is_tag(side) for side in sides):
                values = sides
        for value in values:
            found += [(getattr(node, "lineno", 0), name) for name in spelled(value)]
    return found


def speaks_the_protocol(path: Path, tree: ast.AST) -> bool:
    """Everything under testing/ (both sides), and any other module that imports the protocol
    (other modules have "kind"s of their own: heal events, model errors)."""
    if path.is_relative_to(PACKAGE / "testing"):
        return True
    return any(
        isinstance(node, (ast.Import, ast.ImportFrom)) and "heal_protocol" in ast.unparse(node)
        for node in ast.walk(tree)
    )


def test_no_module_but_the_protocol_spells_a_report_kind_or_a_warm_server_message():
    found, checked = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path.name == "heal_protocol.py" or not speaks_the_protocol(path, tree):
            continue
        checked.append(path.relative_to(PACKAGE).as_posix())
        found += [
            f"{path.relative_to(PACKAGE)}:{line} {name!r}" for line, name in literal_tags(tree)
        ]
    assert found == []


def test_the_checker_finds_spelled_names():
    code = (
        'emit({"kind": "test", "nodeid": n})\n'
        'send(event="done", id=1)\n'
        'if row.get("kind") == "session": pass\n'
        'if op in ("run", "kill"): pass\n'
        'ok = exc.kind.startswith("doubt")\n'
        'if msg["event"] != "ready": pass\n'
        'if kind == "chunk": pass\n'  # not a protocol name: not flagged
        'label = {"kind": wire.TEST}\n'
    )
    found = literal_tags(ast.parse(code))
    assert sorted(found) == [
        (1, "test"),
        (2, "done"),
        (3, "session"),
        (4, "kill"),
        (4, "run"),
        (5, "doubt"),
        (6, "ready"),
    ]
