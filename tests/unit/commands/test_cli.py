"""The command line dispatcher: exit codes and one-line errors, no traceback dumps."""

import subprocess
import sys

from heal_ls import __version__
from heal_ls.cli import main


def run_cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "heal_ls", *args], capture_output=True, text=True, timeout=60
    )


def test_version():
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"heal-ls {__version__}"


def test_unknown_subcommand_is_a_usage_error():
    proc = run_cli("frobnicate")
    assert proc.returncode == 2
    assert "invalid choice" in proc.stderr


def test_fix_rejects_a_missing_directory_in_one_line(tmp_path, capsys):
    assert main(["fix", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "not a directory" in err and "Traceback" not in err


def test_fix_rejects_zero_attempts(tmp_path, capsys):
    assert main(["fix", str(tmp_path), "--max-attempts", "0"]) == 2
    assert "at least 1" in capsys.readouterr().err


def test_check_does_not_import_the_language_server():
    code = (
        "import sys; from heal_ls.cli import build_parser; build_parser('check');"
        "print('pygls' in sys.modules, 'lsprotocol' in sys.modules)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.split() == ["False", "False"], proc.stderr
