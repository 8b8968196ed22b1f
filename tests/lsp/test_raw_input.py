"""Raw bytes from a broken or hostile client, over a real stdio pipe: every bad frame is logged,
answered with a JSON-RPC error when its id is known, never popped up, and the server keeps
serving the next request."""

from __future__ import annotations

import itertools
import json
import os
import queue
import stat
import subprocess
import sys
import threading

import pytest

pytestmark = pytest.mark.lsp

SERVE = "from heal_ls.cli import main; raise SystemExit(main(['serve']))"


def frame(body: bytes | str, length=None) -> bytes:
    body = body.encode() if isinstance(body, str) else body
    return f"Content-Length: {len(body) if length is None else length}\r\n\r\n".encode() + body


def request(msg_id, method, params=None) -> bytes:
    return frame(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}))


class RawServer:
    def __init__(self, root, env=None, options=None):
        env = {**os.environ, "HEAL_LS_CACHE_DIR": str(root / ".cache"), **(env or {})}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", SERVE],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=root,
            env=env,
        )
        self.messages: queue.Queue = queue.Queue()
        self.seen: list[dict] = []
        threading.Thread(target=self._read, daemon=True).start()
        init = {"capabilities": {}, "rootUri": root.as_uri(), "initializationOptions": options}
        self.send(request(1, "initialize", init))
        self.answer(1)
        self.send(frame(json.dumps({"jsonrpc": "2.0", "method": "initialized", "params": {}})))

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            length = None
            while (line := out.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if not line or length is None:
                return
            self.messages.put(json.loads(out.read(length)))

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self, msg_id, timeout=30.0) -> dict:
        """The response to `msg_id`, whether it already arrived or is still to come."""
        while True:
            for message in self.seen:
                if message.get("id") == msg_id and "method" not in message:
                    return message
            self.seen.append(self.messages.get(timeout=timeout))

    def settle(self, msg_id: int) -> None:
        """Forget what came so far: every answer to an earlier frame precedes the answer to
        this request (the server answers in order), so a test sees only its own."""
        self.send(request(msg_id, "heal/failures", {}))
        self.answer(msg_id)
        while not self.messages.empty():
            self.messages.get()
        self.seen = []

    def popups(self) -> list[str]:
        return [
            m["params"]["message"] for m in self.seen if m.get("method") == "window/showMessage"
        ]

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


SETTLE_IDS = itertools.count(1000)


@pytest.fixture(scope="module")
def one_server(tmp_path_factory):
    server = RawServer(tmp_path_factory.mktemp("raw"))
    yield server
    server.close()


@pytest.fixture
def raw_server(one_server):
    """The module's one server (each frame below is one it must survive and keep serving
    after), with what earlier tests' frames got answered forgotten."""
    one_server.settle(next(SETTLE_IDS))
    return one_server


BAD_FRAMES = {
    "non_numeric_length": b"Content-Length: abc\r\n\r\n" + json.dumps(
        {"jsonrpc": "2.0", "id": 7, "method": "heal/failures", "params": {}}
    ).encode(),
    "huge_length": frame('{"jsonrpc": "2.0", "id": 7, "method": "heal/failures"}', 10**12),
    "deep_nesting": frame('{"jsonrpc": "2.0", "id": 7, "method": "heal/failures", "params": '
                          + "[" * 100_000 + "]" * 100_000 + "}"),
    "not_json": frame('{"jsonrpc": "2.0", "id": 7, "method": "heal/failures", params}'),
    "bad_params": frame(json.dumps({"jsonrpc": "2.0", "id": 7,
                                    "method": "textDocument/codeAction", "params": {"x": 1}})),
    "bad_utf8": frame(b'{"jsonrpc": "2.0", "id": 7, "method": "x\xff\xfe"}'),
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(BAD_FRAMES))
def test_a_bad_frame_gets_an_error_and_the_server_keeps_serving(kind, raw_server):
    raw_server.send(BAD_FRAMES[kind])
    raw_server.send(request(8, "heal/failures", {}))
    answer = raw_server.answer(8)
    assert answer["result"]["failures"] == []  # still serving, nothing lost after the bad frame
    error = raw_server.answer(7, timeout=10)  # the bad frame's own answer, read by its id
    assert error["error"]["code"] < 0 and error["error"]["message"]
    assert raw_server.popups() == []


def test_malformed_notifications_are_silent_and_harmless(raw_server):
    junk = [
        frame('{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"a": 1}}'),
        frame('"just a string"'),
        frame("[1, 2, 3]"),
        b"garbage outside any frame\r\n",
    ]
    for data in junk:
        raw_server.send(data)
    raw_server.send(request(9, "heal/failures", {}))
    assert raw_server.answer(9)["result"]["failures"] == []
    assert raw_server.popups() == []


def test_the_log_is_private_and_holds_no_url_credentials(tmp_path):
    state = tmp_path / "state"
    secret_url = "https://alice:hunter2secret@models.example/v1"
    server = RawServer(
        tmp_path,
        env={"XDG_STATE_HOME": str(state), "HEAL_LS_LOG_DIR": ""},  # the default folder
        options={"heal": {"baseUrl": secret_url}},
    )
    try:
        server.send(request(2, "heal/failures", {}))
        server.answer(2)
    finally:
        server.close()
    folder = state / "heal-ls" / "logs"
    logs = list(folder.glob("heal-ls-*.log"))
    assert len(logs) == 1
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(logs[0].stat().st_mode) == 0o600
    text = logs[0].read_text()
    assert "models.example" in text and "hunter2secret" not in text and "alice" not in text
