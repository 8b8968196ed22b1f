"""Name affinity as ranking evidence: a failing test is usually named for what it tests.

`test_issue562_tzcasts` tests `group_tzcasts`; `test_gettz_for_empty_string` tests `gettz`. When
the run's spectrum leaves suspects close (a block shared by every failing test, a helper as
specific as the function the test is about), the one whose name shares a word with the failing
test's name is likelier the one the test is about. NAME_BONUS lifts such a suspect past a near
tie within its kind of evidence, not past a tier above it (a raise site, a call on the failing
line, much more specific blocks).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath

from heal_ls.models import Failure, Suspect

NAME_BONUS = 0.07
# A lift breaks near ties, it does not outweigh a block this many times as specific: packaging's
# `_compare_equal` (0.14, named) rightly passes `canonicalize_version` (0.38); deepdiff's
# `DiffLevel.path` (0.10, named twice) wrongly passed `DeepDiff._diff_dict` (0.58).
SPECIFIC = 3.0
Key = tuple[str, int]  # the Ranker's key of a suspect: (normalised path, first line)
# Words that say nothing of what is tested: the tests' own vocabulary, then plumbing.
COMMON = frozenset(
    {"test", "tests", "the", "and", "for", "with", "not", "when", "should", "does", "can", "that"}
    | {"this", "from", "into", "init", "call", "new", "str", "repr", "get", "set", "value"}
    | {"self", "cls", "local"}
)
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def words(name: str, shortest: int = 3) -> set[str]:
    """Lower-case words of a name, snake and Camel case split, plurals folded, short and
    common words dropped: `TestSpecifier.test_specifiers` -> {"specifier"}."""
    found = set()
    for part in re.split(r"[^A-Za-z0-9]+", name):
        for word in _CAMEL.findall(part):
            word = word.lower()
            if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
                word = word[:-1]
            if len(word) >= shortest and not word.isdigit() and word not in COMMON:
                found.add(word)
    return found


def failing_test_words(failure: Failure) -> set[str]:
    """The words of the failing test function's name (not its class, file or parameters: a
    class groups many tests, and every test of `TestSchema` would point at `Schema`)."""
    if not failure.test:
        return set()
    return words(failure.test.split("[", 1)[0].rsplit("::", 1)[-1])


def test_class_words(failure: Failure) -> set[str]:
    """The words of the failing test's class (`TestTransformHook` in `tests/test_hooks.py::
    TestTransformHook::test_attrs_attrclass`) that its own name lacks; none outside a class."""
    parts = failure.test.split("[", 1)[0].split("::") if failure.test else []
    return words(parts[-2]) - failing_test_words(failure) if len(parts) > 2 else set()


def name_bonus(
    suspects: dict[Key, Suspect],
    failure: Failure,
    eligible: set[Key],
    specificity: dict[Key, float] | None = None,
    written: dict[Key, str] | None = None,
) -> None:
    """Lift the `eligible` suspects whose qualname shares a word with the failing test's name
    (in place), and again those sharing one with its class's name: a test class gathers the
    tests of one unit (`TestAdmonition`, `TestImageDirectiveSrc`), which its tests' own names,
    saying what case each checks (`test_with_preceding_text`), often leave out. Not eligible:
    the failing line's own calls (the line already ties them to the test; the name would count
    that tie twice: `test_alias` checking `get_alias()`) and what the traceback placed (a raise
    helper named like `test_error_...`). A name breaks near ties only: a lift that would carry
    a suspect past an eligible one at least SPECIFIC times as `specificity` (its likeliest
    block's Ochiai) is withdrawn (`DiffLevel.path`, 0.10, lifted twice, passing
    `DeepDiff._diff_dict`, 0.58). The suspects that `written` the wrong text the failing
    check shows (a constant of theirs in it: `written.py`) are lifted, and withdrawn, alike."""
    before = {key: (suspects[key].score, suspects[key].reason) for key in eligible}
    for wanted, named in (
        (failing_test_words(failure), "the failing test is named for it"),
        (test_class_words(failure), "the failing test's class is named for it"),
    ):
        for key in eligible if wanted else ():
            suspect = suspects[key]
            shared = sorted(words(suspect.qualname) & wanted)
            if shared:
                suspect.score += NAME_BONUS
                suspect.reason = f"{suspect.reason}; {named} ({shared[0]})"
    for key, text in (written or {}).items():
        if key in eligible:
            suspects[key].score += NAME_BONUS
            suspects[key].reason += f"; the failing check shows text it writes ({text!r})"
    for key in _past_more_specific(suspects, before, specificity or {}):
        suspects[key].score, suspects[key].reason = before[key]


def _past_more_specific(
    suspects: dict[Key, Suspect], before: dict[Key, tuple[float, str]], specificity
) -> list[Key]:
    """The lifted suspects that passed one that was above them and is SPECIFIC times as
    specific (its own lift counted: what a name gained, it keeps)."""
    found = []
    for key, (score, _) in before.items():
        mine = specificity.get(key, 0.0)
        if suspects[key].score == score:
            continue  # not lifted
        for other, (above, _) in before.items():
            passed = above > score and suspects[key].score > suspects[other].score
            theirs = specificity.get(other, 0.0)
            if passed and theirs > 0.0 and theirs >= SPECIFIC * mine:
                found.append(key)
                break
    return found


def named_inside_first(
    suspects: list[Suspect], failure: Failure, quoted_words: Callable[[Suspect], set[str]]
) -> list[Suspect]:
    """`suspects` (best first) with those tied at the top reordered: the ones whose body
    quotes a word of the failing test's name that their own name lacks (a key, an option's
    name: `options.get("figwidth")` for `test_..._rejects_figwidth_css_injection`) come first.
    The test says what it is about, and of suspects the evidence cannot tell apart, the one
    that handles that thing by name is likelier the one tested; a tie only, never past a
    better score. Not a parameter's or attribute's name: a constructor keeping
    `self._initial = initial` handles nothing."""
    wanted = failing_test_words(failure)
    top = [s for s in suspects if s.score == suspects[0].score] if suspects else []
    if len(top) < 2 or not wanted:
        return suspects
    said = {id(s) for s in top if (quoted_words(s) - words(s.qualname)) & wanted}
    return sorted(top, key=lambda s: id(s) not in said) + suspects[len(top) :]


def module_words(path: str) -> set[str]:
    """The words of a module's file name (its package's for an `__init__.py`), two letters
    kept: a module named for a language or a format (`lang_FR.py`, `io.py`) is named by them."""
    stem = PurePath(path).stem
    return words(PurePath(path).parent.name if stem == "__init__" else stem, shortest=2)


def in_tested_module(failure: Failure) -> Callable[[Suspect], bool]:
    """Whether a suspect's module shares a word with the failing test's file name
    (`tests/test_fr.py` tests `num2words/lang_FR.py`, `test_security_image.py` tests
    `directives/image.py`): the order of suspects whose scores tie, and nothing more (a test
    file gathers the tests of one module, but calls into every module beneath it)."""
    path = failure.test.split("::", 1)[0] if failure.test else ""
    wanted = module_words(path) if path else set()
    return lambda suspect: bool(wanted & module_words(suspect.path))
