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


WIRE_NAMES = {
    f'"HEAL_LS_{n}"': f"wire.{n}"
    for n in ("REPORT", "ROOT", "TRACE", "TEST_TIMEOUT", "OVERLAY", "SCRIPT_TIMEOUT", "SEAL")
}
SERVER_SIDE = [
    "server/heal_ls/testing/invocation.py",
    "server/heal_ls/testing/script.py",
    "server/heal_ls/testing/warm/client.py",
]
AGENT_SIDE = [str(AGENT / "heal_pytest_plugin.py"), str(AGENT / "heal_overlay.py")]


def _wire_names(path: str) -> int:
    """Replace the env-name string literals (code only, not docstrings) by wire.NAME."""
    import io
    import tokenize

    text = Path(path).read_text()
    lines = text.splitlines(keepends=True)
    edits = [
        (tok.start, tok.end, WIRE_NAMES[tok.string])
        for tok in tokenize.generate_tokens(io.StringIO(text).readline)
        if tok.type == tokenize.STRING and tok.string in WIRE_NAMES
    ]
    for (row, col), (_, end), new in reversed(edits):
        lines[row - 1] = lines[row - 1][:col] + new + lines[row - 1][end:]
    Path(path).write_text("".join(lines))
    return len(edits)


def protocol() -> None:
    shutil.copy(HERE / "heal_protocol.py", AGENT / "heal_protocol.py")
    subprocess.run(["git", "add", str(AGENT / "heal_protocol.py")], check=True)
    inv = "server/heal_ls/testing/invocation.py"
    edit(inv, 'PLUGIN_NAME = "heal_pytest_plugin"\n', "PLUGIN_NAME = wire.PLUGIN_NAME\n")
    script = "server/heal_ls/testing/script.py"
    edit(
        script,
        'os.path.join(PLUGIN_DIR, "heal_overlay.py")',
        "os.path.join(PLUGIN_DIR, wire.OVERLAY_BOOT)",
    )
    for path in SERVER_SIDE + AGENT_SIDE:
        if _wire_names(path) == 0:
            sys.exit(f"after_move.py: no wire names found in {path}")
        line = (
            "import heal_protocol as wire\n"
            if path in AGENT_SIDE
            else ("from heal_ls.testing.agent import heal_protocol as wire\n")
        )
        add_import(path, line)


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
