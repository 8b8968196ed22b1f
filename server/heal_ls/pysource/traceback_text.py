"""Parse Python traceback text (scripts, pytest's stderr) into exceptions with frames.

Handles chained exceptions (cause / context), SyntaxError blocks, `[Previous line repeated N
more times]`, exception groups (`+ Exception Group Traceback`, `| `-prefixed lines), frames in
`<string>` or site-packages, and faulthandler dumps (for hangs and crashes). On the bottom floor:
testing reads a script's or a CI log's failure with it, locate the tracebacks the code logged.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from heal_ls.models import Failure, Frame

FRAME = re.compile(r'^  File "(?P<path>.+)", line (?P<line>\d+)(?:, in (?P<func>.+))?$')
FAULT_FRAME = re.compile(r'^\s+File "(?P<path>.+)", line (?P<line>\d+) in (?P<func>.+)$')
EXC_LINE = re.compile(r"^(?P<type>[A-Za-z_][\w.]*)(?::(?: (?P<msg>.*))?)?$")
REPEATED = re.compile(r"^\s*\[Previous line repeated (\d+) more times?\]")
GROUP_LINE = re.compile(r"^(?P<indent> *)(?P<mark>[|+])(?P<rest>.*)$")
GROUP_MESSAGE = re.compile(r"\(\d+ sub-exceptions?\)$")
HEADERS = (
    "Traceback (most recent call last):",
    "Exception Group Traceback (most recent call last):",
)
CHAINS = {
    "The above exception was the direct cause of the following exception:": "cause",
    "During handling of the above exception, another exception occurred:": "context",
}


@dataclass
class ParsedException:
    exc_type: str  # as printed, e.g. "KeyError" or "mypkg.errors.AppError"
    message: str
    frames: list[Frame] = field(default_factory=list)
    # How the exception printed just before this one relates to it: it was this one's
    # __cause__ ("cause") or __context__ ("context"); None for the first or a group member.
    chained_from: str | None = None
    depth: int = 0  # nesting inside exception groups (0 = top level)
    is_group: bool = False
    repeats: int = 0  # frames elided by "[Previous line repeated N more times]"

    @property
    def short_type(self) -> str:
        return self.exc_type.rsplit(".", 1)[-1]


def _logical_lines(text: str) -> Iterator[tuple[int, str | None]]:
    """Yield (depth, content) with exception-group margins ('  | ', '  +-+---') removed."""
    in_group = False
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        match = GROUP_LINE.match(line)
        if match and (in_group or match["rest"].startswith(" Exception Group Traceback")):
            in_group = True
            depth = max(0, len(match["indent"]) // 2 - 1)
            rest = match["rest"]
            if match["mark"] == "+" and not rest.startswith(" Exception Group"):
                yield depth, None  # separator: the next sub-exception starts here
                continue
            yield depth, rest[1:] if rest.startswith(" ") else rest
            continue
        in_group = False
        yield 0, line


class _Parser:
    def __init__(self) -> None:
        self.found: list[ParsedException] = []
        self.frames: list[Frame] = []
        self.repeats = 0
        self.chain: str | None = None
        self.is_group = False
        self.current: ParsedException | None = None  # still collecting message lines
        self.in_block = False  # after a header, separator or frame: an exception line may follow

    def feed(self, depth: int, content: str | None) -> None:
        if content is None or content.strip() in HEADERS:
            self._start_block(content)
            return
        if content.strip() in CHAINS:
            self.current, self.chain = None, CHAINS[content.strip()]
            self._start_block(None)
            return
        frame = FRAME.match(content)
        if frame:
            self.current = None
            func = frame["func"] or "<module>"  # a SyntaxError's own location has no function
            self.frames.append(Frame(frame["path"], int(frame["line"]), func))
            self.in_block = True
            return
        repeated = REPEATED.match(content)
        if repeated:
            self.repeats += int(repeated[1])
            return
        if content.startswith(" ") or not content.strip():
            if not content.strip():
                self.current = None
            return
        self._exception_line(depth, content)

    def _start_block(self, header: str | None) -> None:
        self.current, self.frames, self.repeats, self.in_block = None, [], 0, True
        self.is_group = bool(header and header.strip().startswith("Exception Group"))

    def _exception_line(self, depth: int, content: str) -> None:
        if self.current is not None:  # a multi-line message or a note
            self.current.message += "\n" + content
            return
        match = EXC_LINE.match(content)
        if not match or not self.in_block:
            return  # ordinary output, not part of a traceback
        exc = ParsedException(match["type"], match["msg"] or "", self.frames, self.chain, depth)
        exc.is_group = self.is_group or bool(GROUP_MESSAGE.search(exc.message))
        exc.repeats = self.repeats
        self.found.append(exc)
        self.current, self.chain, self.frames, self.is_group = exc, None, [], False
        self.in_block = False


def parse_traceback(text: str) -> list[ParsedException]:
    """Every exception in the text, in printed order (a chain's root cause first)."""
    parser = _Parser()
    for depth, content in _logical_lines(text):
        parser.feed(depth, content)
    return parser.found


def pick_exception(found: list[ParsedException]) -> tuple[ParsedException, list[Frame]] | None:
    """The exception that ended the program, and its frames (a group's first leaf, if a group)."""
    top = [i for i, exc in enumerate(found) if exc.depth == 0]
    if not top:
        return None
    index = top[-1]
    chosen, frames = found[index], list(found[index].frames)
    for exc in found[index + 1 :]:
        if not exc.is_group:  # first leaf inside the group, depth-first
            return exc, frames + exc.frames
        frames += exc.frames
    return chosen, frames


def failure_from_text(text: str, root: str) -> Failure | None:
    """The Failure to report for a traceback in `text` (None if there is none)."""
    picked = pick_exception(parse_traceback(text))
    if picked is None:
        return None
    exc, frames = picked
    for frame in frames:
        frame.path = _absolute(frame.path, root)
    return Failure(id="", exc_type=exc.short_type, message=exc.message, frames=frames)


PYTEST_FRAME = re.compile(r"^(?P<path>[^\s].*?):(?P<line>\d+): in (?P<func>\S+)$")
PYTEST_ERROR = re.compile(r"^E\s+(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<msg>.*))?$")


def failure_from_pytest_text(text: str, root: str) -> Failure | None:
    """pytest's short traceback style (`path:line: in func` ... `E   Type: message`)."""
    frames: list[Frame] = []
    for line in text.splitlines():
        line = line.rstrip("\r")
        frame = PYTEST_FRAME.match(line)
        if frame:
            path = _absolute(frame["path"], root)
            frames.append(Frame(path, int(frame["line"]), frame["func"]))
        error = PYTEST_ERROR.match(line)
        if error and frames:
            name = error["type"].rsplit(".", 1)[-1]
            return Failure(id="", exc_type=name, message=error["msg"] or "", frames=frames)
    return None


def _absolute(path: str, root: str) -> str:
    if path.startswith("<") or os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(root, path))


def parse_faulthandler(text: str) -> list[Frame]:
    """Frames (innermost last) of the most useful thread in a faulthandler dump."""
    blocks: list[tuple[bool, list[Frame]]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.endswith("(most recent call first):") and "hread" in stripped:
            blocks.append((stripped.startswith("Current thread"), []))
        elif blocks and (match := FAULT_FRAME.match(line)):
            blocks[-1][1].append(Frame(match["path"], int(match["line"]), match["func"]))
    if not blocks:
        return []
    current = [frames for is_current, frames in blocks if is_current]
    frames = current[-1] if current else blocks[-1][1]  # the main thread is dumped last
    return frames[::-1]
