"""Per-call cost of each way of recording, in one process: 3 million calls of workspace
functions inside one recording (one "test").

    PYTHON benchmarks/hits_monitoring/calls.py plain|instrumented|monitorB|monitorC
"""

import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
AGENT = os.path.join(HERE, "..", "..", "server", "heal_ls", "testing", "agent")
WORK = "def leaf(x):\n    return x + 1\n\n\ndef mid(x):\n    return leaf(x) * 2\n\n\n" + (
    "def run(n):\n    total = 0\n    for i in range(n):\n        total += mid(i)\n    return total\n"
)


def main() -> None:
    mode = sys.argv[1]
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "work.py"), "w") as handle:
        handle.write(WORK)
    sys.path[:0] = [folder, HERE, AGENT]
    os.environ["HEAL_MON_MODE"] = mode[-1]
    hits: set = set()
    if mode != "plain":
        recorder = __import__("heal_hits" if mode == "instrumented" else "monitor_hits")
        recorder.install(lambda path: os.path.dirname(os.path.abspath(path)) == folder)
        recorder.record_into(hits.add)
    import work  # type: ignore[import-not-found]

    n, best = 1_000_000, float("inf")
    for _ in range(5):
        started = time.perf_counter()
        work.run(n)
        best = min(best, time.perf_counter() - started)
    version = sys.version.split()[0]
    print(f"{version} {mode:12s} {best * 1e9 / n / 3:.0f} ns a call ({len(hits)} functions)")


if __name__ == "__main__":
    main()
