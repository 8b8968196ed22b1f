"""A class heal's plan: the model's new member inserted at the end of the class body, and
nothing else; answers that change another member, add a second member or reach past the rails
are refused."""

from __future__ import annotations

import pytest
from heal_ls.heal.member import plan_member, prove_member
from heal_ls.heal.plan import PlanError
from heal_ls.locate import index_source, suspect_for
from heal_ls.models import NodeEdit, Suspect

MODULE = (
    "import os\r\n"
    "\r\n"
    "\r\n"
    "class OUI:\r\n"
    '    """An organisation id."""\r\n'
    "\r\n"
    "    def __init__(self, value):\r\n"
    "        self.value = value\r\n"
    "\r\n"
    "    def __eq__(self, other):\r\n"
    "        return self.value == other.value\r\n"
    "\r\n"
    "\r\n"
    "def helper():  # after the class\r\n"
    "    return 1\r\n"
)
HASH = "def __hash__(self):\n    return hash(self.value)\n"


def oui() -> Suspect:
    node = next(c for c in index_source(MODULE).classes if c.name == "OUI")
    return suspect_for("/w/pkg/oui.py", node, "lacks __hash__")


def test_the_member_alone_is_inserted_at_the_end_of_the_class_body():
    planned = plan_member(HASH, MODULE, oui(), "__hash__")
    (edit,) = planned.edits
    assert edit.qualname == "OUI.__hash__" and edit.start == edit.end
    assert planned.text == MODULE[: edit.start] + edit.text + MODULE[edit.start :]
    assert edit.text == "\r\n    def __hash__(self):\r\n        return hash(self.value)\r\n"
    assert MODULE[: edit.start].endswith("return self.value == other.value\r\n")
    namespace: dict = {}
    exec(compile(planned.text, "oui.py", "exec"), namespace)
    assert hash(namespace["OUI"](3)) == hash(3)


def test_the_class_around_it_with_its_members_unchanged_is_read_too():
    answer = (
        "Add a hash:\n```python\nclass OUI:\n    def __eq__(self, other):\n"
        "        return self.value == other.value\n\n"
        "    def __hash__(self):\n        return hash(self.value)\n```\n"
    )
    planned = plan_member(answer, MODULE, oui(), "__hash__")
    assert [e.qualname for e in planned.edits] == ["OUI.__hash__"]
    assert planned.text == plan_member(HASH, MODULE, oui(), "__hash__").text


def test_a_property_setter_is_the_member_named_by_its_role():
    module = "class Net:\n    @property\n    def mask(self):\n        return self._mask\n"
    node = index_source(module).classes[0]
    setter = "@mask.setter\ndef mask(self, value):\n    self._mask = value\n"
    planned = plan_member(setter, module, suspect_for("/w/n.py", node, ""), "mask.setter")
    assert planned.text.endswith(
        "    @mask.setter\n    def mask(self, value):\n        self._mask = value\n"
    )


@pytest.mark.parametrize(
    "answer, words",
    [
        (  # the fix also rewrites __eq__
            "class OUI:\n    def __eq__(self, other):\n        return True\n\n"
            + "    "
            + HASH.replace("\n    ", "\n        "),
            "changes `OUI.__eq__`",
        ),
        (HASH + "\ndef helper():\n    return 2\n", "adds `OUI.helper`"),  # a def elsewhere
        (HASH + "\ndef extra(self):\n    return 2\n", "adds `OUI.extra`"),
        ("def __eq__(self, other):\n    return True\n", "changes `OUI.__eq__`"),
        ("def __init__(self, value):\n    self.value = value\n", "holds no def"),
        ("def __hash__(self):\n    return 1\n\ndef __eq__(self, o):\n    return True\n", "changes"),
    ],
)
def test_an_answer_that_touches_more_than_the_new_member_is_refused(answer, words):
    with pytest.raises(PlanError, match=words.replace("(", r"\(")):
        plan_member(answer, MODULE, oui(), "__hash__")


@pytest.mark.parametrize(
    "answer, label",
    [
        (
            "def __hash__(self):\n    import sys\n    return sys._getframe(1).f_locals['w']\n",
            "_getframe",
        ),
        ("def __hash__(self):\n    return hash(tuple(vars(self).values()))\n", "vars"),
        ("def __hash__(self):\n    return self.__eq__.__hash__()\n", ".__eq__"),  # another dunder
    ],
)
def test_a_member_that_reaches_past_the_rails_is_refused(answer, label):
    with pytest.raises(PlanError, match=label):
        plan_member(answer, MODULE, oui(), "__hash__")


def test_the_proof_refuses_an_insertion_that_changes_another_statement():
    good = plan_member(HASH, MODULE, oui(), "__hash__").edits[0]
    moved = MODULE.index("    def __init__")  # inside the class, but splitting __init__ off
    bad = NodeEdit(good.qualname, moved, moved, "    x = 1\r\n" + good.text)
    with pytest.raises(PlanError):
        prove_member(MODULE, MODULE[:moved] + bad.text + MODULE[moved:], oui(), bad)
    outside = len(MODULE)  # after the class: the member lands in the module, not the class
    late = NodeEdit(good.qualname, outside, outside, "\r\n" + HASH)
    with pytest.raises(PlanError, match="not inside the class"):
        prove_member(MODULE, MODULE + late.text, oui(), late)
