"""How `heal-ls check` shows results: linter-style lines, a summary, the --json document."""

from __future__ import annotations

from typing import Any

from heal_ls import payload
from heal_ls.documents.check import CheckDocument, FailureRow, FrameRow, SuspectRow
from heal_ls.locate import Located, is_workspace_file, relative_path, shown_at
from heal_ls.models import Failure, RunResult, Suspect
from heal_ls.pysource.source import SourceError, read_source, split_lines
from heal_ls.testing.flaky import Flaky

MAX_MESSAGE = 200
MAX_NOTES = 3
WEAK = 0.5  # suspects only because they ran in the failing test score at most this


def human_lines(
    result: RunResult,
    located: list[tuple[Failure, Located]],
    root: str,
    *,
    traceback=True,
    flaky: dict | None = None,
) -> list[str]:
    """One linter-style line per failure; below it, unless traceback=False (--short), the
    traceback (workspace frames, the heal target marked) and the runner-up suspects not shown.
    `flaky` (failure id -> Flaky) adds the re-check counts of --flaky-runs."""
    lines = []
    for failure, where in located:
        found = (flaky or {}).get(failure.id)
        lines.append(_head(failure, where, root) + (f" ({found.label()})" if found else ""))
        shown = set()
        if traceback:
            lines += _traceback(failure, where, root)
            shown = {(f.path, f.line) for f in failure.frames}
        unseen = [s for s in where.suspects if (s.path, s.focus_line) not in shown]
        if traceback and unseen and unseen[0] is where.suspects[0]:  # say why the target
            lines.append(_note(unseen.pop(0), root, _top_label(where)))
        if not traceback:  # --short: one line per failure, as its help says
            continue
        # Runner-ups with a reason of their own; "it merely ran" ones stay in --json.
        others = [s for s in unseen if s is not where.suspects[0] and s.score > WEAK]
        lines += [_note(other, root, "also") for other in others[:MAX_NOTES]]
    if result.timed_out:
        lines.append(f"{root}: the run timed out before every test finished")
    return lines


def _top_label(where: Located) -> str:
    """What the first suspect is called: no heal target when nothing is healed (a class that
    lacks the member the test calls, a module that lacks the name it imports)."""
    return "heal target" if where.healable else "suspect"


def _note(suspect: Suspect, root: str, label: str) -> str:
    spot = f"{relative_path(suspect.path, root)}:{suspect.focus_line or suspect.def_line}"
    return f"    {label} {suspect.qualname} at {spot} ({suspect.reason})"


def _head(failure: Failure, where: Located, root: str) -> str:
    path, line = _location(failure, where, root)
    place = f"{relative_path(path, root)}:{line}:{_column(path, line)}" if path else root
    verb = "timed out" if failure.timed_out else "failed"
    if failure.when in ("setup", "teardown") and not failure.timed_out:
        verb = f"error at {failure.when}"  # pytest's words: the test itself never ran or ended
    head = f"{place}: {failure.id} {verb}: {_error_text(failure)}"
    if where.healable:
        return f"{head} -> heal target {where.suspects[0].qualname}"
    return f"{head} -> not healable: {where.reason}"


def _traceback(failure: Failure, where: Located, root: str) -> list[str]:
    """Workspace frames outermost first; runs of other frames folded into one line."""
    top = where.suspects[0] if where.suspects else None
    lines, hidden = [], 0
    for frame in failure.frames:
        if not is_workspace_file(frame.path, root):
            hidden += 1
            continue
        if hidden:
            lines.append(f"    ... {hidden} frame{'s' * (hidden > 1)} outside the workspace")
            hidden = 0
        mark = ""
        if top and (frame.path, frame.line) == (top.path, top.focus_line):
            mark = f" <- {_top_label(where)}"
        lines.append(
            f"    {relative_path(frame.path, root)}:{frame.line} in {frame.function}{mark}"
        )
    if hidden:
        lines.append(f"    ... {hidden} frame{'s' * (hidden > 1)} outside the workspace")
    return lines


def summary_line(result: RunResult) -> str:
    errors = "error" if result.errors == 1 else "errors"  # as pytest says it
    counts = [
        ("failed", result.failed),
        (errors, result.errors),
        ("passed", result.passed - result.xpassed),
        ("skipped", result.skipped - result.xfailed),
        ("xfailed", result.xfailed),
        ("xpassed", result.xpassed),
    ]
    parts = [f"{n} {label}" for label, n in counts if n] or ["no tests ran"]
    line = f"{', '.join(parts)} in {result.seconds:.1f}s"
    if result.vouched:  # the counts are the requested tests'; the run held others of the files
        line += f" ({result.ran} ran, {result.vouched} others vouched for by the impact map)"
    return line


def _location(failure: Failure, where: Located, root: str) -> tuple[str | None, int]:
    """The heal target, else where a failure no function is blamed for is shown."""
    if where.suspects:
        top = where.suspects[0]
        return top.path, top.focus_line or top.def_line or top.start_line
    return shown_at(failure, root) or (None, 1)


def _column(path: str, line: int) -> int:
    """1-based column of the first non-blank character of the line (1 when unknown)."""
    try:
        text = split_lines(read_source(path))[line - 1]
    except (OSError, SourceError, IndexError):
        return 1
    return len(text) - len(text.lstrip()) + 1


def _error_text(failure: Failure) -> str:
    message = failure.message.strip().splitlines()[0] if failure.message.strip() else ""
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    return f"{failure.exc_type}: {message}" if message else failure.exc_type


def check_document(
    result: RunResult,
    located: list[tuple[Failure, Located]],
    root: str,
    flaky: dict[str, Flaky] | None = None,
) -> CheckDocument:
    """The --json document; with --flaky-runs (`flaky`: failure id -> Flaky) each failure
    has `flaky: {runs, passed}`."""
    rows = [_failure_row(failure, where, root) for failure, where in located]
    if flaky is not None:
        for row in rows:
            row.flaky = flaky.get(row.id)
    return CheckDocument(
        root=root,
        passed=result.passed,
        failed=result.failed,
        errors=result.errors,
        skipped=result.skipped,
        xfailed=result.xfailed,
        xpassed=result.xpassed,
        seconds=round(result.seconds, 3),
        timed_out=result.timed_out,
        interrupted=result.interrupted,
        failures=rows,
        ran=result.ran or len(result.tests),
        vouched=result.vouched,
    )


def to_json(
    result: RunResult,
    located: list[tuple[Failure, Located]],
    root: str,
    flaky: dict[str, Flaky] | None = None,
) -> dict[str, Any]:
    """The --json document as JSON data."""
    return payload.to_object(check_document(result, located, root, flaky))


def _failure_row(failure: Failure, where: Located, root: str) -> FailureRow:
    rel = lambda path: relative_path(path, root) if path else None  # noqa: E731
    return FailureRow(
        id=failure.id,
        test=failure.test,
        script=rel(failure.script),
        exc_type=failure.exc_type,
        message=failure.message,
        timed_out=failure.timed_out,
        when=failure.when,
        duration=round(failure.duration, 3),
        test_path=rel(failure.test_path),
        test_line=failure.test_line,
        frames=[FrameRow(rel(f.path), f.line, f.function) for f in failure.frames],
        suspects=[
            SuspectRow(
                path=rel(s.path),
                qualname=s.qualname,
                start_line=s.start_line,
                end_line=s.end_line,
                reason=s.reason,
                def_line=s.def_line,
                focus_line=s.focus_line,
                start_col=s.start_col,
                end_col=s.end_col,
                score=round(s.score, 3),
            )
            for s in where.suspects
        ],
        healable=where.healable,
        reason=where.reason,
    )
