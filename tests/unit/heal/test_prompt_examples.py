"""Prompts for every example's heal target: small, and the fake model's functions map answers
the function each prompt asks about (what the LSP, Neovim and VS Code suites rely on)."""

import re
from pathlib import Path

import pytest
from helpers.fakemodel import pick_function_answer
from helpers.prompts import prompt_for

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
ROW = re.compile(r"^\| (\w+) \| `([^`]+)` `([^`]+)` \|")


def heal_targets() -> list[tuple[str, str, str]]:
    """(example, module path, qualname) rows of the examples README table."""
    text = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    return [m.groups() for m in map(ROW.match, text.splitlines()) if m]


TARGETS = heal_targets()


def test_the_readme_table_was_read():
    assert len(TARGETS) >= 8


@pytest.mark.parametrize("example, rel, qualname", TARGETS, ids=[t[0] for t in TARGETS])
def test_fake_model_answers_the_function_each_prompt_asks_for(example, rel, qualname):
    prompt, module = prompt_for(example, rel, qualname)
    functions = {q: f"FIX FOR {q}" for _, _, q in TARGETS}
    functions.update({"helper": "FIX FOR helper", "test_x": "FIX FOR a test"})
    assert (
        pick_function_answer(prompt.system + "\n" + prompt.user, functions) == f"FIX FOR {qualname}"
    )
    name = qualname.rsplit(".", 1)[-1]
    assert f"`{qualname}`" in prompt.user and f"def {name}(" in prompt.user
