"""Writing a verified fix to disk: atomic, same encoding and mode, never over uncommitted work;
then the guards the verification budget cut run on it (`after_apply`)."""

from __future__ import annotations

import os
import subprocess
import tempfile

from heal_ls.heal.after_apply import AfterApply, run_cut_guards
from heal_ls.heal.config import HealConfig
from heal_ls.models import HealResult
from heal_ls.pysource.source import encode_source


def has_uncommitted_changes(path: str) -> bool:
    """True when the file (or, for a symlink, its target) differs from git's HEAD or is
    untracked (False outside a work tree)."""
    real = os.path.realpath(path)
    return _git_dirty(path) or (real != os.path.abspath(path) and _git_dirty(real))


def _git_dirty(path: str) -> bool:
    folder = os.path.dirname(path) or "."
    try:
        out = subprocess.run(
            ["git", "-C", folder, "status", "--porcelain", "--", os.path.basename(path)],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    if out.returncode != 0:
        return False  # not a git work tree
    return bool(out.stdout.strip())


def write_atomic(path: str, text: str) -> None:
    """Replace the file's content in one rename, keeping its encoding and permission bits.
    A symlinked module is written through the link: the target changes, the link stays."""
    path = os.path.realpath(path)
    with open(path, "rb") as handle:
        original = handle.read()
    data = encode_source(text, original)
    mode = os.stat(path).st_mode & 0o7777
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".heal-", suffix=".py.tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


async def after_apply(root: str, result: HealResult, config: HealConfig, live) -> AfterApply | None:
    """The guards the verification budget cut, run on the written fix (heal/after_apply.py)."""
    if not result.guards_cut:
        return None
    live.step(f"after the apply: running the {len(result.guards_cut)} guards the budget cut")
    return await run_cut_guards(root, result.guards_cut, config.run_options())
