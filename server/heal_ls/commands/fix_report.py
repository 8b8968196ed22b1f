"""What `heal-ls fix` prints: one block per heal target (proof, blast radius, budget, diff) and
a last line saying what was verified and written; `--json` prints the rows as they are."""

from __future__ import annotations

import json
import sys

from heal_ls import payload
from heal_ls.documents.fix import FixDocument, FixRow
from heal_ls.heal.after_apply import AfterApply
from heal_ls.heal.blast import Blast
from heal_ls.heal.budget import Usage
from heal_ls.heal.events import HealEvent

# The local repairer tries small edits only; a miss there says little about a model's chances.
LOCAL_GAVE_UP_HINT = (
    "hint: the local repairer tries small edits only; a model may find the fix:"
    " --provider anthropic or --provider openai (key in ANTHROPIC_API_KEY / OPENAI_API_KEY)"
)


def print_report(rows: list[FixRow], *, as_json: bool, applying: bool, local: bool) -> None:
    if as_json:
        print(json.dumps(payload.to_object(FixDocument(rows)), indent=2))
        return
    if not rows:
        print("nothing to heal: no failing tests")
    for row in rows:
        if row.status == "grouped":
            print(
                f"{', '.join(row.tests)}: would be fixed by {row.fixed_by}'s weak fix"
                " (not applied), not healed separately"
            )
            continue
        if row.fixed_by:
            print(f"{', '.join(row.tests)}: fixed by {row.fixed_by} (not healed separately)")
            continue
        what = row.proof or row.status
        print(f"{row.suspect or row.test}: {what} - {row.reason or ''}")
        if row.callers is not None:
            print(f"# blast radius: {Blast(row.callers, row.guards).text()}")
        if row.model:
            print(f"# budget: {Usage(row.tokens_in, row.tokens_out, row.cost).text()}")
        if row.warning:
            print(f"warning: {row.warning}")
        if isinstance(row.after_apply, AfterApply):
            print(f"# {row.after_apply.text()}")
        if row.diff:
            print(f"# touched: {', '.join(row.touched)}")
            print(row.diff, end="" if row.diff.endswith("\n") else "\n")
    verified = sum(r.status == "verified" for r in rows)
    fixed = sum(r.status == "fixed" for r in rows)
    if fixed:
        print(f"{fixed} target(s) fixed by another target's fix")
    grouped = sum(r.status == "grouped" for r in rows)
    if grouped:
        print(f"{grouped} target(s) grouped under another target's weak fix (not applied)")
    review = sum(r.status == "review" and not r.applied for r in rows)
    if review:
        print(
            f"{review} fix(es) need review (not applied): read the diff, then --apply --accept-review"
        )
    healed = len(rows) - fixed  # a target fixed by another's fix is no heal of its own
    if rows and applying:
        print(f"{verified}/{healed} verified; {sum(r.applied for r in rows)} applied")
    elif verified:
        print(f"{verified}/{healed} verified; run with --apply to write them")
    elif rows:
        print(f"0/{healed} verified; nothing to write")
    if local and any(r.status in ("unverified", "failed") for r in rows):
        print(LOCAL_GAVE_UP_HINT)


def failure_name(failure) -> str:
    """The test id, the script, or for a collection error its id (collect:<path>)."""
    return failure.test or failure.script or failure.id


def heal_progress_printer(label: str, live):
    """Model steps get a line each; the local search's many tries share one updating line (on
    a terminal: the live bar's step)."""
    tty = sys.stderr.isatty()

    def emit(event: HealEvent) -> None:
        if event.kind == "chunk":
            return
        if live.progress is not None:
            step = f"[{event.attempt}/{event.total}] " if event.total else ""
            live.step(f"heal {label}: {step}{event.message}")
            if event.proposer != "local" and event.kind != "candidate":
                live.print(f"heal {label}: {step}{event.message}")
            return
        if event.proposer == "local":
            if tty:
                print(f"\rheal {label}: {event.message}   ", end="", file=sys.stderr, flush=True)
            return
        step = f"[{event.attempt}/{event.total}] " if event.total else ""
        prefix = "\n" if tty and event.kind == "done" else ""
        print(f"{prefix}heal {label}: {step}{event.message}", file=sys.stderr, flush=True)

    return emit
