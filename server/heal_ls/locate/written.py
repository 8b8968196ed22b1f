"""Text a failing check found wrong, and the defs whose string constants wrote it.

`'src="#harmful-link"' not found in '<div class="block-image"><img src="javascript:alert" />'`:
the text the check searched was written in part by `render_block_image`, whose constant
`'<img src="'` is in it. A renderer that wrote the wrong text is likelier the one the test is
about than another function as specific to the failing tests: like a name the test shares
(affinity.name_bonus), it breaks near ties."""

from __future__ import annotations

import ast
import re

from heal_ls.pysource.parse import Def

# unittest's assertIn / assertNotIn: the text searched is the last quoted value.
_FOUND = re.compile(r"^'.*' (?P<how>not found|unexpectedly found) in (?P<text>'.*')$", re.S)
SHORTEST = 4  # a constant shorter than this is in any text by chance


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
