"""The local repairer on the real-bug corpus: is a verified fix correct, and what each of its
transformations costs (a section of benchmarks/RESULTS.md, written by `heal-ls bench --real`).

A verified fix is *correct* when every function the developer fixed is, after the heal, the same
code as in the reference fix (`equal`: the same syntax tree, docstrings aside), or when every test
of the regression set that passes on the reference fix passes on the healed tree too (`tests`:
it passes the fixed version's tests).
"""

from __future__ import annotations

import ast
from pathlib import Path

from heal_ls.bench.rows import RealRow
from heal_ls.documents.fix import FixRow
from heal_ls.models import OperatorCount

HEADING = "## Local repairer on real fixes"
# The hand-written part of the section (the classification of the fixes) lies between these and
# is carried over when the page is written again.
KEPT_START, KEPT_END = "<!-- kept: start -->", "<!-- kept: end -->"


def same_function(healed: Path, reference: Path, function: str) -> bool:
    """`path::Qual.name` is the same code in both trees (docstrings and formatting aside)."""
    path, qualname = function.split("::", 1)
    mine, theirs = (_function_dump(root / path, qualname) for root in (healed, reference))
    return mine is not None and mine == theirs


def _function_dump(path: Path, qualname: str) -> str | None:
    try:
        scope: list[ast.stmt] = ast.parse(path.read_text(encoding="utf-8")).body
    except (OSError, SyntaxError, ValueError):
        return None
    node = None
    for name in qualname.split("."):
        node = next((n for n in scope if getattr(n, "name", None) == name), None)
        if node is None:
            return None
        scope = getattr(node, "body", [])
    body = getattr(node, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        node.body = body[1:] or [ast.Pass()]  # type: ignore[union-attr]
    return ast.dump(node)  # type: ignore[arg-type]


def correct(functions, healed: Path, reference: Path, after: dict, on_reference: dict) -> str:
    """ "equal", "tests" or "" (see the module docstring); `after` and `on_reference` are the
    regression set's outcomes on the healed tree and on the reference fix's."""
    if all(same_function(healed, reference, f) for f in functions):
        return "equal"
    passing = [t for t, outcome in on_reference.items() if outcome == "PASSED"]
    return "tests" if passing and all(after.get(t) == "PASSED" for t in passing) else ""


def merged_operators(results: list[FixRow]) -> dict[str, OperatorCount]:
    """The per-operator counts of `heal-ls fix --json`'s results (FixRow.operators), summed."""
    merged: dict[str, OperatorCount] = {}
    for result in results:
        for kind, counts in result.operators.items():
            total = merged.setdefault(kind, OperatorCount())
            total.tried += counts.tried
            total.seconds = round(total.seconds + counts.seconds, 3)
            total.won += counts.won
    return merged


def section(rows: list[RealRow], kept: str = "") -> list[str]:
    """The page's repairer section: verified and correct, per verified bug, per operator."""
    ran = [r for r in rows if r.reproduces]
    verified = [r for r in ran if r.verified]
    equal = sum(r.correct == "equal" for r in verified)
    tests = sum(r.correct == "tests" for r in verified)
    breaking = sum(bool(r.breaks) for r in verified)
    lines = [
        HEADING,
        "",
        f"`heal-ls fix --provider local` on the top suspect of each of the {len(ran)} bugs: "
        f"**{len(verified)} verified, {equal + tests} of them correct** ({equal} equal to the "
        f"reference fix, {tests} passing the fixed version's tests), {breaking} breaking a test "
        "that passed before. Correct = every fixed function is the reference fix's code, or "
        "every regression-set test that passes on the reference fix passes after the heal.",
        "",
    ]
    if verified:
        lines += ["| bug | rank | transformation | correct | fix s |", "|---|---|---|---|---|"]
        for r in verified:
            lines.append(
                f"| {r.bug} | {r.rank or '-'} | {r.fix_kind or '-'} | "
                f"{r.correct or 'no'} | {r.fix_seconds:.1f} |"
            )
        lines.append("")
    lines += operator_table(ran)
    if kept:
        lines += ["", KEPT_START, kept.strip("\n"), KEPT_END]
    return lines


def operator_table(rows: list[RealRow]) -> list[str]:
    """Per transformation over the corpus: candidates verified, seconds, fixes verified, bugs."""
    totals: dict[str, dict] = {}
    for r in rows:
        for kind, counts in r.operators.items():
            name = "pair (second order)" if "+" in kind else kind
            row = totals.setdefault(name, {"tried": 0, "seconds": 0.0, "won": 0, "bugs": 0})
            row["bugs"] += 1
            row["tried"] += counts.tried
            row["seconds"] += counts.seconds
            row["won"] += counts.won
    lines = [
        "| transformation | candidates run | seconds | verified | bugs it ran on |",
        "|---|---|---|---|---|",
    ]
    for name, t in sorted(totals.items(), key=lambda item: -item[1]["seconds"]):
        lines.append(f"| {name} | {t['tried']} | {t['seconds']:.1f} | {t['won']} | {t['bugs']} |")
    return lines


def kept_part(page: str) -> str:
    """The hand-written part of an existing page's section ("" when there is none)."""
    if KEPT_START not in page or KEPT_END not in page:
        return ""
    return page.split(KEPT_START, 1)[1].split(KEPT_END, 1)[0]
