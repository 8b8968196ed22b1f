"""`heal-ls bench --real`: heal-ls on the real-bug corpus (bench/corpus.py), one row per bug.

Per bug, in a fresh copy of its buggy tree (sdist + the fixing commit's tests) and with its
project's venv as the test interpreter, each step a separate process as a user runs it:

1. plain pytest on the failing tests, timed (a test that does not fail here makes the row "does
   not reproduce"), then plain pytest on their files, timed: the user's alternative to `check`,
   which runs those files once;
2. `heal-ls check --json --test <id> ...`, timed: did it run, and where does the function the
   developer fixed rank among the first failing test's suspects (top-1, top-3, listed);
3. the regression set, on the buggy tree: the test files the commit touched plus every test file
   that names a fixed function;
4. `heal-ls fix --provider local --apply --test <id> ...`: verified? then the regression set again
   on the healed tree: which tests that passed before fail now ("breaks").
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from heal_ls import payload
from heal_ls.bench.corpus import (
    CACHE,
    Bug,
    CorpusError,
    Project,
    count_tests,
    run_tests,
    test_env,
    tree,
    venv,
)
from heal_ls.bench.patches import split_files
from heal_ls.bench.repairer import correct, merged_operators
from heal_ls.bench.rows import RealRow, RealSettings, RealSummary
from heal_ls.bench.sdist import FetchError
from heal_ls.documents.check import CheckDocument
from heal_ls.documents.fix import FixDocument

T = TypeVar("T")


def empty_row(bug: Bug) -> RealRow:
    return RealRow(bug=bug.id, project=bug.project, round=bug.round)


def bench_bug(
    bug: Bug, project: Project, scratch: Path, settings: RealSettings, cache=CACHE
) -> RealRow:
    row = empty_row(bug)
    try:
        _bench_into(row, bug, project, scratch, settings, cache)
    except (CorpusError, FetchError, OSError, ValueError, subprocess.SubprocessError) as exc:
        row.note = f"error: {type(exc).__name__}: {exc}"[:200]  # one bug must not end it
    return row


def _bench_into(
    row: RealRow, bug: Bug, project: Project, scratch: Path, settings: RealSettings, cache
) -> None:
    python = venv(project, cache)
    root = tree(bug, scratch / bug.id, cache=cache)
    env = test_env(project, root)
    started = time.monotonic()
    plain = run_tests(python, project, root, bug.failing_tests, timeout=1800)
    row.pytest_seconds = round(time.monotonic() - started, 2)
    if any(plain.get(t) != "FAILED" for t in bug.failing_tests):
        row.note = "does not reproduce: a failing test did not fail under plain pytest"
        return
    row.reproduces = True
    files = list(dict.fromkeys(t.split("::", 1)[0] for t in bug.failing_tests))
    started = time.monotonic()
    run_tests(python, project, root, files, timeout=1800)
    row.file_seconds = round(time.monotonic() - started, 2)
    common = ["--python", python, "--pytest-args", shlex.join(project.pytest_args)]
    common += [f"--test={t}" for t in bug.failing_tests]
    common += ["--test-timeout", str(settings.test_timeout)]
    started = time.monotonic()
    checked = _run([*heal_ls("check"), "--json", *common, str(root)], root, env)
    row.check_seconds = round(time.monotonic() - started, 2)
    record_check(row, bug, checked)
    if settings.check_only:
        return
    regression = regression_files(bug, root)
    row.regression_tests = len(before := run_tests(python, project, root, regression))
    started = time.monotonic()
    budget = ["--local-budget", str(settings.budget_count)]
    budget += ["--local-seconds", str(settings.budget_seconds)]
    fix_cmd = [*heal_ls("fix"), "--provider", "local", "--no-cache", "--apply", "--force"]
    fixed = _run([*fix_cmd, "--json", *budget, *common, str(root)], root, env)
    row.fix_seconds = round(time.monotonic() - started, 2)
    record_fix(row, bug, fixed)
    if row.verified:
        after = run_tests(python, project, root, regression)
        row.breaks = sorted(t for t, o in before.items() if o == "PASSED" and after.get(t) != o)
        reference = tree(bug, scratch / f"{bug.id}-reference", fixed=True, cache=cache)
        on_reference = run_tests(python, project, reference, regression)
        row.correct = correct(bug.functions, root, reference, after, on_reference)


def heal_ls(command: str) -> list[str]:
    return [sys.executable, "-m", "heal_ls", command]


def _run(cmd: list[str], root: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        cmd, cwd=root, env=env, capture_output=True, text=True, timeout=1800, check=False
    )


def record_check(row: RealRow, bug: Bug, done: subprocess.CompletedProcess) -> None:
    """What `heal-ls check --json` printed, into the row: did a test fail, where the fixed
    function ranks; no document, or a malformed one, is the row's note."""
    document = read_document(CheckDocument, "check", done)
    if isinstance(document, str):
        row.note = document
        return
    suspects = first_suspects(document)
    row.check_ran = suspects is not None
    if suspects is not None:
        row.rank = rank(suspects, bug.functions)
        row.listed = row.rank is not None


def first_suspects(document: CheckDocument) -> list[tuple[str | None, str]] | None:
    """(path, qualname) of each suspect of the first failing test, by test id, in rank order
    (None: no test failed)."""
    failures = sorted((f for f in document.failures if f.test), key=lambda f: f.test or "")
    return [(s.path, s.qualname) for s in failures[0].suspects] if failures else None


def rank(suspects: Sequence[tuple[str | None, str]], functions) -> int | None:
    """1-based position of the first suspect, (path relative to the root, qualname), that is a
    fixed function (`path::qualname`) or encloses one."""
    for position, (at, name) in enumerate(suspects, 1):
        for function in functions:
            path, qualname = function.split("::", 1)
            if at == path and (name == qualname or qualname.startswith(name + ".")):
                return position
    return None


def record_fix(row: RealRow, bug: Bug, done: subprocess.CompletedProcess) -> None:
    """What `heal-ls fix --json` printed, into the row: the statuses, verified, the healed
    function, the operators that ran; no document, or a malformed one, is the row's note."""
    document = read_document(FixDocument, "fix", done)
    if isinstance(document, str):
        row.note = row.note or document
        return
    results = document.results
    statuses = [r.status for r in results]
    row.fix = ",".join(dict.fromkeys(statuses)) or "-"
    row.verified = bool(results) and all(s in ("verified", "fixed") for s in statuses)
    healed = {r.suspect for r in results if r.status == "verified" and r.suspect}
    row.same_function = bool(healed & set(bug.functions)) if healed else None
    row.operators = merged_operators(results)
    won = [kind for kind, counts in row.operators.items() if counts.won]
    row.fix_kind = ", ".join(won)


def read_document(cls: type[T], command: str, done: subprocess.CompletedProcess) -> T | str:
    """`heal-ls COMMAND --json`'s document from the child's output, or why there is none (its
    exit code and the end of its stderr, or what in the document is malformed)."""
    try:
        return payload.from_object(cls, json.loads(done.stdout))
    except payload.PayloadError as exc:
        return f"{command} --json malformed: {exc}"[:200]
    except ValueError:
        return f"{command} exit {done.returncode}: {done.stderr.strip()[-150:]}"


def regression_files(bug: Bug, root: Path) -> list[str]:
    """The commit's test files, then every other test file naming a fixed function."""
    files = [p for p, _ in split_files(bug.test_patch) if (root / p).is_file()]
    names = {f.rsplit("::", 1)[1].rsplit(".", 1)[-1] for f in bug.functions}
    for path in sorted(root.rglob("test*.py")):
        rel = path.relative_to(root).as_posix()
        if rel in files or "/." in f"/{rel}":
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if any(re.search(rf"\b{re.escape(name)}\b", text) for name in names):
            files.append(rel)
    return files


def summary(rows: list[RealRow]) -> RealSummary:
    ran = [r for r in rows if r.reproduces]
    within = lambda n: sum(1 for r in ran if r.rank is not None and r.rank <= n)  # noqa: E731
    pytest_s = sum(r.pytest_seconds for r in ran if r.check_ran)
    check_s = sum(r.check_seconds for r in ran if r.check_ran)
    file_s = sum(r.file_seconds for r in ran if r.check_ran)
    return RealSummary(
        bugs=len(rows), reproduced=len(ran), projects=len({r.project for r in rows}),
        check_ran=sum(r.check_ran for r in ran), top1=within(1), top3=within(3),
        listed=sum(r.listed for r in ran), pytest_seconds=round(pytest_s, 1),
        check_seconds=round(check_s, 1),
        ratio=round(check_s / pytest_s, 2) if pytest_s else None,
        file_seconds=round(file_s, 1),
        file_ratio=round(check_s / file_s, 2) if file_s else None,
        verified=sum(r.verified for r in ran),
        correct=sum(bool(r.verified and r.correct) for r in ran),
        same_function=sum(bool(r.same_function) for r in ran),
        breaking=sum(bool(r.breaks) for r in ran),
    )  # fmt: skip


def table(rows: list[RealRow]) -> list[str]:
    """One Markdown table: a line per bug, then the totals of each mining round (when the rows
    span more than one), then the totals of all."""
    lines = [
        "| bug | check ran | rank | top-1 | top-3 | listed | pytest s | pytest file s | check s "
        "| check/pytest | check/pytest file | fix | breaks |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    yes = lambda flag: "yes" if flag else "no"  # noqa: E731
    for r in rows:
        if not r.reproduces:
            lines.append(f"| {r.bug} | {r.note or 'does not reproduce'} |||||||||||||")
            continue
        position = r.rank or 0
        ratio = r.check_seconds / r.pytest_seconds if r.pytest_seconds else 0.0
        per_file = r.check_seconds / r.file_seconds if r.file_seconds else 0.0
        lines.append(
            f"| {r.bug} | {yes(r.check_ran)} | {r.rank or '-'} | "
            f"{yes(position == 1)} | {yes(0 < position <= 3)} | {yes(r.listed)} | "
            f"{r.pytest_seconds:.1f} | {r.file_seconds:.1f} | "
            f"{r.check_seconds:.1f} | {ratio:.2f}x | {per_file:.2f}x | "
            f"{r.fix} | {len(r.breaks)} |"
        )
    rounds = sorted({r.round for r in rows})
    if len(rounds) > 1:
        lines += [totals_line([r for r in rows if r.round == n], f"round {n}: ") for n in rounds]
    lines.append(totals_line(rows, "all "))
    return lines


def totals_line(rows: list[RealRow], label: str) -> str:
    """The table's line of `rows`' totals, its first cell opening with `label`."""
    s = summary(rows)
    n = s.reproduced
    return (
        f"| **{label}{n} of {s.bugs} bugs, {s.projects} projects** | {s.check_ran}/{n} "
        f"| | {s.top1}/{n} | {s.top3}/{n} | {s.listed}/{n} | {s.pytest_seconds} "
        f"| {s.file_seconds} | {s.check_seconds} | {s.ratio}x | {s.file_ratio}x "
        f"| {s.verified}/{n} verified "
        f"| {s.breaking} |"
    )


def suite_sizes(bugs: list[Bug], projects: dict, scratch: Path, cache=CACHE) -> list[str]:
    """A Markdown table: per project, its bugs and how many tests its whole suite collects
    (on the buggy tree of its first bug's release)."""
    lines = ["| project | bugs | releases | tests in its suite |", "|---|---|---|---|"]
    for name in sorted({b.project for b in bugs}):
        mine = [b for b in bugs if b.project == name]
        root = tree(mine[0], scratch / f"size-{mine[0].id}", cache=cache)
        count = count_tests(venv(projects[name], cache), projects[name], root)
        versions = ", ".join(sorted({b.version for b in mine}))
        lines.append(f"| {name} | {len(mine)} | {versions} | {count if count else '?'} |")
    return lines
