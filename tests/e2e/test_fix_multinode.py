"""Heals that need more than the target: a nested def, imports, two functions, a new helper.

Each project in tests/e2e/multinode/ has the model's answer (answer.md) and the module the heal
must write, byte for byte (expected.py). Each project is healed in the test's process (the
openai SDK against the fake model); one `heal-ls fix --apply` (the anthropic SDK) writes its
module; hostile variants of the answers change nothing (a forbidden import through the CLI).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from heal_ls.heal.config import HealConfig
from heal_ls.models import HealResult
from helpers.cli import heal_ls, openai_env
from helpers.fakemodel import FakeModelServer
from helpers.heal import heal_first_target

pytestmark = pytest.mark.e2e

PROJECTS = Path(__file__).parent / "multinode"
MODULES = {
    "nested": "stats.py",
    "imports": "geometry.py",
    "two_functions": "prices.py",
    "helper": "names.py",
}
TOUCHED = {
    "nested": ["running_mean.<locals>.mean_of"],
    "imports": ["<imports>", "longest"],
    "two_functions": ["unit_price", "total"],
    "helper": ["initials", "_words"],
}

GUARDS = {
    "nested": "tests/test_stats.py::test_zeros_stay_zero",
    "imports": "tests/test_geometry.py::test_one_unit_point",
    "two_functions": "tests/test_prices.py::test_free_items_cost_nothing",
    "helper": "tests/test_names.py::test_initials_of_a_capitalised_name",
}

NOTES = {"nested": ["ignored `DEBUG = False`: only functions and imports are taken"]}


def anthropic_env(server: FakeModelServer) -> dict:
    return {"ANTHROPIC_BASE_URL": server.anthropic_url, "ANTHROPIC_API_KEY": "test-key-not-real"}


def project(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    shutil.copytree(PROJECTS / name, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def fix(root: Path, answer: str, wire: str, *extra: str):
    with FakeModelServer(default=answer) as server:
        env = openai_env(server) if wire == "openai" else anthropic_env(server)
        proc = heal_ls(
            "fix", str(root), "--provider", wire, "--apply", "--no-cache", *extra, env=env
        )  # fmt: skip
    return proc


def heal_in_process(root: Path, answer: str, monkeypatch) -> HealResult:
    """The first target healed in this process, the answer through the real openai SDK."""
    with FakeModelServer(default=answer) as server:
        for variable, value in openai_env(server).items():
            monkeypatch.setenv(variable, value)
        config = HealConfig(provider="openai", max_attempts=1, use_cache=False)
        return heal_first_target(root, config)


# Each project's heal in-process (plan, splice, guards, verification: the engine's work); one
# real `heal-ls fix --apply` with the other SDK (anthropic) writes its module below.
@pytest.mark.parametrize("name", sorted(MODULES))
def test_multinode_answer_is_verified_byte_exact(name, tmp_path, monkeypatch):
    root = project(tmp_path, name)
    result = heal_in_process(root, (root / "answer.md").read_text(), monkeypatch)
    assert result.status == "verified", result.reason
    # each project has a passing test of the functions the fix touches: it guarded the fix
    assert result.guards == [GUARDS[name]], result.guards
    assert result.touched == TOUCHED[name]
    assert result.notes == NOTES.get(name, [])
    assert result.new_source is not None
    assert result.new_source.encode() == (root / "expected.py").read_bytes()


def test_multinode_answer_is_applied_byte_exact_through_the_cli(tmp_path):
    root = project(tmp_path, "two_functions")
    answer = (root / "answer.md").read_text()
    proc = fix(root, answer, "anthropic", "--max-attempts", "1", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)["results"][0]
    assert result["status"] == "verified" and result["applied"] is True
    assert result["guard_tests"] == [GUARDS["two_functions"]], result
    assert result["touched"] == TOUCHED["two_functions"]
    assert result["notes"] == []
    assert (root / MODULES["two_functions"]).read_bytes() == (root / "expected.py").read_bytes()


def test_two_function_prompt_offers_both_and_the_diff_header_lists_them(tmp_path):
    root = project(tmp_path, "two_functions")
    answer = (root / "answer.md").read_text()
    with FakeModelServer(default=answer) as server:
        proc = heal_ls(
            "fix", str(root), "--provider", "openai", "--no-cache", env=openai_env(server)
        )
        prompt = server.requests[0].prompt_text
    assert proc.returncode == 0, proc.stderr
    assert "# touched: unit_price, total" in proc.stdout
    assert "1 guard that runs unit_price(), total()" in proc.stdout
    assert heal_ls("check", str(root)).returncode == 1  # without --apply nothing was written
    assert "## Other functions you may change (same module)" in prompt
    assert 'return item["cents"] / 10' in prompt  # the other suspect's source


FAILING_ONLY = "from prices import total\n\n\ndef test_total_counts_quantities():\n" + (
    '    assert total([{"cents": 250, "qty": 2}, {"cents": 100, "qty": 1}]) == 6.0\n'
)
UNGUARDED = {
    # no passing test at all: nothing shows the rest still works
    "no_guard": ("", "unit_price(), total()"),
    # a passing test of total() that never calls unit_price(): one touched function unguarded
    "unit_price_unguarded": (
        "\n\ndef test_empty_order():\n    assert total([]) == 0\n",
        "unit_price()",
    ),
}


@pytest.mark.parametrize("kind", sorted(UNGUARDED))
def test_a_fix_touching_an_unguarded_function_is_weak(kind, tmp_path, monkeypatch):
    extra_test, unguarded = UNGUARDED[kind]
    root = project(tmp_path, "two_functions")
    (root / "tests" / "test_prices.py").write_text(FAILING_ONLY + extra_test)
    result = heal_in_process(root, (root / "answer.md").read_text(), monkeypatch)
    assert result.status == "weak", result.reason
    assert f"no passing test runs {unguarded} to guard" in result.proof


# Hostile answers change nothing. The attack (a forbidden module) through the real CLI with
# --apply; the answers that only fall short under the options (not offered, another module's
# function, imports turned off) in process, the options as HealConfig takes them from the flags.
FORBIDDEN_IMPORT = (
    "```python\nimport subprocess\n\n\ndef initials(full_name):\n"
    "    subprocess.run(['true'])\n"
    "    return ''.join(w[0].upper() + '.' for w in full_name.split())\n```\n"
)


def test_a_forbidden_import_through_the_cli_changes_nothing(tmp_path):
    root = project(tmp_path, "helper")
    before = {p: p.read_bytes() for p in root.rglob("*.py")}
    proc = fix(root, FORBIDDEN_IMPORT, "openai", "--max-attempts", "1")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "0/1 verified" in proc.stdout
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == before
    assert "subprocess" in proc.stderr


SHORT = {
    # unit_price is not offered with --max-nodes 1: only `total` may change, which is not enough
    "not_offered": ("two_functions", None, {"max_nodes": 1}),
    # a function of another module: not this module's, nothing uses it, nothing changes
    "other_module": (
        "two_functions",
        "```python\ndef rounded(value):\n    return round(value, 3)\n```\n",
        {},
    ),
    # imports turned off: the fix cannot work without `math`
    "no_imports": ("imports", None, {"allow_imports": False}),
}


@pytest.mark.parametrize("kind", sorted(SHORT))
def test_answers_short_of_the_options_change_nothing(kind, tmp_path, monkeypatch):
    name, answer, options = SHORT[kind]
    root = project(tmp_path, name)
    answer = answer or (root / "answer.md").read_text()
    before = {p: p.read_bytes() for p in root.rglob("*.py")}
    notes: list[str] = []
    with FakeModelServer(default=answer) as server:
        for variable, value in openai_env(server).items():
            monkeypatch.setenv(variable, value)
        config = HealConfig(provider="openai", max_attempts=1, use_cache=False, **options)
        result = heal_first_target(
            root, config, on_event=lambda e: notes.append(e.message) if e.kind == "note" else None
        )
    assert result.status != "verified" and result.new_source is None, result
    assert {p: p.read_bytes() for p in root.rglob("*.py")} == before
    if kind == "other_module":  # refused before any run
        assert [a.outcome for a in result.attempts] == ["rejected"]
        assert "ignored `rounded`" in result.attempts[0].failure
    else:  # tried, failed the tests, and the user was told what was ignored
        assert result.status == "unverified" and [a.outcome for a in result.attempts] == ["failed"]
        assert any(note.startswith("ignored") for note in notes), notes
