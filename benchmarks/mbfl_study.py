"""A study, not a feature (issue 22): would mutation-based fault localisation (Metallaxis, MUSE)
order the first K suspects better than the ranking? For each bug: the replay's ranking on its
kept evidence (rank_replay.ranking), up to MUTANTS small mutants of each of the first K
suspects' bodies (ast: a condition negated, a comparison flipped, `and`<->`or`, a constant +-1,
a `not` dropped, `return X` -> `return None`, one statement deleted), then one pytest process
in a fresh copy of the buggy tree (benchmarks/mbfl_plugin.py) swaps each mutant's code into the
live function and re-runs the failing tests (FAILING at most) and up to PASSING passing tests
that ran the suspect.
Per suspect: mutants made, swapped, failing tests turned green, failures whose message changed,
passing tests broken; per bug the children's CPU (getrusage).

    python benchmarks/mbfl_study.py --bugs BUG ... [--k 5] [--json OUT] [--scratch DIR]
    python benchmarks/mbfl_study.py --table OUT.json ...   # re-rankings of kept results

The ranking does not read any of this; nothing here is wired into the product.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import math
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # rank_replay, a sibling script

from heal_ls.bench.corpus import load_bugs, load_projects, test_env, tree, venv  # noqa: E402
from heal_ls.bench.real import rank  # noqa: E402
from heal_ls.testing.invocation import pytest_arguments  # noqa: E402
from rank_replay import ranking as ranked  # noqa: E402

HERE = Path(__file__).resolve().parent
MUTANTS = 12  # a suspect's mutants at most
PASSING = 3  # a suspect's passing tests at most
FAILING = 4  # a bug's failing tests at most (the first by id)
STORES = {
    9: Path("/work/lead/cap/r9"),
    10: Path("/work/lead/cap/r10"),
    11: Path("/work/lead/cap/r11"),
}
STORE = Path("/work/lead/store9")  # rounds 1-8
NUMBERS = re.compile(r"\d{6,}")
NEGATED = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
    ast.LtE: ast.Gt, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}  # fmt: skip


# --- mutants -------------------------------------------------------------------------------


def _negate(node: ast.AST) -> bool:
    if isinstance(node, ast.If | ast.While | ast.IfExp):
        test = node.test
        drop = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
        node.test = test.operand if drop else ast.UnaryOp(ast.Not(), test)
        return True
    return False


def _compare(node: ast.AST) -> bool:
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in NEGATED:
        node.ops = [NEGATED[type(node.ops[0])]()]
        return True
    return False


def _boolop(node: ast.AST) -> bool:
    if isinstance(node, ast.BoolOp):
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        return True
    return False


def _constant(step: int):
    def mutate(node: ast.AST) -> bool:
        value = getattr(node, "value", None)
        if isinstance(node, ast.Constant) and type(value) is int:
            node.value = value + step
            return True
        return False

    return mutate


def _drop_not(node: ast.AST) -> bool:
    """`not X` -> `X` where it stands as an operand (conditions are _negate's)."""
    for name in ("left", "right", "operand", "value"):
        kid = getattr(node, name, None)
        if isinstance(kid, ast.UnaryOp) and isinstance(kid.op, ast.Not):
            setattr(node, name, kid.operand)
            return True
    if isinstance(node, ast.BoolOp):
        for i, kid in enumerate(node.values):
            if isinstance(kid, ast.UnaryOp) and isinstance(kid.op, ast.Not):
                node.values = [*node.values[:i], kid.operand, *node.values[i + 1 :]]
                return True
    return False


def _return_none(node: ast.AST) -> bool:
    value = getattr(node, "value", None)
    if isinstance(node, ast.Return) and value is not None and not is_none(value):
        node.value = None
        return True
    return False


def is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


OPERATORS = [
    ("negate", _negate),
    ("compare", _compare),
    ("boolop", _boolop),
    ("return-none", _return_none),
    ("const+1", _constant(1)),
    ("const-1", _constant(-1)),
    ("drop-not", _drop_not),
    ("delete", None),  # a statement replaced by `pass`: its sites are statement_sites()
]


def statement_sites(function: ast.AST) -> list[tuple[ast.AST, str, int]]:
    """(parent, body field, index) of each statement under `function` but its docstring."""
    found = []
    for node in ast.walk(function):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if not isinstance(body, list):
                continue
            for i, stmt in enumerate(body):
                if not isinstance(stmt, ast.stmt) or isinstance(stmt, ast.Pass):
                    continue
                docstring = (
                    i == 0
                    and isinstance(stmt, ast.Expr)
                    and isinstance(stmt.value, ast.Constant)
                    and isinstance(stmt.value.value, str)
                )
                if not docstring:
                    found.append((node, name, i))
    return found


def source_of(function: ast.AST) -> str:
    bare = copy.deepcopy(function)
    bare.decorator_list = []
    return ast.unparse(bare)


def variants(function: ast.AST, op: str, mutate, cap: int) -> list[str]:
    """The first `cap` single mutations `op` makes in `function`, each as the def's source (no
    decorators); a site is tried on a shallow copy first (the mutators set the node's own
    fields), so the function is deep-copied only for a mutation that applies."""
    out: list[str] = []
    if op == "delete":
        for index in range(len(statement_sites(function))):
            clone = copy.deepcopy(function)
            parent, name, i = statement_sites(clone)[index]
            getattr(parent, name)[i] = ast.Pass()
            out.append(source_of(ast.fix_missing_locations(clone)))
            if len(out) >= cap:
                break
        return out
    nodes = list(ast.walk(function))
    for index, node in enumerate(nodes):
        if node is function or not mutate(copy.copy(node)):
            continue
        clone = copy.deepcopy(function)
        mutate(list(ast.walk(clone))[index])
        out.append(source_of(ast.fix_missing_locations(clone)))
        if len(out) >= cap:
            break
    return out


def mutants(function: ast.AST, cap: int = MUTANTS) -> list[dict]:
    """Up to `cap` distinct mutants of `function`, round-robin over the operators (each in source
    order) so one kind does not take them all; the first is the identity (a check of the swap)."""
    plain = source_of(function)
    lists = [[(op, s) for s in variants(function, op, m, cap)] for op, m in OPERATORS]
    seen, out = {plain}, [{"op": "identity", "source": plain}]
    for depth in range(max((len(x) for x in lists), default=0)):
        for found in lists:
            if depth < len(found) and found[depth][1] not in seen and len(out) <= cap:
                seen.add(found[depth][1])
                out.append({"op": found[depth][0], "source": found[depth][1]})
    return out


def def_node(path: Path, def_line: int) -> ast.AST | None:
    module = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno == def_line:
            return node
    return None


# --- one bug --------------------------------------------------------------------------------


@dataclass
class SuspectResult:
    qualname: str
    rel: str
    position: int  # 1-based, the ranking's
    score: float  # the ranking's
    fixed: bool  # one of bug.json's functions
    made: int = 0  # mutants but the identity
    swapped: int = 0
    why_not: str = ""  # why none could be made or swapped
    identity_ok: bool = True  # the unmutated swap left every outcome as it was
    green: int = 0  # (mutant, failing test) pairs turned green
    changed: int = 0  # ... still failing with another message (or timed out)
    broken: int = 0  # (mutant, passing test) pairs turned red
    passing: int = 0  # passing tests run with it
    timeouts: int = 0
    mutants: list[dict] = field(default_factory=list)  # per swapped mutant: op, fk, green, pk


@dataclass
class BugResult:
    bug: str
    project: str
    rank: int | None  # the ranking's, whole list
    failing: int  # failing tests that failed in the study's baseline
    cpu: float  # children's CPU seconds
    suspects: list[SuspectResult]
    error: str = ""


def store_of(bug) -> Path:
    return STORES.get(bug.round, STORE)


def run_bug(bug, project, k: int, scratch: Path, cpu_limit: float) -> BugResult:
    document, located = ranked(bug, store_of(bug))
    if located is None:
        return BugResult(bug.id, bug.project, None, 0, 0.0, [], error=str(document))
    old = document.root
    names = [(os.path.relpath(s.path, old), s.qualname) for s in located.suspects]
    position = rank(names, bug.functions)
    root = scratch / bug.id
    shutil.rmtree(root, ignore_errors=True)
    tree(bug, root)
    failing = sorted({f.test for f in document.failures if f.test})[:FAILING]
    tests = document.evidence.tests if document.evidence else []
    results, spec_suspects = [], []
    for n, s in enumerate(located.suspects[:k], 1):
        rel = os.path.relpath(s.path, old)
        result = SuspectResult(
            s.qualname, rel, n, round(s.score, 4), rank([(rel, s.qualname)], bug.functions) == 1
        )
        results.append(result)
        node = def_node(root / rel, s.def_line) if (root / rel).is_file() else None
        keys = {f"{s.path}:{s.def_line}", f"{s.path}:{s.start_line}"}
        passing = sorted(
            (t for t in tests if t.outcome == "passed" and keys & set(t.covered)),
            key=lambda t: (t.duration, t.nodeid),
        )[:PASSING]
        made = mutants(node) if node is not None and "<locals>" not in s.qualname else []
        result.made = max(len(made) - 1, 0)
        if not made:
            result.why_not = "no def" if node is None else "nested"
        spec_suspects.append(
            {
                "path": str(root / rel), "qualname": s.qualname, "first": s.start_line,
                "last": s.def_line, "passing": [t.nodeid for t in passing], "mutants": made,
            }
        )  # fmt: skip
    out = scratch / f"{bug.id}.mbfl.jsonl"
    out.unlink(missing_ok=True)
    spec = {"out": str(out), "cpu_limit": cpu_limit, "failing": failing, "suspects": spec_suspects}
    ids = sorted(set(failing) | {p for s in spec_suspects for p in s["passing"]})
    env = test_env(project, root)
    env["PYTHONPATH"] = f"{env['PYTHONPATH']}{os.pathsep}{HERE}"
    env["MBFL_SPEC"] = str(scratch / f"{bug.id}.spec.json")
    quiet = ["-q", "-p", "no:cacheprovider", "-p", "mbfl_plugin", "-p", "no:randomly"]
    command = [
        "nice", "-n", "10", venv(project), "-m", "pytest",
        *pytest_arguments(str(root), project.pytest_args, ids, extra=quiet),
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    records: dict[str, dict] = {}
    base: dict = {}
    order = [f"{i}:{j}" for i, s in enumerate(spec_suspects) for j in range(len(s["mutants"]))]
    for _attempt in range(4):  # a mutant that kills the process or hangs it loses only itself
        spec["done"] = sorted(records)
        Path(env["MBFL_SPEC"]).write_text(json.dumps(spec), encoding="utf-8")
        try:
            subprocess.run(command, cwd=root, env=env, capture_output=True, timeout=900)
        except subprocess.TimeoutExpired:
            pass
        for line in out.read_text(encoding="utf-8").splitlines() if out.is_file() else []:
            record = json.loads(line)
            if "baseline" in record:
                base = base or record["baseline"]
            else:
                records[record["tag"]] = record
        missing = [t for t in order if t not in records]
        if not missing or not base:
            break
        records[missing[0]] = {"tag": missing[0], "crash": True}  # the one it died on
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    shutil.rmtree(root, ignore_errors=True)
    really = [n for n in failing if base.get(n, ("",))[0] == "failed"]
    for i, result in enumerate(results):
        score(result, [records.get(f"{i}:{j}") for j in range(result.made + 1)], base)
    return BugResult(bug.id, bug.project, position, len(really), round(cpu, 2), results)


def same(got: list, base: list) -> bool:
    """The same outcome and message, ids and long numbers masked (`id='140323183382992'`)."""
    return got[0] == base[0] and NUMBERS.sub("N", got[1]) == NUMBERS.sub("N", base[1])


def score(result: SuspectResult, records: list[dict | None], base: dict) -> None:
    """Counts a suspect's mutants against the baseline. When the identity's run differs from the
    baseline (a test that changes state it reads again: pydash's case data grows each run), a
    changed message says nothing: only a failing test turned green counts for it."""
    trusted = True
    for j, record in enumerate(records):
        if not record or not record.get("swapped"):
            if record and record.get("crash"):
                result.timeouts += 1
            continue
        moved = [(n, got) for n, got in record["failing"].items() if not same(got, base[n])]
        green = sum(1 for _, got in moved if got[0] == "passed")
        fk = len(moved) if trusted else green
        pk = sum(1 for got in record["passing"].values() if got[0] != "passed")
        result.passing = max(result.passing, len(record["passing"]))
        result.timeouts += sum(
            1 for got in [*record["failing"].values(), *record["passing"].values()]
            if got[0] == "timeout"
        )  # fmt: skip
        if j == 0:  # the identity
            result.identity_ok = trusted = fk == 0 and pk == 0
            continue
        result.swapped += 1
        result.green += green
        result.changed += fk - green
        result.broken += pk
        result.mutants.append({"op": record["op"], "fk": fk, "green": green, "pk": pk})
    if result.made and not result.swapped and not result.why_not:
        result.why_not = "not swapped"


def rescore(bug: dict, raw: Path) -> dict:
    """`bug` (a kept result) counted again from the plugin's kept lines (`raw`)."""
    lines = [json.loads(x) for x in raw.read_text(encoding="utf-8").splitlines()]
    base = next((x["baseline"] for x in lines if "baseline" in x), {})
    records = {x["tag"]: x for x in lines if "tag" in x}
    suspects = []
    for i, s in enumerate(bug["suspects"]):
        kept = {k: s[k] for k in ("qualname", "rel", "position", "score", "fixed", "made")}
        result = SuspectResult(
            **kept, why_not=s["why_not"] if s["why_not"] != "not swapped" else ""
        )
        score(result, [records.get(f"{i}:{j}") for j in range(result.made + 1)], base)
        suspects.append(asdict(result))
    return dict(bug, suspects=suspects)


# --- re-rankings ----------------------------------------------------------------------------


def metallaxis(s: dict, failing: int) -> float:
    """Metallaxis-FL: the best mutant's Ochiai of (failing tests it changed, passing it broke)."""
    best = 0.0
    for m in s["mutants"]:
        if m["fk"]:
            best = max(best, m["fk"] / math.sqrt(max(failing, 1) * (m["fk"] + m["pk"])))
    return best


def muse(s: dict, failing: int, alpha: float) -> float:
    """MUSE: the mean over mutants of (failing turned green / F) - alpha (passing broken / P)."""
    if not s["mutants"]:
        return 0.0
    f = sum(m["green"] for m in s["mutants"]) / max(failing, 1)
    p = sum(m["pk"] for m in s["mutants"]) / max(s["passing"], 1)
    return (f - alpha * p) / len(s["mutants"])


def clean_green(s: dict) -> bool:
    """A mutant of `s` turned a failing test green and broke none of `s`'s passing tests (at
    least one was run): close to a repair, the evidence MUSE weighs most."""
    return s["passing"] > 0 and any(m["green"] and not m["pk"] for m in s["mutants"])


def first_clean_green(ss: list[dict], within: int) -> list[dict]:
    """The first of the first `within` suspects with a clean green mutant moved to the top when
    the top one has none; the rest keep their order."""
    if not ss or clean_green(ss[0]):
        return ss
    found = next((s for s in ss[:within] if clean_green(s)), None)
    return ss if found is None else [found, *(s for s in ss if s is not found)]


def reorder(bug: dict, how: str) -> int | None:
    """The fixed function's new position within the first K under `how` (None: not among them;
    unchanged when it was below K)."""
    ss, failing = bug["suspects"], bug["failing"]
    if bug["rank"] is None or bug["rank"] > len(ss):
        return bug["rank"]
    green = sum(m["green"] for s in ss for m in s["mutants"])
    broken = sum(m["pk"] / max(s["passing"], 1) for s in ss for m in s["mutants"])
    alpha = green / max(failing, 1) / broken if broken else 0.0
    key = {
        "metallaxis": lambda s: (-metallaxis(s, failing), s["position"]),
        "muse": lambda s: (-muse(s, failing, alpha), s["position"]),
        "tie": lambda s: (-s["score"], -metallaxis(s, failing), s["position"]),
        "close": lambda s: (-round(s["score"] / 0.05), -metallaxis(s, failing), s["position"]),
        "green-first": lambda s: (s["green"] == 0, s["position"]),
        "most-green": lambda s: (-s["green"], s["position"]),
        "green-rate": lambda s: (-s["green"] / max(len(s["mutants"]), 1), s["position"]),
        # the first two kept, the rest by green mutants: a rescue of the deep ones only
        "green-below-2": lambda s: (
            s["position"] > 2,
            0 if s["position"] <= 2 else -s["green"],
            s["position"],
        ),
    }.get(how)
    order = sorted(ss, key=key) if key else first_clean_green(ss, int(how.split("-")[-1]))
    return next((i for i, s in enumerate(order, 1) if s["fixed"]), bug["rank"])


HOWS = [
    "metallaxis", "muse", "tie", "close", "green-first", "most-green", "green-rate",
    "clean-green-3", "clean-green-5", "green-below-2",
]  # fmt: skip


def premise(ss: list[dict], fixed: bool) -> str:
    """MUSE's premise on the fixed (or the other) suspects: how often their mutants turn a
    failing test green, change its failure, break a passing test."""
    tried = [s for s in ss if s["swapped"]]
    mutants = max(sum(s["swapped"] for s in tried), 1)
    per = {key: sum(s[key] for s in tried) / mutants for key in ("green", "changed", "broken")}
    return (
        f"{'fixed' if fixed else 'other'} suspects {len(ss)}: swapped {len(tried)}"
        f" (not: {', '.join(sorted({s['why_not'] for s in ss if s['why_not']}))});"
        f" identity broken {sum(1 for s in ss if not s['identity_ok'])};"
        f" a mutant turned a failing test green in {sum(1 for s in tried if s['green'])};"
        f" a failure changed in {sum(1 for s in tried if s['changed'] or s['green'])};"
        f" a mutant: green {per['green']:.2f}, changed {per['changed']:.2f},"
        f" broken {per['broken']:.2f}; timeouts {sum(s['timeouts'] for s in ss)}"
    )


def table(bugs: list[dict], each: bool = False) -> None:
    """Top-1/top-3 of the measured bugs now and under each re-ranking, the bugs it moves;
    `each`: a line a bug (the fixed def's Metallaxis score and green mutants beside the best
    other suspect's, its new position under each re-ranking)."""
    within = lambda ranks, n: sum(1 for r in ranks if r is not None and r <= n)  # noqa: E731
    now = [b["rank"] for b in bugs]
    cpu = sorted(b["cpu"] for b in bugs)
    print(
        f"{len(bugs)} bugs; now top-1 {within(now, 1)}, top-3 {within(now, 3)}; CPU a bug"
        f" median {cpu[len(cpu) // 2]:.1f}s, max {cpu[-1]:.1f}s, total {sum(cpu):.0f}s"
    )
    for fixed in (True, False):
        print(premise([s for b in bugs for s in b["suspects"] if s["fixed"] == fixed], fixed))
    for b in bugs if each else ():
        ss, failing = b["suspects"], b["failing"]
        fixed = [s for s in ss if s["fixed"]]
        others = [s for s in ss if not s["fixed"]]
        mine = f"{metallaxis(fixed[0], failing):.2f} g{fixed[0]['green']}" if fixed else "-"
        best = max(others, key=lambda s: metallaxis(s, failing), default=None)
        theirs = f"{metallaxis(best, failing):.2f} g{best['green']}" if best else "-"
        moved = " ".join(f"{reorder(b, how)}" for how in HOWS)
        print(f"| {b['bug']} | {b['rank']} | {mine} | {theirs} | {moved} |")
    for how in HOWS:
        new = [reorder(b, how) for b in bugs]
        up = [f"{b['bug']} {b['rank']}->{r}" for b, r in zip(bugs, new) if r and r < b["rank"]]
        down = [f"{b['bug']} {b['rank']}->{r}" for b, r in zip(bugs, new) if r and r > b["rank"]]
        print(
            f"{how:12} top-1 {within(new, 1)}, top-3 {within(new, 3)}; up {len(up)}"
            f" {', '.join(up)}; down {len(down)} {', '.join(down)}"
        )


def line(b: BugResult) -> str:
    parts = []
    for s in b.suspects:
        mark = "*" if s.fixed else ""
        parts.append(
            f"{mark}{s.position}:{s.qualname} {s.swapped}/{s.made} g{s.green} c{s.changed}"
            f" b{s.broken}/{s.passing}{'' if s.identity_ok else ' ID!'}"
            f"{' ' + s.why_not if s.why_not else ''}"
        )
    return f"{b.bug} rank {b.rank} F{b.failing} cpu {b.cpu}s | " + " | ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bugs", nargs="+", default=())
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--cpu-limit", type=float, default=5.0, help="CPU seconds a test run")
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "mbfl")
    parser.add_argument("--json", type=Path, help="append each bug's result (JSON lines)")
    parser.add_argument("--table", type=Path, nargs="+", help="re-rank kept results, run none")
    parser.add_argument("--each", action="store_true", help="with --table: a line a bug")
    parser.add_argument("--raw", type=Path, nargs="*", default=(), help="count again from here")
    args = parser.parse_args()
    if args.table:
        kept = {}
        for found in args.table:
            for text in found.read_text(encoding="utf-8").splitlines():
                record = json.loads(text)
                raw = [d / f"{record['bug']}.mbfl.jsonl" for d in args.raw]
                raw = [r for r in raw if r.is_file()]
                if not record["error"]:
                    kept[record["bug"]] = rescore(record, raw[0]) if raw else record
        table(list(kept.values()), args.each)
        return
    args.scratch.mkdir(parents=True, exist_ok=True)
    projects = load_projects()
    for bug in load_bugs(only=args.bugs):
        try:
            result = run_bug(bug, projects[bug.project], args.k, args.scratch, args.cpu_limit)
        except Exception as exc:  # one bug's trouble is reported, the rest go on
            result = BugResult(bug.id, bug.project, None, 0, 0.0, [], error=repr(exc)[:300])
        print(result.error and f"{bug.id}: {result.error}" or line(result), flush=True)
        if args.json:
            with args.json.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(asdict(result)) + "\n")


if __name__ == "__main__":
    main()
