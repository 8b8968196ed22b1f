"""One candidate's path from text to module: parse -> safety check -> splice.

Each step raises CandidateRejected with a reason phrased so it can go back to the model.
"""

from __future__ import annotations

from heal_ls.models import Suspect
from heal_ls.pysource.parse import normalised


class CandidateRejected(Exception):
    pass


def target_names(qualname: str) -> tuple[str, str | None]:
    """The def's own name and, for a method, its class name (None for nested functions)."""
    parts = qualname.split(".")
    owner = parts[-2] if len(parts) > 1 and parts[-2] != "<locals>" else None
    return parts[-1], owner


def function_from_answer(answer: str, suspect: Suspect, original_function: str) -> str:
    from heal_ls.heal.answer import AnswerError, extract_function

    name, owner = target_names(suspect.qualname)
    try:  # the original tells same-named defs apart (a property's getter from its setter)
        return extract_function(answer, name, owner, original=original_function)
    except AnswerError as exc:
        raise CandidateRejected(str(exc)) from None


def planned_from_answer(answer: str, module_text: str, suspect: Suspect, offered, config):
    """The answer as a multi-node plan (nested def, other offered functions, helpers, imports),
    or None when it is a plain fix of the target alone."""
    from heal_ls.heal.plan import plan_answer
    from heal_ls.heal.plan_proof import PlanError

    try:
        return plan_answer(
            answer,
            module_text,
            suspect,
            offered,
            allow_imports=config.allow_imports,
            allow_test_edits=config.allow_test_edits,
        )
    except PlanError as exc:
        raise CandidateRejected(str(exc)) from None


def module_with(
    module_text: str,
    suspect: Suspect,
    original_function: str,
    new_function: str,
    *,
    allow_test_edits: bool = False,
) -> str:
    """Check the new function and splice it into the suspect's exact node."""
    from heal_ls.heal.safety import UnsafeCandidate, check_candidate
    from heal_ls.pysource.splice import SpliceError, splice

    if normalised(new_function) == normalised(original_function):
        raise CandidateRejected("the proposed function is identical to the original")
    try:
        check_candidate(original_function, new_function, suspect.path, allow_test_edits)
        return splice(module_text, suspect, new_function)
    except (UnsafeCandidate, SpliceError) as exc:
        raise CandidateRejected(str(exc)) from None
