"""Over stdio, fd 1 belongs to the protocol: a stray print in the server cannot corrupt it."""

import asyncio
import os
import sys

import pytest
from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

pytestmark = pytest.mark.lsp

NOISY_SERVER = r"""
from heal_ls.lsp.workspace import status
original = status.failures_payload
def noisy(ls):
    print("Content-Length: 300\r\n\r\n{")  # a header that would swallow the real answer
    os.system("echo a child writing to stdout")
    return original(ls)
status.failures_payload = noisy
from heal_ls.cli import main
main(["serve"])
"""


async def test_stray_prints_do_not_corrupt_the_protocol(tmp_path):
    client = LanguageClient("stdio-test", "0")
    for method in ("window/logMessage", "window/showMessage", "heal/status"):
        client.feature(method)(lambda params: None)
    await client.start_io(sys.executable, "-c", "import os\n" + NOISY_SERVER, env=dict(os.environ))
    try:
        await client.initialize_async(
            t.InitializeParams(capabilities=t.ClientCapabilities(), root_uri=tmp_path.as_uri())
        )
        for _ in range(3):
            answer = client.protocol.send_request_async("heal/failures", {})
            failures = await asyncio.wait_for(answer, 20)
            assert failures.failures == []
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        await client.stop()
