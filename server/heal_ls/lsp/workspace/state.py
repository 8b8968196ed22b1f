"""What the server knows about the workspace: current failures, their suspects, test coverage.

Pure data, no LSP: runs are merged in with `apply_run`, which drops the failures of every test
the run covered (they either pass now or come back in the new result) and keeps the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from heal_ls.heal.blast import Blast
from heal_ls.lsp.protocol import FailureInfo, SuspectInfo
from heal_ls.models import Failure, RunResult, Suspect
from heal_ls.testing.flaky import Flaky


@dataclass
class Known:
    """One current failure and where it points."""

    failure: Failure
    suspect: Suspect | None
    healable: bool
    reason: str | None = None
    rechecked: bool = False  # re-run on unchanged code to rule out a flaky test (lsp/heal/flaky.py)
    flaky: Flaky | None = None  # set when one of those re-runs passed
    blast: Blast | None = None  # call sites and guard tests of the suspect (heal/blast.py)
    shown: tuple[str, int] | None = None  # no suspect: where its Error goes (locate.shown_at)

    @property
    def id(self) -> str:
        return self.failure.id

    def label(self) -> str:
        """The short name used in messages: the test function, or the script file name."""
        if self.id.startswith("collect:"):
            return "collecting " + self.id.removeprefix("collect:")
        if self.failure.test:
            return self.failure.test.split("::")[-1]
        if self.failure.script:
            return self.failure.script.replace("\\", "/").rsplit("/", 1)[-1]
        return self.failure.id

    def info(self) -> FailureInfo:
        """This failure as the client sees it (`heal/failures`; a diagnostic's data)."""
        suspect = None
        if self.suspect is not None:
            line = self.suspect.def_line or self.suspect.start_line
            suspect = SuspectInfo(path=self.suspect.path, qualname=self.suspect.qualname, line=line)
        return FailureInfo(
            id=self.id,
            test=self.failure.test,
            message=self.failure.message,
            exc_type=self.failure.exc_type,
            suspect=suspect,
            healable=self.healable,
            reason=self.reason,
            flaky=self.flaky,
            blast=self.blast,
        )


def _covers(scope: list[str], failure_id: str) -> bool:
    """A nodeid scope covers a test id when equal or a prefix (file or class of the test); a
    collection error of a file is covered by any scope inside that file."""
    if failure_id.startswith("collect:"):
        path = failure_id.removeprefix("collect:")
        return any(s == path or s.startswith(path + "::") for s in scope)
    return any(failure_id == s or failure_id.startswith(s + "::") for s in scope)


def _paths(covered: list[str], test_path: str | None) -> set[str]:
    """Files of the covered "abs_path:first_line" keys, plus the test's own file."""
    paths = {key.rsplit(":", 1)[0] for key in covered}
    return paths | {test_path} if test_path else paths


@dataclass
class WorkspaceState:
    known: dict[str, Known] = field(default_factory=dict)
    # nodeid -> absolute paths of workspace files whose functions ran in that test
    coverage: dict[str, set[str]] = field(default_factory=dict)
    generation: int = 0  # bumped on every change; code-action indexes key on it
    # absolute paths of the files the runs took tests from (a project's own python_files too)
    test_paths: set[str] = field(default_factory=set)

    def apply_run(self, run: RunResult, located: dict[str, Known], scope: list[str] | None) -> None:
        """Merge a run. scope=None: a full run replaces everything; else only ids it covers."""
        ran = {t.nodeid for t in run.tests} | set(located)
        for failure_id in list(self.known):
            if scope is None or failure_id in ran or _covers(scope, failure_id):
                del self.known[failure_id]
        self.known.update(located)
        for test in run.tests:
            self.coverage[test.nodeid] = _paths(test.covered, test.path)
            self.test_paths.update([test.path] if test.path else [])
        for known in located.values():
            failure = known.failure
            if failure.test:
                self.coverage[failure.test] = _paths(failure.covered, failure.test_path)
                self.test_paths.update([failure.test_path] if failure.test_path else [])
        self.generation += 1

    def failing_tests(self) -> list[str]:
        """Nodeids to re-run for the current failures (a test file for a collection error)."""
        known = self.known.values()
        tests = [k.failure.test for k in known if k.failure.test]
        files = [k.id.removeprefix("collect:") for k in known if k.id.startswith("collect:")]
        return tests + files

    def tests_touching(self, path: str) -> list[str]:
        """Tests that exercised a function in `path`, or that live in `path`."""
        return sorted(nodeid for nodeid, paths in self.coverage.items() if path in paths)

    def find(self, test_or_id: str) -> Known | None:
        for known in self.known.values():
            if test_or_id in (known.id, known.failure.test):
                return known
        return None

    def for_function(self, path: str, qualname: str) -> list[Known]:
        return [
            k
            for k in self.known.values()
            if k.suspect is not None and k.suspect.path == path and k.suspect.qualname == qualname
        ]
