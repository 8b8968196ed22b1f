"""A minimal Debug Adapter Protocol client: a raw socket with Content-Length framed JSON."""

from __future__ import annotations

import json
import socket
import time


class DapClient:
    def __init__(self, host: str, port: int, timeout: float = 60.0):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buffer = b""
        self.seq = 0
        self.events: list[dict] = []
        self.responses: dict[int, dict] = {}

    def send(self, command: str, **arguments) -> int:
        self.seq += 1
        body = json.dumps(
            {"seq": self.seq, "type": "request", "command": command, "arguments": arguments}
        ).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self.seq

    def _read_message(self) -> dict:
        while b"\r\n\r\n" not in self.buffer:
            self._fill()
        header, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        length = int(
            next(line for line in header.split(b"\r\n") if line.startswith(b"Content-Length:"))
            .split(b":")[1]
            .strip()
        )
        while len(self.buffer) < length:
            self._fill()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return json.loads(body)

    def _fill(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the debug adapter closed the connection")
        self.buffer += chunk

    def _pump_until(self, found, timeout: float):
        deadline = time.monotonic() + timeout
        while (result := found()) is None:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from the debug adapter")
            message = self._read_message()
            if message["type"] == "event":
                self.events.append(message)
            elif message["type"] == "response":
                self.responses[message["request_seq"]] = message
        return result

    def response(self, seq: int, timeout: float = 60.0) -> dict:
        return self._pump_until(lambda: self.responses.get(seq), timeout)

    def request(self, command: str, timeout: float = 60.0, **arguments) -> dict:
        answer = self.response(self.send(command, **arguments), timeout)
        assert answer["success"], answer
        return answer.get("body") or {}

    def event(self, name: str, timeout: float = 60.0) -> dict:
        return self._pump_until(
            lambda: next((e for e in self.events if e["event"] == name), None), timeout
        )

    def close(self) -> None:
        self.sock.close()
