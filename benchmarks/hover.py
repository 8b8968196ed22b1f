"""textDocument/hover latency on a heal diagnostic, through the real server over stdio.

The project of benchmarks/code_action.py (a 5,000-line module, one failing function), made a
git repository with commits touching the failing function. After one run, hovers alternate
between the Error's line (frames, locals, the function's commits: the first asks git, the
rest come from the cache) and random lines (no failure: nothing), each followed by a
`heal/failures` request as the round-trip baseline.

    python benchmarks/hover.py [--requests 300]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from code_action import percentile, run_server, stop_server, write_project
from lsprotocol import types as t


def commit_twice(root: Path, module: Path) -> None:
    git = ["git", "-c", "user.name=bench", "-c", "user.email=b@example.org"]
    git += ["-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "."], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "first"], cwd=root, check=True)
    module.write_text(module.read_text().replace('"""The mean', '"""The  mean'))
    subprocess.run([*git, "commit", "-qam", "second"], cwd=root, check=True)


async def measure(root: Path, module: Path, requests: int):
    client, published = await run_server(root)
    uri = module.as_uri()
    line = published[uri][0].range.start.line
    first, on_error, elsewhere, baseline = 0.0, [], [], []
    for i in range(requests):
        where = line if i % 2 == 0 else (i * 37) % 4000
        params = t.HoverParams(t.TextDocumentIdentifier(uri), t.Position(where, 4))
        started = time.perf_counter()
        found = await client.text_document_hover_async(params)
        took = (time.perf_counter() - started) * 1000
        if i == 0:
            first = took
            assert found is not None and "second" in found.contents.value, found
        else:
            (on_error if where == line else elsewhere).append(took)
        started = time.perf_counter()
        await client.protocol.send_request_async("heal/failures", {})
        baseline.append((time.perf_counter() - started) * 1000)
    await stop_server(client)
    return first, on_error, elsewhere, baseline


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="heal-bench-") as tmp:
        module = write_project(Path(tmp), 5000)
        commit_twice(Path(tmp), module)
        first, on_error, elsewhere, baseline = asyncio.run(
            measure(Path(tmp), module, args.requests)
        )
    print(f"first hover on the Error (asks git): {first:.1f} ms")
    print(f"{'request':<30}{'p50 ms':>10}{'p99 ms':>10}")
    rows = (
        ("hover on the Error (cached)", on_error),
        ("hover elsewhere", elsewhere),
        ("heal/failures (baseline)", baseline),
    )
    for name, samples in rows:
        print(f"{name:<30}{statistics.median(samples):>10.2f}{percentile(samples, 0.99):>10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
