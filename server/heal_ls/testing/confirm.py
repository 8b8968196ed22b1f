"""The plugin-free confirmation run: a verdict that code in the candidate was not written against.

Python cannot isolate objects within one process: code under test (a candidate's function body,
or its import-time code: default arguments, decorators, class bodies) can reach anything in the
test process, through the garbage collector or `sys.modules` by computed names, including
heal-ls's reporter and pytest itself. So a verified candidate's tests (targets and guards) run
once more, sandboxed, in a fresh process (a fork of the warm runner's template, which no candidate
ever ran in, or a cold interpreter) without heal-ls's plugin (`-p heal_serve` only serves the
candidate's text: there is no reporter to reach), and heal-ls's own process reads the outcome
from pytest's exit status and pytest's own JUnit XML (testing/junit.py).

A candidate may still rewrite pytest in that process (replace `Function.runtest`, or the `obj`
of the tests after it). So the run ends with a sentinel: a test of heal-ls's that must fail,
served at the end of the first asked test's own file under a name like that test's with a fresh
suffix, and run last. The run confirms the fix only when every asked test
passed for real (not skipped, xfailed or missing), nothing else ran, the sentinel failed and the
exit status is pytest's 1 for exactly that. A candidate that makes every test pass makes the
sentinel pass too. One written against this very check (sparing unknown test names) is left to
the other layers: such code uses reflection and computed names, which the allow-list of what a
fix may add (heal/novelty.py) and the rails (heal/safety.py, heal/tampering.py) hold for review.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from heal_ls.testing.invocation import PytestInvocation, build_pytest_invocation, without_reporter
from heal_ls.testing.junit import Case, case_key, read_cases
from heal_ls.testing.options import RunOptions
from heal_ls.testing.process import run_process
from heal_ls.testing.sandbox import NotIsolated, sandboxed
from heal_ls.testing.sandbox_policy import SandboxPolicy

if TYPE_CHECKING:
    from heal_ls.testing.warm.client import WarmRunner

CONFIRMED = "confirmed by a plugin-free run"
TESTS_FAILED = 1  # pytest's exit status when tests ran and some failed (here: the sentinel)
SENTINEL_TEXT = "def {name}():\n    raise AssertionError({tag!r})\n"


@dataclass
class Confirmation:
    passed: bool
    summary: str  # CONFIRMED, or why not, in words that can go back to the model


async def confirm_run(root: str, nodeids: Sequence[str], options: RunOptions) -> Confirmation:
    """Run `nodeids` with `options.overlay` served, no heal-ls plugin, and the sentinel last (on
    the warm runner when given: a fresh fork of a process no candidate ran in, in the sandbox)."""
    asked = list(dict.fromkeys(nodeids))
    sentinel, files = _with_sentinel(root, _last_file_test(asked), options.overlay or {})
    served = replace(options, overlay=files, trace=False)
    inv = without_reporter(
        build_pytest_invocation(root, served, nodeids=[*asked, sentinel], serial=True)
    )
    try:
        timeout = max(30.0, options.test_timeout * (len(asked) + 2))
        try:
            returncode = await _run(inv, timeout, options.policy, options.warm)
        except (NotIsolated, OSError) as exc:
            return Confirmation(False, f"the plugin-free confirmation run could not run: {exc}")
        except (asyncio.TimeoutError, TimeoutError):
            return Confirmation(False, "the plugin-free confirmation run timed out")
        try:
            cases = read_cases(inv.report_path)
        except (OSError, ValueError) as exc:
            why = f"pytest wrote no readable JUnit XML ({exc}); exit status {returncode}"
            return Confirmation(False, why)
        return judge(cases, returncode, asked, sentinel.rpartition("::")[2])
    finally:
        inv.cleanup()


async def _run(
    inv: PytestInvocation, timeout: float, policy: SandboxPolicy | None, warm: WarmRunner | None
) -> int:
    """pytest's exit status, as the process that spawned or forked it saw it."""
    if warm is not None:
        returncode, _ = await warm.run(inv, timeout, sandbox=policy or False)
        return returncode
    with sandboxed(
        inv.command, inv.env, timeout, policy, root=inv.root, writable=[inv.workdir]
    ) as (cmd, env, preexec):
        done = await run_process(cmd, env=env, cwd=inv.cwd, timeout=timeout, preexec_fn=preexec)
    if done.timed_out:
        raise TimeoutError
    return done.returncode


def _last_file_test(asked: list[str]) -> str:
    """An asked test of the file that runs last: many asked tests run as their files, in the
    order they first appear (testing/invocation.py), so the sentinel goes at that file's end."""
    last_file = list(dict.fromkeys(nodeid.split("::", 1)[0] for nodeid in asked))[-1]
    return next(n for n in reversed(asked) if n.split("::", 1)[0] == last_file)


def _with_sentinel(root: str, first: str, overlay: dict[str, str]) -> tuple[str, dict[str, str]]:
    """(the sentinel's test id, the overlay serving it): a test that must fail, named after the
    asked test `first` with a fresh suffix and added at the end of that test's own file (served,
    never written), so neither its path nor its name sets it apart from the tests it follows."""
    path, _, rest = first.partition("::")
    tag = secrets.token_hex(4)
    name = f"test_{rest.split('::')[-1].split('[')[0].removeprefix('test_')}_{tag}"
    full = os.path.join(root, path)
    files = dict(overlay)
    text = files.get(full)
    if text is None:
        with open(full, encoding="utf-8") as handle:
            text = handle.read()
    files[full] = text.rstrip("\n") + "\n\n\n" + SENTINEL_TEXT.format(name=name, tag=tag)
    return f"{path}::{name}", files


def judge(cases: list[Case], returncode: int, asked: list[str], sentinel: str) -> Confirmation:
    """Every asked test passed for real, nothing else ran, the sentinel ran last and failed."""
    want = {case_key(nodeid): nodeid for nodeid in asked}
    seen = set()
    for case in (case for case in cases if case.name != sentinel):
        nodeid = want.get((case.classname, case.name))
        if nodeid is None:
            what = f"{case.classname}::{case.name}".strip(":") or "a collection error"
            return _no(f"it ran {what}, which was not asked for ({case.outcome})")
        if case.outcome != "passed":
            return _no(f"{nodeid} {case.outcome}: {case.message}".strip().rstrip(":"))
        seen.add(nodeid)
    missing = [nodeid for nodeid in asked if nodeid not in seen]
    if missing:
        return _no(f"{missing[0]} was not reported ({len(seen)} of {len(asked)} tests ran)")
    if not cases or cases[-1].name != sentinel or len(cases) != len(asked) + 1:
        return _no("heal-ls's sentinel test did not run last")
    if cases[-1].outcome != "failed":
        return _no(
            f"heal-ls's sentinel test, which must fail, {cases[-1].outcome}: something in the run "
            "decides outcomes instead of the tests"
        )
    if returncode != TESTS_FAILED:
        return _no(f"pytest's exit status was {returncode}, not {TESTS_FAILED}")
    return Confirmation(True, CONFIRMED)


def _no(why: str) -> Confirmation:
    return Confirmation(False, f"the plugin-free confirmation run disagrees: {why}")
