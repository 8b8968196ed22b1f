#!/usr/bin/env python3
"""The mechanical half of the issue-14 redesign, re-runnable on any checkout of main.

    python scripts/redesign/move.py [--dry-run]

From the repository root, on a clean tree: `git mv` every file to the target layout
(../shared/DESIGN.md "Layout"), move the listed top-level definitions between modules, and rewrite
every reference to a moved module or name in server/, tests/, benchmarks/ and the docs: import
statements (parsed with `ast`, rewritten statement by statement), dotted names inside strings and
comments (`"heal_ls.check"` in the CLI table, `-p` plugin names), and file paths. Finally ruff
removes the imports that a move left unused and formats what changed. It fails loudly when a
file, a definition or an expected piece of text is missing, so a change on main cannot make it
silently half-work.
"""

from __future__ import annotations

import argparse
import ast
import io
import os
import re
import subprocess
import symtable
import sys
import textwrap
import tokenize
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

PKG = Path("server/heal_ls")

# Files and folders, relative to server/heal_ls. A folder moves with everything in it.
FILE_MOVES: list[tuple[str, str]] = [
    ("source.py", "pysource/source.py"),
    ("indent.py", "pysource/indent.py"),
    ("edit.py", "pysource/splice.py"),
    ("cst.py", "pysource/cst.py"),  # issue 15, if it landed at the top
    ("edit_plan.py", "pysource/edit_plan.py"),  # issue 15, if it landed at the top
    ("live.py", "commands/live.py"),  # issue 16: the CLI's live progress
    ("locate/paths.py", "pysource/paths.py"),
    ("check/command.py", "commands/check.py"),
    ("check/report.py", "commands/check_report.py"),
    ("heal/fix_command.py", "commands/fix.py"),
    ("heal/apply.py", "commands/apply.py"),
    ("bench/command.py", "commands/bench.py"),
    ("heal/search.py", "heal/steps.py"),
    ("testing/warm.py", "testing/warm/client.py"),
    ("testing/warm_process.py", "testing/warm/process.py"),
    ("testing/warm_fingerprint.py", "testing/warm/fingerprint.py"),
    ("testing/pytest_plugin", "testing/agent"),
    ("testing/warm_server.py", "testing/agent/warm_server.py"),
    ("testing/warm_child.py", "testing/agent/warm_child.py"),
    ("testing/warm_rules.py", "testing/agent/warm_rules.py"),
    ("testing/warm_rewritten.py", "testing/agent/warm_rewritten.py"),
    ("testing/warm_sandbox.py", "testing/agent/warm_sandbox.py"),
]
OPTIONAL = {"cst.py", "edit_plan.py", "live.py"}
# Packages that disappear: importers of their re-exports go to the defining module.
DROPPED_PACKAGES = ["check"]
MODULE_ALIASES = {"heal_ls.check": "heal_ls.commands.check"}  # `heal_ls.check` in the CLI table
NEW_PACKAGES = {
    "commands": '"""Every command-line face of heal-ls: check, fix, bench (and their output)."""\n',
    "testing/warm": '"""The warm runner, heal-ls\'s side: start, feed and stop warm pytest servers."""\n',
}
AGENT_DIR = "testing/agent"  # no __init__.py: its files are top-level modules in the user's Python


@dataclass
class SymbolMove:
    """Move a top-level definition `name` of module `src` to `dst` (both new module names)."""

    src: str
    names: list[str]
    dst: str
    rename: dict[str, str] | None = None  # old name -> new name (in dst and at every use)
    dedupe: bool = False  # dst already defines the (renamed) name: drop src's copy only
    closure: bool = False  # also move every definition the named ones use (no import back)
    reexport: bool = False  # src keeps the names importable (the CLI looks add_arguments up)


SYMBOL_MOVES: list[SymbolMove] = [
    SymbolMove("heal_ls.heal.loop", ["HealConfig"], "heal_ls.heal.config"),
    SymbolMove("heal_ls.heal.steps", ["provider_for"], "heal_ls.heal.config"),
    SymbolMove(
        "heal_ls.heal.loop",
        ["HealEvent", "HealContext", "finish", "try_candidate", "verify", "_verify"],
        "heal_ls.heal.attempt",
        closure=True,
    ),
    SymbolMove("heal_ls.heal.loop", ["repeats_failed"], "heal_ls.heal.steps"),
    SymbolMove("heal_ls.heal.prompt", ["Prompt"], "heal_ls.llm.base"),
    SymbolMove(
        "heal_ls.heal.answer",
        ["parse_block", "parse_python", "node_source", "describe_syntax_error"],
        "heal_ls.pysource.parse",
    ),
    SymbolMove(
        "heal_ls.pysource.splice",
        ["_qualified_defs", "_statements", "_first_line"],
        "heal_ls.pysource.parse",
        rename={
            "_qualified_defs": "qualified_defs",
            "_statements": "statements",
            "_first_line": "first_line",
        },
        dedupe=True,
    ),
    # A formatting-independent form of a function: a parse helper (breaks candidate <-> plan).
    SymbolMove("heal_ls.heal.candidate", ["normalised"], "heal_ls.pysource.parse"),
    # Modules over 300 lines, split along their call graph (a closure never imports back).
    SymbolMove("heal_ls.pysource.splice", ["unified_diff"], "heal_ls.pysource.diff", closure=True),
    SymbolMove(
        "heal_ls.pysource.splice",
        ["line_starts", "_line", "_char_col"],
        "heal_ls.pysource.source",
        closure=True,
    ),
    SymbolMove("heal_ls.pysource.splice", ["_compiles"], "heal_ls.pysource.parse", closure=True),
    SymbolMove(
        "heal_ls.locate.rank",
        [
            "signature_error_callee",
            "protocol_error_method",
            "contrasted",
            "_test_location",
            "_raised_reason",
            "_module_level_reason",
        ],
        "heal_ls.locate.evidence",
        closure=True,
    ),
    SymbolMove("heal_ls.locate.rank", ["_Ranker"], "heal_ls.locate.ranker", closure=True),
    SymbolMove(
        "heal_ls.heal.plan", ["_parse_answer", "_Mapper"], "heal_ls.heal.plan_answer", closure=True
    ),
    SymbolMove("heal_ls.heal.plan", ["prove"], "heal_ls.heal.plan_proof", closure=True),
    SymbolMove("heal_ls.testing.sandbox", ["view"], "heal_ls.testing.sandbox_view", closure=True),
    SymbolMove(
        "heal_ls.heal.safety", ["verification_tampering"], "heal_ls.heal.tampering", closure=True
    ),
    SymbolMove(
        "heal_ls.testing.warm.client",
        ["run_cold", "_limits", "_output_path"],
        "heal_ls.testing.warm.cold",
        closure=True,
    ),
    SymbolMove(
        "heal_ls.commands.fix",
        ["add_arguments"],
        "heal_ls.commands.fix_args",
        closure=True,
        reexport=True,
    ),
    # Test helpers live in a module, not in a conftest (tests import them by name).
    SymbolMove(
        "tests.lsp.conftest",
        ["eventually", "CONFIG", "start_session"],
        "tests.helpers.lsp",
        closure=True,
    ),
]

NEW_MODULE_DOCS = {
    "heal_ls.pysource.diff": '"""Unified diffs that keep the texts\' own line endings."""\n',
    "heal_ls.locate.evidence": (
        '"""Small readings of a failure for the ranker: the callee a signature error names, the\n'
        'method a protocol error names, where the test is, why a frame is or is not a target."""\n'
    ),
    "heal_ls.locate.ranker": (
        '"""The ranking behind `locate`: every piece of evidence a failure offers (frames,\n'
        'calls on the failing line, coverage, data flow) scored into suspects."""\n'
    ),
    "heal_ls.heal.plan_answer": (
        '"""Reading a model\'s answer for an edit plan: its statements, and which def of the\n'
        'module each of its defs maps to."""\n'
    ),
    "heal_ls.heal.plan_proof": (
        '"""Proving a planned edit node by node: only the planned nodes and the import block\n'
        'changed, the module compiles, names are kept."""\n'
    ),
    "heal_ls.testing.sandbox_view": (
        '"""What a sandboxed run sees of the file system: the workspace, the interpreter\'s\n'
        'paths, and the home folders it must not."""\n'
    ),
    "heal_ls.testing.warm.cold": (
        '"""A cold pytest run (no warm server) with the warm runner\'s limits and output file."""\n'
    ),
    "heal_ls.commands.fix_args": '"""The command line of `heal-ls fix`."""\n',
    "heal_ls.heal.tampering": (
        '"""Rails against a candidate that tampers with verification itself: pytest\'s report\n'
        'objects, heal-ls\'s plugin, outcomes, always-equal objects."""\n'
    ),
    "heal_ls.heal.config": (
        '"""How a heal is configured (HealConfig: provider, budgets, runner settings), in one\n'
        "place read by the CLI, the bench and the language server; `provider_for` resolves `auto`."
        '"""\n'
    ),
    "heal_ls.heal.attempt": (
        '"""One heal attempt: the context a heal carries, and one candidate taken through\n'
        "parse -> check -> splice -> verify (`try_candidate`); `finish` makes the HealResult.\n"
        '"""\n'
    ),
    "tests.helpers.lsp": (
        '"""Helpers for the language-server tests: the server command, a session starter and\n'
        '`eventually` (poll until a notification arrived)."""\n'
    ),
}

# Test files, relative to tests/: "laid out like the packages".
TEST_MOVES: list[tuple[str, str]] = [
    ("unit/test_source.py", "unit/pysource/test_source.py"),
    ("unit/test_edit.py", "unit/pysource/test_splice.py"),
    ("unit/test_edit_examples.py", "unit/pysource/test_splice_examples.py"),
    ("unit/test_edit_property.py", "unit/pysource/test_splice_property.py"),
    ("unit/test_answer.py", "unit/heal/test_answer.py"),
    ("unit/test_answer_fuzz.py", "unit/heal/test_answer_fuzz.py"),
    ("unit/test_cache.py", "unit/heal/test_cache.py"),
    ("unit/test_prompt.py", "unit/heal/test_prompt.py"),
    ("unit/test_prompt_context.py", "unit/heal/test_prompt_context.py"),
    ("unit/test_prompt_examples.py", "unit/heal/test_prompt_examples.py"),
    ("unit/test_safety.py", "unit/heal/test_safety.py"),
    ("unit/test_heal_engine.py", "unit/heal/test_heal_engine.py"),
    ("unit/test_lsp_state.py", "unit/lsp/test_lsp_state.py"),
    ("unit/test_protocol_names.py", "unit/lsp/test_protocol_names.py"),
    ("unit/test_apply.py", "unit/commands/test_apply.py"),
    ("unit/test_cli.py", "unit/commands/test_cli.py"),
    ("unit/test_llm_config.py", "unit/llm/test_llm_config.py"),
    ("unit/test_llm_env.py", "unit/llm/test_llm_env.py"),
    ("unit/test_llm_proposers.py", "unit/llm/test_llm_proposers.py"),
    ("unit/test_llm_redact.py", "unit/llm/test_llm_redact.py"),
    ("unit/test_llm_retry.py", "unit/llm/test_llm_retry.py"),
    ("unit/test_local.py", "unit/llm/test_local.py"),
    ("unit/test_locate_generated.py", "unit/locate/test_locate_generated.py"),
    ("unit/test_locate_index.py", "unit/locate/test_locate_index.py"),
    ("unit/test_locate_rank.py", "unit/locate/test_locate_rank.py"),
    ("unit/test_repair.py", "unit/repair/test_repair.py"),
    ("unit/test_traceback_text.py", "unit/testing/test_traceback_text.py"),
    ("unit/test_warm_rules.py", "unit/testing/agent/test_warm_rules.py"),
    ("unit/test_plugin_collect.py", "unit/testing/agent/test_plugin_collect.py"),
    ("unit/test_plugin_parts.py", "unit/testing/agent/test_plugin_parts.py"),
    ("unit/test_plugin_report.py", "unit/testing/agent/test_plugin_report.py"),
]

# Exact text edits after the moves: (file, old, new). Each must match exactly once.
TEXT_EDITS: list[tuple[str, str, str]] = [
    (
        "tests/conftest.py",
        'EXAMPLES = REPO / "examples"\n',
        'EXAMPLES = REPO / "examples"\n'
        "# The agent runs in the user's interpreter as top-level modules; tests import them so too.\n"
        'sys.path.insert(0, str(REPO / "server" / "heal_ls" / "testing" / "agent"))\n',
    ),
    ("tests/conftest.py", "import shutil\n", "import shutil\nimport sys\n"),
    (
        "tests/conftest.py",
        "    items.sort(key=rank)  # stable: keeps each file's own order\n",
        "    items.sort(key=rank)  # stable: keeps each file's own order\n"
        "    for item in items:  # markers by folder: `-m lsp`, `-m 'not vscode'`...\n"
        '        folder = Path(str(item.fspath)).relative_to(REPO / "tests").parts[0]\n'
        "        if folder in _MARKED_FOLDERS:\n"
        "            item.add_marker(folder)\n",
    ),
    (
        "tests/conftest.py",
        '_ORDER = {"unit": 0, "e2e": 1, "lsp": 2, "nvim": 3, "vscode": 4}\n',
        '_ORDER = {"unit": 0, "e2e": 1, "lsp": 2, "nvim": 3, "vscode": 4}\n'
        '_MARKED_FOLDERS = {"e2e", "lsp", "nvim", "vscode"}\n',
    ),
    (
        "pyproject.toml",
        '"testing/pytest_plugin/*.py"',
        '"testing/agent/*.py"',
    ),
    (
        "server/heal_ls/testing/invocation.py",
        'PLUGIN_DIR = str(Path(__file__).resolve().parent / "pytest_plugin")',
        'PLUGIN_DIR = str(Path(__file__).resolve().parent / "agent")',
    ),
    (
        "server/heal_ls/testing/warm/process.py",
        'SERVER_FILE = str(Path(__file__).with_name("warm_server.py"))',
        'SERVER_FILE = str(Path(__file__).resolve().parent.parent / "agent" / "warm_server.py")',
    ),
    (
        "server/heal_ls/testing/agent/warm_rules.py",
        "if __package__:  # imported from heal_ls (tests); the warm server imports us as a plain file\n"
        "    from . import warm_rewritten\nelse:\n    import warm_rewritten\n",
        "import warm_rewritten\n",
    ),
    (
        "server/heal_ls/testing/agent/warm_child.py",
        "if __package__:  # imported from heal_ls (tests); the warm server imports us as a plain file\n"
        "    from . import warm_rules, warm_sandbox\n    from .warm_rules import is_workspace\n"
        "else:\n    import warm_rules\n    import warm_sandbox\n    from warm_rules import is_workspace\n",
        "import warm_rules\nimport warm_sandbox\nfrom warm_rules import is_workspace\n",
    ),
]

# Imports of test helpers that left a conftest: (folder, old module, new module).
HELPER_IMPORTS = [("tests/lsp", "conftest", "helpers.lsp")]

# Modules of the agent folder that tests import: they are top-level modules on the agent path.
AGENT_TEST_IMPORTS = "agent_modules"

SCAN_DIRS = ["server", "tests", "benchmarks", "scripts", "docs"]
TEXT_FILES = ["README.md", "pyproject.toml", "Makefile", "client-vscode/README.md"]
TEXT_SUFFIXES = {".py", ".md", ".toml", ".lua", ".ts", ".json", ".sh", ".js", ".txt", ".cfg"}
DOTTED = re.compile(r"\bheal_ls(?:\.[A-Za-z_]\w*)+")


def sh(*args: str, check: bool = True) -> str:
    out = subprocess.run(args, check=check, capture_output=True, text=True)
    return out.stdout


class Plan:
    """Old module name -> new module name, and (old module, name) -> (new module, new name)."""

    def __init__(self) -> None:
        self.modules: dict[str, str] = {}
        self.symbols: dict[tuple[str, str], tuple[str, str]] = {}
        self.reexports: dict[str, dict[str, str]] = {}  # dropped package -> name -> old module
        self.created: set[str] = {m.dst for m in SYMBOL_MOVES}  # modules that exist only now

    def module(self, old: str) -> str:
        """The new name of a module (longest moved prefix), or old unchanged."""
        if old in self.created:  # already a new name (heal_ls.testing.warm.cold is not old)
            return old
        parts = old.split(".")
        for i in range(len(parts), 0, -1):
            head = ".".join(parts[:i])
            if head in self.modules:
                return ".".join([self.modules[head], *parts[i:]])
        return old

    def symbol(self, old_module: str, name: str) -> tuple[str, str]:
        if old_module in self.reexports and name in self.reexports[old_module]:
            old_module = self.reexports[old_module][name]
        if (old_module, name) in self.symbols:
            return self.symbols[(old_module, name)]
        return self.module(old_module), name

    def dotted(self, text: str) -> str:
        """heal_ls.a.b[.Name] with the module (and a moved name) mapped."""
        parts = text.split(".")
        for i in range(len(parts), 1, -1):
            head = ".".join(parts[:i])
            if head in self.all_old_modules:
                if i < len(parts):
                    mod, name = self.symbol(head, parts[i])
                    return ".".join([mod, name, *parts[i + 1 :]])
                return self.module(head)
        return text


def module_name(path: Path) -> str:
    rel = path.relative_to("server").with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_agent_file(path: Path) -> bool:
    return str(path).startswith(str(PKG / AGENT_DIR) + os.sep)


def old_modules() -> set[str]:
    return {module_name(p) for p in PKG.rglob("*.py")}


def collect_reexports(plan: Plan) -> None:
    for package in DROPPED_PACKAGES:
        init = PKG / package / "__init__.py"
        names: dict[str, str] = {}
        for node in ast.parse(init.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    names[alias.asname or alias.name] = node.module
        plan.reexports[f"heal_ls.{package}"] = names


def move_files(plan: Plan, dry: bool) -> list[tuple[Path, Path]]:
    moved: list[tuple[Path, Path]] = []
    for old, new in FILE_MOVES:
        src, dst = PKG / old, PKG / new
        if not src.exists():
            if old in OPTIONAL:
                continue
            sys.exit(f"move.py: {src} is missing: update FILE_MOVES")
        files = sorted(src.rglob("*.py")) if src.is_dir() else [src]
        for f in files:
            target = dst / f.relative_to(src) if src.is_dir() else dst
            plan.modules[module_name(f)] = module_name(target)
            moved.append((f, target))
    for old, new in TEST_MOVES:
        if not (Path("tests") / old).exists():
            sys.exit(f"move.py: tests/{old} is missing: update TEST_MOVES")
        moved.append((Path("tests") / old, Path("tests") / new))
    if dry:
        return moved
    for src, dst in moved:
        dst.parent.mkdir(parents=True, exist_ok=True)
        sh("git", "mv", str(src), str(dst))
    for folder, doc in NEW_PACKAGES.items():
        init = PKG / folder / "__init__.py"
        if not init.exists():
            init.write_text(doc)
            sh("git", "add", str(init))
    for package in DROPPED_PACKAGES:
        init = PKG / package / "__init__.py"
        sh("git", "rm", "-q", str(init))
    for path in (PKG / "testing" / "pytest_plugin", PKG / "check"):
        if path.exists() and not any(path.rglob("*.py")):
            sh("rm", "-rf", str(path))
    return moved


# ---------------------------------------------------------------- moving definitions


def module_path(module: str) -> Path:
    parts = module.split(".")
    base = Path(*parts) if parts[0] == "tests" else Path("server", *parts)
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def _defined(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    if isinstance(node, ast.If):  # `if sys.version_info >= ...: class X ... else: class X ...`
        return set().union(*(_defined(n) for n in [*node.body, *node.orelse]))
    return set()


def _span(lines: list[str], node: ast.stmt) -> tuple[int, int]:
    """0-based [start, end) lines of a top-level statement with its decorators and comments."""
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
    while start > 0 and lines[start - 1].startswith("#"):
        start -= 1
    return start, node.end_lineno or node.lineno


def _imports_block(tree: ast.Module, lines: list[str]) -> list[str]:
    out = []
    for node in tree.body:
        future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
        checking = isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        if (isinstance(node, ast.Import | ast.ImportFrom) and not future) or checking:
            out.append("".join(lines[node.lineno - 1 : node.end_lineno]))
    return out


def _retokenize(text: str, renames: dict[str, str]) -> str:
    lines = text.splitlines(keepends=True)
    edits = []
    prev = None
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if (
            tok.type == tokenize.NAME
            and tok.string in renames
            and not (prev and prev.string == ".")
        ):
            edits.append((tok.start, tok.end, renames[tok.string]))
        if tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            prev = tok
    for (srow, scol), (_, ecol), new in reversed(edits):
        line = lines[srow - 1]
        lines[srow - 1] = line[:scol] + new + line[ecol:]
    return "".join(lines)


def _used_names(text: str) -> set[str]:
    """Module-level names the code refers to (locals of its functions excluded)."""
    text = text.replace("from __future__ import annotations", "")  # annotations are uses too
    table = symtable.symtable(text, "<moved>", "exec")
    names: set[str] = set()
    stack = [table]
    while stack:
        t = stack.pop()
        stack.extend(t.get_children())
        for sym in t.get_symbols():
            top = t.get_type() == "module" or sym.is_global()
            if top and sym.is_referenced():
                names.add(sym.get_name())
            if t.get_type() == "class" and sym.is_referenced() and not sym.is_assigned():
                names.add(sym.get_name())  # class bodies see module names without "global"
    return names


def _references(tree: ast.Module, lines: list[str]) -> dict[str, tuple[int, set[str]]]:
    """Top-level name -> (its lines, the module's top-level names it uses)."""
    defs = {}
    for node in tree.body:
        for name in _defined(node):
            a, b = _span(lines, node)
            defs[name] = (a, b)
    out = {}
    for name, (a, b) in defs.items():
        used = _used_names(textwrap.dedent("".join(lines[a:b])))
        out[name] = (b - a, (used & set(defs)) - {name})
    return out


def closure(tree: ast.Module, lines: list[str], names: list[str]) -> set[str]:
    refs = _references(tree, lines)
    todo, seen = list(names), set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(refs.get(name, (0, set()))[1])
    return seen


def report_sizes(module: str) -> None:
    """For a module to split: each definition's lines, its closure's lines, who uses it."""
    path = module_path(module)
    text = path.read_text()
    tree, lines = ast.parse(text), text.splitlines(keepends=True)
    refs = _references(tree, lines)
    print(f"{path}: {len(lines)} lines")
    for name, (size, _) in refs.items():
        group = closure(tree, lines, [name])
        users = sorted(n for n, (_, used) in refs.items() if name in used)
        total = sum(refs[n][0] for n in group)
        print(f"  {name:32} {size:4} closure {total:4} ({len(group)} defs)  used by {users}")


def move_symbols(plan: Plan, dry: bool) -> None:
    for move in SYMBOL_MOVES:
        src_path, dst_path = module_path(move.src), module_path(move.dst)
        if not src_path.exists():
            sys.exit(f"move.py: {src_path} missing for {move.names}")
        text = src_path.read_text()
        tree = ast.parse(text)
        lines = text.splitlines(keepends=True)
        if move.closure:
            move.names = sorted(closure(tree, lines, move.names))
        spans, found = [], set()
        for node in tree.body:
            hit = _defined(node) & set(move.names)
            if hit:
                spans.append(_span(lines, node))
                found |= hit
        missing = set(move.names) - found
        if missing:
            sys.exit(f"move.py: {move.src} no longer defines {sorted(missing)}")
        renames = move.rename or {}
        old_srcs = [o for o, n in plan.modules.items() if n == move.src] + [move.src]
        for name in move.names:
            for old_src in old_srcs:
                plan.symbols[(old_src, name)] = (move.dst, renames.get(name, name))
        if dry:
            continue
        moved_text = "\n\n".join("".join(lines[a:b]).rstrip() + "\n" for a, b in spans)
        keep = [ln for i, ln in enumerate(lines) if not any(a <= i < b for a, b in spans)]
        rest = re.sub(r"\n{4,}", "\n\n\n", "".join(keep))
        rest = _retokenize(rest, renames)
        still_used = sorted(
            renames.get(n, n) for n in found if renames.get(n, n) in _used_names(rest)
        )
        if move.reexport:  # `import x as x`: an explicit re-export that ruff keeps
            names = ", ".join(f"{n} as {n}" for n in move.names if n not in still_used)
            rest = _add_import(rest, f"from {move.dst} import {names}\n")
        if still_used:
            dst_name = move.dst.removeprefix("tests.")  # tests/ is on sys.path, not a package
            rest = _add_import(rest, f"from {dst_name} import {', '.join(still_used)}\n")
        src_path.write_text(rest)
        if move.dedupe:
            continue
        remaining = set().union(*(_defined(n) for n in ast.parse(rest).body)) - set(move.names)
        moved_text = _retokenize(moved_text, renames)
        needs = sorted(_used_names(moved_text) & remaining)
        header = _imports_block(tree, lines)
        if needs:
            print(f"move.py: note: {move.dst} takes {needs} from {move.src}", file=sys.stderr)
            header.append(f"from {move.src} import {', '.join(needs)}\n")
        if dst_path.exists():
            dst_text = dst_path.read_text()
            for imp in header:
                dst_text = _add_import(dst_text, imp)
            dst_path.write_text(dst_text.rstrip() + "\n\n\n" + moved_text)
        else:
            dst_path.parent.mkdir(parents=True, exist_ok=True)
            doc = NEW_MODULE_DOCS.get(move.dst) or f'"""{", ".join(move.names)}."""\n'
            doc += "\n"
            body = "from __future__ import annotations\n\n" + "".join(header)
            dst_path.write_text(doc + body + "\n\n" + moved_text)
            sh("git", "add", str(dst_path))


def _add_import(text: str, statement: str) -> str:
    """Insert an import after the module's last top-level import (or after its docstring)."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    after = 0
    for node in tree.body:
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if isinstance(node, ast.Import | ast.ImportFrom) or (after == 0 and docstring):
            after = node.end_lineno or node.lineno
        elif after:
            break
    return "".join(lines[:after]) + statement + "".join(lines[after:])


# ---------------------------------------------------------------- rewriting references


def _import_lines(node: ast.ImportFrom, plan: Plan, path: Path) -> list[str] | None:
    """The rewritten form of `from heal_ls... import ...`, or None when nothing changes.

    [] means every name is now defined in the importing module itself."""
    if node.level or not node.module or not node.module.startswith("heal_ls"):
        return None
    here = module_name(path) if path.parts[0] == "server" else None
    agent = "heal_ls." + AGENT_DIR.replace("/", ".")
    groups: dict[str, list[str]] = defaultdict(list)
    changed = False
    for alias in node.names:
        full = f"{node.module}.{alias.name}"
        if full in plan.all_old_modules and (node.module, alias.name) not in plan.symbols:
            target, _, name = plan.module(full).rpartition(".")
        else:
            target, name = plan.symbol(node.module, alias.name)
        bound = alias.asname or alias.name
        changed |= target != node.module or name != alias.name or target == here
        if target == here:
            continue
        text = name if bound == name else f"{name} as {bound}"
        groups[target].append(text)
    if not changed:
        return None
    out = []
    for mod, names in groups.items():
        if mod == agent or mod.startswith(agent + "."):
            if path.parts[0] != "tests":
                sys.exit(f"move.py: {path} imports the agent ({mod}): only tests may")
            if mod == agent:  # a module of the agent folder: a top-level module on its path
                out.extend(f"import {n}" for n in names)
                continue
            mod = mod[len(agent) + 1 :]
        out.append(f"from {mod} import {', '.join(names)}")
    return out


def rewrite_file(path: Path, plan: Plan) -> bool:
    text = path.read_text()
    if path.suffix != ".py":
        new = DOTTED.sub(lambda m: plan.dotted(m.group()), text)
        new = _rewrite_paths(new, plan)
        if new != text:
            path.write_text(new)
        return new != text
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    lines = text.splitlines(keepends=True)
    line_edits: dict[int, tuple[int, list[str]]] = {}
    top_level = set(tree.body)
    import_lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            new_lines = _import_lines(node, plan, path)
        elif isinstance(node, ast.Import) and any(
            a.name.startswith("heal_ls.") for a in node.names
        ):
            new_lines = [
                f"import {plan.module(a.name)}" + (f" as {a.asname}" if a.asname else "")
                for a in node.names
            ]
            if all(plan.module(a.name) == a.name for a in node.names):
                new_lines = None
        else:
            continue
        start, end = node.lineno, node.end_lineno or node.lineno
        import_lines.update(range(start, end + 1))
        if new_lines is None:
            continue
        first = lines[start - 1]
        indent = first[: len(first) - len(first.lstrip())]
        if first.strip().split()[0] not in ("from", "import") or ";" in "".join(
            lines[start - 1 : end]
        ):
            sys.exit(f"move.py: {path}:{start}: import shares its line; rewrite it by hand")
        if not new_lines and node in top_level:  # only self-imports: nothing to import
            line_edits[start] = (end, [])
            continue
        new_lines = new_lines or ["pass"]  # only self-imports were left (under TYPE_CHECKING)
        comment = re.search(r"\s+#.*$", lines[end - 1].rstrip("\n"))
        if comment and end == start:
            new_lines = [ln + comment.group() for ln in new_lines]
        line_edits[start] = (end, [indent + ln + "\n" for ln in new_lines])
    out: list[str] = []
    token_text = _rewrite_tokens(text, plan, import_lines)
    lines = token_text.splitlines(keepends=True)
    i = 1
    while i <= len(lines):
        if i in line_edits:
            end, new_lines = line_edits[i]
            out.extend(new_lines)
            i = end + 1
            continue
        out.append(lines[i - 1])
        i += 1
    new = _rewrite_paths("".join(out), plan)
    new = re.sub(r"\nif TYPE_CHECKING:\n    pass\n", "\n", new)
    if new != text:
        path.write_text(new)
    return new != text


def _rewrite_tokens(text: str, plan: Plan, skip_lines: set[int]) -> str:
    """Dotted heal_ls names inside strings and comments (not in import statements)."""
    lines = text.splitlines(keepends=True)
    edits = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.STRING, tokenize.COMMENT) and tok.start[0] not in skip_lines:
            new = DOTTED.sub(lambda m: plan.dotted(m.group()), tok.string)
            if new != tok.string:
                edits.append((tok.start, tok.end, new))
    for (srow, scol), (erow, ecol), new in reversed(edits):
        head = lines[srow - 1][:scol]
        tail = lines[erow - 1][ecol:]
        lines[srow - 1 : erow] = [head + new + tail]
    return "".join(lines)


def _rewrite_paths(text: str, plan: Plan) -> str:
    """`server/heal_ls/edit.py` and `heal_ls/edit.py` style paths in prose."""

    def sub(match: re.Match) -> str:
        mod = match.group(2).replace("/", ".")
        mod = mod[: -len(".py")] if mod.endswith(".py") else mod
        old = "heal_ls." + mod if mod else "heal_ls"
        if old not in plan.all_old_modules or plan.module(old) == old:
            return match.group()
        new = plan.module(old).removeprefix("heal_ls.").replace(".", "/")
        return match.group(1) + new + (".py" if match.group(2).endswith(".py") else "")

    return re.sub(r"(\bheal_ls/)([\w/]+?(?:\.py)?)(?=[\s`'\")\]:,]|$)", sub, text)


def fix_test_depth(moved: list[tuple[Path, Path]]) -> None:
    """A test moved one folder deeper finds the repository one `parent` further up."""
    for src, dst in moved:
        if not str(dst).startswith("tests/"):
            continue
        extra = len(dst.parts) - len(src.parts)
        if extra <= 0:
            continue
        text = dst.read_text()
        new = re.sub(
            r"Path\(__file__\)(\.resolve\(\))?\.parents\[(\d)\]",
            lambda m, extra=extra: (
                f"Path(__file__){m.group(1) or ''}.parents[{int(m.group(2)) + extra}]"
            ),
            text,
        )
        new = re.sub(
            r"Path\(__file__\)(\.resolve\(\))?((?:\.parent(?!s))+)",
            lambda m, extra=extra: (
                f"Path(__file__){m.group(1) or ''}{m.group(2)}{'.parent' * extra}"
            ),
            new,
        )
        if new != text:
            dst.write_text(new)


def rewrite_helper_imports() -> list[Path]:
    changed = []
    for folder, old, new in HELPER_IMPORTS:
        for path in Path(folder).rglob("*.py"):
            text = path.read_text()
            updated = re.sub(rf"^from {old} import ", f"from {new} import ", text, flags=re.M)
            if updated != text:
                path.write_text(updated)
                changed.append(path)
    init = Path("tests/helpers/__init__.py")
    if not init.exists():
        init.write_text('"""Test helpers, imported by name (never `from conftest import`)."""\n')
        sh("git", "add", str(init))
    return changed


def apply_text_edits() -> None:
    for file, old, new in TEXT_EDITS:
        path = Path(file)
        text = path.read_text()
        if text.count(old) != 1:
            sys.exit(f"move.py: {file}: expected text not found once:\n{old}")
        path.write_text(text.replace(old, new))


def all_files() -> list[Path]:
    files = [Path(f) for f in TEXT_FILES if Path(f).exists()]
    for folder in SCAN_DIRS:
        for p in Path(folder).rglob("*"):
            skip = {"node_modules", ".cache", "__pycache__", "quixbugs", ".venv"}
            wanted = p.is_file() and p.suffix in TEXT_SUFFIXES and not skip & set(p.parts)
            if wanted and Path(__file__).resolve().parent not in p.resolve().parents:
                files.append(p)
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="check the plan, change nothing")
    parser.add_argument("--sizes", metavar="MODULE", help="show how MODULE could be split")
    args = parser.parse_args()
    if args.sizes:
        report_sizes(args.sizes)
        return 0
    if not PKG.is_dir():
        sys.exit("move.py: run from the repository root")
    plan = Plan()
    plan.all_old_modules = old_modules()
    collect_reexports(plan)
    plan.modules.update(MODULE_ALIASES)
    moved = move_files(plan, args.dry_run)
    move_symbols(plan, args.dry_run)
    if args.dry_run:
        for old, new in sorted(plan.modules.items()):
            print(f"{old} -> {new}")
        return 0
    plan.all_old_modules |= set(plan.modules.values())
    changed = [p for p in all_files() if rewrite_file(p, plan)]
    changed += rewrite_helper_imports()
    fix_test_depth(moved)
    apply_text_edits()
    layout_test = Path(__file__).with_name("test_layout.py")
    if layout_test.exists():
        Path("tests/unit/test_layout.py").write_text(layout_test.read_text())
        sh("git", "add", "tests/unit/test_layout.py")
    py = [str(p) for p in changed if p.suffix == ".py"] + [
        str(d) for _, d in moved if d.suffix == ".py"
    ]
    py += [str(module_path(m.dst)) for m in SYMBOL_MOVES] + [
        str(module_path(m.src)) for m in SYMBOL_MOVES
    ]
    py = sorted(set(py))
    ruff = [sys.executable, "-m", "ruff"] if not os.environ.get("RUFF") else [os.environ["RUFF"]]
    subprocess.run([*ruff, "check", "--fix", "--select", "F401,I", "-q", *py], check=False)
    subprocess.run([*ruff, "format", "-q", *py], check=False)
    print(f"move.py: moved {len(moved)} files, rewrote {len(changed)} files", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
