"""textDocument/codeAction does O(diagnostics on the line) work per request, whatever the depth of
the traceback (issue 25, item 11): the document's index is built once per run, the folder of a
path is resolved once, and no frame of the failure is read or sent back. Counted, not timed."""

from __future__ import annotations

import json

import attrs
from heal_ls.lsp.failures import code_index
from heal_ls.lsp.failures.code_actions import code_actions, failure_ids_in_context, failure_of
from heal_ls.lsp.failures.code_index import Indexes
from heal_ls.lsp.failures.diagnostics import Builder
from heal_ls.lsp.workspace import server as workspace_server
from heal_ls.lsp.workspace.documents import path_to_uri
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.lsp.workspace.state import Known
from heal_ls.models import Failure, Frame, Suspect
from lsprotocol import types as t
from pygls.workspace import Workspace

SOURCE = "def depth(node):\n    return 1 + depth(node)\n"
DEPTH = 1000


class CountedFrames(list):
    """A failure's frames that count every read after `armed`."""

    armed = False
    reads = 0

    def __iter__(self):
        CountedFrames.reads += CountedFrames.armed
        return super().__iter__()

    def __getitem__(self, item):
        CountedFrames.reads += CountedFrames.armed
        return super().__getitem__(item)

    def __len__(self):
        CountedFrames.reads += CountedFrames.armed
        return super().__len__()


def deep_failure(tmp_path) -> tuple[Known, str]:
    module = tmp_path / "walk.py"
    module.write_text(SOURCE, encoding="utf-8")
    path = str(module)
    frames = CountedFrames(Frame(path, 2, "depth") for _ in range(DEPTH))
    failure = Failure(
        id="tests/test_walk.py::test_depth",
        exc_type="RecursionError",
        message="maximum recursion depth exceeded",
        frames=frames,
        test="tests/test_walk.py::test_depth",
    )
    suspect = Suspect(path, "depth", 1, 0, 2, 26, "raised here", def_line=1, focus_line=2)
    return Known(failure, suspect, healable=True), path


def test_a_deep_traceback_costs_a_code_action_nothing_per_frame(tmp_path, monkeypatch):
    ls = HealLanguageServer()
    indexes = Indexes(ls)
    ls.protocol._workspace = Workspace(tmp_path.as_uri())  # what `initialize` sets up
    ls.folders[0].root = str(tmp_path)
    known, path = deep_failure(tmp_path)
    ls.folders[0].state.known[known.id] = known
    ls.folders[0].state.generation += 1
    uri = path_to_uri(path)
    item = t.TextDocumentItem(uri=uri, language_id="python", version=1, text=SOURCE)
    ls.workspace.put_text_document(item)
    builder = Builder(ls)
    builder.add_failure(known)  # the published diagnostic, every kept frame related
    [error] = builder.by_uri[uri]
    assert error.related_information  # the frames are there, on the diagnostic

    indexed, resolved = [], []
    real_spans, real_inside = code_index.index_spans, workspace_server.inside
    monkeypatch.setattr(code_index, "index_spans", lambda *a: indexed.append(1) or real_spans(*a))
    monkeypatch.setattr(
        workspace_server, "inside", lambda *a: resolved.append(1) or real_inside(*a)
    )
    request = t.CodeActionParams(
        text_document=t.TextDocumentIdentifier(uri=uri),
        range=t.Range(t.Position(1, 4), t.Position(1, 4)),
        context=t.CodeActionContext(diagnostics=[error]),  # as VS Code sends it
    )
    CountedFrames.armed = True
    answers = [code_actions(ls, indexes, request) for _ in range(50)]
    CountedFrames.armed = False

    assert CountedFrames.reads == 0  # no frame is read to answer a code action
    assert len(indexed) == 1  # the index: once per run (and document version), not per request
    assert len(resolved) <= len(ls.folders)  # the path's folder: resolved once, then known
    titles = [a.title for a in answers[-1]]
    assert titles == ["AI heal depth", "Debug failing test", "Re-run test"]
    for action in answers[-1]:  # the diagnostic is named, not echoed with its frames and data
        [named] = action.diagnostics
        assert (named.range, named.message, named.code, named.source, named.severity) == (
            error.range,
            error.message,
            error.code,
            error.source,
            error.severity,
        )
        assert named.related_information is None and named.data is None
    wire = json.dumps(ls.protocol._converter.unstructure(answers[-1]))
    assert len(wire) < 2_000, len(wire)  # the same for 10 frames or 10,000


def test_a_diagnostics_data_is_read_back_as_the_diagnostic_data_it_was_sent_as(tmp_path):
    ls = HealLanguageServer()
    ls.protocol._workspace = Workspace(tmp_path.as_uri())
    known, path = deep_failure(tmp_path)
    builder = Builder(ls)
    builder.add_failure(known)
    [error] = builder.by_uri[path_to_uri(path)]
    sent = json.loads(json.dumps(error.data))  # as the client gives it back
    back = lambda **change: attrs.evolve(error, **change)  # noqa: E731
    assert failure_of(back(data=sent)) == known.id
    assert failure_of(back(data=sent, source="other")) is None
    assert failure_of(back(data={"failure": known.id})) is None  # not a DiagnosticData
    assert failure_of(back(data={**sent, "failure": 3})) is None
    assert failure_of(back(data=None)) is None
    context = t.CodeActionContext(diagnostics=[back(data=sent), back(data=[known.id])])
    assert list(failure_ids_in_context({known.id: known}, context)) == [known.id]
