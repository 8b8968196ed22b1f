"""The built-in `local` repairer: no model, no network, no key.

It proposes small program transformations of the suspect function (see heal_ls.repair), most
likely first; the heal loop verifies each one and keeps the first whose tests pass.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from heal_ls.repair.search import labelled


class LocalRepairer:
    name = "local"
    model = "local"

    def __init__(self, second_order: bool = True):
        self.second_order = second_order

    def candidates(
        self, function_source: str, focus_lines: Iterable[int], first_line: int
    ) -> Iterator[str]:
        """Whole replacement defs, ranked and deduplicated (equal compiled code counts as equal).

        function_source is the def as it stands in the module (indentation included) and
        first_line its line in the module; focus_lines are module lines (the failing frames'
        lines inside the function). Yields nothing when the source does not parse as one def."""
        return (text for text, _ in self.labelled(function_source, focus_lines, first_line))

    def labelled(
        self, function_source: str, focus_lines: Iterable[int], first_line: int
    ) -> Iterator[tuple[str, str]]:
        """candidates() with the kind of mutation that made each one (repair/search.labelled)."""
        focus = [line - first_line + 1 for line in focus_lines]
        try:
            yield from labelled(function_source, focus, second=self.second_order)
        except (SyntaxError, ValueError):
            return
