"""The prompt sent to a model: minimal and sufficient to fix one function, never the whole file.

It carries the target function (path, qualname, lines), the failing test function's source only,
the error with the workspace frames, the failing frame's locals, one-line signatures of the
workspace functions the target calls, and what was wrong with earlier candidates. Secrets are
masked with numbered placeholders; `Prompt.unmask` puts them back into an answer.
"""

from __future__ import annotations

import re

from heal_ls.heal.prompt_context import clip, dedent, failing_test_source, related_lines
from heal_ls.llm.base import Prompt
from heal_ls.locate import is_workspace_file, relative_path
from heal_ls.models import Attempt, Failure, Frame, Suspect
from heal_ls.pysource.paths import TestFiles
from heal_ls.pysource.source import LINE_BREAK, read_source
from heal_ls.redact import known_secrets, mask_secrets

SYSTEM = (
    "You repair Python code. You get the function that makes a test fail (and sometimes other "
    "functions of its module you may change), the failing test, the error and the traceback. "
    "Find the bug and fix it in the functions offered only; a small new helper function or an "
    "import the fix needs is allowed. Keep each function's name, signature and decorators; keep "
    "its behaviour everywhere the test does not show it to be wrong; do not add I/O or calls to "
    "eval/exec/os/subprocess; never skip or weaken tests. Answer with the complete corrected "
    "functions you changed (and any import lines they need) in one ```python code block and "
    "at most two sentences outside it."
)
MAX_MESSAGE, MAX_LOCAL, MAX_LOCALS, MAX_FRAMES, MAX_HISTORY = 1500, 200, 12, 10, 3


def build_prompt(
    suspect: Suspect,
    module_text: str,
    failure: Failure,
    root: str,
    history: list[Attempt],
    offered: list[Suspect] | None = None,
    tests: TestFiles | None = None,
) -> Prompt:
    """The prompt for `suspect`; `offered` (the target first) lists every function that may
    change; `tests`: the files holding tests (the heal's, with the run's collected ones), else
    the names alone say."""
    rel = relative_path(suspect.path, root)
    lines = LINE_BREAK.split(module_text)
    function = dedent(lines[suspect.start_line - 1 : suspect.end_line])
    name = suspect.qualname.rsplit(".", 1)[-1]
    where = f"{rel}, lines {suspect.start_line}-{suspect.end_line}"
    sections = [
        f"Fix the function `{suspect.qualname}` in {rel}. It makes "
        f"{_what_failed(failure, root)} fail. Reply with the whole corrected `def {name}` "
        "(same name and signature) in one ```python block.",
        f"## Function `{suspect.qualname}` ({where})\n{_fence(function)}",
        _offered_section(module_text, suspect, offered or []),
        _test_section(failure, root),
        _error_section(failure, root, lines, suspect),
        _locals_section(failure, suspect, tests or TestFiles(root)),
        _related_section(module_text, suspect),
        _history_section(history),
    ]
    masks: dict[str, str] = {}
    user = mask_secrets("\n\n".join(s for s in sections if s), masks, known_secrets(root))
    return Prompt(system=SYSTEM, user=user + "\n", masks=masks)


def _offered_section(module_text: str, suspect: Suspect, offered: list[Suspect]) -> str:
    others = [s for s in offered if s.qualname != suspect.qualname and s.path == suspect.path]
    if not others:
        return ""
    lines = LINE_BREAK.split(module_text)
    names = ", ".join(f"`{s.qualname}`" for s in [suspect, *others])
    parts = [
        f"## Other functions you may change (same module)\nYou may change {names}; nothing "
        "else of the module. Send each function you change, whole."
    ]
    for other in others:
        where = f"lines {other.start_line}-{other.end_line}, {other.reason}"
        code = dedent(lines[other.start_line - 1 : other.end_line])
        parts.append(f"### `{other.qualname}` ({where})\n{_fence(code)}")
    return "\n".join(parts)


def render_prompt(prompt: Prompt) -> str:
    """The prompt as plain text, for `--show-prompt`."""
    return f"--- system ---\n{prompt.system}\n\n--- user ---\n{prompt.user}"


def _what_failed(failure: Failure, root: str) -> str:
    if failure.script:
        return f"the script `{relative_path(failure.script, root)}`"
    return f"the test `{failure.test or failure.id}`"


def _fence(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```"


def _test_section(failure: Failure, root: str) -> str:
    found = failing_test_source(failure, root)
    if found is None:
        return ""
    path, qualname, source = found
    return f"## Failing test `{qualname}` ({relative_path(path, root)})\n{_fence(source)}"


def _error_section(failure: Failure, root: str, lines: list[str], suspect: Suspect) -> str:
    error = f"{failure.exc_type}: {clip(failure.message, MAX_MESSAGE)}".rstrip(": ")
    if failure.timed_out:
        error += " (the test timed out: look for a loop that never ends)"
    frames = [f for f in failure.frames if is_workspace_file(f.path, root)][-MAX_FRAMES:]
    rows = [_frame_row(f, root, lines, suspect) for f in frames]
    trace = "\n\nTraceback (workspace frames, most recent call last):\n" + "\n".join(rows)
    return f"## Error\n{error}" + (trace if rows else "")


def _frame_row(frame: Frame, root: str, lines: list[str], suspect: Suspect) -> str:
    row = f"  {relative_path(frame.path, root)}:{frame.line} in {frame.function}"
    if frame.path == suspect.path and 0 < frame.line <= len(lines):
        code = lines[frame.line - 1].strip()
    else:
        code = _line_of(frame.path, frame.line)
    return f"{row}\n      {code}" if code else row


def _line_of(path: str, line: int) -> str:
    try:
        found = LINE_BREAK.split(read_source(path))
    except (OSError, ValueError):
        return ""
    return found[line - 1].strip() if 0 < line <= len(found) else ""


def _locals_section(failure: Failure, suspect: Suspect, tests: TestFiles) -> str:
    """Locals of the innermost frame inside the target, else of the innermost workspace
    (non-test) frame that has any: a test's own locals are its expected values, not code."""
    inside = [f for f in failure.frames if _in_suspect(f, suspect) and f.locals]
    candidates = inside or [
        f
        for f in failure.frames
        if f.locals and is_workspace_file(f.path, tests.root) and f.path not in tests
    ]
    if not candidates:
        return ""
    frame = candidates[-1]
    items = list(frame.locals.items())[:MAX_LOCALS]
    rows = [f"  {name} = {clip(value, MAX_LOCAL)}" for name, value in items]
    return f"## Locals in `{frame.function}` at line {frame.line}\n" + "\n".join(rows)


def _in_suspect(frame: Frame, suspect: Suspect) -> bool:
    return frame.path == suspect.path and suspect.start_line <= frame.line <= suspect.end_line


def _related_section(module_text: str, suspect: Suspect) -> str:
    callees, names = related_lines(module_text, suspect.qualname)
    parts = []
    if callees:
        parts.append("## Functions it calls (same module)\n" + "\n".join(f"  {c}" for c in callees))
    if names:
        parts.append("## Module-level names it reads\n" + "\n".join(f"  {n}" for n in names))
    return "\n\n".join(parts)


def _history_section(history: list[Attempt]) -> str:
    if not history:
        return ""
    shown = history[-MAX_HISTORY:]
    skipped = len(history) - len(shown)
    parts = ["## Earlier attempts that did not work (do not repeat them)"]
    if skipped:
        parts.append(f"({skipped} older attempts not shown)")
    for number, attempt in enumerate(shown, start=skipped + 1):
        why = clip(attempt.failure.strip() or attempt.outcome, MAX_MESSAGE)
        code = _fence(_code_of(attempt.candidate.source))
        parts.append(f"### Attempt {number} ({attempt.outcome}): {why}\n{code}")
    return "\n".join(parts)


def _code_of(answer: str) -> str:
    """The first fenced block of a raw model answer (candidates may keep the prose)."""
    found = re.search(r"```[^\n]*\n(.*?)```", answer, re.DOTALL)
    return found.group(1) if found else answer


def prompt_for(
    suspect: Suspect,
    module_text: str,
    failure: Failure,
    tests: TestFiles,
    history: list[Attempt],
    offered: list[Suspect] | None = None,
) -> Prompt:
    """The function's prompt, or the class's when the heal adds a member to it (`tests`: the
    heal's test files, their root the workspace's)."""
    if suspect.member:
        return build_member_prompt(suspect, module_text, failure, tests.root, history)
    return build_prompt(suspect, module_text, failure, tests.root, history, offered, tests)


MEMBER_SYSTEM = (
    "You extend Python classes. You get a class that lacks a member a failing test uses, the "
    "failing test, the error and what the test's line does with the member. Write only that one "
    "new member (a method, a special method or a property's setter), consistent with the class's "
    "other members; do not change or repeat the other members, add no other code, no I/O, no "
    "eval/exec/os/subprocess. Answer with the new member's def in one ```python code block and "
    "at most two sentences outside it."
)


def build_member_prompt(
    suspect: Suspect, module_text: str, failure: Failure, root: str, history: list[Attempt]
) -> Prompt:
    """The prompt for a class that lacks `suspect.member` (heal/member.py): the class, the
    failure, the member's name and the test's line that uses it."""
    rel = relative_path(suspect.path, root)
    lines = LINE_BREAK.split(module_text)
    cls = dedent(lines[suspect.start_line - 1 : suspect.end_line])
    name, _, role = suspect.member.partition(".")
    what = f"a setter for the property `{name}`" if role else f"the member `{name}`"
    # the failure's own record of the test's failing line: a name rule would miss a project's
    # own python_files (rope's `*test.py`)
    path, line = failure.test_path, failure.test_line
    used = f"\n\nThe test's line: `{_line_of(path, line)}`" if path and line else ""
    sections = [
        f"The class `{suspect.qualname}` in {rel} lacks {what}: it {suspect.reason}, which makes "
        f"{_what_failed(failure, root)} fail. Reply with only the new `def {name}` (decorated "
        f"`@{name}.setter` for a setter) in one ```python block.{used}",
        f"## Class `{suspect.qualname}` ({rel}, lines {suspect.start_line}-{suspect.end_line})\n"
        + _fence(cls),
        _test_section(failure, root),
        _error_section(failure, root, lines, suspect),
        _history_section(history),
    ]
    masks: dict[str, str] = {}
    user = mask_secrets("\n\n".join(s for s in sections if s), masks, known_secrets(root))
    return Prompt(system=MEMBER_SYSTEM, user=user + "\n", masks=masks)
