"""Reading LSP frames from stdio, robust to a broken or hostile client.

pygls's own loop wedges on `Content-Length: abc` (every later frame is read as a header), dies
with MemoryError on a huge Content-Length and leaves a request that cannot be parsed without an
answer. Here a bad frame is logged, answered with a JSON-RPC error when its id can be read, and
skipped: the reader resynchronises on the next `Content-Length` header and keeps serving.
"""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import Executor, InvalidStateError
from threading import Event
from typing import Any, BinaryIO

from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
)
from pygls.protocol import JsonRPCProtocol

from heal_ls.lsp.log import logger

MAX_MESSAGE = 32 * 1024 * 1024  # bytes in one frame; a bigger one is skipped unread
LINE_LIMIT = 64 * 1024  # bytes read at once while looking for a header
# A header may be glued to the end of a skipped body (bodies carry no line ending).
HEADER = re.compile(rb"content-length:[ \t]*([^\r\n]*)\r?\n\Z", re.IGNORECASE)
REQUEST_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


def request_id(body: bytes) -> Any:
    """The top-level "id" of a frame that could not be parsed, or None."""
    head = body[:LINE_LIMIT]
    for number, match in enumerate(REQUEST_ID.finditer(head)):
        prefix = STRING.sub(b'""', head[: match.start()])
        depth = sum(prefix.count(c) for c in b"{[") - sum(prefix.count(c) for c in b"}]")
        if depth == 1:
            try:
                return json.loads(match.group(1))
            except ValueError:
                return None
        if number >= 8:
            break
    return None


class FrameReader:
    """Reads of stdin, bounded in size, from a buffer refilled in a worker thread.

    One blocking read takes whatever the client has written (a whole frame, usually several), so
    a message costs one hop to the worker thread and back, not one per header line and body:
    each hop is a chance for a loaded machine's scheduler to add milliseconds to the answer."""

    CHUNK = 256 * 1024  # bytes one read may take

    def __init__(self, stdin: BinaryIO, executor: Executor | None = None) -> None:
        self.stdin, self.executor = stdin, executor
        self.buffer = bytearray()
        self.at_eof = False

    async def _fill(self) -> None:
        loop = asyncio.get_running_loop()
        read = getattr(self.stdin, "read1", self.stdin.read)  # read1: what is there, not CHUNK
        chunk = await loop.run_in_executor(self.executor, read, self.CHUNK)
        if chunk:
            self.buffer += chunk
        else:
            self.at_eof = True

    def _take(self, size: int) -> bytes:
        taken = bytes(self.buffer[:size])
        del self.buffer[:size]
        return taken

    async def line(self) -> bytes:
        """Up to and including the next newline, at most LINE_LIMIT bytes; b"" at the end."""
        while True:
            end = self.buffer.find(b"\n", 0, LINE_LIMIT)
            if end >= 0:
                return self._take(end + 1)
            if len(self.buffer) >= LINE_LIMIT or self.at_eof:
                return self._take(LINE_LIMIT)
            await self._fill()

    async def exactly(self, size: int) -> bytes:
        """`size` bytes, or fewer when the input ends first."""
        while len(self.buffer) < size and not self.at_eof:
            await self._fill()
        return self._take(size)


async def serve(reader: FrameReader, protocol: JsonRPCProtocol, stop_event: Event) -> None:
    """Read frames until EOF (or the server stops) and hand each message to the protocol."""
    length, problem, lost, previous = None, None, b"", b""
    while not stop_event.is_set():
        line = await reader.line()
        if not line:
            break
        overlap = previous[-64:]  # a header split across two reads is still found
        match = HEADER.search(overlap + line)
        previous = line
        if match:
            glued = line[: max(0, match.start() - len(overlap))]
            if problem is not None:  # the skipped body ends right where this header starts
                _reject(protocol, lost + glued if len(lost) < LINE_LIMIT else lost, problem)
            length, problem, lost = _content_length(match.group(1))
            continue
        if line.strip() == b"" and length is not None:  # end of the headers
            body = await reader.exactly(length)
            if len(body) < length:
                break
            handle_body(protocol, body)
            length, previous = None, b""
        elif problem is not None and line.strip():
            if len(lost) < LINE_LIMIT:
                lost += line
        elif line.strip() and not line.lower().startswith(b"content-type:"):
            logger.warning("ignored %d bytes outside any LSP frame", len(line))
    if problem is not None and lost:
        _reject(protocol, lost, problem)


def _content_length(value: bytes) -> tuple[int | None, str | None, bytes]:
    """(length, None, b"") for a usable header, else (None, why the frame is skipped, b"")."""
    text = value.strip().decode("ascii", "replace")
    if not text.isdigit():
        return None, f"invalid Content-Length header {text[:40]!r}", b""
    if int(text) > MAX_MESSAGE:
        return None, f"message of {int(text)} bytes exceeds the {MAX_MESSAGE} byte limit", b""
    return int(text), None, b""


def _reject(protocol: JsonRPCProtocol, body: bytes, problem: str) -> None:
    logger.warning("skipped a malformed LSP frame: %s", problem)
    _answer_error(protocol, request_id(body), JsonRpcInvalidRequest(f"heal-ls: {problem}"))


def handle_body(protocol: JsonRPCProtocol, body: bytes) -> None:
    """Parse, check and dispatch one frame; a bad one gets a logged error, never a crash."""
    problem: JsonRpcParseError | None
    try:
        data = json.loads(body)
    except RecursionError:
        problem = JsonRpcParseError("heal-ls: message nested too deeply")
    except ValueError as exc:  # bad JSON or bad UTF-8
        problem = JsonRpcParseError(f"heal-ls: message is not JSON ({exc})")
    else:
        problem = None
    if problem is not None:
        logger.warning("skipped an unreadable LSP message: %s", problem.message)
        _answer_error(protocol, request_id(body), problem)
        return
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        logger.warning("skipped a message that is not JSON-RPC 2.0")
        return
    msg_id = data.get("id") if "method" in data else None
    try:
        message = protocol.structure_message(data)
    except Exception as exc:  # noqa: BLE001 - params of the wrong shape
        logger.warning("skipped a malformed %s message: %s", data.get("method"), exc)
        _answer_error(protocol, msg_id, JsonRpcInvalidParams(f"heal-ls: malformed {exc}"))
        return
    try:
        protocol.handle_message(message)
    except InvalidStateError:  # pygls's request futures are concurrent.futures ones
        if "method" in data:
            raise
        # the answer to a request we stopped waiting for (a cancelled run's progress creation)
        logger.debug("dropped the client's late answer to request %s", data.get("id"))
    except Exception as exc:  # noqa: BLE001 - one bad message must not stop the server
        logger.error("handling %s failed: %s: %s", data.get("method"), type(exc).__name__, exc)
        _answer_error(protocol, msg_id, JsonRpcInvalidRequest(f"heal-ls: {exc}"))


def _answer_error(protocol: JsonRPCProtocol, msg_id: Any, error: JsonRpcException) -> None:
    if isinstance(msg_id, (int, str)) and not isinstance(msg_id, bool):
        protocol._send_response(msg_id, error=error.to_response_error())
