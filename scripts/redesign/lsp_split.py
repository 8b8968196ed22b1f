#!/usr/bin/env python3
"""Phase B: the two LSP functions over 50 lines, split into named steps (same behaviour)."""

from __future__ import annotations

import sys
from pathlib import Path


def edit(path: str, old: str, new: str) -> None:
    p = Path(path)
    text = p.read_text()
    if text.count(old) != 1:
        sys.exit(f"lsp_split.py: {path}: expected once:\n{old}")
    p.write_text(text.replace(old, new))


HEAL = "server/heal_ls/lsp/heal_command.py"
APPLY = "server/heal_ls/lsp/apply.py"

edit(
    HEAL,
    """        progress.report("applying the fix")
        assert result.new_source is not None  # verified or weak: both carry the new text
        blast = known.blast
        wide = blast is not None and blast.callers > ls.settings.previewAboveCallers
        applied = await apply_fix(
            ls,
            suspect,
            before,
            result.new_source,
            edits=result.edits,
            touched=result.touched,
            confirm=f"{blast.text()}: preview before applying" if blast and wide else None,
            radius=blast.text() if blast else None,
        )
    fixed = {suspect.path: applied.text}
    if known.failure.script:
        ls.runs.in_background(None, overlay=fixed, script=known.failure.script)
    else:
        tests = touching_tests(ls, suspect.path, [known.failure, *others])
        if tests:
            ls.runs.in_background(tests, overlay=fixed)
    touched = ", ".join(result.touched or [suspect.qualname])
    radius = f"; {known.blast.text()}" if known.blast else ""
    message = f"{suspect.qualname} fixed, {result.proof} (touched: {touched}{radius})"
    message += f"; re-running its tests{meter}"
    if result.notes:
        message += " (" + "; ".join(result.notes) + ")"
    return outcome(result.status, message, known, True, touched=result.touched)
""",
    """        progress.report("applying the fix")
        assert result.new_source is not None  # verified or weak: both carry the new text
        applied = await apply_verified(ls, known, suspect, before, result)
    rerun_fixed(ls, known, others, suspect.path, applied.text)
    message = fixed_message(known, suspect, result, meter)
    return outcome(result.status, message, known, True, touched=result.touched)


async def apply_verified(ls, known: Known, suspect, before: str, result):
    \"\"\"Apply a verified (or accepted weak) fix; a function with many callers is previewed.\"\"\"
    blast = known.blast
    wide = blast is not None and blast.callers > ls.settings.previewAboveCallers
    return await apply_fix(
        ls,
        suspect,
        before,
        result.new_source,
        edits=result.edits,
        touched=result.touched,
        confirm=f"{blast.text()}: preview before applying" if blast and wide else None,
        radius=blast.text() if blast else None,
    )


def rerun_fixed(ls, known: Known, others, path: str, text: str) -> None:
    \"\"\"Re-run the healed failure's tests (or script) in the background on the fixed text.\"\"\"
    fixed = {path: text}
    if known.failure.script:
        ls.runs.in_background(None, overlay=fixed, script=known.failure.script)
    else:
        tests = touching_tests(ls, path, [known.failure, *others])
        if tests:
            ls.runs.in_background(tests, overlay=fixed)


def fixed_message(known: Known, suspect, result, meter: str) -> str:
    touched = ", ".join(result.touched or [suspect.qualname])
    radius = f"; {known.blast.text()}" if known.blast else ""
    message = f"{suspect.qualname} fixed, {result.proof} (touched: {touched}{radius})"
    message += f"; re-running its tests{meter}"
    if result.notes:
        message += " (" + "; ".join(result.notes) + ")"
    return message
""",
)

edit(
    APPLY,
    """        target = retarget(current, before, after, suspect)
        edit = types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=text_edits(ls.workspace.position_codec, current, before, target, edits),
        )
        label = f"AI heal {suspect.qualname} (touches {', '.join(touched)}"
        label += f"; {radius})" if radius else ")"
""",
    """        target = retarget(current, before, after, suspect)
        edit = types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
            edits=text_edits(ls.workspace.position_codec, current, before, target, edits),
        )
        label = edit_label(suspect.qualname, touched, radius)
""",
)
edit(
    APPLY,
    """async def apply_fix(
""",
    """def edit_label(qualname: str, touched: list[str], radius: str | None) -> str:
    \"\"\"The edit's label, which previews show: what it heals, touches, and its blast radius.\"\"\"
    extra = f"; {radius}" if radius else ""
    return f"AI heal {qualname} (touches {', '.join(touched)}{extra})"


async def apply_fix(
""",
)
