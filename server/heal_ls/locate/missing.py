"""`cannot import name 'x' from 'pkg.mod' (/w/pkg/mod.py)`: the module that lacks the name; and
`No module named 'x'` for an x that is not the workspace's: a dependency the test interpreter lacks.

The normal state of a test written first: it imports what does not exist yet. The failure points
at that module (line 1), the importing line stays the failing line, and no function holds the
bug, so the suspect is the module, with the reason and without a heal action.
"""

from __future__ import annotations

import os
import re

from heal_ls.models import Failure, Suspect
from heal_ls.pysource.paths import is_test_file, is_workspace_file, relative_path
from heal_ls.pysource.source import SourceError, read_source, split_lines

# Python's own words (3.8+); "partially initialized module" (a circular import) is not a name
# the module lacks, so it does not match.
_MISSING = re.compile(
    r"^cannot import name '(?P<name>[^']+)' from '(?P<module>[^']+)' \((?P<path>[^()]+)\)"
)
_NO_MODULE = re.compile(r"^No module named '(?P<module>[^']+)'")
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
        for base in ("", "src")
        for ext in ("", ".py")
    ):
        return None  # a workspace module: a wrong import path, not a missing dependency
    return (
        f"{top} is not installed in the interpreter that ran the tests: if your project has its"
        " own environment, point heal-ls at its Python (--python PATH; in the editor heal.python)"
    )
