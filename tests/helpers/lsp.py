"""Helpers for the language-server tests: the server command, a session starter and
`eventually` (poll until a notification arrived)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path, PurePath
from typing import Union

import attrs
from lsprotocol import types as t
from pygls.client import JsonRPCClient
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument
from pygls.workspace.position_codec import PositionCodec
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from helpers.server_fork import ForkServer

SECRET_NAMES = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")


def server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in SECRET_NAMES}
    env["OPENAI_API_KEY"] = "sk-test-not-a-real-key"  # the fake model server accepts anything
    return env


# Settings for a heal whose subject is not the flaky triage: before each heal the failing test
# runs again up to 14 times (heal.flakyRuns, ~2 s of CPU and ~5 s of wall a heal). Triage is
# tests/lsp/test_flaky.py's subject, and test_heal.py's first heal keeps the default.
NO_TRIAGE = {"flakyRuns": 0}


def model_settings(fake_model, **more) -> dict:
    """Settings that heal with the fake model server (helpers/fakemodel.py), no triage."""
    return {
        "provider": "openai",
        "baseUrl": fake_model.openai_url,
        "model": "fake",
        **NO_TRIAGE,
        **more,
    }


# Each server gets a fresh repair cache, so one test's verified fix is not another's cache hit
# (inside the test process's cache folder, which goes when it ends: tests/conftest.py).
SERVE = (
    "import os, tempfile; base = os.environ.get('HEAL_LS_CACHE_DIR') or tempfile.gettempdir();"
    "os.makedirs(base, exist_ok=True);"
    "os.environ['HEAL_LS_CACHE_DIR'] = tempfile.mkdtemp(prefix='server-', dir=base);"
    "from heal_ls.cli import main; raise SystemExit(main(['serve']))"
)


@attrs.define
class ServerConfig(ClientServerConfig):
    """pytest-lsp's config, with the server's environment read when the server starts: the
    session's fixtures set what the test's pytest runs see (tests/conftest.py: no dev plugins
    loaded by entry point, no xdist worker variables); read at import, the servers' pytest runs
    loaded every dev plugin (~2.7 s of CPU per pytest start). `extra_env` is added on top."""

    extra_env: dict[str, str] = attrs.field(factory=dict)

    async def start(self, devtools: str | None = None) -> JsonRPCClient:
        client = self.client_factory()
        env = {**server_env(), **self.extra_env}
        await client.start_io(*FORKS.command(self.get_server_command(devtools)), env=env)
        return client


# The servers of a test worker, forked from one process with their libraries imported (closed
# by tests/lsp/conftest.py when the session ends).
FORKS = ForkServer()
CONFIG = ServerConfig(server_command=[sys.executable, "-c", SERVE])


class Editor:
    """The editor side of the session: open buffers, applied edits, answers to questions."""

    def __init__(self, client: LanguageClient, root: Path):
        self.client = client
        self.root = root
        self.codec = PositionCodec()
        self.docs: dict[str, TextDocument] = {}
        self.applied: list[t.ApplyWorkspaceEditParams] = []
        self.refused: list[str] = []
        self.questions: list[t.ShowMessageRequestParams] = []
        self.answer = None  # a function (params) -> title or None
        self.before_apply = None  # a function (editor) run when an edit arrives: the user typing
        self.statuses: list[dict] = []
        self.registrations: dict[str, t.Registration] = {}  # client/registerCapability, by id

    def uri(self, relpath: str) -> str:
        return (self.root / relpath).as_uri()

    def open(self, relpath: str) -> str:
        uri = self.uri(relpath)
        text = (self.root / relpath).read_text(encoding="utf-8")
        self.docs[uri] = TextDocument(uri, text, version=1, position_codec=self.codec)
        item = t.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        self.client.text_document_did_open(t.DidOpenTextDocumentParams(text_document=item))
        return uri

    def text(self, uri: str) -> str:
        return self.docs[uri].source

    def type_text(self, uri: str, new_text: str) -> None:
        """Replace the buffer as if the user typed (didChange with a new version)."""
        doc = self.docs[uri]
        doc.apply_change(t.TextDocumentContentChangeWholeDocument(text=new_text))
        doc.version += 1
        self.client.text_document_did_change(
            t.DidChangeTextDocumentParams(
                text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=doc.version),
                content_changes=[t.TextDocumentContentChangeWholeDocument(text=new_text)],
            )
        )

    def save(self, uri: str) -> None:
        Path(self.docs[uri].path).write_text(self.text(uri), encoding="utf-8")
        self.client.text_document_did_save(
            t.DidSaveTextDocumentParams(text_document=t.TextDocumentIdentifier(uri=uri))
        )

    def apply_edit(self, params: t.ApplyWorkspaceEditParams) -> t.ApplyWorkspaceEditResult:
        if self.before_apply is not None:
            self.before_apply, typing = None, self.before_apply
            typing(self)
        for change in params.edit.document_changes or []:
            doc = self.docs.get(change.text_document.uri)
            if doc is None and change.text_document.version is None:
                self.open(os.path.relpath(to_fs_path(change.text_document.uri), self.root))
                continue  # like VS Code: an unversioned edit opens the file in a buffer
            if doc is None:
                return t.ApplyWorkspaceEditResult(applied=False, failure_reason="not open")
            if change.text_document.version not in (None, doc.version):
                self.refused.append(change.text_document.uri)
                return t.ApplyWorkspaceEditResult(applied=False, failure_reason="stale version")
        for change in params.edit.document_changes or []:
            doc = self.docs[change.text_document.uri]
            for edit in change.edits:
                doc.apply_change(
                    t.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)
                )
            doc.version += 1
            self.client.text_document_did_change(
                t.DidChangeTextDocumentParams(
                    text_document=t.VersionedTextDocumentIdentifier(
                        uri=doc.uri, version=doc.version
                    ),
                    content_changes=[t.TextDocumentContentChangeWholeDocument(text=doc.source)],
                )
            )
        self.applied.append(params)
        return t.ApplyWorkspaceEditResult(applied=True)

    def register(self, params: t.RegistrationParams) -> None:
        for registration in params.registrations:
            self.registrations[registration.id] = registration

    def unregister(self, params: t.UnregistrationParams) -> None:
        for gone in params.unregisterations:
            self.registrations.pop(gone.id, None)

    def watched_globs(self) -> list[str]:
        found = []
        for registration in self.registrations.values():
            if registration.method == t.WORKSPACE_DID_CHANGE_WATCHED_FILES:
                options = registration.register_options or {}
                found += [w["globPattern"] for w in options.get("watchers", [])]
        return found

    def file_changed(self, path: Path) -> bool:
        """Play the editor's file watcher: tell the server about a change to `path` if it
        registered a watcher matching it. False when no watcher matches (nothing sent)."""
        if not any(PurePath(path).match(glob) for glob in self.watched_globs()):
            return False
        change = t.FileEvent(uri=Path(path).as_uri(), type=t.FileChangeType.Changed)
        self.client.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams([change]))
        return True

    def show_message_request(self, params: t.ShowMessageRequestParams):
        self.questions.append(params)
        title = self.answer(params) if self.answer else None
        return t.MessageActionItem(title=title) if title else None

    async def command(self, name: str, *arguments, timeout: float = 60.0):
        params = t.ExecuteCommandParams(command=name, arguments=list(arguments))
        return await asyncio.wait_for(self.client.workspace_execute_command_async(params), timeout)

    def diagnostics(self, relpath: str) -> list[t.Diagnostic]:
        return list(self.client.diagnostics.get(self.uri(relpath), []))


async def eventually(predicate, timeout: float = 30.0, what: str = "condition"):
    """Poll until predicate() is truthy (notifications may already have arrived)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not (value := predicate()):
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)
    return value


def fix_structure_hook(client: LanguageClient) -> None:
    """lsprotocol 2025.0.0 decodes a CodeAction with a nested command as Command: correct it."""
    conv = client.protocol._converter
    conv.register_structure_hook(
        Union[t.Command, t.CodeAction],  # noqa: UP007 - the exact type lsprotocol registered
        lambda o, _: conv.structure(
            o, t.Command if isinstance(o.get("command"), str) else t.CodeAction
        ),
    )


async def start_session(
    request, lsp_client: LanguageClient, workspace: Path, settings: dict, folders=None
):
    """Initialize the session on `workspace` (or on several workspace `folders`)."""
    fix_structure_hook(lsp_client)
    editor = Editor(lsp_client, workspace)
    lsp_client.editor = editor
    lsp_client.feature(t.WORKSPACE_APPLY_EDIT)(lambda params: editor.apply_edit(params))
    lsp_client.feature(t.WINDOW_SHOW_MESSAGE_REQUEST)(
        lambda params: editor.show_message_request(params)
    )
    lsp_client.feature("heal/status")(lambda params: editor.statuses.append(params))
    lsp_client.feature(t.CLIENT_REGISTER_CAPABILITY)(lambda params: editor.register(params))
    lsp_client.feature(t.CLIENT_UNREGISTER_CAPABILITY)(lambda params: editor.unregister(params))
    lsp_client.set_configuration({"heal": settings})
    result = await lsp_client.initialize_session(
        t.InitializeParams(
            capabilities=client_capabilities(request.param),
            root_uri=workspace.as_uri(),
            workspace_folders=[t.WorkspaceFolder(f.as_uri(), f.name) for f in folders]
            if folders
            else None,
            initialization_options={"heal": settings},
        )
    )
    editor.capabilities = result.capabilities
    editor.codec = PositionCodec(encoding=result.capabilities.position_encoding or "utf-16")


async def failing(editor) -> None:
    """Run the tests; exactly one fails (the example's bug)."""
    result = await editor.command("heal.runTests")
    assert result["failed"] == 1, result
