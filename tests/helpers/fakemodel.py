"""A fake model server on 127.0.0.1 speaking the Anthropic Messages and OpenAI Chat Completions
wire formats, JSON and streaming (SSE), so the real SDKs can be tested without keys or network.

In-process:   server = FakeModelServer().start(); server.push("def f(): ..."); ...; server.close()
              (or the pytest fixture ``fake_model``).
Subprocess:   python tests/helpers/fakemodel.py --port-file F [--answers-file A.json] [--requests-file R]
              A.json maps function names (or qualnames) to the def text to answer when the prompt
              asks for that function; or {"functions": {...}, "default": "...", "queue": [text or
              {"status": 429, "error": "...", "headers": {...}}, ...], "first_byte_delay": s,
              "chunk_delay": s} (queued replies first, then functions, then default).

Point ANTHROPIC_BASE_URL at ``server.anthropic_url`` and OPENAI_BASE_URL at ``server.openai_url``.
Stdlib only, so any interpreter can run it.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ANTHROPIC_PATHS = {"/v1/messages", "/messages"}
OPENAI_PATHS = {"/v1/chat/completions", "/chat/completions"}
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}


@dataclass
class Reply:
    """One scripted reply: an answer text, or an error status; optionally slow."""

    text: str = ""
    status: int = 200
    error: str = ""  # error message for status >= 400
    headers: dict[str, str] = field(default_factory=dict)  # e.g. {"retry-after": "0"}
    first_byte_delay: float = 0.0  # seconds before the status line
    chunk_delay: float = 0.0  # seconds after each streamed text delta (a slow stream)
    chunk_size: int = 12  # characters per streamed text delta
    reject_stream_options: bool = False  # answer 400 to an OpenAI stream_options field
    error_after: int | None = None  # streaming: send an error event after this many text deltas
    drop_after: int | None = None  # streaming: hang up (no clean end) after this many deltas


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    wire: str  # "anthropic" or "openai"
    closed_early: bool = False  # the client hung up while we were still streaming

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    @property
    def model(self) -> str:
        return str(self.body.get("model", ""))

    @property
    def prompt_text(self) -> str:
        """System prompt and every message's text, joined: what the model was asked."""
        return prompt_text(self.body)


def prompt_text(body: dict[str, Any]) -> str:
    parts = [_content_text(body.get("system", ""))]
    parts += [_content_text(m.get("content", "")) for m in body.get("messages", [])]
    return "\n".join(p for p in parts if p)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def pick_function_answer(text: str, functions: dict[str, str]) -> str | None:
    """The answer for the function the prompt asks about: the key whose `def name(` comes first;
    a qualname key ("Cls.meth") wins over a bare name when the qualname appears in the prompt."""
    best: tuple[int, int, str] | None = None
    for key, answer in functions.items():
        name = key.rsplit(".", 1)[-1]
        found = re.search(rf"\bdef\s+{re.escape(name)}\s*\(", text)
        if not found:
            continue
        qual_bonus = 0 if "." in key and key in text else 1
        rank = (qual_bonus, found.start(), answer)
        if best is None or rank[:2] < best[:2]:
            best = rank
    return best[2] if best else None


def as_markdown(answer: str) -> str:
    """Wrap a bare def in prose and a fence, as a chatty model would; leave fenced text alone."""
    if "```" in answer or not answer.strip():
        return answer
    return f"Here is the corrected function:\n\n```python\n{answer.rstrip()}\n```\n"


class FakeModelServer:
    """Threaded HTTP server; scripted by push(), a responder callable, or a functions map."""

    def __init__(
        self,
        responder: Callable[[dict[str, Any]], str] | None = None,
        functions: dict[str, str] | None = None,
        default: str = "I cannot help with that.",
        models: set[str] | None = None,
        port: int = 0,
        requests_file: str | None = None,
    ):
        self.responder = responder
        self.functions = dict(functions or {})
        self.default = default
        self.models = models  # when set, other model names get a 404
        self.pace: dict[str, float] = {}  # Reply delays for unqueued answers, e.g. chunk_delay
        self.requests: list[RecordedRequest] = []
        self.requests_file = requests_file
        self._queue: collections.deque[Reply] = collections.deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.fake = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    # -- life cycle -------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def anthropic_url(self) -> str:
        return self.url  # the anthropic SDK appends /v1/messages

    @property
    def openai_url(self) -> str:
        return self.url + "/v1"  # the openai SDK appends /chat/completions

    def start(self) -> FakeModelServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def close(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- scripting --------------------------------------------------------------------------
    def push(self, text: str = "", **reply: Any) -> Reply:
        """Queue one reply (answers are served in order, before responder/functions/default)."""
        item = Reply(text=text, **reply)
        with self._lock:
            self._queue.append(item)
        return item

    def push_error(self, status: int, message: str = "", **reply: Any) -> Reply:
        return self.push(status=status, error=message or f"fake error {status}", **reply)

    def next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is not None:
            return Reply(text=self.responder(body), **self.pace)
        answer = pick_function_answer(prompt_text(body), self.functions)
        text = as_markdown(answer) if answer is not None else self.default
        return Reply(text=text, **self.pace)

    def record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)
            if self.requests_file:
                with open(self.requests_file, "a", encoding="utf-8") as out:
                    out.write(json.dumps({"path": request.path, "body": request.body}) + "\n")

    def sleep(self, seconds: float) -> bool:
        """Sleep unless the server is stopping; False when it is."""
        return not self._stopping.wait(seconds) if seconds > 0 else True


_ids = itertools.count(1)


def estimate_tokens(text: str) -> int:
    return max(1, len(text) // 4)


def split_chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), max(1, size))] or [""]


# -- wire formats ----------------------------------------------------------------------------
def anthropic_message(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": f"msg_fake{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "fake"),
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": estimate_tokens(prompt_text(body)),
            "output_tokens": estimate_tokens(text),
        },
    }


def anthropic_events(body: dict[str, Any], text: str, chunk_size: int):
    message = anthropic_message(body, "")
    message["content"], message["stop_reason"] = [], None
    message["usage"]["output_tokens"] = 1
    yield "message_start", {"type": "message_start", "message": message}
    block = {"type": "text", "text": ""}
    yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
    yield "ping", {"type": "ping"}
    for piece in split_chunks(text, chunk_size):
        delta = {"type": "text_delta", "text": piece}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    usage = {"output_tokens": estimate_tokens(text)}
    delta = {"stop_reason": "end_turn", "stop_sequence": None}
    yield "message_delta", {"type": "message_delta", "delta": delta, "usage": usage}
    yield "message_stop", {"type": "message_stop"}


def anthropic_error(status: int, message: str) -> dict[str, Any]:
    kind = ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def openai_usage(body: dict[str, Any], text: str) -> dict[str, int]:
    prompt, completion = estimate_tokens(prompt_text(body)), estimate_tokens(text)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def openai_completion(body: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-fake{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": openai_usage(body, text),
    }


def openai_chunks(body: dict[str, Any], text: str, chunk_size: int):
    base = {
        "id": f"chatcmpl-fake{next(_ids)}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    yield chunk({"role": "assistant", "content": ""})
    for piece in split_chunks(text, chunk_size):
        yield chunk({"content": piece})
    yield chunk({}, "stop")
    if (body.get("stream_options") or {}).get("include_usage"):
        yield {**base, "choices": [], "usage": openai_usage(body, text)}


def openai_error(status: int, message: str) -> dict[str, Any]:
    code = {401: "invalid_api_key", 404: "model_not_found", 429: "rate_limit_exceeded"}
    error = {"message": message, "type": ERROR_TYPES.get(status, "api_error"), "param": None}
    return {"error": {**error, "code": code.get(status)}}


# -- HTTP -----------------------------------------------------------------------------------
class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeModel/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    @property
    def fake(self) -> FakeModelServer:
        return self.server.fake  # type: ignore[attr-defined]

    def do_POST(self) -> None:  # noqa: N802 (http.server naming)
        path = self.path.split("?", 1)[0].rstrip("/")
        wire = "anthropic" if path in ANTHROPIC_PATHS else "openai" if path in OPENAI_PATHS else ""
        length = int(self.headers.get("content-length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            body = {}
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = RecordedRequest(path=path, headers=headers, body=body, wire=wire)
        self.fake.record(request)
        if not wire:
            return self.send_json(404, openai_error(404, f"unknown path {path}"))
        self.answer(request, self.fake.next_reply(body))

    def answer(self, request: RecordedRequest, reply: Reply) -> None:
        if not self.fake.sleep(reply.first_byte_delay):
            return
        status, message = reply.status, reply.error
        models = self.fake.models
        if status < 400 and models is not None and request.model not in models:
            status, message = 404, f"model: {request.model} not found"
        if status < 400 and reply.reject_stream_options and "stream_options" in request.body:
            status, message = 400, "Unrecognized request argument supplied: stream_options"
        if status >= 400:
            error = anthropic_error if request.wire == "anthropic" else openai_error
            return self.send_json(status, error(status, message), reply.headers)
        if not request.stream:
            make = anthropic_message if request.wire == "anthropic" else openai_completion
            return self.send_json(200, make(request.body, reply.text), reply.headers)
        try:
            self.stream(request, reply)
        except (BrokenPipeError, ConnectionResetError):
            request.closed_early = True

    def send_json(self, status: int, payload: dict[str, Any], extra: dict | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def stream(self, request: RecordedRequest, reply: Reply) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.end_headers()
        anthropic = request.wire == "anthropic"
        if anthropic:
            events = anthropic_events(request.body, reply.text, reply.chunk_size)
            frames = (
                (e == "content_block_delta", f"event: {e}\ndata: {json.dumps(d)}\n\n")
                for e, d in events
            )
        else:
            chunks = openai_chunks(request.body, reply.text, reply.chunk_size)
            frames = (
                (any(c["delta"].get("content") for c in d["choices"]), f"data: {json.dumps(d)}\n\n")
                for d in chunks
            )
        deltas = 0
        for is_text, frame in frames:
            if is_text and deltas == reply.error_after:
                return self.send_stream_error(anthropic, reply)
            if is_text and deltas == reply.drop_after:
                return  # HTTP/1.0 without a length: closing now is an unclean end of stream
            deltas += is_text
            self.send_event(frame, reply, slow=is_text)
        if not anthropic:
            self.send_event("data: [DONE]\n\n", reply)

    def send_stream_error(self, anthropic: bool, reply: Reply) -> None:
        message = reply.error or "Overloaded"
        if anthropic:
            payload = json.dumps(anthropic_error(529, message))
            self.send_event(f"event: error\ndata: {payload}\n\n", reply)
        else:
            self.send_event(f"data: {json.dumps(openai_error(500, message))}\n\n", reply)

    def send_event(self, text: str, reply: Reply, slow: bool = False) -> None:
        self.wfile.write(text.encode())
        self.wfile.flush()
        if slow and not self.fake.sleep(reply.chunk_delay):
            raise BrokenPipeError("server stopping")


# -- pytest fixture and command line --------------------------------------------------------
try:
    import pytest
except ImportError:  # the subprocess mode must not need pytest
    pytest = None

if pytest is not None:

    @pytest.fixture
    def fake_model():
        """A started FakeModelServer, closed after the test."""
        with FakeModelServer() as server:
            yield server


def load_answers(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict):
        raise SystemExit(f"{path}: expected a JSON object")
    if not {"functions", "default", "queue"} & data.keys():
        data = {"functions": data}
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", help="write the port here once listening")
    parser.add_argument("--answers-file", "--answer-file", dest="answers_file")
    parser.add_argument("--requests-file", help="append each request as a JSON line")
    args = parser.parse_args(argv)
    answers = load_answers(args.answers_file) if args.answers_file else {}
    server = FakeModelServer(
        functions=answers.get("functions"),
        default=answers.get("default", "I cannot help with that."),
        port=args.port,
        requests_file=args.requests_file,
    )
    server.pace = {
        k: float(answers[k]) for k in ("first_byte_delay", "chunk_delay") if k in answers
    }
    for item in answers.get("queue", []):  # a text, or Reply fields like {"status": 429, ...}
        server.push(**item) if isinstance(item, dict) else server.push(item)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    server.start()
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as out:
            out.write(str(server.port))
        os.replace(tmp, args.port_file)
    print(f"fake model listening on {server.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except (KeyboardInterrupt, SystemExit):
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
