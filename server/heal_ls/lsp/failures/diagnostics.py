"""textDocument/publishDiagnostics: one Error per failure on the failing line of its suspect
function (the def line when the exception came from the test), a Hint on the failing test line,
every traceback frame as related information. Files that no longer have failures get []."""

from __future__ import annotations

from typing import Any

import attrs
from lsprotocol import types

from heal_ls.lsp.protocol import DiagnosticData
from heal_ls.lsp.workspace.documents import line_range, lines_of, path_to_uri
from heal_ls.lsp.workspace.server import HealLanguageServer
from heal_ls.lsp.workspace.state import Known
from heal_ls.models import OUTER_FRAMES
from heal_ls.payload import to_object

SOURCE = "heal"


def error_line(known: Known) -> tuple[str, int] | None:
    """(path, line) for the Error: innermost frame inside the suspect, else its def line."""
    suspect = known.suspect
    if suspect is not None and suspect.focus_line:
        return suspect.path, suspect.focus_line
    if suspect is not None:
        for frame in reversed(known.failure.frames):
            if frame.path == suspect.path and suspect.start_line <= frame.line <= suspect.end_line:
                return frame.path, frame.line
        return suspect.path, suspect.def_line or suspect.start_line
    if known.shown is not None:  # no function blamed: never a stdlib or library file
        return known.shown
    if known.failure.frames:  # module level: the innermost frame, no heal action
        frame = known.failure.frames[-1]
        return frame.path, frame.line
    if known.failure.test_path:
        return known.failure.test_path, known.failure.test_line or 1
    if known.failure.script:
        return known.failure.script, 1
    return None


def diagnostic_data(known: Known) -> dict[str, Any]:
    """The diagnostic's `data` (DiagnosticData), as JSON."""
    info = attrs.asdict(known.info(), recurse=False)
    return to_object(DiagnosticData(**info, failure=known.id))


class Builder:
    """Builds the diagnostics of every file, reading each file's lines once."""

    def __init__(self, server: HealLanguageServer) -> None:
        self.server = server
        self.lines: dict[str, list[str]] = {}
        self.by_uri: dict[str, list[types.Diagnostic]] = {}

    def range_at(self, path: str, line: int) -> types.Range:
        if path not in self.lines:
            self.lines[path] = lines_of(self.server, path)
        return line_range(self.server, self.lines[path], line)

    def location(self, path: str, line: int) -> types.Location:
        return types.Location(uri=path_to_uri(path), range=self.range_at(path, line))

    def related(self, known: Known) -> list[types.DiagnosticRelatedInformation]:
        failure = known.failure
        infos = [
            types.DiagnosticRelatedInformation(
                location=self.location(f.path, f.line), message=f"{f.function} (traceback frame)"
            )
            for f in failure.frames
        ]
        if failure.frames_skipped:  # where the cut is: the frame after it
            after = failure.frames[OUTER_FRAMES]
            skipped = f"{failure.frames_skipped} more frames skipped (a very deep traceback)"
            infos.insert(
                OUTER_FRAMES,
                types.DiagnosticRelatedInformation(self.location(after.path, after.line), skipped),
            )
        if failure.test_path:
            where = self.location(failure.test_path, failure.test_line or 1)
            infos.append(types.DiagnosticRelatedInformation(where, f"failing test {known.label()}"))
        return infos

    def add(self, path: str, diagnostic: types.Diagnostic) -> None:
        self.by_uri.setdefault(path_to_uri(path), []).append(diagnostic)

    def add_failure(self, known: Known) -> None:
        failure = known.failure
        headline = f"{known.label()} failed: {failure.exc_type}: {failure.message}".rstrip(": ")
        severity = types.DiagnosticSeverity.Error
        if known.flaky is not None:  # not a bug of the function: no heal, just a note
            headline = f"{known.flaky.label()}: {headline}"
            severity = types.DiagnosticSeverity.Information
        elif not known.healable and known.reason:
            headline += f" (no heal action: {known.reason})"
        where = error_line(known)
        if where is not None:
            self.add(
                where[0],
                types.Diagnostic(
                    range=self.range_at(*where),
                    message=headline,
                    severity=severity,
                    source=SOURCE,
                    code=failure.exc_type,
                    related_information=self.related(known),
                    data=diagnostic_data(known),
                ),
            )
        if failure.test_path and (failure.test_path, failure.test_line) != where:
            self.add(
                failure.test_path,
                types.Diagnostic(
                    range=self.range_at(failure.test_path, failure.test_line or 1),
                    message=f"{known.label()} fails here: {failure.exc_type}: {failure.message}",
                    severity=types.DiagnosticSeverity.Hint,
                    source=SOURCE,
                    code=failure.exc_type,
                    data=diagnostic_data(known),
                ),
            )


def build(server: HealLanguageServer, knowns: list[Known]) -> dict[str, list[types.Diagnostic]]:
    builder = Builder(server)
    for known in knowns:
        builder.add_failure(known)
    return builder.by_uri


def publish(server: HealLanguageServer) -> None:
    """Publish every file's diagnostics; files that had some and have none now get []."""
    by_uri = build(server, [k for folder in server.folders for k in folder.state.known.values()])
    for uri in server.published_uris - set(by_uri):
        by_uri[uri] = []
    for uri, diagnostics in by_uri.items():
        doc = server.workspace.text_documents.get(uri)
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics, version=doc.version if doc else None
            )
        )
    server.published_uris = {uri for uri, diags in by_uri.items() if diags}
