"""Text a failing check found wrong, and the defs whose string constants wrote it.

`'src="#harmful-link"' not found in '<div class="block-image"><img src="javascript:alert" />'`:
the text the check searched was written in part by `render_block_image`, whose constant
`'<img src="'` is in it. A renderer that wrote the wrong text is likelier the one the test is
about than another function as specific to the failing tests: like a name the test shares
(affinity.name_bonus), it breaks near ties."""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterator

from heal_ls.locate.blocks import SCOPES
from heal_ls.pysource.parse import Def

# unittest's assertIn / assertNotIn: the text searched is the last quoted value.
_FOUND = re.compile(r"^'.*' (?P<how>not found|unexpectedly found) in (?P<text>'.*')$", re.S)
SHORTEST = 4  # a constant shorter than this is in any text by chance
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# pytest's `assert not <the value>`: every element shown is one that should not be there
_SHOWN = re.compile(r"^assert not (?P<shown>[\[{(].*)$")
_QUOTED = re.compile(r"'([^'\\\n]*)'|\"([^\"\\\n]*)\"")


def checked_text(message: str) -> str:
    """The part of a failed check's `message` that shows the wrong text: the text an
    `assertIn` searched in vain, or the changed lines of a diff (pytest's and unittest's `- `
    and `+ ` lines, not pytest's `+  where` explanations). Empty when the message shows none,
    or when the check found text it did not want (`unexpectedly found`): the text around it
    was written as meant, what was inserted into it came from elsewhere."""
    found = _FOUND.match(message.strip())
    if found:
        return found["text"] if found["how"] == "not found" else ""
    lines = [line.strip() for line in message.splitlines()]
    changed = [
        line
        for line in lines
        if line.startswith(("- ", "+ ")) and not line[1:].lstrip().startswith("where ")
    ]
    return "\n".join(changed)


def written_into(found: Def, text: str) -> list[str]:
    """The def's string constants that are in `text`: markup or punctuation around words
    (`'<img src="'`, `'WWW-Authenticate'`), not a bare word, which any text may hold."""
    constants = {
        c.value.strip()
        for c in ast.walk(found)
        if isinstance(c, ast.Constant) and isinstance(c.value, str)
    }
    return sorted(c for c in constants if len(c) >= SHORTEST and not c.isalnum() and c in text)


def changed_words(message: str) -> set[str]:
    """The words of the text a failed check shows changed, at least SHORTEST long: in a diff
    (pytest's or unittest's `- `/`+ ` lines), the words the differing columns touch on either
    side (`mrow><mo>(` against `mfenced`), not the lines' unchanged text; for `assert not
    <value>`, the identifier-like strings the shown value quotes (`[('PR06', '...')]`: every
    element shown should not be there)."""
    shown = _SHOWN.match(message.strip().split("\n", 1)[0])
    if shown:
        quoted = {a or b for a, b in _QUOTED.findall(shown["shown"])}
        return {word for word in quoted if len(word) >= SHORTEST and word.isidentifier()}
    found: set[str] = set()
    for removed, added in _changed_runs(message):
        if not (removed and added):
            continue  # whole lines only added or dropped: their writer wrote as told; what
            # chose to write them (or not) is elsewhere
        matcher = difflib.SequenceMatcher(None, removed, added, autojunk=False)
        for how, start, end, added_start, added_end in matcher.get_opcodes():
            if how != "equal":
                found.update(_WORD.findall(_widened(removed, start, end)))
                found.update(_WORD.findall(_widened(added, added_start, added_end)))
    return {word for word in found if len(word) >= SHORTEST}


def _changed_runs(message: str) -> Iterator[tuple[str, str]]:
    """Each run of a diff's changed lines as (its `- ` lines, its `+ ` lines), joined: difflib's
    `?` guides and blank lines inside a run are skipped, an unchanged line ends it."""
    removed: list[str] = []
    added: list[str] = []
    for line in (raw.strip() for raw in message.splitlines()):
        if not line or line == "?" or line.startswith("? "):
            continue
        if line == "-" or line.startswith("- "):
            removed.append(line[2:])
        elif (line == "+" or line.startswith("+ ")) and not line[1:].lstrip().startswith("where "):
            added.append(line[2:])
        elif removed or added:
            yield "\n".join(removed), "\n".join(added)
            removed, added = [], []
    if removed or added:
        yield "\n".join(removed), "\n".join(added)


def _widened(text: str, start: int, end: int) -> str:
    """`text[start:end]` widened to the whole words it cuts; an empty span counts only inside a
    word (a letter inserted or dropped there changed that word)."""

    def in_word(at: int) -> bool:
        return 0 <= at < len(text) and (text[at].isalnum() or text[at] == "_")

    if start == end and not (in_word(start - 1) and in_word(start)):
        return ""
    while in_word(start - 1):
        start -= 1
    while in_word(end):
        end += 1
    return text[start:end]


def own_strings(found: Def) -> Iterator[ast.Constant]:
    """The string constants of the def's body, not of a def or class nested in it (the nested
    def's own)."""
    pending: list[ast.AST] = list(found.body)  # not its decorators or defaults: the def's
    # own line ran them once, when it was defined
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node
        elif not isinstance(node, SCOPES):
            pending.extend(ast.iter_child_nodes(node))
