"""Any text at all, as an answer or a candidate, ends in a result or a clear error, never a crash.

Pieces joined at random almost never make a def (none in 300 draws): half the draws are built as
a def of the target, in or out of a fence, a class or prose, with bodies picked from the shapes
that parse but do not compile, are elided or unsafe, and with tabs, CRLF, NUL and BOM in them,
so the splice and the checks after it are reached by fewer examples."""

from heal_ls.heal.answer import AnswerError, extract_function
from heal_ls.heal.safety import UnsafeCandidate, check_candidate
from heal_ls.models import Suspect
from heal_ls.pysource.splice import SpliceError, splice
from hypothesis import given, settings
from hypothesis import strategies as st

PIECES = st.sampled_from(
    ["```", "```python\n", "~~~\n", "def remove(self, item):\n", "    ", "\t", "return item\n",
     "class Inventory:\n", "@property\n", "\r\n", "\n", "# ...\n", "...", "<think>", "</think>",
     "(", ")", '"""', "'", "async ", "\\", "\x00", "é", "\ufeff", "@@ -1 +1 @@\n"]
)  # fmt: skip
NOISE = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=30).map("".join)
BODIES = st.sampled_from(
    ["return item", "return None", "break", "await item", "nonlocal item", "yield item", "...",
     "# ... rest unchanged", "return (", "del self.items[item]", "import os", "x = 1\nglobal x",
     "if item:\n    return 1", "\treturn item", "return 'é\x00'", "\ufeffpass", "pass  # ok"]
)  # fmt: skip


@st.composite
def a_def(draw, dressed: bool) -> str:
    """A def of Inventory.remove as a model might write it, odd or broken in one or two ways;
    `dressed`: perhaps in its class, a fence or prose too."""
    indent = draw(st.sampled_from(["    ", "\t", "  "]))
    lines = draw(st.lists(BODIES, min_size=1, max_size=3))
    body = "".join(indent + line.replace("\n", "\n" + indent) + "\n" for line in lines)
    head = draw(st.sampled_from(["", "@property\n", "async "])) + "def remove(self, item):\n"
    code = head + body
    if dressed and draw(st.booleans()):  # inside its class
        code = "class Inventory:\n" + "".join("    " + line for line in code.splitlines(True))
    if dressed and draw(st.booleans()):
        code = draw(st.sampled_from(["```python\n", "```\n", "~~~\n"])) + code + "```\n"
    if dressed and draw(st.booleans()):  # in prose
        code = draw(NOISE) + "\n" + code + draw(NOISE)
    return code.replace("\n", "\r\n") if draw(st.booleans()) else code


ANSWERS = st.one_of(NOISE, a_def(dressed=True))
CANDIDATES = st.one_of(NOISE, a_def(dressed=False))
MODULE = "class Inventory:\n    def remove(self, item):\n        return None\n"
SUSPECT = Suspect("/w/inv.py", "Inventory.remove", 2, 4, 3, 19, "fuzz", 1.0, 2)


@settings(max_examples=100, deadline=None)
@given(answer=ANSWERS)
def test_any_answer_gives_a_def_or_an_answer_error(answer):
    try:
        new = extract_function(answer, "remove", "Inventory")
    except AnswerError as err:
        assert str(err)
        return
    assert "def remove" in new
    try:
        check_candidate(MODULE, new, SUSPECT.path)
        after = splice(MODULE, SUSPECT, new)
    except (UnsafeCandidate, SpliceError) as err:
        assert str(err)
        return
    compile(after, "inv.py", "exec")
    assert after.startswith("class Inventory:\n    ")


@settings(max_examples=60, deadline=None)
@given(candidate=CANDIDATES)
def test_any_candidate_splices_or_gives_a_splice_error(candidate):
    try:
        after = splice(MODULE, SUSPECT, candidate)
    except SpliceError as err:
        assert str(err)
        return
    compile(after, "inv.py", "exec")
    assert after.startswith("class Inventory:\n    ")
