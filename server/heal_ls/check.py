"""`heal-ls check`: run the tests (or a script) and show each failure's heal target, like a linter.

    shop/inventory.py:13:9: tests/test_inventory.py::test_remove_all failed: KeyError: 'pear'
        -> heal target Inventory.remove

Exit 0 when nothing fails, 1 when something does, 2 on usage or internal errors (one line).
`check_project` is the reusable part: the LSP and `heal-ls fix` call it too.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys

from heal_ls.locate import Located, locate, relative_path
from heal_ls.models import Failure, RunResult
from heal_ls.source import SourceError, read_source, split_lines

MAX_MESSAGE = 200
MAX_NOTES = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", help="project root (default: .)")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--test", action="append", metavar="NODEID", help="run only this test")
    what.add_argument("--script", metavar="FILE", help="run `python FILE` instead of pytest")
    parser.add_argument("--python", metavar="PY", help="interpreter (default: this one)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--test-timeout", type=float, default=10.0, metavar="S")
    parser.add_argument("--run-timeout", type=float, default=300.0, metavar="S")


async def check_project(
    root, *, tests=None, script=None, python=None, test_timeout=10.0, run_timeout=300.0
) -> tuple[RunResult, list[tuple[Failure, Located]]]:
    """Run pytest (or the script) in `root` and locate every failure."""
    root = os.path.abspath(str(root))
    if script:
        from heal_ls.testing.script import run_script

        run = await run_script(root, script, python=python, timeout=run_timeout)
    else:
        from heal_ls.testing.runner import run_pytest

        run = await run_pytest(
            root, nodeids=tests, python=python, test_timeout=test_timeout, run_timeout=run_timeout
        )
    return run, [(failure, locate(failure, root, run)) for failure in run.failures]


def run(args: argparse.Namespace) -> int:
    root = os.path.abspath(args.path)
    problem = _usage_problem(root, args)
    if problem:
        print(f"heal-ls check: {problem}", file=sys.stderr)
        return 2
    script = _script_path(root, args.script) if args.script else None
    result, located = asyncio.run(
        check_project(
            root,
            tests=args.test,
            script=script,
            python=args.python,
            test_timeout=args.test_timeout,
            run_timeout=args.run_timeout,
        )
    )
    if result.error:
        print(f"heal-ls check: {result.error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(to_json(result, located, root), indent=2))
    else:
        for line in human_lines(result, located, root):
            print(line)
        print(summary_line(result), file=sys.stderr)
    return 1 if result.failures or result.timed_out else 0


def _usage_problem(root: str, args: argparse.Namespace) -> str | None:
    if not os.path.isdir(root):
        return f"not a directory: {args.path}"
    if args.python and not shutil.which(args.python):
        return f"not an executable interpreter: {args.python}"
    if args.script and not os.path.isfile(_script_path(root, args.script)):
        return f"no such script: {args.script}"
    if args.test_timeout <= 0 or args.run_timeout <= 0:
        return "timeouts must be positive"
    return None


def _script_path(root: str, script: str) -> str:
    """A script path as typed: relative to the current folder if it exists there, else to root."""
    if os.path.isabs(script) or os.path.exists(script):
        return os.path.abspath(script)
    return os.path.join(root, script)


def human_lines(result: RunResult, located: list[tuple[Failure, Located]], root: str) -> list[str]:
    """One linter-style line per failure, then notes for the runner-up suspects."""
    lines = []
    for failure, where in located:
        path, line = _location(failure, where)
        place = f"{relative_path(path, root)}:{line}:{_column(path, line)}" if path else root
        verb = "timed out" if failure.timed_out else "failed"
        head = f"{place}: {failure.id} {verb}: {_error_text(failure)}"
        if where.healable:
            lines.append(f"{head} -> heal target {where.suspects[0].qualname}")
        else:
            lines.append(f"{head} -> not healable: {where.reason}")
        for other in where.suspects[1 : 1 + MAX_NOTES]:
            spot = f"{relative_path(other.path, root)}:{other.focus_line or other.def_line}"
            lines.append(f"    also {other.qualname} at {spot} ({other.reason})")
    if result.timed_out:
        lines.append(f"{root}: the run timed out before every test finished")
    return lines


def summary_line(result: RunResult) -> str:
    counts = [("failed", result.failed), ("errors", result.errors), ("passed", result.passed)]
    counts.append(("skipped", result.skipped))
    parts = [f"{n} {label}" for label, n in counts if n] or ["no tests ran"]
    return f"{', '.join(parts)} in {result.seconds:.1f}s"


def _location(failure: Failure, where: Located) -> tuple[str | None, int]:
    if where.suspects:
        top = where.suspects[0]
        return top.path, top.focus_line or top.def_line or top.start_line
    frames = [f for f in failure.frames if os.path.isfile(f.path)]
    if frames:
        return frames[-1].path, frames[-1].line
    if failure.test_path:
        return failure.test_path, failure.test_line or 1
    return failure.script, 1


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


def to_json(result: RunResult, located: list[tuple[Failure, Located]], root: str) -> dict:
    """The --json document: paths relative to root with `/`, lines 1-based."""
    return {
        "root": root,
        "passed": result.passed,
        "failed": result.failed,
        "errors": result.errors,
        "skipped": result.skipped,
        "seconds": round(result.seconds, 3),
        "timed_out": result.timed_out,
        "failures": [_failure_json(failure, where, root) for failure, where in located],
    }


def _failure_json(failure: Failure, where: Located, root: str) -> dict:
    rel = lambda path: relative_path(path, root) if path else None  # noqa: E731
    return {
        "id": failure.id,
        "test": failure.test,
        "script": rel(failure.script),
        "exc_type": failure.exc_type,
        "message": failure.message,
        "timed_out": failure.timed_out,
        "duration": round(failure.duration, 3),
        "test_path": rel(failure.test_path),
        "test_line": failure.test_line,
        "frames": [
            {"path": rel(f.path), "line": f.line, "function": f.function} for f in failure.frames
        ],
        "suspects": [
            {
                "path": rel(s.path),
                "qualname": s.qualname,
                "start_line": s.start_line,
                "end_line": s.end_line,
                "reason": s.reason,
                "def_line": s.def_line,
                "focus_line": s.focus_line,
                "start_col": s.start_col,
                "end_col": s.end_col,
                "score": round(s.score, 3),
            }
            for s in where.suspects
        ],
        "healable": where.healable,
        "reason": where.reason,
    }
