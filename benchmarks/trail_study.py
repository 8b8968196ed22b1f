"""A study, not a feature (issue 22, class A): would a value trail name the maker of the value a
failing assertion compared? For each bug: its buggy tree, its failing tests run once plain and
once under benchmarks/trail_recorder.py (CPU of each from getrusage), then the first recorded
workspace call (in return order) whose returned repr is one the failing check compared is "the
trail's maker", set beside the bug's fixed functions (bug.json "functions").

    python benchmarks/trail_study.py --only BUG ... [--scratch DIR] [--json OUT]

The ranking does not read any of this; nothing here is wired into the product.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import resource
import shutil
import subprocess
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from heal_ls.bench.corpus import load_bugs, load_projects, test_env, tree, venv
from heal_ls.testing.invocation import pytest_arguments

HERE = Path(__file__).resolve().parent
# values whose maker says nothing: too many calls return them
TRIVIAL = {"True", "False", "None", "0", "1", "-1", "''", '""', "[]", "{}", "()", "set()", "b''"}
NUMBER = re.compile(r"-?[\d.]+$")
OPERATORS = r" (?:==|!=|is not|is|not in|in|<=|>=|<|>) "


@dataclass
class Trail:
    bug: str
    test: str
    maker: str  # the first call that returned a compared value ("" none)
    caller: str  # the workspace call that called the maker ("" the test did)
    value: str  # that value's repr
    fixed: list[str]  # bug.json "functions"
    match: bool  # the maker is one of them
    caller_match: bool  # the maker's caller is one of them
    part_maker: str  # the first call that returned a part where two compared values differ
    part_match: bool  # that one is a fixed function
    compared: list[str]  # the non-trivial values the check compared
    calls: int  # workspace calls recorded (+ dropped)
    plain_cpu: float  # seconds, the failing tests run plainly
    trail_cpu: float  # seconds, the same run under the recorder


def values_compared(compared: dict) -> tuple[list[str], list[str]]:
    """The reprs a failing check compared: the locals its line names, the operands of pytest's
    `assert A == B` (or unittest's `A != B`) first line and its `where X = ...` lines; and the
    parts where two of them differ (a number alone left out: too many calls return one)."""
    found = list(compared.get("locals", {}).values())
    lines = str(compared.get("message", "")).splitlines()
    if lines:
        first = lines[0].removeprefix("AssertionError: ").removeprefix("assert ")
        found += re.split(OPERATORS, first, maxsplit=1)
    for line in lines[1:]:
        where = re.match(r"\s*\+\s+where (.+?) = ", line)
        if where:
            found.append(where.group(1))
        index = re.match(r"\s*At index \d+ diff: (.+)$", line)  # pytest's first differing item
        if index:
            found += re.split(" != ", index.group(1), maxsplit=1)
    whole = list(dict.fromkeys(v.strip() for v in found))
    parts = [  # where two of them differ: the parts that differ
        part
        for i, left in enumerate(whole)
        for right in whole[i + 1 :]
        for part in differing_parts(left, right)
    ]
    kept = [v for v in whole if v and v not in TRIVIAL]
    return kept, [p for p in dict.fromkeys(parts) if p not in TRIVIAL and not NUMBER.match(p)]


def as_dict(node: ast.AST) -> ast.AST:
    """`OrderedDict([(k, v), ...])` as `{k: v, ...}`: the same mapping as the test's dict."""
    pairs = node.args[0] if isinstance(node, ast.Call) and len(node.args) == 1 else None
    named = isinstance(node, ast.Call) and ast.unparse(node.func).endswith("OrderedDict")
    if not named or not isinstance(pairs, ast.List | ast.Tuple):
        return node
    if not all(isinstance(p, ast.Tuple) and len(p.elts) == 2 for p in pairs.elts):
        return node
    items = [p.elts for p in pairs.elts if isinstance(p, ast.Tuple)]
    return ast.Dict(keys=[k for k, _ in items], values=[v for _, v in items])


def differing_parts(left: str, right: str) -> list[str]:
    """The innermost sub-expressions where two reprs differ, both sides' source (reprs that are
    Python expressions: literals, `Binding(key='a', ...)`); [] when either is not one."""
    try:
        trees = [ast.parse(text, mode="eval").body for text in (left, right)]
    except SyntaxError:
        return []
    parts: list[str] = []

    def walk(a: ast.AST, b: ast.AST) -> None:
        a, b = as_dict(a), as_dict(b)
        if ast.dump(a) == ast.dump(b):
            return
        kids_a, kids_b = list(ast.iter_child_nodes(a)), list(ast.iter_child_nodes(b))
        same_shape = type(a) is type(b) and len(kids_a) == len(kids_b) and kids_a
        if same_shape and all(
            getattr(a, f) == getattr(b, f) for f in ("attr", "arg", "id") if hasattr(a, f)
        ):
            for x, y in zip(kids_a, kids_b):
                walk(x, y)
            return
        parts.extend(ast.unparse(node) for node in (a, b))

    walk(*trees)
    return parts if len(parts) <= 20 else []


def same(returned: str, wanted: str) -> bool:
    """Equal reprs, or, for reprs cut by either side (pytest's '...', ours), equal up to the cut."""
    if returned == wanted:
        return True
    cut = min((len(s.split("...")[0]) for s in (returned, wanted) if "..." in s), default=0)
    return cut >= 40 and returned[:cut] == wanted[:cut]


def maker(calls: list[list], wanted: list[str]) -> tuple[int, str]:
    """The call that returned one of `wanted` first (return order): (its index, the value);
    (-1, "") when none did."""
    returned = sorted(
        (i for i, c in enumerate(calls) if c[3] is not None), key=lambda i: calls[i][3]
    )
    for index in returned:
        for want in wanted:
            if same(calls[index][2], want):
                return index, want
    return -1, ""


def named(key: str, functions: list[str]) -> bool:
    """`key` ("path::qualname") is one of `functions`, by path and qualname or qualname alone."""
    return bool(key) and (
        key in functions or key.split("::", 1)[-1] in {f.split("::", 1)[-1] for f in functions}
    )


def run(command: list[str], root: Path, env: dict[str, str]) -> float:
    """CPU seconds (user + system) the child used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=root, env=env, capture_output=True, timeout=900, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def study(bug, project, scratch: Path, again: bool = False) -> list[Trail]:
    """`again`: read the kept recording of an earlier run, run nothing (no cost measured)."""
    root = scratch / bug.id
    if not (again and root.is_dir()):
        shutil.rmtree(root, ignore_errors=True)
        tree(bug, root)
    python = venv(project)
    out = scratch / f"{bug.id}.trail.json"
    env = test_env(project, root)
    base = ["nice", "-n", "10", python, "-m", "pytest"]
    quiet = ["-q", "-p", "no:cacheprovider"]
    plain = [
        *base,
        *pytest_arguments(str(root), project.pytest_args, bug.failing_tests, extra=quiet),
    ]
    traced = [
        *base,
        *pytest_arguments(
            str(root),
            project.pytest_args,
            bug.failing_tests,
            extra=[*quiet, "-p", "trail_recorder"],
        ),
    ]
    env_trail = dict(env, TRAIL_ROOT=str(root), TRAIL_OUT=str(out))
    env_trail["PYTHONPATH"] = f"{env['PYTHONPATH']}{os.pathsep}{HERE}"
    plain_cpu = trail_cpu = 0.0  # again: not measured
    if not (again and out.is_file()):
        plain_cpu = min(run(plain, root, env) for _ in range(2))
        trail_cpu = min(run(traced, root, env_trail) for _ in range(2))
    tests = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {}
    trails = []
    for test, kept in tests.items():
        if not kept["failed"]:
            continue
        wanted, parts = values_compared(kept.get("compared", {}))
        calls, parents = kept["calls"], kept.get("parents", [])
        part_index, _part = maker(calls, parts)
        part_key = calls[part_index][0] if part_index >= 0 else ""
        index, value = maker(calls, wanted)
        key = calls[index][0] if index >= 0 else ""
        up = parents[index] if 0 <= index < len(parents) else None
        caller = calls[up][0] if up is not None else ""
        fixed = list(bug.functions)
        count = len(calls) + kept["dropped"]
        trails.append(
            Trail(
                bug.id,
                test,
                key,
                caller,
                value,
                fixed,
                named(key, fixed),
                named(caller, fixed),
                part_key,
                named(part_key, fixed),
                wanted,
                count,
                round(plain_cpu, 2),
                round(trail_cpu, 2),
            )  # fmt: skip
        )
    return trails


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", required=True)
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "trail-study")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--again", action="store_true", help="re-read kept recordings, run none")
    args = parser.parse_args()
    projects = load_projects()
    found: list[Trail] = []
    for bug in load_bugs(only=args.only):
        if bug.round == 9:  # a blind round: never read
            continue
        trails = study(bug, projects[bug.project], args.scratch, args.again)
        found += trails
        none = Trail(bug.id, "-", "", "", "", [], False, False, "", False, [], 0, 0, 0)
        for t in trails or [none]:
            match = "yes" if t.match else "caller" if t.caller_match else "no"
            match += f"; part {t.part_maker or '-'} {'yes' if t.part_match else 'no'}"
            print(
                f"{t.bug} | {t.maker or '-'} (called by {t.caller or '-'}) | {', '.join(t.fixed)}"
                f" | {match} | {t.plain_cpu}s -> {t.trail_cpu}s | {t.calls} calls"
                f" | value {t.value[:60]!r} of {len(t.compared)}",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps([asdict(t) for t in found], indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
