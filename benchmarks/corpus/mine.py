"""Find corpus bugs in a project's git history (a maintainer's tool; `fetch.py` rebuilds and
checks what it found from PyPI alone).

    python benchmarks/corpus/mine.py GIT_DIR PROJECT --github OWNER/NAME --round N [--most N]
        [--max-lines N] [--since VERSION] [--out FOLDER]

For each release tag, the commits up to the next release that change both test files and at
most two other Python files (few lines, inside one or two defs) are tried on the release's sdist:
the commit's test part is applied, the changed test files run, its source part applied, the files
run again. The tests that fail before and pass after are the bug's failing tests; a commit with
none, or whose patches do not apply to the sdist, is skipped; a file's diff that does not
apply (the file changed between the release and the fix) is first 3-way merged into the
sdist's file (`git merge-file`, base: the file at the commit's parent) and saved as the diff to
that merge. A kept bug is written to
benchmarks/corpus/bugs/<project>-<commit[:8]>/ only after `corpus.verify` reproduces it; with
`--out FOLDER`, to FOLDER/<project>-<commit[:8]>/ instead: a folder outside the repository, so
that a landing's tests never read a bug half-written (`heal-ls bench --real --verify --bugs
FOLDER` verifies it there; moved into bugs/ when committed).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from heal_ls.bench import corpus
from heal_ls.bench.patches import MODULE_LEVEL, merged_patch, split_files, touched_functions
from heal_ls.bench.sdist import FetchError, download, fetch_sdist
from packaging.version import InvalidVersion, Version

# a test folder: tests/, testing/, testsuite/ (pint), and any name ending in test(s) (ropetest/)
TEST_PATH = re.compile(
    r"(^|/)([a-z]*tests?|testing|testsuite)/|(^|/)test_[^/]*\.py$|_test\.py$|conftest\.py$"
)
# a bug whose test files run longer than this (on either side) is skipped, not waited for
TEST_TIMEOUT = 300
NOT_SOURCE = re.compile(r"(^|/)(docs?|examples?|benchmarks?|scripts?|tools)/|^setup\.py$|noxfile")


def git(repo: str, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", repo, *args], capture_output=True, text=True, check=True
    ).stdout


def releases(repo: str, prefix: str = "") -> list[tuple[Version, str]]:
    found = []
    for tag in git(repo, "tag").split():
        try:
            # rel_1_4_1 (mako) is 1.4.1
            version = Version(tag.removeprefix(prefix).lstrip("v").replace("_", "."))
        except InvalidVersion:
            continue
        if not version.is_prerelease:
            found.append((version, tag))
    return sorted(found)


def commits_after(repo: str, tag: str, until: str) -> list[str]:
    """Non-merge commits after `tag` up to `until`, oldest first (closest to the release)."""
    listing = git(repo, "rev-list", "--no-merges", "--reverse", f"{tag}..{until}")
    return listing.split()


def split_commit(repo: str, sha: str) -> tuple[str, str] | None:
    raw = show(repo, "--format=", "--no-renames", "-U3", sha, "--", "*.py")
    try:
        diff = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None  # a file not in UTF-8 (pycodestyle's latin-1 cases): patches are kept as text
    tests, sources = [], []
    for path, part in split_files(diff):
        if TEST_PATH.search(path):
            tests.append(part)
        elif not NOT_SOURCE.search(path):
            sources.append(part)
        else:
            return None  # docs or build code changed too: not one clean fix
    if not tests or not sources or len(sources) > 2:
        return None
    return "".join(sources), "".join(tests)


def small(source_patch: str, max_lines: int) -> bool:
    changed = [
        line
        for line in source_patch.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return 0 < len(changed) <= max_lines


def changed_test_names(pristine: Path, buggy: Path, test_patch: str) -> list[str] | None:
    """`-k` selecting the tests (or test classes) a test patch adds or changes; [] = all (a
    change outside every test def, such as a module-level table of cases, and no new test);
    None when a changed test file is not Python (pycodestyle's `testing/data/E10.py`, broken on
    purpose, which a test elsewhere reads): nothing the miner can run."""
    added = set(re.findall(r"(?m)^\+\s*(?:async )?def (test\w*)", test_patch))
    names = set(added)
    try:
        changes = touched_functions(pristine, buggy, test_patch)
    except SyntaxError:
        return None
    for touched in changes:
        qualname = touched.split("::", 1)[1]
        if qualname == MODULE_LEVEL and not added:
            return []
        names.add(qualname.split(".")[0])  # the test, or its class
    names.discard(MODULE_LEVEL)
    return ["-k", " or ".join(sorted(names))] if names else []


def sha256_of(name: str, version: str, cache: Path) -> str:
    archive = download(name, version, cache / "sdists" / f"{name}-{version}")
    return hashlib.sha256(archive.read_bytes()).hexdigest()


def fitted(repo: str, sha: str, patch: str, root: Path) -> str:
    """`patch`, a part of commit `sha`, made to apply to the sdist tree `root`: a file whose
    diff `git apply` refuses (the file changed between the release and the commit's parent)
    gets the diff from root's file to a 3-way merge of the commit's change into it. A
    CorpusError when a file neither applies nor merges cleanly."""
    parts = []
    for path, part in split_files(patch):
        try:
            corpus.apply_patch(root, part, path, check=True)
        except corpus.CorpusError as refused:
            try:
                base, theirs = (show(repo, f"{rev}:{path}") for rev in (f"{sha}^", sha))
                ours = (root / path).read_bytes()
            except (subprocess.CalledProcessError, OSError):
                raise refused from None  # a file the sdist lacks: nothing to merge into
            part = merged_patch(path, ours, base, theirs)
            if part is None:
                raise corpus.CorpusError(f"{path} does not apply, 3-way merge either") from None
            if not part:
                raise corpus.CorpusError(f"{path}: the release has the change already") from None
            print(f"  {sha[:8]}: {path} 3-way merged")
        parts.append(part)
    return "".join(parts)


def show(repo: str, *args: str) -> bytes:
    return subprocess.run(
        ["git", "-C", repo, "show", *args], capture_output=True, check=True
    ).stdout


def try_commit(
    repo: str,
    project: corpus.Project,
    version: str,
    sha256: str,
    sha: str,
    patches,
    url: str,
    scratch: Path,
    round_: int,
) -> corpus.Bug | None:
    try:
        pristine = fetch_sdist(project.name, version, sha256, corpus.CACHE)
        source_patch, test_patch = (fitted(repo, sha, part, pristine) for part in patches)
        draft = corpus.Bug(
            bug_id(project.name, sha), project.name, version, sha256, sha, url, (), (), round_,
            source_patch, test_patch,
        )  # fmt: skip
        buggy = corpus.tree(draft, scratch / f"{sha}-buggy")
        fixed = corpus.tree(draft, scratch / f"{sha}-fixed", fixed=True)
    except (corpus.CorpusError, FetchError) as exc:
        print(f"  {sha[:8]}: {str(exc)[:100]}")
        return None
    functions = touched_functions(buggy, fixed, source_patch)
    # a module-level change alone has nothing to rank (beside a def: a top-level def it adds)
    if not functions or len(functions) > 2 or all(f.endswith(MODULE_LEVEL) for f in functions):
        print(f"  {sha[:8]}: touches {functions}")
        return None
    files = [p for p, _ in split_files(test_patch) if (buggy / p).is_file() and p.endswith(".py")]
    selection = changed_test_names(pristine, buggy, test_patch)  # what the test part touches
    if selection is None:
        print(f"  {sha[:8]}: a changed test file is not Python")
        return None
    files += selection
    outcomes = before_and_after(corpus.venv(project), project, buggy, fixed, files)
    if outcomes is None:
        print(f"  {sha[:8]}: the tests ran over {TEST_TIMEOUT} s")
        return None
    before, after = outcomes
    failing = sorted(t for t, o in before.items() if o == "FAILED" and after.get(t) == "PASSED")
    broken = [t for t, o in before.items() if o == "PASSED" and after.get(t) != "PASSED"]
    if not failing or broken or len(failing) > 10:
        print(f"  {sha[:8]}: failing {len(failing)}, broken {len(broken)}")
        return None
    return corpus.Bug(
        draft.id, project.name, version, sha256, sha, url, tuple(failing), tuple(functions),
        round_, source_patch, test_patch,
    )  # fmt: skip


def saved_twin(bug: corpus.Bug, saved: list[corpus.Bug]) -> str | None:
    """The id of a saved bug with the same fix and test as `bug` (a fix cherry-picked onto a
    second branch: workalendar-d662a118 was 91723a9b again), which would count one bug twice."""
    for other in saved:
        same = (other.source_patch, other.test_patch) == (bug.source_patch, bug.test_patch)
        if same and other.id != bug.id:
            return other.id
    return None


def bug_id(project: str, sha: str) -> str:
    return f"{project}-{sha[:8]}"


def already_saved(project: str, sha: str, saved: list[corpus.Bug]) -> bool:
    """A commit kept by an earlier run: a re-run skips it before its tests run and does not
    count it towards `--most` (it was saved again and counted as new)."""
    return any(bug.id == bug_id(project, sha) for bug in saved)


def saved_bugs(project: str, out: Path = corpus.BUGS) -> list[corpus.Bug]:
    """The bugs of `project` saved so far, in the corpus and in the miner's `out` folder: none
    yet for a project new to the corpus (where `load_bugs(only=...)` would refuse the unknown
    name and stop the miner at its first keep)."""
    shelves = dict.fromkeys([corpus.BUGS, out])  # one read when `out` is the corpus's own
    return [bug for shelf in shelves for bug in corpus.load_bugs(shelf) if bug.project == project]


def before_and_after(
    python: str, project: corpus.Project, buggy: Path, fixed: Path, files: list[str]
) -> tuple[dict[str, str], dict[str, str]] | None:
    """The outcomes of `files` on the buggy tree and on the fixed one; None when either run
    outlasts TEST_TIMEOUT (a test of a regex that backtracks for ever, say)."""
    try:
        before = corpus.run_tests(python, project, buggy, files, timeout=TEST_TIMEOUT)
        after = corpus.run_tests(python, project, fixed, files, timeout=TEST_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None
    return before, after


def refresh(project: corpus.Project, out: Path) -> None:
    """Record again the functions each bug of `project` saved in `out` touches (from its trees)."""
    with tempfile.TemporaryDirectory(prefix="heal-mine-") as scratch:
        for bug in corpus.load_bugs(out, only=[project.name]):
            buggy = corpus.tree(bug, Path(scratch) / f"{bug.id}-buggy")
            fixed = corpus.tree(bug, Path(scratch) / f"{bug.id}-fixed", fixed=True)
            functions = tuple(touched_functions(buggy, fixed, bug.source_patch))
            print(bug.id, functions)
            corpus.save_bug(dataclasses.replace(bug, functions=functions), out)


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo")
    parser.add_argument("project")
    parser.add_argument("--github", required=True, help="owner/name, for the commit urls")
    parser.add_argument("--most", type=int, default=8)
    parser.add_argument("--max-lines", type=int, default=16)
    parser.add_argument("--since", default="", help="oldest release to try")
    parser.add_argument(
        "--round", type=int, required=True, help="the mining round the kept bugs belong to"
    )
    parser.add_argument("--tag-prefix", default="", help="before the version in tags")
    parser.add_argument("--refresh", action="store_true", help="re-record saved bugs' functions")
    parser.add_argument(
        "--out",
        type=Path,
        default=corpus.BUGS,
        help="save kept bugs here (default: the corpus's bugs/)",
    )
    return parser.parse_args(argv)


def main() -> int:
    args = arguments()
    project = corpus.load_projects()[args.project]
    if args.refresh:
        refresh(project, args.out)
        return 0
    tags = releases(args.repo, args.tag_prefix)
    if args.since:
        tags = [t for t in tags if t[0] >= Version(args.since)]
    kept = 0
    saved_before = saved_bugs(
        project.name, args.out
    )  # read once: this run's keeps are other commits
    with tempfile.TemporaryDirectory(prefix="heal-mine-") as scratch:
        for index, (version, tag) in enumerate(tags):
            until = tags[index + 1][1] if index + 1 < len(tags) else "HEAD"
            shas = commits_after(args.repo, tag, until)
            for sha in shas:
                patches = split_commit(args.repo, sha)
                if patches is None or not small(patches[0], args.max_lines):
                    continue
                try:
                    sha256 = sha256_of(project.name, str(version), corpus.CACHE)
                except FetchError as exc:
                    print(f"{version}: {exc}")
                    break
                print(f"{version} {sha[:8]}", flush=True)
                if already_saved(project.name, sha, saved_before):
                    print(f"  {sha[:8]}: already in the corpus")
                    continue
                url = f"https://github.com/{args.github}/commit/{sha}"
                where = Path(scratch) / sha
                where.mkdir()
                bug = try_commit(
                    args.repo, project, str(version), sha256, sha, patches, url, where, args.round
                )
                if bug is None:
                    continue
                if twin := saved_twin(bug, saved_bugs(project.name, args.out)):
                    print(f"  {sha[:8]}: the same fix and test as {twin}")
                    continue
                check = Path(scratch) / f"{sha}-verify"
                check.mkdir()
                why = corpus.verify(bug, project, check)
                if why:
                    print(f"  {sha[:8]}: does not verify: {why}")
                    continue
                print(f"  KEPT {bug.id} {bug.functions} {len(bug.failing_tests)} tests")
                corpus.save_bug(bug, args.out)
                kept += 1
                if kept >= args.most:
                    return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
