"""Localisation: map failures to the functions that should be healed, by position only.

index.py   where each def starts and ends (stdlib ast, cached by content hash)
paths.py   workspace, test and foreign files
calls.py   names called on a failing test line, resolved to workspace functions
operators.py  the dunders a line's operators call, on the class the evidence gives the operand
flow.py    values a line reads traced back to the calls that made them; the test's earlier acts
           and checks
testline.py  the failing test line read for suspects
chained.py  what the failure's exception chain says (PEP 479's StopIteration let out)
evidence.py  small readings of a failure (signature errors, raise helpers, refused arguments)
cached.py  callees a cache kept from running in the failing test
callgraph.py  how many calls from the failing line's calls each function the test ran is
spectrum.py  Ochiai ranking over passing/failing runs
ranker.py  every piece of evidence scored into suspects
rank.py    `locate`: failure -> ranked suspects with reasons
shown.py   where a failure no function is blamed for is shown
"""

from heal_ls.locate.index import ClassNode, FunctionNode, ModuleIndex, index_file, index_source
from heal_ls.locate.rank import Located, locate
from heal_ls.locate.ranker import suspect_for
from heal_ls.locate.shown import shown_at
from heal_ls.pysource.paths import is_test_file, is_workspace_file, relative_path

__all__ = [
    "ClassNode",
    "FunctionNode",
    "Located",
    "ModuleIndex",
    "index_file",
    "index_source",
    "is_test_file",
    "is_workspace_file",
    "locate",
    "relative_path",
    "shown_at",
    "suspect_for",
]
