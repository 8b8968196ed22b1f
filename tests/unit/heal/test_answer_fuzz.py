"""Any text at all, as an answer or a candidate, ends in a result or a clear error, never a crash."""

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
ANSWERS = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=30).map("".join)
MODULE = "class Inventory:\n    def remove(self, item):\n        return None\n"
SUSPECT = Suspect("/w/inv.py", "Inventory.remove", 2, 4, 3, 19, "fuzz", 1.0, 2)


@settings(max_examples=300, deadline=None)
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


@settings(max_examples=200, deadline=None)
@given(candidate=ANSWERS)
def test_any_candidate_splices_or_gives_a_splice_error(candidate):
    try:
        after = splice(MODULE, SUSPECT, candidate)
    except SpliceError as err:
        assert str(err)
        return
    compile(after, "inv.py", "exec")
    assert after.startswith("class Inventory:\n    ")
