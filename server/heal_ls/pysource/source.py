"""Read Python source files the way Python does, without losing a byte of meaning.

The encoding comes from the BOM or the PEP 263 coding cookie (default UTF-8). Line endings are kept
as they are (CRLF stays CRLF), so positions and splices stay exact. The BOM is dropped from the text
(positions count from after it) and put back by `encode_source`.
"""

from __future__ import annotations

import codecs
import functools
import io
import re
import tokenize
from pathlib import Path

# Python's own line breaks: not str.splitlines(), which also breaks on \f, \x1c, \u2028 ...
LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as Python's tokenizer splits lines


class SourceError(ValueError):
    """A file that cannot be read as Python source text, with a one-line reason."""


def detect_encoding(data: bytes) -> tuple[str, bool]:
    """The encoding Python would use for these bytes, and whether they start with a UTF-8 BOM."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown codec in the cookie, or a BOM that contradicts it
        raise SourceError(exc.msg or str(exc)) from None
    bom = data.startswith(codecs.BOM_UTF8)
    return ("utf-8" if encoding == "utf-8-sig" else encoding), bom


def decode_source(data: bytes) -> str:
    """Decode Python source bytes to text: cookie/BOM aware, BOM removed, newlines untouched."""
    encoding, bom = detect_encoding(data)
    if bom:
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise SourceError(f"cannot decode line {line} as {encoding}: {exc.reason}") from None


def read_source(path: str | Path) -> str:
    """Read a source file as text (see `decode_source`); errors name the file."""
    data = Path(path).read_bytes()
    try:
        return decode_source(data)
    except SourceError as exc:
        raise SourceError(f"{path}: {exc}") from None


def encode_source(text: str, original: bytes | None = None) -> bytes:
    """Encode text for writing back, with the encoding and BOM the original bytes had."""
    if original is None:
        return text.encode("utf-8")
    encoding, bom = detect_encoding(original)
    data = text.encode(encoding)
    return codecs.BOM_UTF8 + data if bom else data


def split_lines(text: str) -> list[str]:
    """The lines of `text` as Python numbers them (line 1 is index 0), without their breaks."""
    return LINE_BREAK.split(text)


def byte_col_to_char(line_text: str, byte_col: int) -> int:
    """Convert a UTF-8 byte offset within a line (what `ast` reports) to a code-point column."""
    if line_text.isascii():
        return byte_col
    return len(line_text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


@functools.lru_cache(maxsize=4)
def line_starts(text: str) -> list[int]:
    """Offsets where each line starts, splitting on \\r\\n, \\r and \\n as Python's tokenizer does."""
    starts = [1 if text.startswith("\ufeff") else 0]
    starts.extend(m.end() for m in LINE_BREAK.finditer(text))
    return starts


def line_at(text: str, starts: list[int], lineno: int) -> str:
    end = starts[lineno] if lineno < len(starts) else len(text)
    return text[starts[lineno - 1] : end].rstrip("\r\n")
