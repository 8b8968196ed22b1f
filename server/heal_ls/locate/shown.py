"""Where a failure that no function is blamed for is shown (check's line, the editor's Error)."""

from __future__ import annotations

import os

from heal_ls.models import Failure
from heal_ls.pysource.paths import is_workspace_file


def shown_at(failure: Failure, root: str) -> tuple[str, int] | None:
    """The innermost workspace frame (a module-level crash), else the failing test's line, else
    a script's innermost frame: never a file of the stdlib or a library (a unittest
    `assertTrue` fails in unittest/case.py, `json.loads` in json/decoder.py)."""
    frames = [f for f in failure.frames if os.path.isfile(f.path)]
    ours = [f for f in frames if is_workspace_file(f.path, root)]
    if ours:
        return ours[-1].path, ours[-1].line
    if failure.test_path:
        return failure.test_path, failure.test_line or 1
    if frames:
        return frames[-1].path, frames[-1].line
    if failure.script:
        return failure.script, 1
    return None
