"""Small readings of a failure for the ranker: the callee a signature error names, the
method a protocol error names, where the test is, why a frame is or is not a target."""

from __future__ import annotations

import ast
import os
import re
import sys

from heal_ls.locate.index import FunctionNode, ModuleIndex
from heal_ls.models import Failure, Frame, RunResult
from heal_ls.pysource.paths import relative_path

# The Python heal-ls parses workspace code with (its own, whatever the project's interpreter).
OWN_PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"

_SIGNATURE_ERROR = re.compile(
    r"^(?P<name>[\w.<>]+)\(\) (?:got an unexpected keyword argument|got multiple values for"
    r"|missing \d+ required (?:positional|keyword-only) argument|takes (?:from )?\d+ "
    r"(?:to \d+ )?positional argument|takes no arguments|got some positional-only arguments)"
)


def signature_error_callee(failure: Failure) -> str | None:
    """The qualname a TypeError about call arguments names, else None."""
    if failure.exc_type != "TypeError":
        return None
    found = _SIGNATURE_ERROR.match(failure.message.strip())
    return found.group("name") if found else None


_PROTOCOL_ERROR = re.compile(
    r"^(?:(?P<builtin>iter|next|len|str|repr|hash|bool|int|float|index)\(\)|(?P<dunder>__\w+__)"
    r"(?:\(\))?) (?:returned|should return)"
)


def protocol_error_method(failure: Failure) -> str | None:
    """The dunder a "X() returned non-Y" TypeError blames (`iter()` -> `__iter__`), else None."""
    if failure.exc_type not in ("TypeError", "ValueError"):
        return None
    found = _PROTOCOL_ERROR.match(failure.message.strip())
    if found is None:
        return None
    return found["dunder"] or f"__{found['builtin']}__"


def contrasted(failure: Failure, run: RunResult | None, called) -> bool:
    """Did some passing test run one of the functions the failing test calls itself?"""
    if run is None:
        return False
    keys = {f"{path}:{node.start_line}" for path, node in called}
    return any(keys.intersection(t.covered) for t in run.tests if t.outcome == "passed")


def _test_location(failure: Failure, frames: list[Frame]) -> tuple[str | None, int | None]:
    if failure.test_path and failure.test_line:
        own = os.path.realpath(failure.test_path)
        if frames and all(os.path.realpath(f.path) != own for f in frames):
            # The test method is inherited from a mixin in another file (tests/__init__.py)
            return frames[-1].path, frames[-1].line
        return failure.test_path, failure.test_line
    if frames:  # the innermost workspace frame is in a test file here
        return frames[-1].path, frames[-1].line
    return failure.test_path, failure.test_line


def _raised_reason(failure: Failure, innermost: Frame) -> str:
    if failure.timed_out:
        return "stuck here when the test timed out"
    last = failure.frames[-1] if failure.frames else innermost
    if last is innermost or (last.path, last.line) == (innermost.path, innermost.line):
        return "raised here"
    return f"raised in {last.function} ({os.path.basename(last.path)}), called from here"


def _module_level_reason(frame: Frame, root: str, index: ModuleIndex | None) -> str:
    where = f"{relative_path(frame.path, root)}:{frame.line}"
    owner = index.class_at(frame.line) if index else None
    if owner is not None:
        return f"raised in the body of class {owner.qualname} at {where}, not inside a function"
    if index is None:
        return (
            f"{where} does not parse on heal-ls's Python {OWN_PYTHON} (a syntax error, undecodable,"
            " or a newer Python's syntax): fix it by hand, or run heal-ls on the project's Python"
        )
    return f"raised at module level at {where}, not inside a function"


def always_raises(index: ModuleIndex | None, node: FunctionNode) -> bool:
    """Does the def end in an unconditional `raise E(...)` with no `return` before it (a raise
    helper like `raise_syntax_error(message)`)? Then its caller chose to raise, and what."""
    if index is None or index.tree is None:
        return False
    found = [
        n
        for n in ast.walk(index.tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.lineno == node.def_line
    ]
    if not found or not found[0].body:
        return False
    last = found[0].body[-1]
    returns = any(isinstance(n, ast.Return) for n in ast.walk(found[0]))
    return isinstance(last, ast.Raise) and last.exc is not None and not returns
