"""A src layout installed in editable mode (no `pythonpath` in the config): the interpreter finds
the package through the `.pth` file `pip install -e` writes, and `heal-ls check --python` with that
interpreter counts what plain pytest counts and blames the function under src/."""

import json
import shutil
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from helpers.cli import heal_check

pytestmark = pytest.mark.e2e

SETUP = Path(__file__).resolve().parents[1] / "setups" / "src_layout"


def editable_venv(where: Path, src: Path) -> str:
    """A venv whose site-packages holds what `pip install -e` leaves for a setuptools src
    layout (`__editable__.basket-0.1.pth` naming src/), and a .pth reaching this interpreter's
    packages for pytest (as --system-site-packages would)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = [sysconfig.get_paths()["purelib"], *site.getsitepackages()]
    (Path(purelib) / "heal-test-host.pth").write_text("\n".join(dict.fromkeys(ours)) + "\n")
    (Path(purelib) / "__editable__.basket-0.1.pth").write_text(f"{src}\n")
    return str(python)


def test_an_editable_src_layout_is_checked_like_pytest_runs_it(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(SETUP, root)
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    python = editable_venv(tmp_path / "venv", root / "src")
    plain = subprocess.run(
        [python, "-m", "pytest", "-p", "no:cacheprovider", "-q"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert plain.stdout.splitlines()[-1].startswith("1 failed, 4 passed"), plain.stdout
    result = heal_check("--json", "--python", python, cwd=root)
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    assert (doc["failed"], doc["passed"], doc["errors"]) == (1, 4, 0)
    [failure] = doc["failures"]
    top = failure["suspects"][0]
    assert (top["path"], top["qualname"]) == ("src/basket/prices.py", "shipping")
