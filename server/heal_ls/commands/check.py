"""`heal-ls check`: run the tests (or a script) and show each failure's heal target, like a linter.

    shop/inventory.py:13:9: tests/test_inventory.py::test_remove_all failed: KeyError: 'pear'
        -> heal target Inventory.remove

PATH is a project folder, a test file (`tests/test_x.py` or `tests/test_x.py::test_y`: its tests
run from the project root above it) or any other .py file (run as a script). Several PATHs of
one project run together, like pytest's. On a terminal a live bar shows the run (live.py).
Exit 0 when nothing fails, 1 when something does, 2 on usage or internal errors (one line).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys

from heal_ls.pysource.paths import defines_tests, is_test_file
from heal_ls.testing.prestart import PreStart, interpreter

# typing and dataclasses load after pytest's launcher is spawned (see `run`; commands/masked.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from heal_ls.testing.options import RunOptions

ROOT_MARKERS = ("pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", "setup.py", ".git")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="*", default=["."], help="project, test files or script")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--test", action="append", metavar="NODEID", help="run only this test")
    what.add_argument("--script", metavar="FILE", help="run `python FILE` instead of pytest")
    what.add_argument(
        "--last-failed", action="store_true", help="run the tests pytest's last run failed"
    )
    what.add_argument(
        "--from",
        dest="from_report",
        metavar="REPORT",
        help="read the failures of a JUnit XML report (e.g. from CI) instead of running tests",
    )
    parser.add_argument(
        "--flaky-runs",
        type=int,
        default=0,
        metavar="N",
        help="re-run each failing test N more times; a pass marks it flaky",
    )
    parser.add_argument(
        "--python", type=interpreter, metavar="PY", help="interpreter (default: this one)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--short", action="store_true", help="one line per failure, no traceback")
    parser.add_argument("--test-timeout", type=float, default=10.0, metavar="S")
    parser.add_argument("--run-timeout", type=float, default=300.0, metavar="S")
    add_pytest_args(parser)


def pytest_args(text: str) -> tuple[str, ...]:
    """--pytest-args "-k fast -x": extra pytest arguments, split like a shell would."""
    try:
        return tuple(shlex.split(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a pytest argument list: {exc}") from None


def add_pytest_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--pytest-args",
        type=pytest_args,
        default=(),
        metavar="ARGS",
        help='extra pytest arguments, one string (e.g. "-k fast -p no:randomly")',
    )


def options_from(args: argparse.Namespace) -> RunOptions:
    """How a command's runs go, from its --python, --pytest-args and timeout flags: the flags
    read by the one mapping (HealConfig.from_flags, as `fix` and `bench` read theirs), and the
    whole run's --run-timeout."""
    # lazy: heal-ls's config (with the options, the wire format and the model providers' names)
    # loads while `check`'s launcher starts Python and pytest (testing/prestart.py)
    from heal_ls.heal.config import HealConfig

    return HealConfig.from_flags(args).run_options(run_timeout=args.run_timeout)


# check masks its own output (cli.py masks the other commands'): its launcher is spawned first
MASKS_ITS_OUTPUT = True


def run(args: argparse.Namespace) -> int:
    """pytest's launcher starts as soon as the target is known (testing/prestart.py; the run,
    once built, is sent to it), before the output's masking loads its patterns
    (commands/masked.py: ~3 ms of CPU, 6 modules); nothing is printed before the masking is on,
    and a usage problem found then kills the launcher unused."""
    target: tuple[str, list[str] | None, str | None] | None = None
    try:
        target, refused = resolve_targets(args.path, args.test, args.script), None
    except ValueError as exc:
        refused = str(exc)
    early = None
    if target is not None and not (target[2] or args.from_report):
        early = PreStart.spawn(args.python or sys.executable, target[0])
    try:
        # lazy: the masking's patterns load once the launcher is spawned (see above)
        from heal_ls.commands.masked import masked_output

        with masked_output(args.path):
            if target is None:
                print(f"heal-ls check: {refused}", file=sys.stderr)
                return 2
            root, tests, script = target
            problem = _usage_problem(root, script, args)
            if problem:
                print(f"heal-ls check: {problem}", file=sys.stderr)
                return 2
            return _run(args, (root, tests, script), early)
    finally:
        if early is not None:
            early.close()


def _run(args: argparse.Namespace, target, early: PreStart | None) -> int:
    """`check` once its target is known, `early` the launcher waiting for its first run."""
    # lazy: the rest of what the first run needs loads while the launcher starts (prestart.py)
    from dataclasses import replace

    # lazy: the same
    from heal_ls.testing.focus import Focus
    from heal_ls.testing.head_start import HeadStart
    from heal_ls.testing.lastfailed import read_lastfailed

    root, tests, script = target
    if args.last_failed:
        tests = read_lastfailed(root) or None
        if tests is None:  # as `pytest --lf` does (--lfnf=all): never a pass without a run
            note = "no failed tests in pytest's last run: running all tests, as pytest --lf does"
            print(f"heal-ls check: {note}", file=sys.stderr)
    # the user's own run, as plain pytest: it keeps pytest's lastfailed (`--last-failed` reads it)
    options = replace(options_from(args), user_cache=True)
    head = None
    vouched: tuple[str, ...] = ()  # tests of the file the impact map stands for (focus.py)
    if not (script or args.from_report):  # diagnose's first run, spawned now
        evidence = options.for_evidence()
        focus = Focus(tuple(tests)).asking_the_map(root, evidence) if tests else Focus(())
        vouched = focus.vouched
        head = HeadStart.spawn(root, focus.first_options(evidence), focus.first_run(), early)
    try:
        # lazy: the rest of check (asyncio, the runner, the ranking, the report: ~0.2 s of CPU)
        # is imported while the head start's tests run (testing/head_start.py)
        from heal_ls.commands.check_run import finish

        return finish(args, (root, tests, script), options, head, vouched)
    finally:
        if head is not None:
            head.close()


def resolve_targets(paths: list[str], tests, script) -> tuple[str, list[str] | None, str | None]:
    """(root, tests, script) for one PATH, or for several of one project (run together)."""
    if len(paths) == 1:
        return resolve_target(paths[0], tests, script)
    if tests or script:
        raise ValueError("several paths cannot be combined with --test or --script")
    roots, nodeids, everything = set(), [], False
    for path in paths:
        if os.path.isdir(path):  # a folder: its part of the project (the root: all of it)
            folder = os.path.abspath(path)
            root = project_root(folder)
            everything |= root == folder
            nodeids.append(os.path.relpath(folder, root).replace(os.sep, "/"))
        else:
            root, found, script_path = resolve_target(path, None, None)
            if script_path:
                raise ValueError(f"a script runs alone: {path}")
            nodeids += found or []
        roots.add(root)
    if len(roots) > 1:
        raise ValueError(f"the paths belong to different projects: {', '.join(sorted(roots))}")
    return roots.pop(), None if everything else nodeids, None


def resolve_target(path: str, tests, script) -> tuple[str, list[str] | None, str | None]:
    """(root, tests, script) from PATH: a file or a folder inside a project (a marker above it)
    picks that project's root and runs its part, as `pytest tests` does; a folder with a marker
    of its own, or with none above it, is the root."""
    file_part, sep, test_name = path.partition("::")
    if not os.path.isfile(file_part):
        folder = os.path.abspath(path)
        root, part = project_part(folder) if os.path.isdir(folder) else (folder, None)
        if part is not None and not (tests or script):  # `check tests`: the project's tests/
            return root, [part], None
        return root, tests, _script_path(root, script) if script else None
    file_path = os.path.abspath(file_part)
    root = project_root(os.path.dirname(file_path))
    if tests or script:  # explicit choices win; the file only told us where the project is
        return root, tests, _script_path(root, script) if script else None
    if is_test_file(file_path, root) or defines_tests(file_path):
        nodeid = os.path.relpath(file_path, root).replace(os.sep, "/") + sep + test_name
        return root, [nodeid], None
    return root, None, file_path


def project_root(folder: str) -> str:
    """The nearest folder up from `folder` holding a project marker (pytest.ini, .git...); with
    none, the current folder when `folder` is inside it (where `python -m pytest tests/x.py`
    would import the project from; never /), else `folder` itself."""
    found = enclosing_project(folder)
    if found is not None:
        return found
    here = os.getcwd()
    inside = folder.startswith(os.path.join(here, "")) and os.path.dirname(here) != here
    return here if inside else folder


def project_part(folder: str) -> tuple[str, str | None]:
    """(root, part): a folder inside a project (a marker above it) is that project's part to
    run, as `pytest tests` takes it (`check tests`, `fix tests`); a folder with a marker of its
    own, or with none above it, is the root (part None)."""
    root = enclosing_project(folder) or folder
    return root, os.path.relpath(folder, root).replace(os.sep, "/") if root != folder else None


def enclosing_project(folder: str) -> str | None:
    """The nearest folder up from `folder` (itself included) holding a project marker."""
    current = folder
    while True:
        if any(os.path.exists(os.path.join(current, m)) for m in ROOT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _usage_problem(root: str, script: str | None, args: argparse.Namespace) -> str | None:
    if not os.path.isdir(root):
        return f"not a directory or a .py file: {' '.join(args.path)}"
    if args.python and not shutil.which(args.python):
        return f"not an executable interpreter: {args.python}"
    if script and not os.path.isfile(script):
        return f"no such script: {args.script}"
    if args.test_timeout <= 0 or args.run_timeout <= 0:
        return "timeouts must be positive"
    return None


def _script_path(root: str, script: str) -> str:
    """A script path as typed: relative to the current folder if it exists there, else to root."""
    if os.path.isabs(script) or os.path.exists(script):
        return os.path.abspath(script)
    return os.path.join(root, script)
