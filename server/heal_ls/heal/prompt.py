"""The prompt sent to a model: minimal and sufficient to fix one function."""

from __future__ import annotations

from dataclasses import dataclass, field

from heal_ls.llm.redact import unmask


@dataclass
class Prompt:
    system: str
    user: str
    # placeholder -> original value for every secret masked out of the prompt
    masks: dict[str, str] = field(default_factory=dict)

    def unmask(self, answer: str) -> str:
        """The answer with masked secrets given back their original values."""
        return unmask(answer, self.masks)
