"""workspace/executeCommand: heal.runTests, heal.rerunFailed, heal.runScript, heal.loadReport.

Arguments are typed and converted where the handler receives them (lsp/arguments.py); the
checks against the workspace are in lsp/workspace/folders.py. Bad arguments get an
InvalidParams error response that says what was expected.
"""

from __future__ import annotations

import os
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from heal_ls.lsp.arguments import LoadReportArgs, RunScriptArgs, RunTestsArgs, convert
from heal_ls.lsp.heal.flaky import triage
from heal_ls.lsp.log import guarded
from heal_ls.lsp.protocol import LOAD_REPORT, RERUN_FAILED, RUN_SCRIPT, RUN_TESTS, RunSummary
from heal_ls.lsp.runs import run
from heal_ls.lsp.runs.test_files import holds_tests
from heal_ls.lsp.workspace.documents import uri_to_path
from heal_ls.lsp.workspace.folder import Folder
from heal_ls.lsp.workspace.folders import in_workspace, node_id
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.models import RunResult
from heal_ls.payload import to_object
from heal_ls.testing.ci_report import ReportError


def merged_summary(runs: list[RunResult | None]) -> RunSummary:
    """One summary for runs of several folders (one folder: its own summary)."""
    summaries = [run_summary(run) for run in runs]
    if len(summaries) == 1:
        return summaries[0]
    ran = [s for s in summaries if s.ran]
    return RunSummary(
        ran=bool(ran),
        passed=sum(s.passed or 0 for s in ran),
        failed=sum(s.failed or 0 for s in ran),
        errors=sum(s.errors or 0 for s in ran),
        error="; ".join(s.error for s in summaries if s.error) or None,
        seconds=round(sum(s.seconds or 0 for s in ran), 3),
    )


def tests_for_file(folder: Folder, path: str) -> list[str] | None:
    """A test file's own tests; for another module, the tests known to exercise it (else all)."""
    if holds_tests(folder, path):
        return [os.path.relpath(path, folder.root).replace(os.sep, "/")]
    return folder.state.tests_touching(path) or None


async def rerun_test(server: HealLanguageServer, folder: Folder, test: str) -> RunResult | None:
    """The "Re-run test" action: the one test, in its folder; still failing, it is
    re-checked for flakiness (lsp/heal/flaky.py)."""
    result = await run.tests(server, folder, [test])
    known = folder.state.find(test)
    if result is not None and known is not None:
        await triage(server, folder, known)
    return result


def run_summary(run: RunResult | None) -> RunSummary:
    if run is None:
        return RunSummary(ran=False)
    return RunSummary(
        ran=run.error is None,
        passed=run.passed,
        failed=run.failed,
        errors=run.errors,
        error=run.error,
        seconds=round(run.seconds, 3),
    )


def register(server: HealLanguageServer) -> None:
    @server.command(RUN_TESTS)
    @guarded
    async def run_tests(server: HealLanguageServer, *args: Any) -> dict[str, Any]:
        given = convert(args, RunTestsArgs, RUN_TESTS)
        if given.test is not None:
            folder = server.folder_of_test(given.test) or server.folders[0]
            test = node_id(folder, given.test, RUN_TESTS)
            return to_object(run_summary(await rerun_test(server, folder, test)))
        if given.uri is not None:
            folder, path = in_workspace(server, given.uri, RUN_TESTS)
            result = await run.tests(server, folder, tests_for_file(folder, path))
            return to_object(run_summary(result))
        results = [await run.tests(server, f, None) for f in list(server.folders)]
        return to_object(merged_summary(results))

    @server.command(RERUN_FAILED)
    @guarded
    async def rerun_failed(server: HealLanguageServer, *args: Any) -> dict[str, Any]:
        title = "heal: re-running failed tests"
        failing = [(f, f.state.failing_tests()) for f in server.folders if f.state.failing_tests()]
        if not failing:
            server.show("heal: no failing tests to re-run")
            return to_object(run_summary(None))
        results = [await run.tests(server, f, t, title=title) for f, t in failing]
        return to_object(merged_summary(results))

    @server.command(RUN_SCRIPT)
    @guarded
    async def run_script(server: HealLanguageServer, *args: Any) -> dict[str, Any]:
        given = convert(args, RunScriptArgs, RUN_SCRIPT)
        if given.script is not None:
            folder, path = in_workspace(server, given.script, RUN_SCRIPT, what="script")
        else:
            folder, path = in_workspace(server, given.uri, RUN_SCRIPT)
        if not os.path.isfile(path):
            raise JsonRpcInvalidParams(f"{RUN_SCRIPT}: no such script {path}")
        return to_object(run_summary(await run.script(server, folder, path)))

    server.command(LOAD_REPORT)(guarded(load_report))


async def load_report(server: HealLanguageServer, *args: Any) -> dict[str, Any]:
    """heal.loadReport: a CI run's JUnit XML failures, located in the folder they belong to."""
    given = convert(args, LoadReportArgs, LOAD_REPORT)
    value = given.report or ""
    path = uri_to_path(value) if value.startswith("file:") else value
    if not path or not os.path.isabs(path):
        raise JsonRpcInvalidParams(f"{LOAD_REPORT}: report must be an absolute path or uri")
    folder = server.folder_for(uri_to_path(given.folder) or "") if given.folder else None
    folder = folder or server.folder_for(path) or server.folders[0]
    try:
        return to_object(run_summary(await run.report(server, folder, path)))
    except ReportError as exc:
        server.show(f"heal: {exc}", types.MessageType.Error)
        raise JsonRpcInvalidParams(f"{LOAD_REPORT}: {exc}") from None
