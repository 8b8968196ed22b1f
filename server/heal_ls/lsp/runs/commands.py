"""workspace/executeCommand: heal.runTests, heal.rerunFailed, heal.runScript, heal.loadReport.

Arguments are typed and converted where the handler receives them (lsp/arguments.py); the
checks against the workspace are here. Bad arguments get an InvalidParams error response that
says what was expected.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from heal_ls.lsp.arguments import LoadReportArgs, RunScriptArgs, RunTestsArgs, convert
from heal_ls.lsp.log import guarded
from heal_ls.lsp.protocol import LOAD_REPORT, RERUN_FAILED, RUN_SCRIPT, RUN_TESTS
from heal_ls.lsp.workspace.documents import inside, uri_to_path
from heal_ls.lsp.workspace.folders import folder_of_test
from heal_ls.testing.ci_report import ReportError

if TYPE_CHECKING:
    from heal_ls.lsp.workspace.folder import Folder


def workspace_path(ls, value: str | None, command: str, what="uri") -> str:
    """A file path inside a workspace folder from a uri (or a plain path when what='script',
    relative to the first folder)."""
    path = None
    if isinstance(value, str):
        path = uri_to_path(value) if value.startswith("file:") else None
        if path is None and what == "script":
            path = os.path.abspath(os.path.join(ls.root, value))
    if path is None:
        raise JsonRpcInvalidParams(f"{command}: {what} must be a file uri, got {value!r}")
    if ls.folder_for(path) is None:
        roots = ", ".join(f.root for f in ls.folders)
        raise JsonRpcInvalidParams(f"{command}: {path} is outside the workspace {roots}")
    return path


def node_id(ls, value: str, command: str) -> str:
    """A pytest node id from a client: never an option (`-...`), its file inside the workspace.
    Options belong in the `pytestArgs` setting, the one place the user chooses them."""
    if not value.strip():
        raise JsonRpcInvalidParams(f"{command}: pass {{'test': nodeid}}, got {value!r}")
    file_part = value.split("::", 1)[0]
    if value.startswith("-") or any(c in value for c in "\0\r\n") or not file_part:
        raise JsonRpcInvalidParams(f"{command}: not a test id: {value!r}")
    path = os.path.join(ls.root, file_part)
    if not inside(ls.root, path):
        raise JsonRpcInvalidParams(f"{command}: {value!r} is outside the workspace {ls.root}")
    return value


def merged_summary(runs: list) -> dict:
    """One summary for runs of several folders (one folder: its own summary)."""
    summaries = [run_summary(run) for run in runs]
    if len(summaries) == 1:
        return summaries[0]
    ran = [s for s in summaries if s["ran"]]
    total: dict[str, Any] = {"ran": bool(ran)}
    for key in ("passed", "failed", "errors"):
        total[key] = sum(s.get(key, 0) for s in ran)
    errors = [s["error"] for s in summaries if s.get("error")]
    total["error"] = "; ".join(errors) or None
    total["seconds"] = round(sum(s.get("seconds", 0) for s in ran), 3)
    return total


def tests_for_file(ls, path: str) -> list[str] | None:
    """A test file's own tests; for another module, the tests known to exercise it (else all)."""
    from heal_ls.locate import is_test_file

    if is_test_file(path, ls.root):
        return [os.path.relpath(path, ls.root).replace(os.sep, "/")]
    return ls.state.tests_touching(path) or None


async def rerun_test(folder: Folder, test: str):
    """The "Re-run test" action: the one test, in its folder; still failing, it is
    re-checked for flakiness (lsp/heal/flaky.py)."""
    from heal_ls.lsp.heal.flaky import triage

    run = await folder.runs.tests([test])
    known = folder.state.find(test)
    if run is not None and known is not None:
        await triage(folder, known)
    return run


def run_summary(run) -> dict:
    if run is None:
        return {"ran": False}
    return {
        "ran": run.error is None,
        "passed": run.passed,
        "failed": run.failed,
        "errors": run.errors,
        "error": run.error,
        "seconds": round(run.seconds, 3),
    }


def register(server) -> None:
    @server.command(RUN_TESTS)
    @guarded
    async def run_tests(ls, *args):
        given = convert(args, RunTestsArgs, RUN_TESTS)
        if given.test is not None:
            folder = folder_of_test(ls, given.test) or ls.folders[0]
            return run_summary(await rerun_test(folder, node_id(folder, given.test, RUN_TESTS)))
        if given.uri is not None:
            path = workspace_path(ls, given.uri, RUN_TESTS)
            folder = ls.folder_for(path)
            return run_summary(await folder.runs.tests(tests_for_file(folder, path)))
        return merged_summary([await folder.runs.tests(None) for folder in list(ls.folders)])

    @server.command(RERUN_FAILED)
    @guarded
    async def rerun_failed(ls, *args):
        title = "heal: re-running failed tests"
        failing = [(f, f.state.failing_tests()) for f in ls.folders if f.state.failing_tests()]
        if not failing:
            ls.show("heal: no failing tests to re-run")
            return run_summary(None)
        return merged_summary([await f.runs.tests(tests, title=title) for f, tests in failing])

    @server.command(RUN_SCRIPT)
    @guarded
    async def run_script(ls, *args):
        given = convert(args, RunScriptArgs, RUN_SCRIPT)
        if given.script is not None:
            path = workspace_path(ls, given.script, RUN_SCRIPT, what="script")
        else:
            path = workspace_path(ls, given.uri, RUN_SCRIPT)
        if not os.path.isfile(path):
            raise JsonRpcInvalidParams(f"{RUN_SCRIPT}: no such script {path}")
        return run_summary(await ls.folder_for(path).runs.script(path))

    server.command(LOAD_REPORT)(guarded(load_report))


async def load_report(ls, *args):
    """heal.loadReport: a CI run's JUnit XML failures, located in the folder they belong to."""
    given = convert(args, LoadReportArgs, LOAD_REPORT)
    value = given.report or ""
    path = uri_to_path(value) if value.startswith("file:") else value
    if not path or not os.path.isabs(path):
        raise JsonRpcInvalidParams(f"{LOAD_REPORT}: report must be an absolute path or uri")
    folder = ls.folder_for(uri_to_path(given.folder) or "") if given.folder else None
    folder = folder or ls.folder_for(path) or ls.folders[0]
    try:
        return run_summary(await folder.runs.report(path))
    except ReportError as exc:
        ls.show(f"heal: {exc}", types.MessageType.Error)
        raise JsonRpcInvalidParams(f"{LOAD_REPORT}: {exc}") from None
