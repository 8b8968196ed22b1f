"""`cannot import name 'x' from 'pkg.mod' (/w/pkg/mod.py)`: the module that lacks the name; and
`No module named 'x'` for an x that is not the workspace's: a dependency the test interpreter lacks;
`module 'pkg.mod' has no attribute 'x'`: the def of that module Python's traceback would suggest
("Did you mean: ...?", 3.10+), a def renamed or misspelt that the test never reached.

The normal state of a test written first: it imports what does not exist yet. The failure points
at that module (line 1), the importing line stays the failing line, and no function holds the
bug, so the suspect is the module, with the reason and without a heal action.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from heal_ls.locate.index import FunctionNode, ModuleIndex
from heal_ls.models import Failure, Suspect
from heal_ls.pysource.paths import is_test_file, is_workspace_file, relative_path
from heal_ls.pysource.source import SourceError, read_source, split_lines

# Python's own words (3.8+); "partially initialized module" (a circular import) is not a name
# the module lacks, so it does not match.
_MISSING = re.compile(
    r"^cannot import name '(?P<name>[^']+)' from '(?P<module>[^']+)' \((?P<path>[^()]+)\)"
)
_NO_MODULE = re.compile(r"^No module named '(?P<module>[^']+)'")
_NO_ATTRIBUTE = re.compile(r"^module '(?P<module>[\w.]+)' has no attribute '(?P<name>\w+)'")
_SOURCE_DIRS = ("", "src")  # where a workspace's top-level packages sit
MODULE = "<module>"  # the qualname of a suspect that is a whole module, as frames name it


def missing_name(failure: Failure, root: str, overlay: dict[str, str]):
    """(suspect, reason) when the failure is a name a workspace module lacks, else None."""
    found = _MISSING.match(failure.message.strip()) if failure.exc_type == "ImportError" else None
    if found is None:
        return None
    path = found["path"]
    if not os.path.isfile(path) or not is_workspace_file(path, root):
        return None
    name, module, rel = found["name"], found["module"], relative_path(path, root)
    frames = [f for f in failure.frames if is_workspace_file(f.path, root)]
    importer = next((f for f in reversed(frames) if f.path != path), None)
    where = f"{relative_path(importer.path, root)}:{importer.line}" if importer else "a test"
    reason = (
        f"{where} imports {name} from {module}, which {rel} does not define:"
        " write it there first (heal-ls heals functions that exist)"
    )
    if is_test_file(path, root):
        reason = f"{where} imports {name} from {module}, which {rel} does not define"
    end_line, end_col = _end(overlay[path] if path in overlay else _read(path))
    suspect = Suspect(
        path=path,
        qualname=MODULE,
        start_line=1,
        start_col=0,
        end_line=end_line,
        end_col=end_col,
        reason=f"lacks the name {name} that {where} imports",
        def_line=1,
        focus_line=1,
    )
    return suspect, reason


def _read(path: str) -> str:
    try:
        return read_source(path)
    except (OSError, SourceError):
        return ""


def _end(text: str) -> tuple[int, int]:
    lines = split_lines(text)
    if len(lines) > 1 and not lines[-1]:  # the break after the last line starts no line
        lines.pop()
    return len(lines), len(lines[-1])


def missing_dependency(failure: Failure, root: str) -> str | None:
    """A hint when the failure is an import of a module the workspace does not hold: most often
    the tests ran in an interpreter without the project's dependencies (heal-ls's own, say)."""
    found = _NO_MODULE.match(failure.message.strip())
    if failure.exc_type != "ModuleNotFoundError" or found is None:
        return None
    top = found["module"].split(".")[0]
    if any(
        os.path.exists(os.path.join(root, base, top + ext))
        for base in _SOURCE_DIRS
        for ext in ("", ".py")
    ):
        return None  # a workspace module: a wrong import path, not a missing dependency
    return (
        f"{top} is not installed in the interpreter that ran the tests: if your project has its"
        " own environment, point heal-ls at its Python (--python PATH; in the editor heal.python)"
    )


def suggested_defs(
    failure: Failure, root: str, index_of: Callable[[str], ModuleIndex | None]
) -> tuple[str, str, list[FunctionNode]]:
    """(the missing name, the module's path, its module-level defs nearest to the name) when the
    failure is a workspace module lacking an attribute: the test called a def by a name it does
    not have (renamed on one side only, misspelt), so the def never ran and no recording lists
    it. Nearest as Python's own suggestion: fewest edits, within a third of the name's length;
    a class nearer, or nothing near: []."""
    found = (
        _NO_ATTRIBUTE.match(failure.message.strip())
        if failure.exc_type == "AttributeError"
        else None
    )
    if found is None:
        return "", "", []
    name, parts = found["name"], found["module"].split(".")
    for base in _SOURCE_DIRS:
        for path in (
            os.path.join(root, base, *parts) + ".py",
            os.path.join(root, base, *parts, "__init__.py"),
        ):
            index = index_of(path) if os.path.isfile(path) else None
            if index is not None:
                return name, path, _nearest(name, index)
    return name, "", []


def _nearest(name: str, index: ModuleIndex) -> list[FunctionNode]:
    top = [f for f in index.functions if f.qualname == f.name]
    classes = [c.name for c in index.classes if "." not in c.qualname]
    best = nearest_names(name, {f.name for f in top} | set(classes))
    return [f for f in top if f.name in best]


def nearest_names(name: str, names: set[str]) -> set[str]:
    """The `names` Python's traceback would suggest for `name` ("Did you mean: ...?"): those
    fewest edits away, within a third of its length; empty when none is that near."""
    limit = (len(name) + 3) // 3
    distances = {n: _edits(name, n) for n in names}
    best = min((d for d in distances.values() if d <= limit), default=None)
    return {n for n, d in distances.items() if d == best}


def _edits(a: str, b: str) -> int:
    """Levenshtein distance: insertions, deletions and substitutions, one each."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]
