"""`heal-ls bench --real`: the real-bug corpus (benchmarks/corpus/), one table.

`--verify` only rebuilds every bug from PyPI (sdist, venv) and proves it reproduces: its failing
tests fail on the buggy tree and pass once the fixing commit's source part is applied. Without it
each bug is benched (bench/real.py) and the table printed; `--results FILE` also writes it there
as Markdown, with the command and the commit it ran on. `--check-only` stops each bug after
`check` (the rank and speed columns in minutes, no fix and no regression set). `--round N ...`
takes only the bugs mined in those rounds (each later round was measured blind once); the table
has a totals line per round besides the one of all bugs. `--bugs DIR` reads the bugs from DIR
(a miner's `--out`, outside the repository) with the corpus's projects.json.
"""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
import tempfile
from pathlib import Path

from heal_ls.bench import corpus, real, repairer
from heal_ls.bench.rows import RealRow, RealSettings
from heal_ls.bench.sdist import FetchError

LEGEND = """\
Per bug (benchmarks/corpus/bugs/<bug>/): *check ran* = `heal-ls check --test <failing tests>`
reported the failures; *rank* = where the function the developer fixed comes among the first
failing test's suspects (top-1, top-3, listed at all); *pytest s* / *check s* = wall seconds of
plain pytest and of `heal-ls check` on the same tests, each a fresh process; *pytest file s* =
plain pytest of the failing tests' files (what `check` runs once, the target: check <= 1.5x it);
*fix* = `heal-ls fix --provider local` (the built-in repairer, no model);
*breaks* = tests of the regression set (the commit's test files and every test file naming a
fixed function) that passed on the buggy tree and fail after a verified fix."""


# benchmarks/impact.py's section, written by hand from its output: a new table keeps it
CARRIED = "## Impact map"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--real", action="store_true", help="run the real-bug corpus")
    parser.add_argument(
        "--verify", action="store_true", help="real: only check that every bug reproduces"
    )
    parser.add_argument(
        "--check-only",
        action="store_true",
        help="real: only `check` each bug (rank columns, a few minutes): no fix, no regression set",
    )
    parser.add_argument(
        "--round",
        type=int,
        nargs="+",
        default=[],
        dest="rounds",
        metavar="N",
        help="real: only the bugs mined in these rounds (bug.json's round; with --only: both)",
    )
    parser.add_argument("--corpus", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument(
        "--bugs",
        metavar="DIR",
        help="real: the bug folders here instead of the corpus's bugs/ (a miner's --out)",
    )
    parser.add_argument("--cache", metavar="DIR", help=argparse.SUPPRESS)
    parser.add_argument("--results", metavar="FILE", help="real: also write the table here")


def run(args: argparse.Namespace) -> int:
    folder = Path(args.corpus) if args.corpus else corpus.CORPUS
    cache = Path(args.cache) if args.cache else corpus.CACHE
    try:
        projects = corpus.load_projects(folder)
        bugs_folder = Path(args.bugs) if args.bugs else folder / "bugs"
        bugs = corpus.load_bugs(bugs_folder, only=args.only, rounds=args.rounds)
    except corpus.CorpusError as exc:
        print(f"heal-ls bench: {exc}", file=sys.stderr)
        return 2
    try:
        if args.verify:
            return _verify(bugs, projects, cache)
        return _bench(bugs, projects, cache, args)
    except FetchError as exc:
        print(f"heal-ls bench: {exc}", file=sys.stderr)
        return 2


def _verify(bugs: list[corpus.Bug], projects: dict, cache: Path) -> int:
    bad = 0
    with tempfile.TemporaryDirectory(prefix="heal-corpus-") as scratch:
        for bug in bugs:
            why = corpus.verify(bug, projects[bug.project], Path(scratch), cache)
            bad += bool(why)
            print(f"{bug.id:36} {'reproduces' if not why else 'FAILS: ' + why}", flush=True)
    print(f"{len(bugs) - bad}/{len(bugs)} bugs reproduce")
    return 1 if bad else 0


def _bench(bugs: list[corpus.Bug], projects: dict, cache: Path, args) -> int:
    settings = RealSettings(
        test_timeout=max(args.test_timeout, 10.0),  # a loaded machine is not a hang
        budget_count=args.local_budget,
        budget_seconds=args.local_seconds,
        check_only=getattr(args, "check_only", False),
    )
    rows = []
    with tempfile.TemporaryDirectory(prefix="heal-real-") as scratch:
        for bug in bugs:
            row = real.bench_bug(bug, projects[bug.project], Path(scratch), settings, cache)
            rows.append(row)
            print(real.table([row])[2], file=sys.stderr, flush=True)
        sizes = real.suite_sizes(bugs, projects, Path(scratch), cache)
    lines = real.table(rows)
    print("\n".join([*lines, "", *sizes]))
    if args.results:
        path = Path(args.results)
        before = path.read_text(encoding="utf-8") if path.is_file() else ""
        section = repairer.section(rows, repairer.kept_part(before))
        page = _results_page([*lines, "", *sizes, "", *section], rows)
        path.write_text(page + carried(before), encoding="utf-8")
    return 0 if rows else 1


def carried(page: str) -> str:
    """The sections other benchmarks wrote at the end of the page (from CARRIED on), kept."""
    at = page.find(f"\n{CARRIED}")
    return page[at:] if at >= 0 else ""


def _results_page(lines: list[str], rows: list[RealRow]) -> str:
    command = "heal-ls " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["bench"] else "heal-ls bench"
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=Path(__file__).parent,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    notes = [f"- {r.bug}: {r.note}" for r in rows if r.note]
    notes += [f"- {r.bug}: breaks {', '.join(r.breaks)}" for r in rows if r.breaks]
    return "\n".join(
        [
            "# Real-bug corpus results",
            "",
            f"`{command}` at {head or '?'}, {when}.",
            "",
            LEGEND,
            "",
            *lines,
            "",
            *(["Notes:", "", *notes, ""] if notes else []),
        ]
    )
