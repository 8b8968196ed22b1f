"""One traced heal-ls pytest run of a project, recording which functions ran one of three ways.

    python benchmarks/hits_monitoring/run.py PYTHON ROOT MODE [PYTEST ARGS...]

MODE: `instrumented` (heal-ls's recorder: workspace modules compiled with a call at the top of
each def, testing/agent/heal_hits.py), `monitorB` or `monitorC` (the prototype beside this file:
sys.monitoring PY_START on 3.12+; B calls back on every workspace call, C once per function per
test, restarting events at each test), or `plain` (no recording). Prints the session line and
the number of (test, function) hits; DUMP=FILE writes each test's functions as JSON, to compare
the modes. Time two modes side by side with farm-bench (benchmarks/RESULTS.md, sys.monitoring).
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from heal_ls.testing.invocation import PLUGIN_DIR, build_pytest_invocation
from heal_ls.testing.options import RunOptions

HERE = Path(__file__).resolve().parent


def monitored_agent(folder: str) -> str:
    """A copy of the agent whose watcher records through monitor_hits instead of heal_hits."""
    agent = os.path.join(folder, "agent")
    shutil.copytree(PLUGIN_DIR, agent, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(HERE / "monitor_hits.py", agent)
    watch = Path(agent, "heal_watch.py")
    watch.write_text(
        watch.read_text().replace("import heal_hits\n", "import monitor_hits as heal_hits\n")
    )
    return agent


def main() -> None:
    python, root, mode, *args = sys.argv[1:]
    options = RunOptions(python=python, pytest_args=tuple(args), trace=mode != "plain")
    inv = build_pytest_invocation(root, options, serial=True)
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(inv.env)
        if mode.startswith("monitor"):
            env["PYTHONPATH"] = env["PYTHONPATH"].replace(PLUGIN_DIR, monitored_agent(scratch))
            env["HEAL_MON_MODE"] = mode[-1]
        done = subprocess.run(inv.command, env=env, cwd=inv.cwd, capture_output=True, text=True)
    ran: dict[str, list[str]] = {}
    with open(inv.report_path, encoding="utf-8") as handle:
        for line in handle:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and row.get("nodeid") and "covered" in row:
                ran.setdefault(row["nodeid"], []).extend(row["covered"] or [])
    inv.cleanup()
    if os.environ.get("DUMP"):
        Path(os.environ["DUMP"]).write_text(json.dumps(ran))
    last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
    print(mode, last, "hits", sum(map(len, ran.values())), file=sys.stderr)


if __name__ == "__main__":
    main()
