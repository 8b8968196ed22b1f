"""The ranking behind `locate`: every piece of evidence a failure offers (frames,
calls on the failing line, coverage, data flow) scored into suspects."""

from __future__ import annotations

import ast

from heal_ls.locate.affinity import words
from heal_ls.locate.between import acts_between_checks, wrong_receiver
from heal_ls.locate.blocks import block_of, condition_unfinished, starts_handler
from heal_ls.locate.cached import called_in, memoized, private_writes, skipped_callees
from heal_ls.locate.callgraph import Key, call_distances, key_of, names_reached
from heal_ls.locate.calls import (
    call_names,
    imported_functions,
    matches,
    names_on_line,
    patched_with,
    statement_parts,
)
from heal_ls.locate.chained import escaped_stop
from heal_ls.locate.doubles import (
    calls_name,
    checked_in_double,
    handed_among_keys,
    installed_doubles,
    reads_keys,
)
from heal_ls.locate.escapes import escaped_alike, escapes_with
from heal_ls.locate.evidence import (
    always_raises,
    arguments_read,
    checks_for_tests,
    contrasted,
    crashed_on_a_value,
    def_of,
    derived_argument,
    does_nothing,
    elements_of_arguments,
    forwards,
    handles_kind,
    is_getter,
    location_of_test,
    module_level_reason,
    named_argument,
    namesake_order,
    none_argument,
    passed_on,
    protocol_error_method,
    raised_reason,
    raises_at,
    reads_argument,
    rejected_argument,
    returned_attributes,
    signature_error_callee,
    wrong_kind_argument,
)
from heal_ls.locate.expected import (
    expected_exceptions,
    expects_warning,
    not_raised,
    raises_any,
    warns,
)
from heal_ls.locate.flow import (
    argument_reads,
    calls_before_line,
    handed_to,
    is_check,
    locals_at,
    names_called_up_to,
    names_feeding_line,
    passed_values,
    quoted_names,
    statements_before_line,
)
from heal_ls.locate.handlers import exception_lineage, let_through, tries_holding
from heal_ls.locate.held import branch_reads, held_class, read_state
from heal_ls.locate.index import ClassNode, FunctionNode, ModuleIndex, index_source
from heal_ls.locate.keywords import (
    TakenFrame,
    forwardings,
    keyword_taker,
    passed_keywords,
    refused_keyword,
    takes_keyword,
    var_keyword,
)
from heal_ls.locate.logged import checked_log_calls, logged_raises, resolve_file
from heal_ls.locate.missing import nearest_names
from heal_ls.locate.operators import ClassTable, operator_calls, repr_classes
from heal_ls.locate.spectrum import (
    BLOCK_MARK,
    DSTAR_CAP,
    block_ochiai,
    blocks_every_failing_ran,
    dstar_scores,
    every_failing_ran,
    failing_only,
    failing_only_blocks,
    ochiai_scores,
    split_block,
    split_key,
)
from heal_ls.locate.state import (
    CONSTRUCTORS,
    assigned_in_branch,
    class_of,
    computed_on_self,
    construction_only,
    handed_self_after,
    held_locals,
    is_private,
    literal_starts,
    literal_tables,
    made_on_self,
    missing_attribute,
    none_tested,
    read_off_self,
    returns_stored,
    stored_attribute,
    stored_on_self,
    written_on_self,
    written_outside,
)
from heal_ls.locate.testline import (
    ACCESSORS,
    acted_before,
    built_in_calls,
    line_suspects,
    resolve,
)
from heal_ls.locate.written import changed_words, checked_text, own_strings, written_into
from heal_ls.models import Failure, Frame, RunResult, Suspect
from heal_ls.pysource.parse import Def, name_of
from heal_ls.pysource.paths import TestFiles, is_workspace_file, relative_path
from heal_ls.pysource.source import SourceError, read_source

# Run by the spectrum alone, a constructor or a renderer is less suspect than code that decides
# with the same Ochiai: it built or rendered what the run's decisions handed it (a symptom's
# report: `UnusedImport.__init__`, `ImportationFrom.__str__` run in the tests that report one).
BUILDERS = {"__init__", "__str__", "__repr__"}
BUILDER_WEIGHT = 0.7
NOOP_SCORE = 0.0005  # a def that does nothing, reached by the failing test: below any that did
# a pytest.raises that got nothing: when at most this many of the defs the test ran raise the
# expected exception, raising it is a specific refusal (Ranker.raisers_first)
FEW_RAISERS = 5
PLAIN_VALUES = {None, "None", "True", "False", "''", "0", "1", "()", "[]", "{}"}  # too common

Place = tuple[str, FunctionNode]  # a workspace function: its module's path, its def


def suspect_for(
    path: str,
    node: FunctionNode | ClassNode,
    reason: str,
    score: float = 1.0,
    focus_line: int | None = None,
) -> Suspect:
    return Suspect(
        path=path,
        qualname=node.qualname,
        start_line=node.start_line,
        start_col=node.start_col,
        end_line=node.end_line,
        end_col=node.end_col,
        reason=reason,
        score=score,
        def_line=node.def_line,
        focus_line=focus_line or node.def_line,
    )


def library_called(failure: Failure, innermost: Frame) -> Frame | None:
    """The frame `innermost` called when the crash is below it, in a library's code."""
    at = next(i for i, frame in enumerate(failure.frames) if frame is innermost)
    return failure.frames[at + 1] if at + 1 < len(failure.frames) else None


class Ranker:
    def __init__(self, root: str, overlay: dict[str, str], tests: TestFiles | None = None):
        self.root = root
        self.tests = tests or TestFiles(root)  # the files holding tests: never suspects
        self.overlay = overlay
        self.suspects: dict[tuple[str, int], Suspect] = {}
        self.unparsable: dict[str, SyntaxError] = {}  # workspace modules this Python cannot parse
        self.indexes: dict[str, ModuleIndex | None] = {}  # read once a ranking (~200 asks)
        self.called_on_line: set[tuple[str, int]] = set()  # keys of the failing line's calls
        self.checked: set[Key] = set()  # those and the keys of the defs computing its values
        self.on_path: set[tuple[str, int]] = set()  # keys of the traceback's frames (call_path)
        self.by_spectrum: set[tuple[str, int]] = set()  # keys whose best reason is a spectrum
        # block Ochiai and each function's likeliest block, by failure id: computed once (four
        # readers; each pass counts every block of every recorded test)
        self.blocks_of: dict[str, tuple[dict[str, float], dict[str, tuple[float, int]]]] = {}
        self.ochiai_of: dict[str, dict[str, float]] = {}
        self.tests_code: dict[Key, bool] = {}
        self.acted: dict[Key, str] = {}  # the test's acts before the failing check: their reason
        self.failing_at: tuple[str, int] | None = None  # the test's failing line, when known
        self.line_tied: list[Place] = []  # its calls, the defs computing what it checks, acts
        self.classes: ClassTable | None = None  # of the modules the failing test ran
        # the defs the act between a check that held and the same check failing called
        self.changers: dict[Key, str] = {}

    def index(self, path: str) -> ModuleIndex | None:
        if path not in self.indexes:
            self.indexes[path] = self._index(path)
        return self.indexes[path]

    def _index(self, path: str) -> ModuleIndex | None:
        try:
            text = self.overlay[path] if path in self.overlay else read_source(path)
            return index_source(text)
        except (OSError, SourceError):
            return None
        except SyntaxError as err:
            self.unparsable[path] = err
            return None

    def add(self, path, node: FunctionNode, reason: str, score: float, line=None, spectrum=False):
        key = self.key(path, node)
        if self.is_test_code(key, path, node):
            return
        known = self.suspects.get(key)
        if known is None or score > known.score:  # the strongest reason wins
            self.suspects[key] = suspect_for(path, node, reason, score, line)
            if spectrum:  # ran in the failing tests, more than in passing ones: statistics
                self.by_spectrum.add(key)
            else:
                self.by_spectrum.discard(key)

    def is_test_code(self, key: Key, path: str, node: FunctionNode) -> bool:
        """Test code kept outside a test file (`evidence.checks_for_tests`), asked once a
        def: it checks what the test computed and is never a suspect."""
        if key not in self.tests_code:
            self.tests_code[key] = checks_for_tests(path, self.index(path), node, self.tests)
        return self.tests_code[key]

    def named_for_test(self) -> set[tuple[str, int]]:
        """The suspects the failing test's name may lift: those ranked by the run's spectrum
        alone (near ties there are accidents of which tests exist), not what the traceback
        placed (a raise site, its callers) nor the failing line's own calls. A frame whose
        block only the failing tests ran ranks by that block, yet the traceback placed it too:
        a caller named like the test (oauthlib's `parse_request_body_response`) only led to the
        raise below it."""
        return self.by_spectrum - self.called_on_line - self.on_path

    def wrote_text(self, failure: Failure, keys) -> dict[Key, str]:
        """Of the suspects `keys`, those whose string constants are in the text the failing
        check shows wrong (`written.checked_text`), each with the first such constant."""
        text = checked_text(failure.message)
        found = {}
        for key in keys if text else ():
            body = self.def_of_suspect(self.suspects[key])
            if body is not None and (constants := written_into(body, text)):
                found[key] = constants[0]
        return found

    def sole_writers(self, failure: Failure, run: RunResult | None) -> dict[Key, str]:
        """The defs that alone wrote a word the failing check shows changed
        (`written.changed_words`: `mfenced` where `mrow><mo>(` was expected; `PR06` of `assert
        not [('PR06', ...)]`), each with the first such word: of the defs the failing test ran,
        the one holding the word as a string constant in a block every failing test ran. A word
        that several of them hold names none."""
        wanted = changed_words(failure.message or "")
        ran = blocks_every_failing_ran(failure, run, self.tests) if wanted else set()
        holders: dict[str, set[Key]] = {}
        for at in sorted(ran.intersection(failure.covered)):
            path, line = split_key(at) or ("", 0)
            index = self.index(path) if path not in self.tests else None
            node = index.at_start_line(line) if index is not None else None
            found = def_of(index, node) if node is not None else None
            if node is None or found is None:
                continue
            for constant in own_strings(found):
                if constant.value not in wanted:
                    continue
                block = block_of(found, constant.lineno)  # None: its entry, which ran
                if block is None or f"{path}:{block}{BLOCK_MARK}" in ran:
                    holders.setdefault(constant.value, set()).add(self.key(path, node))
        writers: dict[Key, str] = {}
        for word, keys in sorted(holders.items()):
            if len(keys) == 1:
                writers.setdefault(keys.pop(), word)
        return writers

    def sole_writers_first(self, failure: Failure, run: RunResult | None, eligible) -> None:
        """A def that alone wrote a word the failing check shows changed (`sole_writers`) made
        the wrong text: it goes above the `eligible` suspects ranked above it (by the spectrum
        and the names they share with the test) when none of them is more specific to the
        failing tests (`specificity`, its likeliest block's Ochiai): what lifted them was a
        near tie, the writer's word is not."""
        writers = {k: word for k, word in self.sole_writers(failure, run).items() if k in eligible}
        specific = self.specificity(failure, run, eligible) if writers else {}
        for key, word in writers.items():
            suspect = self.suspects[key]
            above = [k for k in eligible if k != key and self.suspects[k].score >= suspect.score]
            if above and all(specific[k] <= specific[key] for k in above):
                suspect.score = max(self.suspects[k].score for k in above) + 0.001 * specific[key]
                suspect.reason += (
                    f"; it alone wrote {word!r}, which the failing check shows changed"
                )

    def writers_before_acts(self, failure: Failure, run: RunResult | None, written) -> None:
        """The failing check reads what the test's earlier act made (`acted_before`: `dumps(v)`
        in `with assertRaises(...) as ctx:` before `assertIn(str(v), str(ctx.exception))`), and
        shows wrong text that a def the test ran wrote (`written`: `wrote_text`, its constant
        in it: `raise ValueError('Illegal JSON5 value: f{obj}')`): that def made the text the
        act only led to, and comes before the act's calls when it is at least as specific to
        the failing tests as the most specific of them (a writer that passing tests run as
        often says less than the act)."""
        held = self.suspects
        acts = [k for k, why in self.acted.items() if k in held and held[k].reason.startswith(why)]
        writers = [k for k in written if k in held]
        if not acts or not writers:
            return
        specific = self.specificity(failure, run, [*acts, *writers])
        top = max(self.suspects[k].score for k in acts)
        bar = max(specific[k] for k in acts)
        for key in writers:
            suspect = self.suspects[key]
            if suspect.score < top and specific[key] >= bar:
                suspect.score = top + 0.001 * specific[key]
                suspect.reason += "; it wrote that text, which the act before the check led to"

    def quoted_words(self, suspect: Suspect) -> set[str]:
        """The words of the names a suspect's def quotes (a key, an option's or attribute's
        name: a string that is an identifier), not prose (a message, its docstring)."""
        found = self.def_of_suspect(suspect)
        if found is None:
            return set()
        body = found.body[1:] if ast.get_docstring(found) is not None else found.body
        quoted = set()
        for node in (n for statement in body for n in ast.walk(statement)):
            value = node.value if isinstance(node, ast.Constant) else None
            if isinstance(value, str) and value.isidentifier():
                quoted |= words(value)
        return quoted

    def def_of_suspect(self, suspect: Suspect) -> Def | None:
        """The parsed def of a suspect, None when its module did not parse."""
        index = self.index(suspect.path)
        return index.def_node(suspect.def_line) if index is not None else None

    def test_tree(self, test_path: str | None, test_line: int | None) -> ast.Module | None:
        """The failing test's module, parsed, when the failure says where in it the test
        failed; None otherwise (no line to read, or the module did not parse)."""
        index = self.index(test_path) if test_path and test_line else None
        return index.tree if index is not None else None

    def key(self, path: str, node: FunctionNode) -> Key:
        return key_of(path, node)

    def returns_stored(self, path: str, node: FunctionNode) -> bool:
        found = def_of(self.index(path), node)
        return found is not None and returns_stored(found)

    def function_of(self, frame: Frame) -> FunctionNode | None:
        index = self.index(frame.path)
        return index.function_for_frame(frame.line, frame.function) if index else None

    def from_crash(self, failure: Failure, code: list[Frame], run: RunResult | None) -> str | None:
        innermost = code[-1]
        node = self.function_of(innermost)
        if node is None or innermost.function == "<module>":
            return module_level_reason(innermost, self.root, self.index(innermost.path))
        reason = raised_reason(failure, innermost)
        covered = self.covered_functions(failure)
        handed = self.handed_to_library(
            innermost, library_called(failure, innermost), failure.message
        )
        # a library refused what the line handed it, and a function of ours computed that: the
        # line only passed it on (`re.compile(raw)`, `raw` from `self.pattern_to_regex(...)`);
        # that function (0.95, below) and the blocks only failing tests ran (0.92) come first
        score = 0.91 if self.made_for_library(innermost, handed, covered) else 1.0
        self.raise_site(code, reason, score, "on the failing call path", refused=failure.message)
        self.outside_writers(innermost, node, covered)
        self.let_out(failure, code, covered)
        if not self.named_for_the_object(failure, node):
            self.value_origin(code, handed)
        scores = self.ochiai(failure, run)
        index = self.index(innermost.path)
        # `size = self.getsizeof(v)` then `if size > limit` raised: the callee made the value,
        # and comes before the callers that only led here; when the raising line read an
        # argument, what its caller computed to pass it (after the callers)
        for hop, frame in enumerate(reversed(code[-2:])):
            if hop and not reads_argument(index, node, innermost.line):
                break
            self.feeding_values(frame, covered, 0.95 if not hop else 0.85 - 0.01 * hop)
        self.shared_cause(failure, code[-1], run, covered)
        self.missing_refusal(failure, code, self.argument_makers(code, node, covered))
        self.failing_only_blocks(failure, run)
        self.add_covered(failure, scores, run)
        return None

    def outside_writers(self, innermost: Frame, node: FunctionNode, covered):
        """The raise site read its object's private state (`self._index`) that a def of
        another class, which the failing test ran, changed from outside (`lines._index -=
        n`): that def set what the raise site tripped over; it comes right after it. When the
        raise site raised on purpose (`raise StopIteration` once `_index` ran past the end),
        it did what it was written to do with the state it kept, and the def that changed
        that state behind its back comes first."""
        owner = class_of(node.qualname)
        found = def_of(self.index(innermost.path), node)
        if owner is None or found is None:
            return
        read = {name for name in read_off_self(found) if is_private(name)}
        if not read:  # nothing another class could have changed: no def to walk (re-check time)
            return
        held = self.suspects.get(self.key(innermost.path, node))
        score = held.score if held is not None else 1.0
        offset = 0.001 if raises_at(self.index(innermost.path), node, innermost.line) else -0.001
        for path, writer in covered:
            index = self.index(path)
            if index is None or class_of(writer.qualname) == owner:
                continue
            if written := sorted(read & private_writes(index, writer)):  # none: no def parsed
                reason = (
                    f"changes {owner}'s private {written[0]} from outside it, which"
                    f" {node.qualname} read where it raised"
                )
                self.add(path, writer, reason, score + offset)

    def let_out(self, failure: Failure, code: list[Frame], covered):
        """A def on the path caught the exception with an except clause for its class and let
        it out doing nothing else with it (`handlers.let_through`: `except OSError: raise`, or
        kept and raised later): it chose, for this very class, not to handle it; the raise
        below did what it was written to. It comes first, innermost first."""
        lineage: set[str] | None = None  # asked once a try holds a frame: it reads the class
        # table, every class of the modules the failing test ran (most paths have no try)
        for hop, frame in enumerate(reversed(code)):
            node = self.function_of(frame)
            found = def_of(self.index(frame.path), node) if node is not None else None
            if node is None or found is None or not tries_holding(found, frame.line):
                continue
            if lineage is None:
                lineage = exception_lineage(failure.exc_type, self.class_table(covered))
            clause = let_through(found, frame.line, lineage)
            if clause is not None:
                reason = (
                    f"its except clause at line {clause} caught the {failure.exc_type} and let"
                    " it out unhandled"
                )
                self.add(frame.path, node, reason, 1.005 - 0.001 * hop, frame.line)

    def named_for_the_object(self, failure: Failure, node: FunctionNode) -> bool:
        """`'DictComp' object has no attribute 'elt'` raised in `visit_DictComp`: the def is
        named for the kind of object it lacked an attribute of, so it was handed what it
        handles; the line asked for the wrong attribute, and the callers that made the object
        made the right one."""
        lacking = missing_attribute(failure)
        return lacking is not None and handles_kind(node, lacking[0])

    def handed_to_library(
        self, frame: Frame, called: Frame | None, message: str
    ) -> set[str] | None:
        """What `frame`'s line handed the library function `called` (the frame below it, not
        the workspace's; None when there is none). Where no call on the line is named for it
        (Python called a protocol method: `issubclass(value, expected_class)` ran
        `__subclasscheck__`), what the line read whose value the exception's `message` quotes
        (`typing.Self cannot be used with issubclass()`): the value refused; None when the
        message quotes none (too short a value, None, True, False: quoted by chance)."""
        index = self.index(frame.path)
        if called is None or index is None or index.tree is None:
            return None
        handed = handed_to(index.tree, frame.line, called.function)
        if handed is None:
            values = {n: v for n, v in frame.locals.items() if v not in PLAIN_VALUES and len(v) > 3}
            handed = quoted_names(index.tree, frame.line, values, message) or None
        return handed

    def made_for_library(self, frame: Frame, handed: set[str] | None, covered) -> list[Place]:
        """The functions of ours that computed the names `frame`'s line `handed` the library
        function it called (`raw, include = self.pattern_to_regex(pattern)` then
        `re.compile(raw)`; handed_to_library)."""
        index = self.index(frame.path)
        if not handed or index is None or index.tree is None:
            return []
        return resolve(names_feeding_line(index.tree, frame.line, handed), covered)

    def value_origin(self, code: list[Frame], handed: set[str] | None):
        """The raising line read a parameter whose value its caller held, by the same recorded
        value, in a local named on the call line, and so on up: the frames between only passed
        it down unchanged. When it travelled through two frames or more, the blame moves up to
        the frame where it is no parameter (it was made or changed there), then to that frame's
        callers, which gave it what it made the value from; the frames below only passed it.
        A frame that took the value out of a container it was handed (`value = env["key"]`,
        `env.get("key")`) did not make it either: it was made where the container was filled,
        so the trail goes on with the container, and such a reader comes after its makers
        (when the container's trail is lost, or it came from the test, the reader is blamed).
        When the crash is in a library function the raising line called, the value is one of
        the names the line `handed` it as arguments, not the object whose method it called
        (`handler.ignorableWhitespace(depth * indent)` refusing an int `indent`: the handler
        was made above and passed down, the int came from the test)."""
        top = len(code) - 1
        node = self.function_of(code[top])
        index = self.index(code[top].path)
        names = arguments_read(index, node, code[top].line) if node is not None else set()
        if handed is not None:
            names &= handed
        readers: list[int] = []  # frames that read the value out of a container they were handed
        lost = False
        while top > 0 and names:
            values = {code[top].locals.get(n) for n in names} - PLAIN_VALUES
            caller = code[top - 1]
            index = self.index(caller.path)
            node = self.function_of(caller)
            if node is None or caller.function == "<module>" or index is None or not index.tree:
                break
            parts = statement_parts(index.tree.body, caller.line)
            line = {n.id for p in parts for n in ast.walk(p) if isinstance(n, ast.Name)}
            names = {n for n in line if caller.locals.get(n) in values}
            if not names:  # the call line computed it, or the locals do not tell: lost track
                lost = True
                break
            top -= 1
            held, names = names, names & arguments_read(index, node, caller.line)
            if not names and (names := elements_of_arguments(index, node, held)):
                readers.append(top)
        if (names or lost) and readers:  # where the container came from is not known
            top, names, lost, readers = readers[0], set(), False, []
        if names or lost or len(code) - 1 - top < 2:  # a parameter at the top, or too near
            return
        raised = f"{relative_path(code[-1].path, self.root)}:{code[-1].line}"
        reason = f"made the value passed down unchanged to where it was raised ({raised})"
        hops = [*range(top, -1, -1), *readers[::-1]]
        for hop, at in enumerate(hops):
            frame = code[at]
            node = self.function_of(frame)
            if node is not None and frame.function != "<module>":
                if at in readers:
                    reason = "read the value raised on out of a container its caller made"
                self.add(frame.path, node, reason, 1.004 - 0.001 * hop, frame.line)
                reason = "called the function that made the value raised on"

    def shared_cause(self, failure: Failure, innermost: Frame, run: RunResult | None, covered):
        """Other tests failed in the same run and some of them never ran the function that
        raised here: one fault behind them all (they fail together, fixed together) lies in code
        every failing test ran. A function that made a value the raising line read and that
        every failing test ran comes before the raise site (`linux = _normalize_string(...)`
        then `linux.split("_", 1)`, raising here; the other failing tests compare the
        normalised string)."""
        every = every_failing_ran(failure, run, self.tests)
        node = self.function_of(innermost)
        index = self.index(innermost.path)
        if every is None or node is None or index is None or index.tree is None:
            return
        if f"{innermost.path}:{node.start_line}" in every:
            return
        where = f"{relative_path(innermost.path, self.root)}:{innermost.line}"
        feeding = resolve(names_feeding_line(index.tree, innermost.line), covered)
        for rank, (path, made) in enumerate(feeding):
            if f"{path}:{made.start_line}" in every and made is not node:
                reason = (
                    f"computes a value used where it was raised ({where}), and every failing"
                    " test ran it; some never ran the raise site"
                )
                self.add(path, made, reason, 1.006 - 0.001 * rank)

    def failing_only_blocks(self, failure: Failure, run: RunResult | None):
        """After a crash, a function with a block that every failing test ran and no passing
        one did (block Ochiai 1.0 against recorded passing tests) did something only the
        failing runs did: it may have made what the crash tripped over (a writer whose output
        the reader refuses), so it comes right after the raise site, before the callers that
        only led there."""
        recorded = run is not None and any(
            t.outcome == "passed" and t.blocks is not None for t in run.tests
        )
        if not recorded:
            return
        for key, (score, line) in self.block_scores(failure, run).items():
            where = split_key(key)
            index = self.index(where[0]) if where else None
            node = index.at_start_line(where[1]) if index and where else None
            if score >= 1.0 and node is not None and where is not None:
                reason = f"its block at line {line} ran in every failing test and no passing one"
                self.add(where[0], node, reason, 0.92, line, spectrum=True)

    def missing_refusal(self, failure: Failure, code: list[Frame], makers: list[Place]):
        """The test expects `ValueError` around the call that crashed deeper with another
        exception: where the refusal of this input is missing is a function that raises
        `ValueError` for other inputs; it outranks the line that tripped over the input. First
        the `makers` of the argument the crash tripped over (a converter that refuses other
        bad inputs let this one through), then the callers on the path, innermost first."""
        test = [f for f in failure.frames if f.path in self.tests]
        index = self.index(test[-1].path) if test else None
        if index is None or index.tree is None:
            return
        expected = expected_exceptions(index.tree, test[-1].line)
        if not expected or failure.exc_type.rsplit(".", 1)[-1] in expected:
            return
        if self.misspelt(failure):  # the raising line is wrong for any input: no refusal missed
            return
        callers = [(f.path, self.function_of(f), f.line) for f in reversed(code[:-1])]
        where = f"{relative_path(test[-1].path, self.root)}:{test[-1].line}"
        for path, node, line in [(p, n, None) for p, n in makers] + callers:
            if node is not None and raises_any(self.index(path), node, expected):
                reason = (
                    f"raises {'/'.join(sorted(expected))} for other inputs; the test expects it"
                    f" at {where}, got {failure.exc_type} from deeper"
                )
                self.add(path, node, reason, 1.01, line)
                return
        refused = signature_error_callee(failure)
        entry = self.function_of(code[0])
        if refused is not None and entry is not None and code[0].function != "<module>":
            # what the test handed the code it called went on unchecked until a def's signature
            # refused it (`on_error=` where no parser takes it): the refusal the test expects
            # belongs where the arguments came in, above the def whose signature refused them
            reason = (
                f"the test expects {'/'.join(sorted(expected))} at {where}; what it handed this"
                f" went on unchecked until {refused}() refused it ({failure.exc_type})"
            )
            self.add(code[0].path, entry, reason, 1.06, code[0].line)

    def misspelt(self, failure: Failure) -> bool:
        """`'BitReader' object has no attribute 'bit'` where a class of that name the test ran
        defines `bits`: the raising line misspelt a name (Python would suggest it), a mistake of
        that line whatever the input, not a refusal missing above it."""
        lacking = missing_attribute(failure)
        if lacking is None:
            return False
        owner, name = lacking
        paths = {path for path, _ in self.covered_functions(failure)}
        indexes = [index for path in sorted(paths) if (index := self.index(path)) is not None]
        defined = {f.name for i in indexes for f in i.functions if class_of(f.qualname) == owner}
        return bool(nearest_names(name, defined - {name}))

    def argument_makers(self, code: list[Frame], node: FunctionNode, covered) -> list[Place]:
        """The functions whose results the caller passed as the arguments the raising line
        read (`value = self._to_decimal(s)` then `ymd.append(value)`, raising on `val`)."""
        index = self.index(code[-1].path)
        read = arguments_read(index, node, code[-1].line)
        callee = def_of(index, node)
        caller = self.index(code[-2].path) if len(code) > 1 else None
        if not read or callee is None or caller is None or caller.tree is None:
            return []
        reads = argument_reads(caller.tree, code[-2].line, callee, read)
        return (
            resolve(names_feeding_line(caller.tree, code[-2].line, reads), covered) if reads else []
        )

    def feeding_values(self, frame: Frame, covered, score: float):
        index = self.index(frame.path)
        if not covered or index is None or index.tree is None:
            return
        feeding = resolve(names_feeding_line(index.tree, frame.line), covered)
        where = f"{relative_path(frame.path, self.root)}:{frame.line}"
        for rank, (path, node) in enumerate(feeding):
            reason = f"computes a value used where it was raised ({where})"
            self.add(path, node, reason, score - 0.001 * rank)

    def add_covered(self, failure: Failure, scores: dict[str, float], run: RunResult | None):
        """Every function the failing test ran, by Ochiai (a nested def before its encloser; a
        constructor or renderer weighed down: BUILDERS), then the callees a cache kept from
        running, then those that ran only while the modules were imported."""
        covered = self.covered_functions(failure)
        blocks = self.block_scores(failure, run)
        for path, node in covered:
            key = f"{path}:{node.start_line}"
            score = scores.get(key, 0.0)
            reason = f"ran during the failing test (Ochiai {score:.2f})"
            if key in blocks and blocks[key][0] > score:  # as suspect as its likeliest block
                score, line = blocks[key]
                reason = (
                    f"ran during the failing test (Ochiai {score:.2f}, its block at line {line})"
                )
            if node.name in BUILDERS:  # it built or rendered what the run's decisions made
                score *= BUILDER_WEIGHT
            score = 0.5 * score + 0.0001 * node.qualname.count("<locals>")
            self.add(path, node, reason, score, spectrum=True)
        skipped = skipped_callees(failure, run, covered, self.index)
        each_block = self.each_block(failure, run)
        for path, node, caller in skipped:
            index = self.index(path)
            held = self.suspects.get(self.key(path, caller))
            kept = memoized(index, caller, node) if index is not None and held is not None else []
            likeliest = blocks.get(f"{path}:{caller.start_line}", (0.0, 0))[0]
            # a caller that is no suspect has no memo to lift its callee by: nothing to read
            if held is not None and self.obtained_in(
                failure, each_block, likeliest, (path, caller), kept
            ):
                # it made the value its caller only returned from the memo: just before it
                reason = f"made the value {caller.qualname} kept and returned (a cached result)"
                spectrum = self.key(path, caller) in self.by_spectrum
                self.add(path, node, reason, held.score + 0.001, spectrum=spectrum)
                continue
            reason = f"called by {caller.qualname}; ran in a passing test only (a cached result?)"
            self.add(path, node, reason, 0.002)
        for path, node in self.covered_functions(failure, failure.import_covered):
            reason = "ran when its module was imported (it made module-level data)"
            self.add(path, node, reason, 0.001)

    def obtained_in(
        self, failure: Failure, each_block, likeliest: float, caller: Place, lines: list[int]
    ) -> bool:
        """Did the failing test obtain a kept value at one of `lines` of `caller` (a memo's
        read, a cached callee's call), in a block it ran that is as suspect as the caller's
        likeliest block (`each_block`: block Ochiai; `likeliest`: the caller's best)? A value
        obtained under a branch the test did not take was not handed to it; one obtained in a
        block passing tests share with it, while the caller's suspicion rests on another
        block, is not what the failing test did differently (`_path_regex()` under `if path:`,
        the failing input's fragment checked below). Without recorded blocks, any such line
        may have."""
        path, node = caller
        index = self.index(path)
        body = index.def_node(node.def_line) if index is not None else None
        if not lines or failure.blocks is None or body is None:
            return bool(lines)
        ran = set(failure.blocks.get(path, []))
        entry = f"{path}:{node.start_line}"
        for line in lines:
            block = block_of(body, line)
            if block is not None and block not in ran:
                continue
            if condition_unfinished(body, line, ran):  # it raised before reading the memo
                continue
            key = entry if block is None else f"{path}:{block}{BLOCK_MARK}"
            if each_block.get(key, 0.0) >= likeliest - 1e-9:
                return True
        return False

    def signature_callee(self, failure: Failure, frames: list[Frame], run: RunResult | None):
        """`TypeError: Recorder.__init__() got an unexpected keyword argument 'x'`: the def the
        message names is the one whose signature must change; it outranks the calling line."""
        protocol = protocol_error_method(failure)
        if protocol is not None:
            self.protocol_method(failure, protocol, run)
        named = signature_error_callee(failure)
        found = self.named_callee(failure, frames, named) if named is not None else None
        if found is not None:
            path, node = found
            caller = frames[-1]
            where = f"{relative_path(caller.path, self.root)}:{caller.line}"
            reason = f"called at {where} with arguments its signature refuses ({failure.message})"
            self.add(path, node, reason, 1.05)

    def named_callee(self, failure: Failure, frames: list[Frame], named: str) -> Place | None:
        """The def of ours a signature's TypeError names (`named`), called from the innermost
        frame of ours, else None."""
        if not frames:
            return None
        caller = frames[-1]
        index = self.index(caller.path)
        line_names = names_on_line(index.tree, caller.line) if index and index.tree else []
        pool = self.signature_pool(failure, caller, index)
        found = [(p, n) for p, n in pool if n.qualname == named or n.qualname.endswith("." + named)]
        if "." not in named:  # Python < 3.10 names only `__init__`: the call line tells whose
            found = [(p, n) for p, n in found if any(matches(x, n) for x in line_names)] or found
        if len({p for p, _ in found}) > 1:  # namesakes (a subclass of the same name): whose?
            found.sort(key=lambda place: namesake_order(failure, caller, place))
        return found[0] if found else None

    def keyword_taker(self, failure: Failure, frames: list[Frame]) -> None:
        """`'row_limit' is an invalid keyword argument for this function`: the keyword the
        test's own call passes (`from_csv(path, row_limit=2)`) went down in `**kwargs` until a
        function not of ours refused it; the outermost def that took it into its `**kwargs`
        from the test is the one meant to take it. A refusing def of ours without `**` is
        `signature_callee`'s."""
        refused = refused_keyword(failure)
        test = next((f for f in reversed(frames) if f.path in self.tests), None)
        if refused is None or test is None:
            return
        if refused.callee is not None:
            named = self.named_callee(failure, frames, refused.callee)
            found = def_of(self.index(named[0]), named[1]) if named is not None else None
            if found is not None and var_keyword(found) is None:
                return
        tree = self.test_tree(test.path, test.line)
        statement = statement_parts(tree.body, test.line) if tree is not None else []
        if refused.keyword not in passed_keywords(statement):
            return
        below = frames[frames.index(test) + 1 :]
        taken = []
        for frame in (f for f in below if f.path not in self.tests):
            index = self.index(frame.path)
            node = index.function_for_frame(frame.line, frame.function) if index else None
            found = def_of(index, node) if node is not None else None
            if node is not None and found is not None:
                taken.append(TakenFrame(frame, node, found))
        taker = keyword_taker(refused.keyword, taken)
        if taker is not None:
            reason = (
                f"took the keyword {refused.keyword!r} the test passes into its **kwargs and "
                f"handed it on to a call that refused it ({failure.message})"
            )
            self.add(taker.frame.path, taker.node, reason, 1.05)

    def swallowed_refusal(self, failure: Failure, frames: list[Frame]) -> None:
        """The failing test passes `k=` (`interp(expr, raise_errors=True)` under a bare
        `except: pass`) to a def it ran that hands its `**kw` on to a def of ours whose
        signature has no `k` and no `**`, and that def never ran in the failing test: the
        call raised TypeError, which something caught. The def that cannot take `k` is the
        one to change, as when the message names it."""
        test = next((f for f in frames if f.path in self.tests), None)
        index = self.index(test.path) if test is not None else None
        node = index.function_for_frame(test.line, test.function) if index and test else None
        found = def_of(index, node) if node is not None else None
        if found is None:
            return
        passed = passed_keywords(found.body)
        covered = set(failure.covered)
        for path, giver in self.covered_functions(failure):
            module = self.index(path)
            body = def_of(module, giver)
            if module is None or body is None or var_keyword(body) is None:
                continue
            handed = passed - {a.arg for a in [*body.args.args, *body.args.kwonlyargs]}
            for forwarding in forwardings(module, giver, body) if handed else []:
                callee = forwarding.callee
                refuser = def_of(module, callee)
                if refuser is None or f"{path}:{callee.start_line}" in covered:
                    continue  # it ran: its signature took what it was handed
                if not ran_a_store(failure, path, body, [forwarding.line]):
                    continue  # the forwarding call's branch did not run
                refused = sorted(k for k in handed if not takes_keyword(refuser, k))
                if refused:
                    reason = (
                        f"{giver.qualname} handed it the keyword {refused[0]!r} the test passes, "
                        "which its signature lacks; it never ran in the failing test (the "
                        "TypeError was caught)"
                    )
                    self.add(path, callee, reason, 0.96)

    def protocol_method(self, failure: Failure, name: str, run: RunResult | None):
        """`iter() returned non-iterator`: an __iter__ that ran in this test returned it (one
        that no passing test ran first)."""
        failing = failing_only(failure, run)
        found = [(p, n) for p, n in self.covered_functions(failure) if n.name == name]
        found.sort(key=lambda c: f"{c[0]}:{c[1].start_line}" not in failing)
        if found:
            path, node = found[0]
            reason = f"{name} returned a value of the wrong kind ({failure.message})"
            self.add(path, node, reason, 1.05)

    def signature_pool(self, failure: Failure, caller: Frame, index: ModuleIndex | None):
        pool = [(caller.path, node) for node in (index.functions if index else [])]
        files = {key[0] for k in failure.covered if (key := split_key(k))}
        for path in sorted(files):
            found = self.index(path)
            pool += [(path, node) for node in (found.functions if found else [])]
        if index is not None and index.tree is not None:
            pool += imported_functions(index.tree, caller.path, self.root)
        return pool

    def builders_below_checked(self, own: dict[str, int]):
        """Ranked by the spectrum alone (a block few passing tests ran, a name lift), a
        constructor or a renderer does not pass a def that decides and is ranked for what the
        failing line checks (called there, or computing a value it checks): it built or
        rendered what the run's decisions made (`MultiMarker.__str__` formatting the union
        `MarkerUnion.exclude` returned), so its block says which values were built, not where
        one went wrong (as BUILDER_WEIGHT for whole functions). A renderer with a branch no
        passing test took (`own`: `own_blocks`, which counts no constructor's) keeps its place."""
        builds = lambda s: s.qualname.rsplit(".", 1)[-1] in BUILDERS | CONSTRUCTORS  # noqa: E731
        checked = [
            s.score
            for key, s in self.suspects.items()
            if key in self.checked and key not in self.by_spectrum and not builds(s)
        ]
        if not checked:
            return
        bar = max(checked) - 0.001
        for key in self.by_spectrum:
            suspect = self.suspects[key]
            if builds(suspect) and not own.get(f"{suspect.path}:{suspect.start_line}"):
                suspect.score = min(suspect.score, bar)

    def noops_last(self) -> None:
        """A def that does nothing (`does_nothing`: a hook's default, pyte's `Screen.debug`, "by
        default a noop") ranked by the run's spectrum alone was reached, not wrong: the code
        that called it sent the run there (the parser's fallback, for an escape it should have
        consumed). It comes after every def with a body. Not when the failing line calls it or
        the traceback holds it: a stub the test calls may be the one the fix fills in."""
        for key in self.named_for_test():
            suspect = self.suspects[key]
            found = self.def_of_suspect(suspect)
            if found is not None and does_nothing(found):
                suspect.score = min(suspect.score, NOOP_SCORE)
                suspect.reason += "; its body does nothing"

    def escapers_first(self, failure: Failure) -> None:
        """The failing check's two texts differ only in how characters are escaped
        (`escapes.escaped_alike`): the suspects calling the stdlib's transform for that
        escaping (`urlencode`, `quote`) chose which characters it escapes, the others only
        carried the text on. They come first, in their order."""
        escaping = escaped_alike(failure.message or "")
        if escaping is None or not self.suspects:
            return
        top = max(s.score for s in self.suspects.values())
        for key, suspect in list(self.suspects.items()):
            index, body = self.index(suspect.path), self.def_of_suspect(suspect)
            used = escapes_with(index.tree, body, escaping) if index and index.tree and body else []
            if used:
                suspect.reason = (
                    f"calls {used[0]}; the failing check's texts differ only in {escaping.name}"
                )
                suspect.score = top + 0.01 + suspect.score / 100
                self.by_spectrum.discard(key)

    def raisers_first(self, failure: Failure, run: RunResult | None) -> None:
        """The test expected an exception and none came (pytest.raises' `DID NOT RAISE E`,
        assertRaises' `E not raised`): a def that raises E itself refuses other inputs, so the
        missing refusal is likelier its own than that of a def the spectrum ties it with. Of
        the suspects the spectrum alone ranks, each that raises E comes first among those of
        its Ochiai (its likeliest block's, as `specificity`), in their order. When E is the
        project's error for every bad input (a grammar's), many defs raise it, and the fix
        may add a def's first refusal: they go no higher. When only a few of the defs the test
        ran refuse with E (FEW_RAISERS), the refusal is specific: they come before every
        other suspect the spectrum ranks."""
        expected = not_raised(failure.message or "")
        spectral = [key for key in self.by_spectrum if key in self.suspects] if expected else []
        raisers = {key for key in spectral if self.raises(self.suspects[key], expected)}
        if not raisers:
            return
        ochiai = self.specificity(failure, run, spectral)
        few = len(raisers) <= FEW_RAISERS
        for key in raisers:
            suspect = self.suspects[key]
            overtaken = [
                self.suspects[other].score
                for other in spectral
                if other not in raisers
                and (few or round(ochiai[other], 6) == round(ochiai[key], 6))
            ]
            if not overtaken or max(overtaken) < suspect.score:
                continue
            suspect.reason += (
                f"; it raises {'/'.join(sorted(expected))} for other inputs, which the failing"
                " check expected and did not get"
            )
            suspect.score = max(overtaken) + 0.0001 + suspect.score / 1000

    def raises(self, suspect: Suspect, names: set[str]) -> bool:
        index = self.index(suspect.path)
        node = index.at_start_line(suspect.start_line) if index is not None else None
        return bool(names) and node is not None and raises_any(index, node, names)

    def enclosing_defs(self):
        """A suspect nested function brings its enclosing def in right after it."""
        for suspect in sorted(self.suspects.values(), key=lambda s: -s.score):
            if ".<locals>." not in suspect.qualname:
                continue
            index = self.index(suspect.path)
            outer = suspect.qualname.rsplit(".<locals>.", 1)[0]
            node = index.find(outer, suspect.start_line) if index else None
            if node is None:
                continue
            known = self.suspects.get(self.key(suspect.path, node))
            reason = f"encloses the suspect {suspect.qualname.rsplit('.', 1)[-1]}"
            self.add(suspect.path, node, known.reason if known else reason, suspect.score - 0.001)

    def state_makers(self, failure: Failure, run: RunResult | None, first: Suspect):
        """The first suspect reads, in its likeliest block (a branch, not its entry), state off
        `self` (`self.ords[key]`) that another def of its class computed and stored (`setup`,
        `__init__`; one the failing test ran, or that ran while its modules were imported: an
        instance kept at module level): that def made the value and returned, so it comes
        right after the reader. A parameter stored as it came (`self.envvar = envvar`) was
        made by the caller."""
        branch = self.likeliest_branch(failure, run, first)
        owner = class_of(first.qualname)
        if branch is None or owner is None:
            return
        node, found, line = branch
        reads = read_off_self(found, line)
        pool = self.covered_functions(failure)
        pool += self.covered_functions(failure, failure.import_covered)
        makers = []
        for path, maker in pool:
            made = def_of(self.index(path), maker)
            if maker is node or class_of(maker.qualname) != owner or made is None:
                continue
            if stored := sorted(reads & made_on_self(made)):
                makers.append((path, maker, stored))
        for rank, (path, maker, stored) in enumerate(makers):
            reason = f"stores {', '.join(stored[:3])}, which {first.qualname} reads off self"
            score = first.score - 0.000001 * (rank + 1)
            if tables := sorted(set(stored) & literal_tables(def_of(self.index(path), maker))):
                # the branch looked up an entry of a table written out by hand: the entry is
                # data, likelier wrong than the lookup that applies every entry alike
                reason = f"stores the literal table {tables[0]}, which {first.qualname} reads"
                score = first.score + 0.000001 * (len(makers) - rank)
            self.add(path, maker, reason, score)

    def held_state_makers(self, failure: Failure, run: RunResult | None, first: Suspect):
        """The first suspect's likeliest branch reads state an object it holds keeps, one
        attribute hop away (`m = self.ptc.CRE_DATE3.search(s)`, then `if m is not None:`;
        `if inspector.has_previous_exception():` of a local `inspector = Inspector(exc)`): the
        constructor of that object's class (or a helper only it calls) that computed that
        state made it. When the branch's test read it, the state decided that the branch the
        failing test singled out ran, and the reader only followed: the maker comes first (as
        `none_returner`'s callee does); when only the branch's body read it, right after the
        reader (as `state_makers` places a maker of the reader's own class). Not a parameter
        stored as it came, nor a literal start value (`self.message = ''`) other methods
        change."""
        branch = self.likeliest_branch(failure, run, first)
        if branch is None:
            return
        node, found, line = branch
        own = list(self.methods_of(first.path, first.qualname.rpartition(".")[0]).values())
        reads = branch_reads(found, line)
        read_on: dict[str, set[str]] = {}
        decided_on: dict[str, set[str]] = {}
        for read in [*reads.deciding, *reads.inside]:
            if (held := held_class(found, own, read)) is not None:
                read_on.setdefault(held, set()).add(read.attr)
                if read in reads.deciding:
                    decided_on.setdefault(held, set()).add(read.attr)
        pool = self.covered_functions(failure)
        pool += self.covered_functions(failure, failure.import_covered)
        deciders = {
            self.key(path, maker)
            for held, attributes in decided_on.items()
            for path, maker, _ in self.held_makers(pool, held, attributes)
        }
        makers = [
            (path, maker, stored, held)
            for held, attributes in sorted(read_on.items())
            for path, maker, stored in self.held_makers(pool, held, attributes)
            if maker is not node
        ]
        for rank, (path, maker, stored, held) in enumerate(makers):
            made = f"computed {', '.join(stored[:3])} on the {held}"
            if self.key(path, maker) in deciders:
                reason = f"{made} whose state decided the branch {first.qualname} took"
                self.add(path, maker, reason, first.score + 0.000001 * (len(makers) - rank))
            else:
                reason = f"{made} that {first.qualname} reads"
                self.add(path, maker, reason, first.score - 0.000001 * (rank + 2))

    def constructor_makers(self, failure: Failure, first: Suspect):
        """The failing check compares an attribute of an object (`assert p.n_jobs == 2`) whose
        class the evidence names (its local's repr, pytest's `where ... = <C object>.attr`),
        and that class's constructor, run by the failing test, did not keep it as it came:
        it stored it and then handed `self` to a callable that can write it over
        (`functools.update_wrapper(self, func)`), or, on an object the test made itself
        (`Parallel(n_jobs=None)`), it computed it in a branch the test's arguments sent it
        down (`if n_jobs is None: n_jobs = backend.default_n_jobs`). The value the check
        reads was made there and read as it was kept: the constructor comes first. The other
        constructors made how the object began as the caller asked (`attribute_makers`)."""
        if self.failing_at is None:
            return
        test_path, line = self.failing_at
        tree = self.test_tree(test_path, line)
        compared = self.compared_objects(test_path, line)
        if tree is None or not compared:
            return
        frame = next((f for f in failure.frames if (f.path, f.line) == (test_path, line)), None)
        covered = self.covered_functions(failure)
        table = self.class_table(covered)
        shown = repr_classes(failure.message or "")
        made_by_test = names_called_up_to(tree, line)
        where = f"{relative_path(test_path, self.root)}:{line}"
        for value, attribute in compared:
            classes = table.classes_of(value, frame.locals if frame else {}, shown)
            for path, node in covered:
                owner = class_of(node.qualname)
                found = def_of(self.index(path), node)
                if node.name not in CONSTRUCTORS or owner not in classes or found is None:
                    continue
                why = self.unkept_store(failure, path, found, attribute, owner in made_by_test)
                if why is not None:
                    reason = f"{why}; the failing check {where} reads it"
                    self.add(path, node, reason, first.score + 0.000001)

    def unkept_store(
        self, failure: Failure, path: str, found: Def, attribute: str, made_by_test: bool
    ) -> str | None:
        """Why the constructor `found` did not keep `.attribute` as it came, in the blocks the
        failing test ran (`constructor_makers`), else None."""
        ran = ran_lines(failure, path, found, written_on_self(found).get(attribute, []))
        if not ran:
            return None
        handed = ran_lines(failure, path, found, handed_self_after(found, min(ran)))
        if handed:
            return f"stored .{attribute}, then handed self on at line {handed[0]}"
        if not made_by_test or attribute not in computed_on_self(found) - literal_starts(found):
            return None
        decided = ran_lines(failure, path, found, assigned_in_branch(found, attribute))
        if decided:
            return (
                f"computed .{attribute} in the branch at line {decided[0]}, on the test's arguments"
            )
        return None

    def held_makers(self, pool: list[Place], held: str, attributes: set[str]):
        """(path, def, attributes) of the constructors of class `held` (and the helpers only
        they call) among `pool` that computed the state reading `attributes` on its object
        reads (`held.read_state`)."""
        for path, maker in pool:
            owner = maker.qualname.rpartition(".")[0]
            made = def_of(self.index(path), maker)
            if class_of(maker.qualname) != held or made is None:
                continue
            if maker.name not in CONSTRUCTORS and not self.builds_its_object(path, maker):
                continue
            methods = self.methods_of(path, owner)
            state = set().union(*(read_state(methods, name) for name in attributes))
            if stored := sorted(state & computed_on_self(made) - literal_starts(made)):
                yield path, maker, stored

    def likeliest_branch(
        self, failure: Failure, run: RunResult | None, first: Suspect
    ) -> tuple[FunctionNode, Def, int] | None:
        """(node, def, first line) of the suspect's likeliest block when that is a branch, not
        its entry: the only block that singles out what it read. None without one."""
        index = self.index(first.path)
        node = index.at_start_line(first.start_line) if index is not None else None
        found = def_of(index, node) if node is not None else None
        where = f"{first.path}:{first.start_line}"
        line = self.block_scores(failure, run).get(where, (0.0, first.def_line))[1]
        if node is None or found is None or line == first.def_line:
            return None
        return node, found, line

    def none_returner(self, failure: Failure, run: RunResult | None, first: Suspect):
        """The first suspect's likeliest block is the branch its `if` takes when a workspace
        callee returned None (`typeref = loadclass(...)`, `if typeref is None: return obj`):
        the callee, when the failing test ran it down a branch of its own too (not only its
        entry), found nothing where it should have, and the reader only coped: it comes
        first."""
        branch = self.likeliest_branch(failure, run, first)
        if branch is None:
            return
        node, found, line = branch
        guard = next(
            (n for n in ast.walk(found) if isinstance(n, ast.If) and n.body[0].lineno == line),
            None,
        )
        tested = none_tested(guard.test) if guard is not None else None
        if guard is None or tested is None:
            return
        made = [
            name_of(a.value.func)
            for a in ast.walk(found)
            if isinstance(a, ast.Assign)
            and a.lineno < guard.lineno
            and isinstance(a.value, ast.Call)
            and [t.id for t in a.targets if isinstance(t, ast.Name)] == [tested]
        ]
        if len(made) != 1 or made[0] is None:
            return
        blocks = self.block_scores(failure, run)
        for path, maker in resolve([made[0]], self.covered_functions(failure)):
            # it took a branch of its own too (its fall-through `return None`), not its entry
            own = blocks.get(f"{path}:{maker.start_line}", (0.0, maker.def_line))[1]
            if maker is not node and own != maker.def_line:
                reason = f"returned the None {first.qualname} coped with at line {line}"
                self.add(path, maker, reason, first.score + 0.0001)

    def call_path(self, frames: list[Frame], score: float, reason="on the failing call path"):
        """Callers, innermost first, each a little less suspect than the one it called."""
        for frame in reversed(frames):
            node = self.function_of(frame)
            if node is not None and frame.function != "<module>":
                self.on_path.add(self.key(frame.path, node))
                self.add(frame.path, node, reason, score, frame.line)
                score *= 0.9

    def caught_raiser(self, failure: Failure):
        """`pytest.raises(E, match=...)` did not match, or the test checked the exception it
        kept: the function that raised it built the wrong exception, then its callers."""
        frames = [f for f in failure.caught if f.path not in self.tests]
        if frames and self.function_of(frames[-1]) is not None:
            reason = "raised the exception the failing check is about"
            self.raise_site(frames, reason, 0.97, "on the path that raised the checked exception")

    def logged_raiser(self, failure: Failure, score: float):
        """The code caught an exception while the test ran and logged its traceback (a server
        answering 500, closing the stream): the failure is its symptom, so the function that
        raised it is a second raise site, the latest logged first, then its callers. Not when
        the innermost frame of ours is the test's (a handler it wrote raised on purpose)."""
        for rank, logged in enumerate(logged_raises(failure, self.root)):
            frames = [f for f in logged.frames if is_workspace_file(f.path, self.root)]
            code = [f for f in frames if f.path not in self.tests]
            if not code or frames[-1] is not code[-1] or self.function_of(code[-1]) is None:
                continue
            reason = f"raised the {logged.exc_type} the code caught and logged during the test"
            callers = "on the path of the exception the code logged"
            self.raise_site(code, reason, score - 0.001 * rank, callers)

    def stopped_generator(self, failure: Failure, score: float):
        """PEP 479 turned a StopIteration that left a generator of ours into the failure's
        RuntimeError (`escaped_stop`): where it was raised, the chain's innermost frame of
        ours (the generator's unguarded `next(it)`), is the raise site, above the consumer
        the reported frames end in; its callers up to the generator after it."""
        frames = [f for f in escaped_stop(failure) if is_workspace_file(f.path, self.root)]
        code = [f for f in frames if f.path not in self.tests]
        if code and frames[-1] is code[-1] and self.function_of(code[-1]) is not None:
            reason = "let a StopIteration out of a generator: Python raised it as the RuntimeError"
            self.raise_site(code, reason, score, "on the path of the StopIteration let out")

    def log_caller(self, failure: Failure, score: float):
        """The failing check reads a log record (`caplog.records`, `caplog.text`), and its
        message shows where the logging call is: the def holding it logged what the check
        refuses (a warning that should not come, a wrong message)."""
        ran = [key.rsplit(":", 1)[0] for key in failure.covered]
        for call in checked_log_calls(failure):
            path = resolve_file(call, ran)
            if path is None or not is_workspace_file(path, self.root) or path in self.tests:
                continue
            index = self.index(path)
            node = index.function_at(call.line) if index is not None else None
            if node is not None:
                reason = f"logged the record the failing check reads (line {call.line})"
                self.add(path, node, reason, score, call.line)

    def raise_site(self, frames, reason: str, score: float, callers: str, refused=None):
        """The innermost frame raised, its callers led there; but a def that always raises (a
        raise helper) only did what its caller chose, and one that refused its argument (a
        crash, not a checked exception: `refused` is its message) was handed the wrong value:
        it raised reporting the argument or quoting its name (`cannot define both
        `content_type` and `headers``), or tripped over an argument that is None (`'NoneType'
        object has no attribute ...`) or of a kind that lacks what the line read (`'Token'
        object has no attribute 'children'` on `tree.children`) or that a builtin it handed it
        to refused (`open(filename)`: `..., not ConfigQuotedString`). The caller comes first; and
        when the calls between only passed the value on, the frame that made it comes before
        them (`refused_maker`). When it came from the test unchanged, a def that refused it
        with a raise of its own keeps the blame, but one that only tripped over it was never
        meant to take it: the entry the test called should have (`entry_took`)."""
        innermost = frames[-1]
        node = self.function_of(innermost)
        index = self.index(innermost.path)
        helper = node is not None and always_raises(index, node)
        argument = None
        if node is not None and refused is not None and not helper:
            argument = (
                rejected_argument(index, node, innermost.line)
                or named_argument(index, node, innermost.line)
                or none_argument(index, node, innermost, refused)
                or wrong_kind_argument(index, node, innermost, refused)
            )
        if node is not None and argument and self.refused_trail(frames, argument) == (0, True):
            # the refused value came into the workspace's code as it was (the test's input,
            # passed down unchanged: `StreamingDecoder(memoryview(...))` handing `substrate`
            # to `asSeekableStream`): no caller chose it, a raise refusing it is the def's own
            if len(frames) > 1 and not raises_at(index, node, innermost.line):
                self.entry_took(frames, argument, score)
            argument = None
        if node is not None and len(frames) > 1 and (helper or argument):
            caller = f"called {node.name}, which always raises: the raise was chosen here"
            if argument:
                caller = f"passed {node.name} the {argument!r} it refused, raising"
            self.call_path(frames[-2:-1], score, caller)
            self.add(innermost.path, node, reason, score - 0.01, innermost.line)
            self.call_path(frames[:-2], 0.9, callers)
            maker = self.refused_maker(frames, argument) if argument else None
            made = self.function_of(frames[maker]) if maker is not None else None
            if maker is not None and made is not None:
                why = f"made the {argument!r} {node.name} refused; the calls below passed it on"
                self.add(frames[maker].path, made, why, score + 0.002, frames[maker].line)
            return
        self.call_path(frames[-1:], score, reason)
        self.call_path(frames[:-1], 0.9, callers)
        if node is not None and refused is not None and not helper:
            self.derived_maker(frames, node, score)

    def derived_maker(self, frames: list[Frame], node: FunctionNode, score: float):
        """The raise reports a local the def made from a parameter by calls on it alone
        (`lang = parts.pop(0).lower()` of `parts = identifier.split(sep)`): weaker than naming
        the parameter, since the def's own parsing may be what is wrong, so the raise site
        stays first over its direct caller; but a frame further up that computed the argument,
        which the calls between only passed on, made the value, and comes before it."""
        innermost = frames[-1]
        derived = derived_argument(self.index(innermost.path), node, innermost.line)
        maker = self.refused_maker(frames, derived) if derived else None
        made = self.function_of(frames[maker]) if maker is not None else None
        if maker is not None and made is not None:
            why = f"made the {derived!r} {node.name} refused; the calls below passed it on"
            self.add(frames[maker].path, made, why, score + 0.002, frames[maker].line)

    def entry_took(self, frames: list[Frame], argument: str, score: float):
        """The test handed the outermost frame (the function it called) a value that went down
        unchanged to a def that tripped over it (`to(None)` ... `units.items()`; `transform(
        token)` ... `tree.children`): no def below chose it, and the one that crashed was not
        written to take it, so the entry, where the value came in, should have handled it (a
        conversion or a branch missing there) and comes first."""
        entry = self.function_of(frames[0])
        if entry is not None and frames[0].function != "<module>":
            why = f"took the test's {argument!r} as it was and passed it down to where it crashed"
            self.add(frames[0].path, entry, why, score + 0.002, frames[0].line)

    def refused_maker(self, frames: list[Frame], refused: str) -> int | None:
        """The frame that made the argument the innermost one refused, when the calls between
        only passed it on, as a parameter of theirs or read out of one (`addBinding(self, node,
        value)` calls `getParent(value.source)`; its caller passed `Builtin("_")`, whose source
        is None): the first caller up whose call computed it (a call, a literal, its own
        state). None when that is the direct caller (it comes first already) or when the trail
        is lost (no call of the callee on the line, module code)."""
        trail = self.refused_trail(frames, refused)
        if trail is None or trail[1]:
            return None
        return trail[0] if len(frames) - 1 - trail[0] >= 2 else None

    def refused_trail(self, frames: list[Frame], refused: str) -> tuple[int, bool] | None:
        """Where the trail of the refused argument up `frames` ends: the frame whose call
        computed it, or frame 0 still holding it as a parameter (True: it came from outside the
        workspace's code as it was). None when the trail is lost."""
        params: set[str] | None = {refused}
        at = len(frames) - 1
        while at > 0 and params:
            called = self.function_of(frames[at])
            callee = def_of(self.index(frames[at].path), called) if called is not None else None
            caller, node = frames[at - 1], self.function_of(frames[at - 1])
            index = self.index(caller.path)
            if called is None or callee is None or node is None or index is None or not index.tree:
                return None
            made = class_of(called.qualname) if callee.name in CONSTRUCTORS else None
            values = passed_values(index.tree, caller.line, callee, params, made)
            if not values or caller.function == "<module>":
                return None
            params = passed_on(index, node, values)
            at -= 1
        return at, bool(params)

    def from_test(self, failure: Failure, frames: list[Frame], run: RunResult | None) -> str:
        test_path, test_line = location_of_test(failure, frames)
        if test_path is None and not failure.covered:
            return "no frame of the traceback is in the workspace"
        if frames and frames[-1].function == "<module>" and not failure.covered:
            return module_level_reason(frames[-1], self.root, self.index(frames[-1].path))
        covered = self.covered_functions(failure)
        scores = self.ochiai(failure, run)
        on_line, feeding = self.test_line_suspects(test_path, test_line, covered)
        tree = self.test_tree(test_path, test_line)
        parts = statement_parts(tree.body, test_line) if tree and test_line else []
        operated = self.operator_suspects(failure, frames, (test_path, test_line), covered, parts)
        on_line += [c for c in operated if c not in on_line]
        built_in = built_in_calls(failure.message)
        on_line = [(p, n) for p, n in on_line if n.name not in built_in]
        if not on_line:
            on_line = self.patched_calls(test_path, test_line, covered)
        # a getter only read what the test's earlier acts stored: it computed nothing checked
        feeding = [(p, n) for p, n in feeding if not is_getter(self.index(p), n)]
        # a def that only hands its arguments on to another computed nothing: what it called did
        # (`return walk(self.filesystem, top)`), so it follows the others in data-flow order
        feeding.sort(key=lambda c: forwards(self.index(c[0]), c[1]))
        where = f"{relative_path(test_path, self.root)}:{test_line}" if test_path else "the test"
        acted, why = self.acted_before(test_path, test_line, covered, not on_line and not feeding)
        acted = [(p, n) for p, n in acted if not is_getter(self.index(p), n)]
        self.changers_between_checks(test_path, test_line, covered, where)
        for path, node in acted:
            bonus = scores.get(f"{path}:{node.start_line}", 0.0)
            self.add(path, node, why.format(where=where), 0.75 + 0.1 * bonus)
            self.acted[self.key(path, node)] = why.format(where=where)
        # Functions only failing tests ran, when passing tests ran the calls the failing line
        # checks: the bug is deeper than the called function (`parse_filter` -> `_match_clause`).
        # (Not for an act before the line: the check ties no value to it.)
        contrast = contrasted(failure, run, [*on_line, *feeding])
        for path, node in self.mock_callers(failure):
            score = scores.get(f"{path}:{node.start_line}", 0.0)
            self.add(path, node, "called the mock the failing assertion checks", 0.85 + 0.1 * score)
        if not failure.mock_callers:  # no unittest.mock record named them: the test's source
            for path, node, reason in self.double_users(test_path, test_line, parts, covered):
                score = scores.get(f"{path}:{node.start_line}", 0.0)
                self.add(path, node, reason, 0.85 + 0.1 * score)
        self.checked |= {self.key(path, node) for path, node in [*on_line, *feeding]}
        self.line_tied = [*on_line, *feeding, *acted]
        self.failing_at = (test_path, test_line) if test_path and test_line else None
        for path, node in on_line:
            self.called_on_line.add(self.key(path, node))
            bonus = scores.get(f"{path}:{node.start_line}", 0.0)
            if node.name in ACCESSORS or self.returns_stored(path, node):
                # `len(cache)`, `a.token`: it reads state the test's earlier calls made
                self.add(path, node, f"read on the failing line {where}", 0.55 + 0.1 * bonus)
            else:
                self.add(path, node, f"called on the failing line {where}", 0.8 + 0.1 * bonus)
        if contrast:
            self.deeper(failure, run, covered, [*on_line, *feeding])
        crashed = crashed_on_a_value(failure, self.tests)
        for rank, (path, node) in enumerate(feeding):  # data-flow order: nearest value first
            bonus = scores.get(f"{path}:{node.start_line}", 0.0)
            reason = f"computes a value checked on the failing line {where}"
            # A constructor only built the object; what was done to it, or read from it on the
            # failing line, is likelier wrong.
            base = 0.5 if node.name == "__init__" else 0.6
            if crashed:  # the test's statement crashed on the value: its maker made it wrong
                base += 0.4
                reason = f"made the value of the wrong kind the failing line {where} crashed on"
            self.add(path, node, reason, base + 0.1 * bonus - 0.001 * rank)
        if not acted:
            self.specific_blocks(failure, run, covered, [*on_line, *feeding], where)
        self.lacking_attribute(failure, covered, where)
        compared = self.compared_attributes(test_path, test_line)
        self.attribute_writers(failure, compared, covered, where)
        self.attribute_makers(failure, compared, covered, scores, where)
        at = (test_path, test_line)
        self.checked_state_makers(failure, at, compared, on_line, covered, scores, where)
        self.property_makers(on_line, covered, where)
        self.missing_warning(failure, run, covered, (test_path, test_line), where)
        self.add_covered(failure, scores, run)
        if not covered and not on_line and not feeding:  # (acted needs covered)
            return "the failure is raised in the test and no workspace function could be tied to it"
        return "no function of the workspace is involved"

    def compared_attributes(self, test_path, test_line) -> set[str]:
        """The attributes the failing line's comparisons read (`fields(B).n.type`: `type`)."""
        return {attribute for _, attribute in self.compared_objects(test_path, test_line)}

    def compared_objects(self, test_path, test_line) -> list[tuple[ast.expr, str]]:
        """(object, attribute) of each attribute the failing line's comparisons read (`p.n_jobs
        == 2`: the expression `p`, `n_jobs`)."""
        tree = self.test_tree(test_path, test_line)
        if tree is None:
            return []
        return [
            (operand.value, operand.attr)
            for p in statement_parts(tree.body, test_line)
            for node in ast.walk(p)
            if isinstance(node, ast.Compare)
            for operand in (node.left, *node.comparators)
            if isinstance(operand, ast.Attribute)
        ]

    def attribute_writers(self, failure: Failure, compared: set[str], covered, where: str):
        """The failing check compares an attribute (`assert int == fields(B).n.type`) that a
        def the test ran stored on an object it was handed, after that object was made
        (`_obj_setattr(field, "type", hints[name])`), in a block the failing test ran: an act
        that changed the value the check reads from outside its class; it comes first. A
        constructor storing what it was given on `self` is how the value began, not a
        change."""
        for path, node in covered if compared else ():
            found = def_of(self.index(path), node)
            written = written_outside(found) if found is not None else {}
            for name in sorted(compared & set(written)):
                if found is not None and ran_a_store(failure, path, found, written[name]):
                    reason = (
                        f"stores .{name} on an object it was handed, which the failing check"
                        f" {where} compares"
                    )
                    self.add(path, node, reason, 1.0)

    def attribute_makers(
        self, failure: Failure, compared: set[str], covered, scores: dict[str, float], where: str
    ):
        """The failing check compares an attribute read as stored (`assert screen.tabstops ==
        {8}`): the read computed nothing; a method the test ran that computed it and stored it
        on its own object, in a block the failing test ran (`reset`, which `__init__` calls),
        made the value. Not a constructor (what it stores is how the object began: the
        value checked on the failing line already names it), nor a parameter stored as it
        came (the caller made that). `scores`: function Ochiai, the run's."""
        for path, node in covered if compared else ():
            found = def_of(self.index(path), node)
            if found is None or node.name in CONSTRUCTORS:  # how the object began, not a change
                continue
            written = written_on_self(found)
            for name in sorted(compared & made_on_self(found)):
                if ran_a_store(failure, path, found, written[name]):
                    bonus = scores.get(f"{path}:{node.start_line}", 0.0)
                    reason = f"stores .{name}, which the failing check {where} compares"
                    self.add(path, node, reason, 0.55 + 0.1 * bonus)

    def checked_state_makers(
        self, failure: Failure, at, compared: set[str], on_line, covered, scores, where: str
    ):
        """The failing check reads state an object keeps: an attribute it compares
        (`c.connection_namespaces`), or one a reader called on the line returns as stored
        (`len(s)`: `return self._size`). A method the test ran that computed that attribute and
        stored it on its own object (`self._size -= 1`; `namespaces = list(...)`, then
        `self.connection_namespaces = namespaces`), in a block the failing test ran, made the
        value; the calls the line's value came through only carried it, so it comes right above
        the best of them. Not a constructor, nor a helper only its constructor calls: what they
        store is how the object began. Of two makers, the one the test's later act ran
        (`next(buffer)` after `buffer.add_data(...)`) wrote the state last. `at`: the failing
        line (test path, line); `scores`: function Ochiai, the run's."""
        state = compared | {
            name
            for path, reader in on_line
            if (found := def_of(self.index(path), reader)) is not None
            and (name := stored_attribute(found)) is not None
        }
        held = [self.suspects[key].score for key in self.checked if key in self.suspects]
        if not state or not held:
            return
        tree = self.test_tree(*at)
        acts = calls_before_line(tree, at[1], dunders=True) if tree is not None else []
        for path, node in covered:
            found = def_of(self.index(path), node)
            if found is None or node.name in CONSTRUCTORS or self.builds_its_object(path, node):
                continue
            written = written_on_self(found)
            for name in sorted(state & computed_on_self(found)):
                if ran_a_store(failure, path, found, written[name]):
                    bonus = scores.get(f"{path}:{node.start_line}", 0.0)
                    reason = (
                        f"computed and stored .{name}, the state the failing check {where} reads"
                    )
                    later = next(
                        (i for i, names in enumerate(acts) if any(matches(n, node) for n in names)),
                        len(acts),
                    )
                    score = max(held) + 0.001 + 0.0001 / (1 + later) + 0.00001 * bonus
                    self.add(path, node, reason, score)
                    break

    def builds_its_object(self, path: str, node: FunctionNode) -> bool:
        """Is the method a helper only its class's constructor calls (`construction_only`)?"""
        owner = node.qualname.rpartition(".")[0]
        return bool(owner) and construction_only(self.methods_of(path, owner), node.name)

    def methods_of(self, path: str, owner: str) -> dict[str, Def]:
        """The parsed defs of class `owner` (a qualname) in the module at `path`, by name."""
        index = self.index(path)
        return {
            method.name: found
            for method in (index.functions if index is not None and owner else [])
            if method.qualname == f"{owner}.{method.name}"
            and (found := def_of(index, method)) is not None
        }

    def missing_warning(self, failure: Failure, run: RunResult | None, covered, at, where: str):
        """The test counted the warnings its code issued and got the wrong number (`assert
        len(w) == 1` under `catch_warnings(record=True) as w`; `pytest.warns`: DID NOT WARN):
        where the warning is missing (or too many) is a function the test ran that warns for
        other inputs (`warnings.warn`, or a def of ours that does: `self._pickle_warning(obj)`),
        the one whose block is the most specific to the failing tests first. A function that
        only led there decided nothing about warning."""
        tree = self.test_tree(*at)
        if tree is None or not expects_warning(tree, at[1], failure.message):
            return
        helpers = set()
        for path in sorted({path for path, _ in covered}):
            module = self.index(path)
            for node in module.functions if module is not None else []:
                if warns(module, node, set()):
                    helpers.add(node.name)
        found = [(p, n) for p, n in covered if warns(self.index(p), n, helpers)]
        blocks = self.block_scores(failure, run)
        scores = self.ochiai(failure, run)
        for path, node in found:
            key = f"{path}:{node.start_line}"
            specific = max(blocks.get(key, (0.0, 0))[0], scores.get(key, 0.0))
            reason = (
                f"warns for other inputs; the failing check {where} counts the warnings the"
                f" test's code issued (Ochiai {specific:.2f})"
            )
            self.add(path, node, reason, 1.0 + 0.01 * specific)

    def patched_calls(self, test_path, test_line, covered) -> list[Place]:
        """The failing line calls no def of ours by name, but a library's function that a
        module of ours replaced with its own def, which the test ran (`time.time_ns()` under
        `time.time_ns = fake_time_ns`): the line's call ran that def."""
        tree = self.test_tree(test_path, test_line)
        if tree is None:
            return []
        names = call_names(statement_parts(tree.body, test_line))
        found: list[Place] = []
        for path in sorted({path for path, _ in covered}):
            module = self.index(path)
            patched = patched_with(module.tree, names) if module and module.tree else {}
            found += [(p, n) for p, n in covered if p == path and n.name in patched.values()]
        return found

    def property_makers(self, on_line, covered, where: str):
        """A getter called on the failing line returns an attribute of its argument
        (`get_context(logger)`: `return bound_logger._context`) that a property of ours, which
        the failing test ran, computed (`_context`): the property made the value the line
        checks, the getter only read it; it comes first."""
        for path, getter in on_line:
            held = self.suspects.get(self.key(path, getter))
            read = returned_attributes(self.index(path), getter)
            if held is None or not read:
                continue
            for at, maker in covered:
                if maker.name in read and maker.is_property:
                    reason = (
                        f"the property computing the {maker.name} that {getter.qualname},"
                        f" called on the failing line {where}, returns"
                    )
                    self.add(at, maker, reason, held.score + 0.001)

    def lacking_attribute(self, failure: Failure, covered, where: str):
        """The test itself read an attribute its object lacks (`'vWeekday' object has no
        attribute 'sign'` on `assert weekday.sign == "-"`): the test says what the object should
        hold, so the def of its class that ran and stores its other attributes on `self` (the
        constructor first: `__new__`, `__init__`) left this one out. Before it, a def that
        holds a local the attribute is named for (`uri` of `request_uri`, `sign` of `sign`):
        it had in hand the value the attribute would keep (waitress's `parse_header`, which
        split `command, uri, version` and stored the others). Not when a def of ours read it:
        that reader may have asked for the wrong name."""
        lacking = missing_attribute(failure)
        if lacking is None or not failure.frames:
            return
        if failure.frames[-1].path not in self.tests:
            return
        owner, name = lacking
        for path, node in covered:
            found = def_of(self.index(path), node)
            if class_of(node.qualname) != owner or found is None:
                continue
            stored = stored_on_self(found)
            if stored and name not in stored:
                reason = (
                    f"made the {owner} the failing check {where} read .{name} of; it stores"
                    f" {', '.join(sorted(stored)[:3])} on it, not {name}"
                )
                score = 1.02 if node.name in CONSTRUCTORS else 1.01
                named = {name} | {w for w in name.split("_") if len(w) >= 3}
                if held := sorted(held_locals(found) & named):
                    reason += f"; it held {held[0]} in a local"
                    score += 0.015
                self.add(path, node, reason, score)

    def deeper(self, failure: Failure, run: RunResult | None, covered, tied):
        """Functions only failing tests ran, when passing tests ran the calls the failing line
        checks: the bug is deeper than the called function (`parse_filter` -> `_match_clause`),
        by DStar. Of equally suspect ones, the nearer to the failing line's calls in the call
        graph comes first: it is where the failing run left the path passing runs share; the
        ones it (or its callees) called ran only because it did."""
        only = failing_only(failure, run)
        dstar = dstar_scores(failure, run)
        found = [(p, n) for p, n in covered if f"{p}:{n.start_line}" in only]
        near = call_distances(tied, covered, self.index) if len(found) > 1 else {}
        found.sort(key=lambda c: (-dstar[f"{c[0]}:{c[1].start_line}"], near.get(self.key(*c), 99)))
        for rank, (path, node) in enumerate(found):
            score = dstar[f"{path}:{node.start_line}"]
            reason = (
                f"ran only in failing tests (DStar {score:.1f}), below calls passing tests share"
            )
            score = 0.9 + 0.001 * score / DSTAR_CAP - 0.000001 * rank
            self.add(path, node, reason, score, spectrum=True)

    def specific_blocks(self, failure, run, covered, tied, where: str):
        """The failing line checks a value the functions it calls (or that computed it) made;
        a function the test ran whose block is more specific to the failing tests (block Ochiai)
        than any block of those took a path theirs did not: it ranks above them, the most
        specific first (click's `Argument.process` `value = None` branch under `invoke`, which
        ran the same blocks in every test of the file). So does one of those calls whose block
        is more specific than every other one's, unless it is a constructor: it only built the
        object, and what was done to it is likelier wrong (as for the values, below); nor an
        accessor (`str(v)`, `r[0]`) whose block is only its entry when another of those calls
        made what it reads (`v = parse(s)` then `str(v)`): that fewer tests render or index a
        value says nothing of a fault; a branch of its own that the others never took does.
        When other tests failed too, only functions every failing test ran take part, as
        candidates and as the bar: a block some failing tests never ran is specific to this
        test's input, not to the fault behind them all (`Specifier.filter`'s loop under
        `prereleases`)."""
        blocks = self.block_scores(failure, run)
        if not blocks or not tied:
            return
        every = every_failing_ran(failure, run, self.tests)
        best = {
            f"{p}:{n.start_line}": blocks.get(f"{p}:{n.start_line}", (0.0, 0))[0]
            for p, n in tied
            if every is None or f"{p}:{n.start_line}" in every
        }
        # the tied accessors, when a tied call that is no constructor made what they read
        makers = [n for _, n in tied if n.name != "__init__" and n.name not in ACCESSORS]
        readers_of = {f"{p}:{n.start_line}": n.name in ACCESSORS and bool(makers) for p, n in tied}
        for path, node in covered:
            key = f"{path}:{node.start_line}"
            if every is not None and key not in every:
                continue
            score, line = blocks.get(key, (0.0, 0))
            others = [s for k, s in best.items() if k != key]
            entry_only = readers_of.get(key, False) and line == node.def_line
            if key in best and (not others or node.name == "__init__" or entry_only):
                continue
            ceiling = max(others, default=0.0)
            if score <= ceiling:
                continue
            reason = (
                f"its block at line {line} ran in the failing tests and in few passing ones"
                f" (Ochiai {score:.2f}; the other calls tied to {where} at most {ceiling:.2f})"
            )
            self.add(path, node, reason, 0.9 + 0.09 * score, line, spectrum=True)
            index = self.index(path)
            body = index.def_node(node.def_line) if index is not None else None
            if body is not None and starts_handler(body, line):
                self.handed_a_failure(
                    failure, path, node, line, covered, 0.9 + 0.09 * score - 0.001
                )

    def handed_a_failure(
        self, failure: Failure, path: str, node: FunctionNode, line: int, covered, score: float
    ):
        """`node`'s most specific block is an `except` clause: what it was handed failed in its
        `try` (`date_obj.replace(month=...)` refusing the month its caller computed), so the
        functions the test ran that call it come right after it: those whose call of it is in
        a block the failing test ran (a call under a branch it did not take handed nothing)."""
        for where, caller in covered:
            index = self.index(where)
            if caller is node or index is None:
                continue
            if any(matches(name, node) for name in called_in(index, caller)):
                if not self.ran_a_call(failure, where, caller, node):
                    continue
                reason = f"called {node.name}, whose except clause at line {line} caught a failure"
                self.add(where, caller, reason, score, spectrum=True)

    def ran_a_call(self, failure: Failure, path: str, caller: FunctionNode, node) -> bool:
        """Did the failing test run a block of `caller` that calls `node`? Yes when no blocks
        were recorded."""
        index = self.index(path)
        body = index.def_node(caller.def_line) if index is not None else None
        if failure.blocks is None or body is None:
            return True
        ran = set(failure.blocks.get(path, []))
        lines = [
            call.lineno
            for call in ast.walk(body)
            if isinstance(call, ast.Call) and matches(name_of(call.func) or "", node)
        ]
        return any(block_of(body, line) in ran or block_of(body, line) is None for line in lines)

    def specificity(self, failure: Failure, run: RunResult | None, keys) -> dict[Key, float]:
        """How specific to the failing tests each of `keys`' suspects is: its likeliest
        block's Ochiai, or its function's without recorded blocks."""
        blocks = self.block_scores(failure, run)
        scores = self.ochiai(failure, run)
        found = {}
        for key in keys:
            suspect = self.suspects[key]
            at = f"{suspect.path}:{suspect.start_line}"
            found[key] = max(blocks.get(at, (0.0, 0))[0], scores.get(at, 0.0))
        return found

    def own_blocks(self, failure: Failure, run: RunResult | None) -> dict[str, int]:
        """How many blocks of each function (its entry and its branches) the failing test ran
        that no passing test did (`spectrum.failing_only_blocks`), by function key
        ("abs_path:first_line"). Not a constructor's: its branch says the object was built for
        this input, and what was done to it is likelier wrong (as in `specific_blocks`)."""
        counts: dict[str, int] = {}
        for key in failing_only_blocks(failure, run):
            node, owner = self.owner_of_block(key)
            if node is not None and node.name not in CONSTRUCTORS:
                counts[owner] = counts.get(owner, 0) + 1
        return counts

    def owner_of_block(self, key: str) -> tuple[FunctionNode | None, str]:
        """The def a block key ("abs_path:line:b", or a def's own "abs_path:first_line" for
        its entry) belongs to, and that def's key; (None, "") when no def holds it."""
        where = split_block(key) or split_key(key)
        if where is None:
            return None, ""
        index = self.index(where[0])
        node = index.function_at(where[1]) if index is not None else None
        return node, f"{where[0]}:{node.start_line}" if node is not None else ""

    def each_block(self, failure: Failure, run: RunResult | None) -> dict[str, float]:
        """Block Ochiai of every block the failing test ran (`spectrum.block_ochiai`)."""
        return self.blocks(failure, run)[0]

    def block_scores(self, failure: Failure, run: RunResult | None) -> dict[str, tuple[float, int]]:
        """Every function the failing test ran, by its most suspicious block: (its Ochiai, its
        first line, the `def` line for its entry block); {} when no block was recorded."""
        return self.blocks(failure, run)[1]

    def ochiai(self, failure: Failure, run: RunResult | None) -> dict[str, float]:
        """Function Ochiai of every function the failing test ran (`spectrum.ochiai_scores`),
        computed once a failure (the crash or test path, then the name lift's specificity)."""
        if failure.id not in self.ochiai_of:
            self.ochiai_of[failure.id] = ochiai_scores(failure, run)
        return self.ochiai_of[failure.id]

    def blocks(self, failure: Failure, run: RunResult | None) -> tuple[dict, dict]:
        """(each_block, block_scores), computed once a failure."""
        if failure.id not in self.blocks_of:
            each = block_ochiai(failure, run)
            self.blocks_of[failure.id] = (each, self.likeliest_blocks(each))
        return self.blocks_of[failure.id]

    def likeliest_blocks(self, each_block: dict[str, float]) -> dict[str, tuple[float, int]]:
        """Each function's most suspicious block of `each_block` (see block_scores)."""
        best: dict[str, tuple[float, int]] = {}
        for key, score in each_block.items():
            node, owner = self.owner_of_block(key)
            if node is None:
                continue
            block = split_block(key)
            # an entry block is the def itself: its line is the def's, past any decorator
            line = block[1] if block else node.def_line
            # of equally suspicious blocks, the first in the function names it
            if owner not in best or (score, -line) > (best[owner][0], -best[owner][1]):
                best[owner] = (score, line)
        return best

    def double_users(
        self, test_path, test_line, parts, covered
    ) -> list[tuple[str, FunctionNode, str]]:
        """The failing check reads a double the test put in place of a name (`len(check_file
        .calls)`, a pretend recorder set over `check._check_file`): the defs the test ran that
        call that name; or one it handed in among options (`{'interval_start': 0, 'errback':
        errback}`, then `errback.assert_called()`): the defs it ran that read those options'
        keys. They decided what the double got (`locate/doubles.py`)."""
        index = self.index(test_path) if test_path and test_line else None
        node = index.function_at(test_line) if index is not None else None
        test = def_of(index, node) if node is not None else None
        if test is None:
            return []
        read = {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)}
        replaced = sorted({d.replaced for d in installed_doubles(test) if d.double in read})
        handed = handed_among_keys(test)
        keys = {key for name in read & handed.keys() for key in handed[name]}
        found = []
        for path, user in covered:
            body = def_of(self.index(path), user)
            called = next((n for n in replaced if body and calls_name(body, n)), None)
            if called is not None:
                why = (
                    f"calls {called}, which the test replaced by the double the failing check reads"
                )
                found.append((path, user, why))
            elif keys and body and reads_keys(body, keys):
                why = "reads the options the test handed in with the double the failing check reads"
                found.append((path, user, why))
        return found

    def fake_caller(self, failure: Failure, score: float):
        """An assert in the test's own fake, which our code called, failed (`checked_in_double`):
        the def of ours that called it handed it what the assert refused."""
        found = checked_in_double(failure, self.root, self.tests)
        node = self.function_of(found[0]) if found is not None else None
        if found is None or node is None or found[0].function == "<module>":
            return
        caller, fake = found
        reason = f"called the test's {fake.function}, whose assert refused what it was handed"
        self.add(caller.path, node, reason, score, caller.line)

    def mock_callers(self, failure: Failure) -> list[tuple[str, FunctionNode]]:
        return self.covered_functions(failure, failure.mock_callers)

    def covered_functions(self, failure: Failure, keys=None) -> list[tuple[str, FunctionNode]]:
        found = []
        for key in failure.covered if keys is None else keys:
            parsed = split_key(key)
            if parsed is None or parsed[0] in self.tests:
                continue
            index = self.index(parsed[0])
            node = index.at_start_line(parsed[1]) if index else None
            if node is not None:
                found.append((parsed[0], node))
        return found

    def test_line_suspects(self, test_path, test_line, covered):
        """Functions called on the failing test line, and those that computed what it checks."""
        tree = self.test_tree(test_path, test_line)
        if tree is None:
            return [], []
        return line_suspects(tree, test_path, test_line, covered, self.tests)

    def operator_suspects(
        self, failure: Failure, frames: list[Frame], at, covered, parts: list[ast.AST]
    ) -> list[Place]:
        """The defs of ours the operators in `parts` (of a statement of the failing test at or
        before the failing line `at`) called (`a & TEE(...)`: `_TEE.__rand__`), each resolved
        on the class the evidence gives its operand (operators.ClassTable)."""
        calls = operator_calls(parts)
        if not calls:
            return []
        frame = next((f for f in reversed(frames) if (f.path, f.line) == at), None)
        local_reprs = frame.locals if frame is not None else {}
        table = self.class_table(covered)
        shown = repr_classes(failure.message or "")
        found: list[Place] = []
        for call in calls:
            classes = table.classes_of(call.operand, local_reprs, shown)
            found += [
                (p, n)
                for p, n in covered
                if n.name == call.dunder and class_of(n.qualname) in classes and (p, n) not in found
            ]
        return found

    def class_table(self, covered) -> ClassTable:
        """The classes of the modules the failing test ran, read once a ranking."""
        if self.classes is None:
            modules = [self.index(path) for path in sorted({path for path, _ in covered})]
            self.classes = ClassTable(m for m in modules if m is not None)
        return self.classes

    def earlier_checks_aside(self, failure: Failure, frames: list[Frame]) -> None:
        """A def that only an earlier check of the failing test called (`assert client.sid ==
        'sid'` before the failing `assert client.transport == 'websocket'`), which passed, and
        that the failing line's calls (and the defs computing what it checks) cannot reach, ran
        in the failing test for that check: the spectrum counts the test as a whole, so its
        blocks look specific to the failure, yet the check it served passed and the failing
        line never ran it. Ranked by the spectrum alone, it does not pass the failing line's own
        calls. Not a def that stores attributes (an earlier act's effect is what later lines
        read: such a method called on the checked object may have made the value), nor one
        the failing line calls or reaches."""
        tree = self.test_tree(*self.failing_at) if self.failing_at else None
        own = [self.suspects[k].score for k in self.called_on_line if k in self.suspects]
        if tree is None or self.failing_at is None or not own:
            return
        covered = self.covered_functions(failure)
        readers = [
            (path, node)
            for path, node in self.checked_before(failure, frames, tree, self.failing_at, covered)
            if (found := def_of(self.index(path), node)) is not None
            and not written_on_self(found)
            and not written_outside(found)
        ]
        # what an earlier check only read made nothing the failing line reads
        sources = [
            c for c in self.line_tied if c not in readers or self.key(*c) in self.called_on_line
        ]
        reached = call_distances(sources, covered, self.index, names_reached)
        bar = max(own) - 0.001
        for path, node in readers:
            key = self.key(path, node)
            suspect = self.suspects.get(key)
            if suspect is None or key not in self.by_spectrum or suspect.score <= bar:
                continue
            if key in self.called_on_line or key in reached or key in self.on_path:
                continue
            suspect.score = bar
            suspect.reason += "; only an earlier check of the test called it, and that check passed"

    def checked_before(
        self, failure: Failure, frames: list[Frame], tree, at: tuple[str, int], covered
    ) -> list[Place]:
        """The defs the failing test's checks before its failing line `at` called (by name,
        by their operators), and no other earlier statement of it (an act) called."""
        local = locals_at(tree, at[1])
        checked: list[Place] = []
        acted: list[Place] = []
        for statement in statements_before_line(tree, at[1]):
            found = resolve(names_on_line(tree, statement.lineno, local), covered)
            parts = statement_parts(tree.body, statement.lineno)
            found += self.operator_suspects(failure, frames, at, covered, parts)
            (checked if is_check(statement) else acted).extend(found)
        return [c for c in dict.fromkeys(checked) if c not in acted]

    def changers_between_checks(self, test_path, test_line, covered, where: str) -> None:
        """The failing check compares an expression an earlier check of the test compared
        and held (`between.acts_between_checks`): the defs of ours the nearest statement between
        them calls changed what the expression reads (`hub.close()` between `assert
        get_event_loop() is hub` and `assert get_event_loop() is None`). Not a constructor
        (`writer2 = PdfWriter()` only made an object for the act after it), nor a def that
        only reads (`len(x)`, a getter). `changers_first` lifts them once every other rule
        has scored."""
        tree = self.test_tree(test_path, test_line)
        held, acts = acts_between_checks(tree, test_line) if tree is not None else (0, [])
        table = self.class_table(covered) if acts else None
        for act in acts:
            found = [
                (path, node)
                for path, node in resolve(act.names, covered)
                if node.name not in CONSTRUCTORS | ACCESSORS
                and not is_getter(self.index(path), node)
                and not (table and wrong_receiver(table, act.receivers, node))
            ]
            why = (
                f"called between the check at line {held}, which held, and the same check"
                f" failing at {where}: the act changed the value checked"
            )
            for path, node in found:
                self.add(path, node, why, 0.75)
                self.changers[self.key(path, node)] = why
            if found:
                return

    def changers_first(self) -> None:
        """The defs `changers_between_checks` found come first: the test itself showed the
        checked value right before their act and wrong after it."""
        found = [key for key in self.changers if key in self.suspects]
        if not found:
            return
        top = max(s.score for s in self.suspects.values())
        for key in found:
            suspect = self.suspects[key]
            suspect.score = top + 0.001 + suspect.score / 1000
            suspect.reason = self.changers[key]
            self.by_spectrum.discard(key)

    def acted_before(self, test_path, test_line, covered, wanted: bool):
        tree = self.test_tree(test_path, test_line) if wanted else None
        if tree is None:
            return [], ""
        return acted_before(tree, test_line, covered)


def ran_lines(failure: Failure, path: str, found: Def, lines: list[int]) -> list[int]:
    """Those of `lines` of `found` the failing test ran (`ran_a_store`, line by line)."""
    return [line for line in lines if ran_a_store(failure, path, found, [line])]


def ran_a_store(failure: Failure, path: str, found: Def, lines: list[int]) -> bool:
    """Did the failing test run a block of `found` holding one of the store `lines` (any of
    them, when the failure recorded no blocks)?"""
    if failure.blocks is None:
        return True
    ran = set(failure.blocks.get(path, []))
    return any(block is None or block in ran for block in (block_of(found, n) for n in lines))
