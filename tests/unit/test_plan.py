"""heal/plan.py: a model's answer as edits to several nodes of one module, before/after strings."""

from __future__ import annotations

import pytest
from heal_ls.heal.plan import IMPORT_BLOCK, PlanError, plan_answer, prove, redo, replan
from heal_ls.locate import index_source, suspect_for

PATH = "/project/pkg/stats.py"


def suspect(text: str, qualname: str):
    node = index_source(text).find(qualname)
    assert node is not None, qualname
    return suspect_for(PATH, node, "test")


def plan(text: str, answer: str, target: str, *offered: str, **options):
    found = suspect(text, target)
    others = [suspect(text, q) for q in offered]
    return plan_answer(answer, text, found, [found, *others], **options)


def fenced(code: str) -> str:
    return f"Here it is:\n\n```python\n{code}```\n"


MODULE = '''"""Stats."""

from __future__ import annotations

import os
from typing import List  # typing


def running_mean(values):
    def mean_of(xs):
        return sum(xs) / (len(xs) + 1)

    return [mean_of(values[: i + 1]) for i in range(len(values))]


def spread(values):
    return max(values) - min(values) + 1


class Box:
    def size(self):
        return self.w * self.h + 1

    def area(self):
        return self.size()
'''


def test_a_nested_def_alone_is_spliced_into_the_nested_node():
    answer = fenced("def mean_of(xs):\n  return sum(xs) / len(xs)\n")
    planned = plan(MODULE, answer, "running_mean")
    assert planned.touched == ["running_mean.<locals>.mean_of"]
    assert planned.text == MODULE.replace("(len(xs) + 1)", "len(xs)")


def test_a_nested_def_with_nonlocal_is_proven_inside_its_outer_def():
    text = "def counter():\n    n = 0\n\n    def bump():\n        nonlocal n\n        n += 2\n        return n\n\n    return bump\n"
    answer = fenced("def bump():\n    nonlocal n\n    n += 1\n    return n\n")
    planned = plan(text, answer, "counter")
    assert planned.text == text.replace("n += 2", "n += 1")


def test_two_offered_functions_change_and_nothing_else():
    answer = fenced(
        "def running_mean(values):\n    return values\n\n\n"
        "def spread(values):\n    return max(values) - min(values)\n"
    )
    planned = plan(MODULE, answer, "running_mean", "spread")
    assert planned.touched == ["running_mean", "spread"]
    before_spread = MODULE.split("def spread")[0]
    assert planned.text.startswith(before_spread.split("def running_mean")[0] + "def running_mean")
    assert "    return max(values) - min(values)\n\n\nclass Box" in planned.text
    assert "mean_of" not in planned.text


def test_a_function_not_offered_is_ignored_and_said():
    answer = fenced(
        "def running_mean(values):\n    return values\n\n\ndef spread(values):\n    return 0\n"
    )
    planned = plan(MODULE, answer, "running_mean")  # spread not offered
    assert planned.touched == ["running_mean"]
    assert "return max(values) - min(values) + 1" in planned.text
    assert any("`spread`: it was not offered" in n for n in planned.notes)


def test_new_helper_goes_right_after_the_target_at_its_indentation():
    answer = fenced(
        "class Box:\n    def size(self):\n        return _area(self)\n\n"
        "    def _unused(self):\n        return 1\n\n"
        "def _area(box):\n    return box.w * box.h\n"
    )
    planned = plan(MODULE, answer, "Box.size")
    assert planned.touched == ["Box.size", "Box._area"]
    assert (
        "    def size(self):\n        return _area(self)\n\n"
        "    def _area(box):\n        return box.w * box.h\n\n    def area(self):"
    ) in planned.text
    assert any("`_unused`: nothing the fix changes uses it" in n for n in planned.notes)


def test_imports_merge_into_the_from_line_and_go_after_the_block():
    answer = fenced(
        "import math\nfrom typing import List, Optional\nimport os\n\n"
        "def spread(values: List[float]) -> Optional[float]:\n"
        "    return math.fsum(values) if values else None\n"
    )
    planned = plan(MODULE, answer, "spread")
    assert planned.touched == [IMPORT_BLOCK, "spread"]
    head = planned.text.split("\n\n\ndef running_mean")[0]
    assert head == (
        '"""Stats."""\n\nfrom __future__ import annotations\n\n'
        "import os\nfrom typing import Optional, List  # typing\nimport math"
    )


def test_imports_after_a_docstring_only_and_into_an_empty_header():
    text = '"""Doc."""\n\n\ndef f(x):\n    return x\n'
    planned = plan(text, fenced("import math\n\ndef f(x):\n    return math.floor(x)\n"), "f")
    assert planned.text == '"""Doc."""\nimport math\n\n\ndef f(x):\n    return math.floor(x)\n'
    bare = "def f(x):\n    return x\n"
    planned = plan(bare, fenced("import math\n\ndef f(x):\n    return math.floor(x)\n"), "f")
    assert planned.text == "import math\n\ndef f(x):\n    return math.floor(x)\n"


def test_relative_and_star_imports_are_not_added_and_said():
    answer = fenced("from . import util\nfrom os.path import *\n\ndef mean_of(xs):\n    return 0\n")
    planned = plan(MODULE, answer, "running_mean")
    assert planned.touched == ["running_mean.<locals>.mean_of"]
    assert [n.split(":")[0] for n in planned.notes] == [
        "ignored `from . import util`",
        "ignored `from os.path import *`",
    ]


def test_an_import_nothing_uses_or_the_module_has_is_not_added():
    answer = fenced("import json\nimport os\n\ndef spread(values):\n    return os.sep\n")
    planned = plan(MODULE, answer, "spread", "running_mean")
    assert planned is None  # the plain shape: the single-function splice takes it


def test_a_forbidden_import_refuses_the_whole_answer():
    answer = fenced(
        "from subprocess import run\n\ndef spread(values):\n    run(['true'])\n    return 0\n"
        "\n\ndef running_mean(values):\n    return values\n"
    )
    with pytest.raises(PlanError, match="subprocess"):
        plan(MODULE, answer, "spread", "running_mean")


def test_a_rail_applies_to_every_touched_node():
    answer = fenced(
        "def spread(values):\n    return 0\n\n\n"
        "def running_mean(values):\n    return eval('values')\n"
    )
    with pytest.raises(PlanError, match="running_mean.*eval"):
        plan(MODULE, answer, "spread", "running_mean")


def test_imports_can_be_turned_off():
    answer = fenced("import math\n\ndef spread(values):\n    return math.fsum(values)\n")
    planned = plan(MODULE, answer, "spread", allow_imports=False)
    assert planned.touched == ["spread"]
    assert "import math" not in planned.text
    assert any("allowImports" in n for n in planned.notes)


def test_crlf_and_tabs_are_kept():
    text = '"""D."""\r\nimport os\r\n\r\n\r\ndef f(x):\r\n\treturn x\r\n\r\n\r\ndef g(x):\r\n\treturn x\r\n'
    answer = fenced(
        "import math\n\ndef f(x):\n    return math.floor(x)\n\n\n"
        "def g(x):\n    return _h(x)\n\n\ndef _h(x):\n    return -x\n"
    )
    planned = plan(text, answer, "f", "g")
    assert planned.text == (
        '"""D."""\r\nimport os\r\nimport math\r\n\r\n\r\n'
        "def f(x):\r\n\treturn math.floor(x)\r\n\r\n\r\n"
        "def _h(x):\r\n\treturn -x\r\n\r\n\r\n"  # helpers follow the target
        "def g(x):\r\n\treturn _h(x)\r\n"
    )


def test_other_prose_and_module_code_is_ignored_and_said():
    answer = fenced("X = 1\nprint(X)\n\ndef mean_of(xs):\n    return 0\n")
    planned = plan(MODULE, answer, "running_mean")
    assert planned.touched == ["running_mean.<locals>.mean_of"]
    assert [n.split(":")[0] for n in planned.notes] == ["ignored `X = 1`", "ignored `print(X)`"]
    assert "X = 1" not in planned.text


def test_the_proof_catches_text_changed_outside_the_nodes():
    answer = fenced("def mean_of(xs):\n    return 0\n")
    planned = plan(MODULE, answer, "running_mean")
    prove(MODULE, planned.text, planned.edits)
    with pytest.raises(PlanError, match="outside"):
        prove(MODULE, planned.text.replace('"""Stats."""', '"""Stats!"""'), planned.edits)
    renamed = planned.edits[0]
    renamed.text = renamed.text.replace("def mean_of", "def mean_if")
    with pytest.raises(PlanError, match="mean_of"):
        prove(MODULE, MODULE[: renamed.start] + renamed.text + MODULE[renamed.end :], [renamed])


def test_an_elided_function_is_refused():
    answer = fenced(
        "def spread(values):\n    # ... rest of the function unchanged\n    return 0\n\n\n"
        "def running_mean(values):\n    return values\n"
    )
    with pytest.raises(PlanError, match="incomplete"):
        plan(MODULE, answer, "running_mean", "spread")


REPLANNED = fenced(
    "import math\n\n\ndef running_mean(values):\n    return [math.fsum(values)]\n\n\n"
    "def spread(values):\n    return _range(values)\n\n\n"
    "def _range(values):\n    return max(values) - min(values)\n"
)


def test_a_plan_is_replanned_on_a_text_changed_outside_its_nodes():
    planned = plan(MODULE, REPLANNED, "running_mean", "spread")
    assert planned.touched == [IMPORT_BLOCK, "running_mean", "_range", "spread"]
    typed = MODULE.replace("class Box:", "# typed meanwhile\n\n\nclass Box:")
    typed = typed.replace("def running_mean", "# above\ndef running_mean")
    text, moved = replan(MODULE, typed, planned.edits)
    want = planned.text.replace("class Box:", "# typed meanwhile\n\n\nclass Box:")
    assert text == want.replace("def running_mean", "# above\ndef running_mean")
    assert [e.text for e in moved] == [e.text for e in planned.edits]
    assert replan(MODULE, MODULE, planned.edits) == (planned.text, planned.edits)


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("+ 1\n\n\nclass", "+ 2\n\n\nclass"), "`spread` changed"),
        (("(len(xs) + 1)", "(len(xs) + 2)"), "`running_mean` changed"),
        (("import os\n", "import os\nimport sys\n"), "the imports changed"),
    ],
)
def test_a_plan_whose_touched_node_changed_is_refused(change, said):
    planned = plan(MODULE, REPLANNED, "running_mean", "spread")
    with pytest.raises(PlanError, match=said):
        replan(MODULE, MODULE.replace(*change), planned.edits)


def test_redo_takes_a_fix_to_the_text_as_it_is_now_or_says_why_not():
    planned = plan(MODULE, REPLANNED, "running_mean", "spread")
    target = suspect(MODULE, "running_mean")
    typed = MODULE.replace("class Box:", "# typed meanwhile\n\n\nclass Box:")
    assert redo(MODULE, MODULE, planned.text, target, planned.edits) == (
        planned.text,
        planned.edits,
    )
    assert redo(typed, MODULE, planned.text, target, planned.edits) == replan(
        MODULE, typed, planned.edits
    )
    changed = MODULE.replace("(len(xs) + 1)", "(len(xs) + 2)")
    with pytest.raises(PlanError, match=r"`running_mean` changed .*\(running_mean, spread being"):
        redo(changed, MODULE, planned.text, target, planned.edits, ["running_mean", "spread"])
    # one function: spliced again into its unchanged def, or refused when it changed
    one = MODULE.replace("(len(xs) + 1)", "(len(xs) or 1)")
    assert redo(typed, MODULE, one, target) == (
        one.replace("class Box:", "# typed meanwhile\n\n\nclass Box:"),
        [],
    )
    with pytest.raises(PlanError, match="running_mean changed while it was being healed"):
        redo(changed, MODULE, one, target)


def test_libcst_stays_off_the_code_action_path():
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import heal_ls.cli, heal_ls.lsp.serve, heal_ls.lsp.failures.code_actions, heal_ls.heal.loop\n"
        "import heal_ls.heal.plan\n"
        "print('libcst' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr
