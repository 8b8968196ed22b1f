"""The layout's rules (docs/architecture.md), checked on the source: no import cycle, no import
from a lower floor to a higher one, an agent that imports nothing of heal_ls, no module that uses
a name private to another, and imports at the top of modules (one inside a function says why, in
a `# lazy:` comment). Every import counts, also those inside functions or under TYPE_CHECKING."""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "server" / "heal_ls"
AGENT = PACKAGE / "testing" / "agent"  # runs in the user's interpreter: top-level modules there
# the agent modules the server may import: the wire (a run's command line and environment; the
# report lines and warm server messages)
WIRE = {"heal_ls.testing.agent.heal_env", "heal_ls.testing.agent.heal_protocol"}
FLOORS = {  # a module may import its own floor or a lower one, never a higher one
    "heal_ls": 0,
    "heal_ls.models": 0,
    "heal_ls.pysource": 0,
    "heal_ls.testing": 1,
    "heal_ls.locate": 1,
    "heal_ls.impact": 1,
    "heal_ls.llm": 1,
    "heal_ls.repair": 1,
    "heal_ls.heal": 2,
    "heal_ls.diagnose": 3,
    "heal_ls.documents": 3,
    "heal_ls.commands": 4,
    "heal_ls.bench": 4,
    "heal_ls.lsp": 4,
    "heal_ls.cli": 5,
    "heal_ls.__main__": 5,
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache  # read once per session: every rule walks the same tree
def server_modules() -> dict[str, Path]:
    return {
        module_name(p): p
        for p in PACKAGE.rglob("*.py")
        if AGENT not in p.parents or module_name(p) in WIRE
    }


def floor(module: str) -> int:
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in FLOORS:
            return FLOORS[".".join(parts[:i])]
    raise AssertionError(f"{module} has no floor: add its package to FLOORS")


def package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def imported(path: Path, module: str) -> set[str]:
    """The heal_ls modules `module` imports (a `from pkg import name` counts as pkg.name when
    that is a module, else as pkg)."""
    modules = server_modules()
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = module.split(".")[: len(module.split(".")) - node.level + is_package]
                base = ".".join([*parent, base] if base else parent)
            names = [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name.startswith("heal_ls") and name != module:
                found.add(name)
    return found


@cache
def import_graph() -> dict[str, set[str]]:
    return {m: imported(p, m) for m, p in server_modules().items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_between_modules():
    assert cycles(import_graph()) == []


def test_no_import_cycle_between_packages():
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in import_graph().items():
        graph[package(module)].update(package(t) for t in targets if package(t) != package(module))
    assert cycles(graph) == []


def test_no_import_from_a_lower_floor_to_a_higher_one():
    upward = [
        f"{m} (floor {floor(m)}) imports {t} (floor {floor(t)})"
        for m, targets in import_graph().items()
        for t in sorted(targets)
        if floor(t) > floor(m)
    ]
    assert upward == []


def test_the_server_imports_no_agent_module_but_the_wire():
    agent = "heal_ls.testing.agent"
    wrong = [
        f"{m} imports {t}"
        for m, targets in import_graph().items()
        for t in targets
        if t.startswith(agent) and t not in WIRE
    ]
    assert wrong == []


def test_the_agent_imports_nothing_of_heal_ls():
    """It runs in the user's interpreter (stdlib + pytest), its modules import each other by
    their top-level names, without an `if __package__` fallback."""
    wrong = []
    for path in sorted(AGENT.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                wrong.append(f"{path.name}: relative import")
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            wrong += [f"{path.name}: imports {n}" for n in names if n.startswith("heal_ls")]
        assert "__package__" not in path.read_text(encoding="utf-8"), path.name
    assert wrong == []


def test_every_module_has_a_floor():
    for module in server_modules():
        floor(module)


LSP = "heal_ls.lsp"
LSP_ROLES = {  # lsp/ is grouped by role (docs/architecture.md, "The language server")
    "transport": "pygls patches",
    "workspace": "the model and the workspace's own features",
    "runs": "feature",
    "heal": "feature",
    "failures": "feature",
}
LSP_TOP = {"serve", "protocol", "arguments", "log", "progress"}
LSP_MODEL = {f"{LSP}.workspace.{m}" for m in ("server", "folder", "config", "documents", "state")}


def test_lsp_is_grouped_by_role():
    modules = [m.removeprefix(f"{LSP}.") for m in server_modules() if m.startswith(f"{LSP}.")]
    packages = {m.split(".")[0] for m in modules if "." in m}
    top = {m for m in modules if "." not in m} - set(LSP_ROLES)
    assert (packages, top) == (set(LSP_ROLES), LSP_TOP)


def test_the_lsp_model_and_transport_import_no_feature():
    """The server, its folders and the transport sit below the features: they import only the
    model, the transport, the wire names and the log (a feature holds the server, never the
    other way round)."""
    below = LSP_MODEL | {f"{LSP}.{m}" for m in ("protocol", "log")}
    wrong = [
        f"{m} imports {t}"
        for m, targets in import_graph().items()
        if m in LSP_MODEL or m.startswith(f"{LSP}.transport")
        for t in sorted(targets)
        if t.startswith(LSP) and t not in below and not t.startswith(f"{LSP}.transport")
    ]
    assert wrong == []


def private_imports(path: Path, module: str) -> list[str]:
    """`from heal_ls.x import _name` and `x._name` on an imported heal_ls module: a module's
    `_private` names are its own (cut modules by concept, so what two share is public)."""
    modules = server_modules()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found, module_aliases = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("heal_ls"):
            for alias in node.names:
                if f"{node.module}.{alias.name}" in modules:
                    module_aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                elif is_private(alias.name):
                    found.append(f"{module} imports {node.module}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("heal_ls") and alias.asname:
                    module_aliases[alias.asname] = alias.name
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in module_aliases
            and is_private(node.attr)
            and module_aliases[node.value.id] != module
        ):
            found.append(f"{module} uses {module_aliases[node.value.id]}.{node.attr}")
    return found


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def test_no_module_imports_another_modules_private_name():
    wrong = [line for m, p in server_modules().items() for line in private_imports(p, m)]
    assert wrong == []


LAZY = "# lazy:"  # the mark of an import kept inside a function, followed by the reason


def unexplained_lazy_imports(path: Path, name: str) -> list[str]:
    """Imports inside a function (a method, a nested def) with no `# lazy:` reason on their own
    lines or in the comment lines right above them (above the run of imports they open)."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    tree = ast.parse(text)
    imports = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    import_lines = {i for n in imports for i in range(n.lineno, (n.end_lineno or n.lineno) + 1)}
    in_function = {
        id(n)
        for f in ast.walk(tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        for n in ast.walk(f)
    }
    found = []
    for node in imports:
        if id(node) not in in_function:
            continue
        said = lines[node.lineno - 1 : node.end_lineno]
        above = node.lineno - 1  # 1-based number of the line above
        while above >= 1 and (above in import_lines or lines[above - 1].lstrip().startswith("#")):
            said.append(lines[above - 1])
            above -= 1
        if not any(LAZY in line for line in said):
            found.append(f"{name}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return found


def test_an_import_inside_a_function_says_why_it_is_lazy():
    """Imports at the top show a module's dependencies; one is kept inside a function only where
    start-up time is measured to need it (or the code runs where the import may fail), and the
    comment says so (an allow-list: a new function-level import fails until it gives a reason)."""
    wrong = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in unexplained_lazy_imports(path, path.relative_to(PACKAGE.parent).as_posix())
    ]
    assert wrong == []


def test_the_checks_can_fail(tmp_path):
    """The cycle finder, the floor order and the private-name rule catch what they are meant to
    catch."""
    user = tmp_path / "user.py"
    user.write_text(
        "from heal_ls.locate.evidence import _hidden, public\n"
        "from heal_ls.locate import evidence\n"
        "import heal_ls.locate.rank as rank\n"
        "evidence._inner(); rank._other(); evidence.__name__\n"
    )
    assert private_imports(user, "heal_ls.x") == [
        "heal_ls.x imports heal_ls.locate.evidence._hidden",
        "heal_ls.x uses heal_ls.locate.evidence._inner",
        "heal_ls.x uses heal_ls.locate.rank._other",
    ]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert floor("heal_ls.pysource.splice") < floor("heal_ls.heal.loop") < floor("heal_ls.lsp.x")
    lazy = tmp_path / "lazy.py"
    lazy.write_text(
        "import os\n"
        "def f():\n"
        "    import json\n"
        "    import sys  # lazy: a reason\n"
        "    # lazy: a reason for the run below\n"
        "    import re\n"
        "    from ast import (\n"
        "        parse,\n"
        "    )\n"
        "    x = 1\n"
        "    import csv\n"
        "    class C:\n"
        "        def m(self):\n"
        "            import abc\n"
    )
    assert unexplained_lazy_imports(lazy, "lazy.py") == [
        "lazy.py:3: import json",
        "lazy.py:11: import csv",
        "lazy.py:14: import abc",
    ]
