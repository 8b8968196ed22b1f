"""The Markdown of a heal diagnostic's hover: the failure's frames with their locals, and the
last commits that changed the suspect function. Pure text, no LSP, no I/O.

Frames are the workspace's (the test and the code it ran, not pytest's or a library's), the
innermost MAX_FRAMES of them, innermost last, the suspect's marked; each with up to MAX_LOCALS
locals the run captured (the plugin keeps a bounded repr of the innermost workspace frames'),
each cut to VALUE_CHARS.
"""

from __future__ import annotations

from collections.abc import Sequence

from heal_ls.locate.commits import Commit
from heal_ls.models import Failure, Frame, Suspect
from heal_ls.pysource.paths import is_workspace_file, relative_path

MAX_FRAMES = 6
MAX_LOCALS = 6
VALUE_CHARS = 60


def hover_markdown(
    failure: Failure,
    suspect: Suspect | None,
    root: str,
    commits: Sequence[Commit] | None,
    label: str,
) -> str:
    parts = [f"**heal** · `{label}` failed: `{_code(failure.exc_type)}`"]
    frames = [f for f in failure.frames if is_workspace_file(f.path, root)]
    if frames:
        parts.append(_frames(frames, suspect, root))
    if suspect is not None and commits is not None:
        parts.append(_commits(suspect, commits))
    return "\n\n".join(parts)


def _frames(frames: list[Frame], suspect: Suspect | None, root: str) -> str:
    shown = frames[-MAX_FRAMES:]
    lines = ["**Frames** (innermost last)"]
    if len(frames) > len(shown):
        lines.append(f"- … {len(frames) - len(shown)} outer frames")
    for frame in shown:
        where = f"{relative_path(frame.path, root)}:{frame.line}"
        mark = " ← suspect" if _in(frame, suspect) else ""
        lines.append(f"- `{_code(frame.function)}` at `{_code(where)}`{mark}")
        items = [(k, v) for k, v in frame.locals.items() if k != "..."]
        for name, value in items[:MAX_LOCALS]:
            lines.append(f"  - `{_code(name)} = {_code(_cut(value))}`")
        if len(frame.locals) > MAX_LOCALS:
            lines.append(f"  - … {len(frame.locals) - MAX_LOCALS} more")
    return "\n".join(lines)


def _commits(suspect: Suspect, commits: Sequence[Commit]) -> str:
    title = f"**Last commits changing `{_code(suspect.qualname)}`**"
    if not commits:
        return f"{title}\n- not committed yet"
    rows = [f"- `{c.sha}` {c.date} {_text(c.author)}: {_text(c.subject)}" for c in commits]
    return "\n".join([title, *rows])


def _in(frame: Frame, suspect: Suspect | None) -> bool:
    if suspect is None or frame.path != suspect.path:
        return False
    return suspect.start_line <= frame.line <= suspect.end_line


def _cut(value: str) -> str:
    value = " ".join(value.split())
    return value if len(value) <= VALUE_CHARS else value[: VALUE_CHARS - 1] + "…"


def _code(text: str) -> str:
    """Safe inside a one-backtick code span."""
    return text.replace("`", "'").replace("\n", " ")


def _text(text: str) -> str:
    """Plain text that Markdown shows as written (a commit subject, an author)."""
    for char in "\\`*_[]<>#|":
        text = text.replace(char, "\\" + char)
    return text
