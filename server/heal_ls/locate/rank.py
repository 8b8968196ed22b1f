"""From a failure to ranked suspect functions, each with the reason it is suspected.

1. Raised in workspace code: the innermost workspace frame outside tests ("raised here"), then
   its callers on the way out.
2. Raised in the test itself (a failed assert, a pytest.raises mismatch): workspace functions on
   the call path, then those called on the failing test line, then the others that ran during the
   test, ranked by Ochiai over the run's passing and failing tests.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from heal_ls.locate.affinity import in_tested_module, name_bonus, named_inside_first
from heal_ls.locate.evidence import unparsable_note
from heal_ls.locate.grammar import refused_by_grammar
from heal_ls.locate.history import changed_bonus
from heal_ls.locate.missing import (
    default_repr_lacking,
    lacking_member,
    missing_dependency,
    missing_name,
    suggested_defs,
)
from heal_ls.locate.ranker import Ranker, suspect_for
from heal_ls.locate.rebuilt import rebuilt_classes
from heal_ls.models import Failure, Frame, RunResult, Suspect
from heal_ls.pysource.paths import TestFiles, is_workspace_file


@dataclass
class Located:
    suspects: list[Suspect] = field(default_factory=list)  # best first
    healable: bool = False
    reason: str | None = None  # why not healable


def below_the_runner(frames: list[Frame], tests: TestFiles) -> list[Frame]:
    """The frames from the first test file's on: a workspace frame above it called the test
    (tornado's `AsyncTestCase._callTestMethod`, in the package, runs each test method), so it
    is the runner's, not on the way to the failure."""
    first = next((i for i, frame in enumerate(frames) if frame.path in tests), 0)
    return frames[first:]


def locate(
    failure: Failure,
    root: str,
    run: RunResult | None = None,
    *,
    overlay: dict[str, str] | None = None,
    tests: TestFiles | None = None,
) -> Located:
    """Rank the functions that may hold the bug behind `failure` (overlay: unsaved texts;
    tests: the files holding tests, when the caller has them, else the run's)."""
    tests = tests or TestFiles.of_run(root, run, failure)
    lacking = missing_name(failure, tests, overlay or {})
    if lacking is not None:  # a name the module does not have yet: no function to heal
        return Located([lacking[0]], False, lacking[1])
    ranker = Ranker(root, overlay or {}, tests)
    frames = below_the_runner([f for f in failure.frames if is_workspace_file(f.path, root)], tests)
    code = [f for f in frames if f.path not in tests]
    ranker.signature_callee(failure, frames, run)
    ranker.keyword_taker(failure, frames)
    ranker.swallowed_refusal(failure, frames)
    if code and frames[-1] is code[-1]:
        reason = ranker.from_crash(failure, code, run)
        if reason is not None and ranker.suspects:
            reason = None  # a wrongly called def is still a function to heal
        ranker.logged_raiser(failure, 0.99)  # below the raise the test saw
    else:
        ranker.call_path(code, 0.95)
        ranker.caught_raiser(failure)
        ranker.logged_raiser(failure, 0.97)
        ranker.log_caller(failure, 0.97)
        reason = ranker.from_test(failure, frames, run)
    ranker.stopped_generator(failure, 1.01)  # above the consumer the reported raise is in
    ranker.fake_caller(failure, 1.01)  # above the raise its failed assert led to
    missing, path, nearest = suggested_defs(failure, root, ranker.index)
    for node in nearest:  # the def the test meant, which never ran: nothing recorded lists it
        reason = f"its module lacks the {missing} the test asks for: Python suggests {node.name}"
        ranker.add(path, node, reason, 0.9)
    changed_bonus(ranker.suspects.values(), run)
    eligible = ranker.named_for_test()
    specific = ranker.specificity(failure, run, eligible)
    written = ranker.wrote_text(failure, eligible)
    name_bonus(ranker.suspects, failure, eligible, specific, written)
    ranker.writers_before_acts(failure, run, written)
    ranker.sole_writers_first(failure, run, eligible)
    grammar_path, rules = refused_by_grammar(failure, tests, ranker.index) or ("", [])
    for node, why, score in rules:  # the test's own text, refused by PLY's grammar
        ranker.add(grammar_path, node, why, score)
    # the count of blocks only the failing test ran: of equal scores, the one with more first
    # (the spectrum of whole functions, or of their likeliest block, ties them)
    own = ranker.own_blocks(failure, run)
    ranker.builders_below_checked(own)
    ranker.earlier_checks_aside(failure, frames)
    ranker.changers_first()
    ranker.enclosing_defs()
    ranker.noops_last()
    ranker.escapers_first(failure)
    ranker.raisers_first(failure, run)
    tested = in_tested_module(failure)  # of equal scores, the tested module's first

    def order(s: Suspect) -> tuple[float, bool, int]:
        return -s.score, not tested(s), -own.get(f"{s.path}:{s.start_line}", 0)

    suspects = sorted(ranker.suspects.values(), key=order)
    if suspects:  # what the first suspect reads off its object was made where it was stored
        ranker.state_makers(failure, run, suspects[0])
        ranker.held_state_makers(failure, run, suspects[0])
        ranker.none_returner(failure, run, suspects[0])
        ranker.constructor_makers(failure, suspects[0])
        suspects = sorted(ranker.suspects.values(), key=order)
    suspects = named_inside_first(suspects, failure, ranker.quoted_words)
    # a member the class has yet to have (the test uses it, or shows the object by Python's
    # default, or copy or pickle needs it to rebuild an object the refused constructor could
    # not): a heal adds it to the class
    classes = (
        lacking_member(failure, tests, ranker.index)
        or default_repr_lacking(failure, tests, ranker.index)
        or rebuilt_classes(failure, tests, ranker.index)
    )
    if classes:
        top = max([1.0, *(s.score for s in suspects)]) + 0.01
        named = [
            replace(suspect_for(c.path, c.node, c.short, top - 0.001 * n), member=c.member)
            for n, c in enumerate(classes)
        ]
        return Located([*named, *suspects], True, None)
    if not suspects:
        reason = reason or "no function of the workspace is involved"
        note = missing_dependency(failure, root) or unparsable_note(ranker.unparsable, root, reason)
        return Located([], False, f"{reason}: {note}" if note else reason)
    return Located(suspects, True, None)
