"""The bench's plain-text table and its totals (of bench/rows.py's BenchRows)."""

from __future__ import annotations

import statistics

from heal_ls.bench.rows import BenchRow, BenchSummary

COLUMNS = [
    ("bug", "name", 22),
    ("located", "located", 7),
    ("fixed", "fixed", 5),
    ("correct", "correct", 7),
    ("equal", "equal", 8),
    ("weak", "weak", 4),
    ("tries", "attempts", 5),
    ("stopped", "guard_stops", 7),
    ("calls", "model_calls", 5),
    ("tokens", "tokens", 7),
    ("seconds", "seconds", 7),
]


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def table_lines(rows: list[BenchRow], header: bool = True) -> list[str]:
    lines = []
    if header:
        lines.append("  ".join(title.ljust(width) for title, _, width in COLUMNS))
    for row in rows:
        cells = [_cell(getattr(row, name)).ljust(width) for _, name, width in COLUMNS]
        note = f"  {row.note}" if row.note else ""
        lines.append("  ".join(cells).rstrip() + note)
    if header and rows:
        lines.append(totals_line(summary(rows)))
    return lines


def summary(rows: list[BenchRow]) -> BenchSummary:
    seconds = [r.seconds for r in rows] or [0.0]
    return BenchSummary(
        bugs=len(rows),
        located=sum(r.located for r in rows),
        fixed=sum(r.fixed for r in rows),
        hidden=sum(r.correct is not None for r in rows),
        correct=sum(r.correct is True for r in rows),
        verified_wrong=sum(_wrong(r) for r in rows if r.status == "verified"),
        weak_wrong=sum(_wrong(r) for r in rows if r.status == "weak"),
        equal=sum(r.equal in ("same", "behaves") for r in rows),
        same_ast=sum(r.equal == "same" for r in rows),
        weak=sum(r.weak for r in rows),
        attempts=sum(r.attempts for r in rows),
        guard_stops=sum(r.guard_stops for r in rows),
        model_calls=sum(r.model_calls for r in rows),
        tokens=sum(r.tokens for r in rows),
        total_seconds=round(sum(seconds), 1),
        median_seconds=round(statistics.median(seconds), 1),
        max_seconds=round(max(seconds), 1),
    )


def _wrong(row: BenchRow) -> bool:
    return not row.fixed or row.correct is False


def totals_line(s: BenchSummary) -> str:
    return (
        f"fixed {s.fixed}/{s.bugs}, correct {s.correct}/{s.hidden} (hidden tests "
        f"pass), verified but wrong {s.verified_wrong}, weak {s.weak} "
        f"({s.weak_wrong} wrong), equal to reference {s.equal} "
        f"({s.same_ast} same AST), located {s.located}/{s.bugs}, "
        f"{s.attempts} attempts ({s.guard_stops} stopped by a guard), "
        f"{s.model_calls} model calls, {s.tokens} tokens; "
        f"{s.total_seconds} s total, median {s.median_seconds} s, max {s.max_seconds} s"
    )
