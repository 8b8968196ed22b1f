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


def name_bonus(suspects: dict[Key, Suspect], failure: Failure, eligible: set[Key]) -> None:
    """Lift the `eligible` suspects whose qualname shares a word with the failing test's name
    (in place), and again those sharing one with its class's name: a test class gathers the
    tests of one unit (`TestAdmonition`, `TestImageDirectiveSrc`), which its tests' own names,
    saying what case each checks (`test_with_preceding_text`), often leave out. Not eligible:
    the failing line's own calls (the line already ties them to the test; the name would count
    that tie twice: `test_alias` checking `get_alias()`) and what the traceback placed (a raise
    helper named like `test_error_...`)."""
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
