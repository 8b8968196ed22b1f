"""Which tests of some test files the impact map can stand for without running them.

`heal-ls check --test F::t` runs the whole file F for contrast (testing/focus.py). On a re-check
the map often holds F's other tests as they would run now: the code they ran did not change.
The map vouches for a test of F when F's test set is known as F is now (`files.complete`), and
the test is fresh (none of the functions it ran changed since: `stale=0`), traced, and its
blocks are kept and still fit its functions' lines (`blocks=1`): then its last outcome, the
functions and the blocks it ran are what running it again would report. Anything else about it
(unknown, stale, untraced, the test file changed, a conftest.py added on its path) and it runs.
Asked before check's first run is spawned (commands/check.py), so it loads the map's schema and
invalidation only, not its store.

    vouched = vouched_tests(root, python, ["tests/test_x.py"], focus.wants)  # [] : none
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from heal_ls.impact.where import interpreter_path, map_path

if TYPE_CHECKING:
    from sqlite3 import Connection

# a test the map vouches for (the test table as `t`): fresh, traced, its blocks kept
VOUCHED = "t.stale=0 AND t.traced=1 AND t.blocks=1"


def vouched_tests(
    root: str, python: str | None, files: Sequence[str], wants: Callable[[str], bool]
) -> list[str]:
    """The tests of `files` (relative test files) the map vouches for, but those `wants` says
    run anyway; [] when there is no map or a file's test set is unknown (it runs whole)."""
    root = os.path.abspath(root)
    path = map_path(root, python)
    if not path.is_file():
        return []
    # lazy: sqlite3 and the map's schema only when there is a map (a first check spawns its
    # run without them: ~10 ms of imports before the spawn)
    import sqlite3  # noqa: I001 - one run of lazy imports, the reason above
    from heal_ls.impact.invalidate import sync
    from heal_ls.impact.schema import connect

    try:
        db = connect(path, root, interpreter_path(python))
    except (sqlite3.Error, OSError):
        return []
    try:
        sync(db, root)  # what an edit touched is stale from now on
        return _vouched(db, root, list(files), wants)
    except (sqlite3.Error, OSError):
        return []
    finally:
        db.close()


def _vouched(
    db: Connection, root: str, files: list[str], wants: Callable[[str], bool]
) -> list[str]:
    if any(_new_conftest(db, root, rel) for rel in files):
        return []
    placeholders = ",".join("?" * len(files))
    (known,) = db.execute(
        f"SELECT count(*) FROM files WHERE complete=1 AND path IN ({placeholders})", files
    ).fetchone()
    if known != len(set(files)):
        return []
    rows = db.execute(
        f"SELECT t.nodeid, {VOUCHED} FROM tests t WHERE t.file IN ({placeholders}) ORDER BY t.id",
        files,
    )
    return [nodeid for nodeid, vouched in rows if vouched and not wants(nodeid)]


def _new_conftest(db: Connection, root: str, rel: str) -> bool:
    """A conftest.py on the test file's way up to the root that the map does not hold: added
    since the map's tests ran, its fixtures and hooks may change them (the run records it)."""
    folder = os.path.dirname(rel)
    while True:
        conftest = f"{folder}/conftest.py" if folder else "conftest.py"
        if os.path.isfile(os.path.join(root, conftest)):
            held = db.execute("SELECT 1 FROM files WHERE path=?", (conftest,)).fetchone()
            if held is None:
                return True
        if not folder:
            return False
        folder = os.path.dirname(folder)
