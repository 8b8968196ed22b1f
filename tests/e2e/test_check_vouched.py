"""A re-check runs the requested test and what the impact map cannot vouch for, not the file.

`heal-ls check --test F::t` runs all of F: its other passing tests are the ranking's contrast.
Once the map holds F's tests with their blocks (the first check wrote them), a re-check after
an edit runs the requested test, the tests that ran the edited function, and nothing else of
F: the others' last run is recalled from the map (testing/focus.py, impact/vouch.py). These
tests run the real inventory example and compare with a whole-file run.
"""

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from heal_ls.impact.store import ImpactMap
from heal_ls.impact.vouch import vouched_tests
from heal_ls.testing.focus import Focus
from heal_ls.testing.options import RunOptions
from heal_ls.testing.runner import run_pytest

pytestmark = pytest.mark.e2e

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "inventory"
FILE = "tests/test_inventory.py"
TARGET = f"{FILE}::test_remove_all"
SOURCE = "shop/inventory.py"
COUNT = "        return self.items.get(name, 0)\n"
OTHERS = ("test_add_counts_up", "test_remove_some", "test_remove_too_many")  # in file order


@pytest.fixture
def project(tmp_path):
    shutil.copytree(EXAMPLE, tmp_path / "inventory")
    return tmp_path / "inventory"


def check(project, cache=None, env=None) -> dict:
    """`heal-ls check --json --test TARGET` (with `cache`: a cache folder of its own, so no map:
    the whole file runs, as on a first check)."""
    # one hash seed: among blocks of equal score, the one a reason names follows set order
    env = {
        **os.environ,
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONHASHSEED": "0",
        **(env or {}),
    }
    if cache is not None:
        env["HEAL_LS_CACHE_DIR"] = str(cache)
    cmd = [sys.executable, "-m", "heal_ls", "check", "--json", "--test", TARGET, str(project)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 1, done.stderr
    return json.loads(done.stdout)


def edit(project, old: str, new: str) -> None:
    path = project / SOURCE
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def ranking(document: dict) -> list:
    """What check located: each failure's suspects, in order, with reasons and lines."""
    return [(f["test"], f["suspects"]) for f in document["failures"]]


def shift_and_edit_count(project, new_count: str) -> None:
    """Lines added above every function (they all move down; their code is the same) and
    `Inventory.count` edited: the tests that ran it are stale."""
    edit(project, '"""A corner shop', '# stock\n# kept here\n"""A corner shop')
    edit(project, COUNT, new_count)


def test_a_recheck_runs_less_and_ranks_as_a_whole_file_run(project, tmp_path):
    first = check(project)
    assert (first["ran"], first["vouched"]) == (4, 0)  # no map yet: the whole file
    shift_and_edit_count(project, "        found = self.items.get(name, 0)\n        return found\n")
    again = check(project)
    # test_remove_all, and the two tests that ran the edited count(): test_remove_too_many
    # ran neither count() nor anything that moved inside, so the map vouches for it
    assert (again["ran"], again["vouched"]) == (3, 1)
    whole = check(project, cache=tmp_path / "no-map")
    assert (whole["ran"], whole["vouched"]) == (4, 0)
    assert ranking(again) == ranking(whole)
    assert again["failures"][0]["suspects"][0]["qualname"] == "Inventory.remove"
    third = check(project)  # nothing changed since: only the requested test runs
    assert (third["ran"], third["vouched"]) == (1, 3)
    assert ranking(third) == ranking(whole)


def test_a_stale_test_runs_again_and_is_no_contrast_when_it_fails(project, tmp_path):
    """count() now caps at 2: test_add_counts_up and test_remove_some, passing at the first
    check, fail. They ran count(), so the re-check runs them (the map records them failed) and,
    as in a whole-file run, another failing test of the file is no contrast."""
    check(project)
    shift_and_edit_count(project, "        return min(self.items.get(name, 0), 2)\n")
    again = check(project)
    assert (again["ran"], again["vouched"]) == (3, 1)
    assert [f["test"] for f in again["failures"]] == [TARGET]  # not reported: not asked for
    with ImpactMap.open(str(project)) as impact:
        outcomes = {t.nodeid: t.outcome for t in impact.outcomes([FILE])}
    assert outcomes[f"{FILE}::test_add_counts_up"] == "failed"
    assert outcomes[f"{FILE}::test_remove_some"] == "failed"
    assert ranking(again) == ranking(check(project, cache=tmp_path / "no-map"))


def test_a_conftest_edit_makes_the_recheck_run_the_whole_file_again(project):
    """The map holds no function of a conftest.py (the traced runs never record test code), yet
    what it sets is what the tests see: once it changes, the map vouches for nothing under it."""
    conftest = project / "tests" / "conftest.py"
    conftest.write_text("import pytest\n\nSTOCK = 3\n")
    check(project)
    settled = check(project)
    assert (settled["ran"], settled["vouched"]) == (1, 3)
    conftest.write_text("import pytest\n\nSTOCK = 4\n")
    again = check(project)
    assert (again["ran"], again["vouched"]) == (4, 0)


def test_a_changed_pytest_configuration_is_no_blind_spot(project):
    """filterwarnings = error, a plugin in addopts: pytest's configuration steers every test."""
    check(project)
    config = project / "pytest.ini"
    config.write_text(config.read_text() + "filterwarnings = error\n")
    again = check(project)
    assert (again["ran"], again["vouched"]) == (4, 0)


def test_a_conftest_added_after_the_map_was_filled_is_no_blind_spot(project):
    """A new conftest.py's autouse fixture can fail every test under it; the map held none."""
    check(project)
    (project / "tests" / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef closed():\n    raise RuntimeError\n"
    )
    again = check(project)
    assert (again["ran"], again["vouched"]) == (4, 0)


def test_the_map_gives_back_a_tests_blocks_as_a_run_of_it_reports_them(project):
    """Record a whole-file run with blocks, move every function down and edit one: the tests
    the map still vouches for come back (functions and blocks, at their new lines) exactly as a
    fresh run of them reports them; the one that ran the edited function is not vouched for."""
    root = str(project)
    options = RunOptions(python=sys.executable).for_evidence()

    async def run(nodeids, recording=None):
        return await run_pytest(root, options, nodeids=nodeids, recording=recording)

    async def recorded():
        recording: list = []
        done = await run([FILE], recording)
        for write in recording:
            await write
        return done

    asyncio.run(recorded())
    shift_and_edit_count(project, "        found = self.items.get(name, 0)\n        return found\n")
    focus = Focus((TARGET,))
    vouched = vouched_tests(root, sys.executable, focus.files(), focus.wants)
    assert vouched == [f"{FILE}::test_remove_too_many"]
    with ImpactMap.open(root) as impact:
        recalled = impact.recall(vouched)
    fresh = asyncio.run(run(vouched)).tests
    assert recalled is not None and [t.nodeid for t in recalled] == vouched
    assert [(t.outcome, sorted(t.covered), t.blocks) for t in recalled] == [
        (t.outcome, sorted(t.covered), t.blocks) for t in fresh
    ]
    assert any(recalled[0].blocks.values())  # remove()'s `if count > have:` branch, moved down
    # a comment inside add(), which every test ran: its code is the same, its blocks moved
    edit(
        project,
        "    def add(self, name, count=1):\n",
        "    def add(self, name, count=1):\n        # note\n",
    )
    assert vouched_tests(root, sys.executable, focus.files(), focus.wants) == []


# Put on the PYTHONPATH of `heal-ls check` (and so of the pytest it spawns): notes each pytest
# spawned, and the test arguments each pytest ran with as it ends (its launcher is spawned before
# its run is known and takes the run from heal-ls: testing/prestart.py).
SPAWN_HOOK = """
import atexit, os, sys

def _write(text):
    with open(os.environ["SPAWNS_FILE"], "a") as handle:
        handle.write(text + "\\n")

def _note(event, args):
    if event == "subprocess.Popen" and "heal_pytest_main" in list(args[1] or ()):
        _write("spawned")

def _ran():
    if os.environ.get("HEAL_LS_REPORT"):  # a pytest run of heal-ls's
        _write(" ".join(a for a in sys.argv[1:] if a.startswith(("tests/", "--heal-ex"))))

sys.addaudithook(_note)
atexit.register(_ran)
"""


def test_the_recheck_is_one_pytest_spawned_ahead_without_the_vouched_tests(project, tmp_path):
    """The map is asked before the first run is spawned: that one run (the file, less what the
    map vouches for) is the one diagnose takes over, not a second one."""
    check(project)
    hooks, spawns = tmp_path / "hooks", tmp_path / "spawns"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SPAWN_HOOK)
    env = {"PYTHONPATH": os.pathsep.join([str(hooks), os.environ.get("PYTHONPATH", "")])}
    env |= {"SPAWNS_FILE": str(spawns)}
    again = check(project, env=env)
    assert (again["ran"], again["vouched"]) == (1, 3)
    excluded = " ".join(f"--heal-exclude {FILE}::{name}" for name in OTHERS)
    assert spawns.read_text().splitlines() == ["spawned", f"{excluded} {FILE}"]
