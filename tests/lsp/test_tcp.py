"""`heal-ls serve --tcp HOST:PORT --log-file F`: the same server over a socket, logging to F."""

import asyncio
import socket
import subprocess
import sys

import pytest
from heal_ls.lsp.serve import parse_host_port
from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

pytestmark = pytest.mark.lsp


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def connect(client: LanguageClient, port: int, process) -> None:
    for _ in range(200):
        assert process.poll() is None, process.stderr.read()
        try:
            await client.start_tcp("127.0.0.1", port)
            return
        except OSError:
            await asyncio.sleep(0.1)
    raise AssertionError("the server never listened")


async def test_serve_over_tcp_with_a_log_file(tmp_path):
    port, log = free_port(), tmp_path / "heal.log"
    command = [sys.executable, "-m", "heal_ls", "serve", "--tcp", f"127.0.0.1:{port}"]
    process = subprocess.Popen(
        [*command, "--log-file", str(log)], stderr=subprocess.PIPE, text=True
    )
    client = LanguageClient("tcp-test", "0")
    for method in ("window/logMessage", "window/showMessage", "heal/status"):
        client.feature(method)(lambda params: None)
    try:
        await connect(client, port, process)
        result = await client.initialize_async(
            t.InitializeParams(capabilities=t.ClientCapabilities(), root_uri=tmp_path.as_uri())
        )
        assert result.server_info.name == "heal-ls"
        failures = await client.protocol.send_request_async("heal/failures", {})
        assert failures.failures == []
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
        process.kill()
        process.wait(timeout=10)
    assert "heal-ls" in log.read_text() and "serving" in log.read_text()


def test_tcp_address_parsing():
    assert parse_host_port("127.0.0.1:2087") == ("127.0.0.1", 2087)
    assert parse_host_port(":2087") == ("127.0.0.1", 2087)
    with pytest.raises(ValueError, match="HOST:PORT"):
        parse_host_port("localhost")
