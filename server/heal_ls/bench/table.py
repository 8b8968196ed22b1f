"""The bench's plain-text table and its totals."""

from __future__ import annotations

import statistics

COLUMNS = [
    ("bug", "name", 22),
    ("located", "located", 7),
    ("fixed", "fixed", 5),
    ("equal", "equal", 8),
    ("weak", "weak", 4),
    ("tries", "attempts", 5),
    ("calls", "model_calls", 5),
    ("tokens", "tokens", 7),
    ("seconds", "seconds", 7),
]


def _cell(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def table_lines(rows: list[dict], header: bool = True) -> list[str]:
    lines = []
    if header:
        lines.append("  ".join(title.ljust(width) for title, _, width in COLUMNS))
    for row in rows:
        cells = [_cell(row[key]).ljust(width) for _, key, width in COLUMNS]
        note = f"  {row['note']}" if row.get("note") else ""
        lines.append("  ".join(cells).rstrip() + note)
    if header and rows:
        lines.append(totals_line(summary(rows)))
    return lines


def summary(rows: list[dict]) -> dict:
    seconds = [r["seconds"] for r in rows] or [0.0]
    return {
        "bugs": len(rows),
        "located": sum(r["located"] for r in rows),
        "fixed": sum(r["fixed"] for r in rows),
        "equal": sum(r["equal"] in ("same", "behaves") for r in rows),
        "same_ast": sum(r["equal"] == "same" for r in rows),
        "weak": sum(r.get("weak", False) for r in rows),
        "attempts": sum(r["attempts"] for r in rows),
        "model_calls": sum(r["model_calls"] for r in rows),
        "tokens": sum(r["tokens"] for r in rows),
        "total_seconds": round(sum(seconds), 1),
        "median_seconds": round(statistics.median(seconds), 1),
        "max_seconds": round(max(seconds), 1),
    }


def totals_line(s: dict) -> str:
    return (
        f"fixed {s['fixed']}/{s['bugs']}, equal to reference {s['equal']} "
        f"({s['same_ast']} same AST), weak {s['weak']}, located {s['located']}/{s['bugs']}, "
        f"{s['attempts']} attempts, {s['model_calls']} model calls, {s['tokens']} tokens; "
        f"{s['total_seconds']} s total, median {s['median_seconds']} s, max {s['max_seconds']} s"
    )
