"""Documents: uri <-> path, current text (open buffer first, else disk), the unsaved-buffer
overlay, and positions in the client's encoding (UTF-16 unless the client chose otherwise)."""

from __future__ import annotations

import os
import re

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import TextDocument

from heal_ls.pysource.source import read_source

LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split only where LSP and Python's tokenizer split: \r\n, \r,
    \n (str.splitlines also splits on form feeds and U+2028, which would shift every line)."""
    return LINE.findall(text)


def uri_to_path(uri: str | None) -> str | None:
    if not isinstance(uri, str) or not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return os.path.abspath(path) if path else None


def path_to_uri(path: str) -> str:
    return from_fs_path(path) or ("file://" + path)


def inside(root: str, path: str) -> bool:
    try:
        return os.path.commonpath([os.path.realpath(root), os.path.realpath(path)]) == (
            os.path.realpath(root)
        )
    except ValueError:  # different drives
        return False


def read_disk(path: str) -> str | None:
    try:
        return read_source(path)
    except (OSError, SyntaxError, UnicodeDecodeError, LookupError):
        return None


def open_document(server: LanguageServer, path: str) -> TextDocument | None:
    """The open buffer for `path`, or None (documents are keyed by uri)."""
    document: TextDocument | None = server.workspace.text_documents.get(path_to_uri(path))
    return document


def current_text(server: LanguageServer, path: str) -> tuple[str | None, int | None]:
    """(text, version): the open buffer's if any, else the file on disk with version None."""
    doc = open_document(server, path)
    if doc is not None:
        return doc.source, doc.version
    return read_disk(path), None


def unsaved_overlay(server: LanguageServer, root: str) -> dict[str, str]:
    """Open Python buffers under `root` whose text differs from the disk: tests run against them."""
    overlay = {}
    for uri, doc in list(server.workspace.text_documents.items()):
        path = uri_to_path(uri)
        if not path or not path.endswith(".py") or not inside(root, path):
            continue
        if doc.source != read_disk(path):
            overlay[path] = doc.source
    return overlay


def line_range(server: LanguageServer, lines: list[str], line: int) -> types.Range:
    """The range of 1-based `line`, from its first non-blank character to its end."""
    index = min(max(line - 1, 0), max(len(lines) - 1, 0))
    text = lines[index].rstrip("\r\n") if lines else ""
    start = len(text) - len(text.lstrip())
    codec = server.workspace.position_codec
    return codec.range_to_client_units(
        lines,
        types.Range(types.Position(index, start), types.Position(index, max(len(text), start))),
    )


def lines_of(server: LanguageServer, path: str) -> list[str]:
    text, _ = current_text(server, path)
    return split_lines(text) if text else []
