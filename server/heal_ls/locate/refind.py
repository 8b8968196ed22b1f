"""A suspect found again in a text that changed since it was located: by qualname, nearest its
old place (a line number alone would point elsewhere once lines were added above it).

One rule for every part that holds a suspect while the text moves on: the editor's heal (the
buffer changed since the run), the CLI's fix of several targets (an earlier fix of the run
changed the module), and a verified fix redone on a changed buffer (`respice`).
"""

from __future__ import annotations

from dataclasses import replace

from heal_ls.locate.index import ClassNode, FunctionNode, index_source
from heal_ls.locate.ranker import suspect_for
from heal_ls.models import Suspect
from heal_ls.pysource.parse import describe_syntax_error
from heal_ls.pysource.splice import SpliceError, function_source, splice


def refind(suspect: Suspect, text: str) -> Suspect | None:
    """The def with the suspect's qualname in `text` (the one holding or nearest its old `def`
    line), or None when it is gone. Raises SyntaxError when `text` does not parse."""
    near = suspect.def_line or suspect.start_line
    index = index_source(text)
    if suspect.member:  # a class to add a member to (heal/member.py)
        named = [c for c in index.classes if c.qualname == suspect.qualname]
        near_class = min(named, key=lambda c: abs(c.def_line - near), default=None)
        return None if near_class is None else _moved(suspect, near_class)
    node = index.find(suspect.qualname, near_line=near)
    return None if node is None else _moved(suspect, node)


def respice(text: str, suspect: Suspect, before: str, new_function: str) -> str:
    """Redo a splice computed on `before` in `text`, a later version of it, if the function
    itself did not change: the def of that qualname (else of that name: a class was renamed)
    nearest its old place whose source is still the same. Raises SpliceError saying why not."""
    if text == before:
        return splice(text, suspect, new_function)
    old = function_source(before, suspect)
    try:
        functions = index_source(text).functions
    except SyntaxError as err:
        raise SpliceError(f"the document no longer parses: {describe_syntax_error(err)}") from err
    name = suspect.qualname.rsplit(".", 1)[-1]
    same = [f for f in functions if f.qualname == suspect.qualname]
    same = same or [f for f in functions if f.name == name]
    for node in sorted(same, key=lambda f: abs(f.start_line - suspect.start_line)):
        moved = _moved(suspect, node)
        if function_source(text, moved) == old:
            return splice(text, moved, new_function)
    raise SpliceError("the function changed since the fix was computed")


def _moved(suspect: Suspect, node: FunctionNode | ClassNode) -> Suspect:
    moved = suspect_for(suspect.path, node, suspect.reason, suspect.score)
    return replace(moved, member=suspect.member)
