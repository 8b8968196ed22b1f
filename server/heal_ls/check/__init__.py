"""`heal-ls check`: command.py runs and locates, report.py formats."""

from heal_ls.check.command import add_arguments, resolve_target, run
from heal_ls.check.report import human_lines, summary_line, to_json

__all__ = [
    "add_arguments",
    "human_lines",
    "resolve_target",
    "run",
    "summary_line",
    "to_json",
]
