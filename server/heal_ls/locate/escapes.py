"""Two texts that differ only in how characters are escaped, and the defs that escape them.

`assert '/?v=1+2' == '/?v=1%2B2'`: the check's two texts are one text, percent-encoded two ways
(`+` kept, `%2B` escaped). Which characters get escaped is decided where the stdlib's transform
is called (`urlencode(items, safe="!$'()*+,/:;?@")`): that def chose the shape, the defs that
only carried the string on did not. Of the defs the failing test ran, those calling such a
transform come first.
"""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, unquote_plus

from heal_ls.pysource.parse import Def, name_of


@dataclass(frozen=True)
class Escaping:
    """One way of escaping text: how to undo it, and the stdlib calls that do it."""

    name: str  # in the reason: "percent-escapes"
    decoders: tuple[Callable[[str], str], ...]
    calls: frozenset[str]  # the transforms' names
    modules: frozenset[str]  # where they are imported from (a name's last part)


PERCENT = Escaping(
    "percent-escapes",
    (unquote, unquote_plus),
    frozenset(
        {"quote", "quote_plus", "quote_from_bytes", "unquote", "unquote_plus", "urlencode"}
        | {"unquote_to_bytes"}
    ),
    frozenset({"parse", "urllib"}),  # urllib.parse, six.moves.urllib.parse, Python 2's urllib
)
HTML = Escaping(
    "HTML entities",
    (html.unescape,),
    frozenset({"escape", "unescape", "quoteattr"}),
    frozenset({"html", "saxutils"}),
)
ESCAPINGS = (PERCENT, HTML)
_CHANGED = re.compile(r"^\s*([-+]) (.*)$")  # a diff's line (pytest indents its diff)


def compared_texts(message: str) -> tuple[str, str] | None:
    """The two texts a failed equality check shows: the changed lines of its diff (pytest's
    and unittest's `- ` and `+ ` lines, not pytest's `+  where`), else the two sides of
    `assert 'a' == 'b'` or unittest's `'a' != 'b'` (pytest cuts long ones short: `'ab...'`)."""
    changed: dict[str, list[str]] = {"-": [], "+": []}
    for line in message.splitlines()[1:]:
        found = _CHANGED.match(line)
        if found and not found[2].startswith(" where "):
            changed[found[1]].append(found[2])
    if changed["-"] and changed["+"]:
        return "\n".join(changed["-"]), "\n".join(changed["+"])
    first = message.strip().splitlines()[0] if message.strip() else ""
    first = first.removeprefix("assert ")
    for operator in (" == ", " != "):
        at = first.find(operator)
        while at >= 0:
            sides = _literal(first[:at]), _literal(first[at + len(operator) :])
            if isinstance(sides[0], str) and isinstance(sides[1], str):
                return sides[0], sides[1]
            at = first.find(operator, at + 1)
    return None


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def escaped_alike(message: str) -> Escaping | None:
    """The escaping the two compared texts differ in, and nothing else: decoded, they are one
    text (`a%20/b`, `a%20%2Fb`), escaped with a different choice of characters. Not a text
    escaped once more than the other (`&amp;amp;`, `&amp;`): a level of escaping too many or
    too few is added or missed anywhere on the way, not where the characters are chosen."""
    texts = compared_texts(message)
    if texts is None or texts[0] == texts[1]:
        return None
    a, b = texts
    for escaping in ESCAPINGS:
        if any(decode(a) == decode(b) for decode in escaping.decoders):
            return escaping
    return None


def escapes_with(tree: ast.Module, found: Def, escaping: Escaping) -> list[str]:
    """The transforms of `escaping` that the def `found` uses: a name imported from the
    stdlib's module (`from urllib.parse import quote`) or taken off the module
    (`urllib.parse.quote_plus`, `sixurl.quote` after `sixurl = urllib.parse`). Not the same
    name off anything else: `shlex.quote`, `re.escape`, a method of ours named `quote`."""
    imported = set()
    modules = set(escaping.modules)  # and the names they are bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and _of(node.module, escaping):
            imported |= {a.asname or a.name for a in node.names if a.name in escaping.calls}
        elif isinstance(node, ast.Import):
            modules |= {a.asname for a in node.names if a.asname and _of(a.name, escaping)}
    for node in ast.walk(found):
        if isinstance(node, ast.Assign) and _of(name_of(node.value), escaping):
            modules |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    names = {n.id for n in ast.walk(found) if isinstance(n, ast.Name) and n.id in imported}
    taken = {
        n.attr
        for n in ast.walk(found)
        if isinstance(n, ast.Attribute) and n.attr in escaping.calls
        if name_of(n.value) in modules
    }
    return sorted(names | taken)


def _of(module: str | None, escaping: Escaping) -> bool:
    """Whether `module` (a dotted name) is one of the modules holding the transforms."""
    return module is not None and module.rsplit(".", 1)[-1] in escaping.modules
