#!/usr/bin/env python3
"""Phase B, after move.py: the agent's wire protocol in one module, mypy in `make lint`, and the
Architecture section. Exact text edits that fail loudly when main changed under them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
AGENT = Path("server/heal_ls/testing/agent")


def edit(path: str, old: str, new: str, count: int = 1) -> None:
    p = Path(path)
    text = p.read_text()
    if text.count(old) != count:
        sys.exit(f"after_move.py: {path}: expected {count}x:\n{old}")
    p.write_text(text.replace(old, new))


def protocol() -> None:
    shutil.copy(HERE / "heal_protocol.py", AGENT / "heal_protocol.py")
    subprocess.run(["git", "add", str(AGENT / "heal_protocol.py")], check=True)
    inv = "server/heal_ls/testing/invocation.py"
    edit(inv, 'PLUGIN_NAME = "heal_pytest_plugin"\n', "PLUGIN_NAME = wire.PLUGIN_NAME\n")
    edit(
        inv,
        '"PYTEST_VERSION", "HEAL_LS_REPORT", "HEAL_LS_OVERLAY")',
        '"PYTEST_VERSION", wire.REPORT, wire.OVERLAY)',
    )
    edit(inv, 'env["HEAL_LS_OVERLAY"] = write_overlay', "env[wire.OVERLAY] = write_overlay")
    edit(inv, 'env["HEAL_LS_REPORT"] = report_path', "env[wire.REPORT] = report_path")
    edit(inv, 'env["HEAL_LS_ROOT"] = root', "env[wire.ROOT] = root")
    edit(inv, 'env["HEAL_LS_TRACE"] = "1"', 'env[wire.TRACE] = "1"')
    edit(inv, 'env["HEAL_LS_TEST_TIMEOUT"] = ', "env[wire.TEST_TIMEOUT] = ")
    add_import(inv, "from heal_ls.testing.agent import heal_protocol as wire\n")
    script = "server/heal_ls/testing/script.py"
    edit(
        script,
        'os.path.join(PLUGIN_DIR, "heal_overlay.py")',
        "os.path.join(PLUGIN_DIR, wire.OVERLAY_BOOT)",
    )
    edit(script, 'env["HEAL_LS_SCRIPT_TIMEOUT"] = ', "env[wire.SCRIPT_TIMEOUT] = ")
    edit(script, 'env["HEAL_LS_OVERLAY"] = path', "env[wire.OVERLAY] = path")
    add_import(script, "from heal_ls.testing.agent import heal_protocol as wire\n")
    plugin = str(AGENT / "heal_pytest_plugin.py")
    for name in ("OVERLAY", "REPORT", "ROOT", "TEST_TIMEOUT", "TRACE"):
        edit(plugin, f'os.environ.get("HEAL_LS_{name}")', f"os.environ.get(wire.{name})")
    add_import(plugin, "import heal_protocol as wire\n")
    boot = str(AGENT / "heal_overlay.py")
    edit(boot, 'os.environ.pop("HEAL_LS_OVERLAY", "")', 'os.environ.pop(wire.OVERLAY, "")')
    edit(
        boot,
        'os.environ.pop("HEAL_LS_SCRIPT_TIMEOUT", "0")',
        'os.environ.pop(wire.SCRIPT_TIMEOUT, "0")',
    )
    add_import(boot, "import heal_protocol as wire\n")


def add_import(path: str, line: str) -> None:
    sys.path.insert(0, str(HERE))
    from move import _add_import

    p = Path(path)
    p.write_text(_add_import(p.read_text(), line))


MYPY = """
[tool.mypy]
python_version = "3.10"
files = ["server/heal_ls"]
exclude = ["server/heal_ls/testing/agent/"]  # checked on its own: top-level modules there
warn_unused_ignores = true
warn_redundant_casts = true
strict_equality = true
check_untyped_defs = true

[[tool.mypy.overrides]]
module = [
  "heal_ls.models",
  "heal_ls.diagnose",
  "heal_ls.lsp.protocol",
  "heal_ls.pysource.parse",
  "heal_ls.pysource.source",
  "heal_ls.pysource.indent",
]
disallow_untyped_defs = true
disallow_incomplete_defs = true
"""


def mypy() -> None:
    edit("pyproject.toml", '  "ruff>=0.8",\n', '  "ruff>=0.8",\n  "mypy>=1.10",\n')
    edit("pyproject.toml", "\n[tool.ruff]\n", MYPY + "\n[tool.ruff]\n")
    edit(
        "Makefile",
        "\t$(BIN)/ruff format --check .\n",
        "\t$(BIN)/ruff format --check .\n"
        "\t$(BIN)/mypy\n"
        "\tMYPYPATH=server/heal_ls/testing/agent $(BIN)/mypy --no-check-untyped-defs "
        "--explicit-package-bases "
        "server/heal_ls/testing/agent/*.py\n",
    )


README_SECTION = """## Architecture

One pipeline, three faces. `diagnose.py` runs the tests (or a script) and locates each failure
(`locate/`); `heal/` asks the local repairer (`repair/`) or a model (`llm/`) for a fix and
verifies each candidate by running the tests on it (`testing/`, with `testing/agent/` inside your
interpreter); `pysource/` splices the one node. `commands/` (check, fix, bench) and `lsp/` only
translate. Modules sit on floors and never import upwards or in a circle (a test checks it):
models/pysource -> testing/locate/llm/repair -> heal -> diagnose -> commands/bench/lsp.
Details and the data flow: [docs/architecture.md](docs/architecture.md).

"""


def docs() -> None:
    shutil.copy(HERE / "architecture.md", "docs/architecture.md")
    subprocess.run(["git", "add", "docs/architecture.md"], check=True)
    edit("README.md", "\n## Tests\n", "\n" + README_SECTION + "## Tests\n")


if __name__ == "__main__":
    steps = sys.argv[1:] or ["protocol", "mypy", "docs"]
    for step in steps:
        globals()[step]()
