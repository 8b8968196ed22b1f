"""Grammar rules that live in docstrings (PLY, vendored or installed): `def p_slice(self, p):
"slice : maybe_int ':' maybe_int"` is a parser production and `def t_ID(self, t): r'[a-z]+'` a
token's regex. The parser and the lexer run from tables built out of those docstrings, so the
alternative an input needs and the grammar lacks is never a def that ran: no spectrum lists it.

When PLY's error callback of ours (`p_error`, `t_error`, `t_<state>_error`) got a token of a text
the failing test wrote itself (a string constant of its module), the grammar refused the test's
input: the rules of that grammar (the callback's class, or its module) are the suspects. A text
our code made (a generator's output, parsed back) says nothing of the sort, so no rule is added.

Order, from what the error shows:
- parser, with PLY's symbol stack recorded (a vendored PLY's frames keep their locals): the rules
  whose right side begins with the top of the stack, the longest match first (the parser was
  inside them when the token came), those whose left side may follow the symbol below first;
- parser, without a stack: the rules that take the refused token somewhere;
- lexer: the token rules of the state the error callback serves, in definition order (the order
  PLY tries them);
- every other rule of the grammar, listed low.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

from heal_ls.locate.index import FunctionNode, ModuleIndex
from heal_ls.models import Failure, Frame
from heal_ls.pysource.paths import TestFiles

_CALLBACK = re.compile(r"^(?:p_error|t_error|t_[A-Za-z0-9]+_error)$")
_TOKEN = re.compile(r"^LexToken\((?P<type>.+?),(?P<value>.*),(?P<line>\d+),(?P<pos>\d+)\)$")
_STACK_ITEM = re.compile(r"LexToken\((.+?),.*?,\d+,\d+\)|[^,\s\[\]]+")
_ASSIGN = {":", "::="}
END = "$end"  # PLY's name for the end of the input
STACK = "symstack"  # PLY's parser keeps its symbol stack in this local

KERNEL, AFTER_BELOW, TAKES_TOKEN, LEXER, OTHER = 1.03, 1.02, 1.01, 1.01, 0.2
STEP = 0.001  # within a tier: the order the evidence gives

Production = tuple[str, tuple[str, ...]]  # left side, right side
Rated = tuple[FunctionNode, str, float]  # a rule's def, the reason, the score


@dataclass(frozen=True)
class Token:
    """A token as PLY's `LexToken` repr shows it: `LexToken(NUMBER,1,1,0)`."""

    type: str
    text: str  # the value as the input spelled it (the rest of the input for t_error)
    pos: int  # lexpos: its offset in the input


@dataclass(frozen=True)
class Rule:
    node: FunctionNode
    productions: tuple[Production, ...]  # a lexer rule has none


Found = tuple[Rule, str, float]  # a rule the evidence names, why, its tier's score


def refused_by_grammar(
    failure: Failure,
    tests: TestFiles,
    index_of: Callable[[str], ModuleIndex | None],
) -> tuple[str, list[Rated]] | None:
    """(the grammar's module path, its rules rated) when PLY's error callback refused a text
    the failing test wrote, else None."""
    found = _callback(failure, tests)
    if found is None:
        return None
    frame, token = found
    index = index_of(frame.path)
    callback = index.function_for_frame(frame.line, frame.function) if index else None
    test_index = index_of(failure.test_path) if failure.test_path else None
    if index is None or index.tree is None or callback is None:
        return None
    if test_index is None or test_index.tree is None:
        return None
    written = _string_constants(test_index.tree)
    if _refused_text(failure.frames, token, tests, written) is None:
        return None
    scope = callback.qualname.rpartition(".")[0]
    if frame.function == "p_error":
        rules = _rules(index, scope, "p_", parse=True)
        return frame.path, _rate_parser(rules, token, _stack(failure.frames))
    rules = _rules(index, scope, "t_", parse=False)
    state = _state_of(frame.function, _states(index, scope))
    return frame.path, _rate_lexer(rules, token, state, _states(index, scope))


def _callback(failure: Failure, tests: TestFiles) -> tuple[Frame, Token] | None:
    """The innermost error callback of ours on the failure's path, with the token it got
    (`p_error(None)`: the input ended where the grammar wanted more, PLY's `$end`)."""
    for frame in reversed(failure.frames):
        if _CALLBACK.match(frame.function) and frame.path not in tests:
            for value in frame.locals.values():
                if token := _token(value):
                    return frame, token
            if frame.function == "p_error" and "None" in frame.locals.values():
                return frame, Token(END, "", -1)
    return None


def _token(value: str) -> Token | None:
    found = _TOKEN.match(value)
    if found is None:
        return None
    text = found["value"]
    try:
        literal = ast.literal_eval(text)
        text = literal if isinstance(literal, str) else text
    except (ValueError, SyntaxError):
        pass
    return Token(found["type"], text, int(found["pos"]))


def _refused_text(frames: list[Frame], token: Token, tests: TestFiles, written) -> str | None:
    """The test's own text the parser refused: the innermost string local that spells the
    token at its offset, when the test wrote it; at the input's end (no token to spell), the
    first string the test wrote that it handed to our code. A truncated repr is skipped."""
    if token.pos < 0:
        handed = (t for f in frames if f.path not in tests for t in _strings(f))
        return next((text for text in handed if text in written), None)
    for frame in reversed(frames):
        for text in _strings(frame):
            if text[token.pos :].startswith(token.text):
                return text if text in written else None
    return None


def _strings(frame: Frame) -> list[str]:
    found = []
    for value in frame.locals.values():
        if value[:1] in ("'", '"'):
            try:
                text = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                continue
            found += [text] if isinstance(text, str) else []
    return found


def _string_constants(tree: ast.Module) -> set[str]:
    return {
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def _rules(index: ModuleIndex, scope: str, prefix: str, parse: bool) -> list[Rule]:
    """The defs of `scope` (a class's qualname, "" for the module) named like PLY's rules,
    with a docstring (a grammar production for the parser), in definition order."""
    rules = []
    for node in sorted(index.functions, key=lambda f: f.start_line):
        owner, _, name = node.qualname.rpartition(".")
        if owner != scope or not name.startswith(prefix) or _CALLBACK.match(name):
            continue
        found = index.def_node(node.def_line)
        doc = ast.get_docstring(found, clean=False) if found is not None else None
        if not doc:
            continue
        productions = _productions(doc) if parse else ()
        if parse and not productions:
            continue
        rules.append(Rule(node, productions))
    return rules


def _productions(doc: str) -> tuple[Production, ...]:
    """PLY's reading of a rule's docstring: `name : a b | c`, `|` continuing the last name;
    () when it is not a grammar."""
    found: list[Production] = []
    left = None
    for line in doc.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "|" and left is not None:
            right = words[1:]
        elif len(words) >= 2 and words[1] in _ASSIGN and words[0].isidentifier():
            left, right = words[0], words[2:]
        else:
            return ()
        if "%prec" in right:
            right = right[: right.index("%prec")]
        found.append((left, tuple(_symbol(w) for w in right)))
    return tuple(found)


def _symbol(word: str) -> str:
    """A literal token (`':'`) is its character, as PLY's token type for it."""
    return word[1:-1] if len(word) == 3 and word[0] == word[-1] and word[0] in "'\"" else word


def _stack(frames: list[Frame]) -> list[str] | None:
    """PLY's symbol stack at the error, when a frame of the parser kept its locals: each
    symbol's name, a shifted token's type."""
    for frame in reversed(frames):
        shown = frame.locals.get(STACK, "")
        if shown.startswith("[") and shown.endswith("]"):
            return [a or b for a, b in _stack_items(shown[1:-1])]
    return None


def _stack_items(shown: str) -> list[tuple[str, str]]:
    return [(m.group(1) or "", m.group(0)) for m in _STACK_ITEM.finditer(shown)]


def _rate_parser(rules: list[Rule], token: Token, stack: list[str] | None) -> list[Rated]:
    if stack is not None:
        productions = _with_optionals([p for rule in rules for p in rule.productions])
        return _rated(_inside(rules, token, stack, productions), rules, "parser")
    why = (
        f"the parser refused the token {token.type} of the test's text: this grammar rule"
        f" (PLY reads it from the docstring) takes {token.type}"
    )
    takers = [r for r in rules if any(token.type in right for _, right in r.productions)]
    return _rated([(r, why, TAKES_TOKEN) for r in takers], rules, "parser")


def _inside(rules: list[Rule], token: Token, stack: list[str], productions) -> list[Found]:
    """The rules whose right side begins with the top of the stack, the longest match first;
    first of all those whose left side may follow the symbol below the match and whose next
    symbol could not have taken the token."""
    begins = _begins(productions)
    kernel = []
    for order, rule in enumerate(rules):
        matched = [_match(right, stack) for _, right in rule.productions]
        best = max(range(len(matched)), key=lambda i: matched[i], default=None)
        if best is None or matched[best] == 0:
            continue
        left, right = rule.productions[best]
        k = matched[best]
        below = stack[-k - 1] if k < len(stack) else None
        takes = k < len(right) and token.type in begins.get(right[k], {right[k]})
        follows = below is None or _may_follow(left, below, productions, begins)
        kernel.append((not follows or takes, -k, order, rule, " ".join(right[:k])))
    kernel.sort(key=lambda row: row[:3])
    return [
        (
            rule,
            f"the parser refused {token.type} after {seen}: this grammar rule (PLY reads it"
            " from the docstring) goes on from there",
            AFTER_BELOW if weak else KERNEL,
        )
        for weak, _, _, rule, seen in kernel
    ]


def _with_optionals(productions: list[Production]) -> list[Production]:
    """A `name_opt` no docstring defines is the idiom for an optional `name`, made in code
    (`setattr(cls, 'p_name_opt', rule)`, as pycparser's `_create_opt_rule`): `name | empty`."""
    defined = {left for left, _ in productions}
    used = {s for _, right in productions for s in right}
    made = sorted(s for s in used - defined if s.endswith("_opt") and s[:-4] in defined)
    return [*productions, *((s, (s[:-4],)) for s in made), *((s, ()) for s in made)]


def _match(right: tuple[str, ...], stack: list[str]) -> int:
    """The longest k with the right side's first k symbols on the top of the stack."""
    for k in range(min(len(right), len(stack)), 0, -1):
        if list(right[:k]) == stack[-k:]:
            return k
    return 0


def _begins(productions: list[Production]) -> dict[str, set[str]]:
    """Each symbol's left corners: the symbols a derivation of it may begin with (itself too),
    past nullable ones."""
    nullable: set[str] = set()
    changed = True
    while changed:
        changed = False
        for left, right in productions:
            if left not in nullable and all(s in nullable for s in right):
                nullable.add(left)
                changed = True
    begins: dict[str, set[str]] = {}
    for left, right in productions:
        firsts = begins.setdefault(left, {left})
        for symbol in right:
            firsts.add(symbol)
            if symbol not in nullable:
                break
    changed = True
    while changed:
        changed = False
        for firsts in begins.values():
            more = set().union(*(begins.get(s, set()) for s in firsts)) - firsts
            if more:
                firsts |= more
                changed = True
    return begins


def _may_follow(left: str, below: str, productions: list[Production], begins) -> bool:
    """Some right side has `below` right before a symbol a derivation of `left` begins."""
    for _, right in productions:
        for here, after in zip(right, right[1:], strict=False):
            if here == below and left in begins.get(after, {after}):
                return True
    return False


def _states(index: ModuleIndex, scope: str) -> set[str]:
    """The lexer's state names (`states = (('quoted', 'exclusive'), ...)`) and INITIAL."""
    body = _scope_body(index, scope)
    names = {"INITIAL"}
    for statement in body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "states" for t in statement.targets
        ):
            try:
                names |= {state[0] for state in ast.literal_eval(statement.value)}
            except (ValueError, TypeError, IndexError, SyntaxError):
                pass
    return names


def _scope_body(index: ModuleIndex, scope: str) -> list[ast.stmt]:
    assert index.tree is not None
    if not scope:
        return index.tree.body
    for cls in index.classes:
        if cls.qualname == scope:
            for node in ast.walk(index.tree):
                if isinstance(node, ast.ClassDef) and node.lineno == cls.def_line:
                    return node.body
    return []


def _state_of(name: str, states: set[str]) -> tuple[str, ...]:
    """PLY's reading of a lexer rule's name: `t_quoted_end` is state quoted's, `t_ID`
    INITIAL's, `t_ANY_x` every state's."""
    parts = name.split("_")
    i = 1
    while i < len(parts) and (parts[i] in states or parts[i] == "ANY"):
        i += 1
    found = tuple(parts[1:i]) if i > 1 and i < len(parts) else ("INITIAL",)
    return tuple(states) if "ANY" in found else found


def _rate_lexer(rules: list[Rule], token: Token, state: tuple[str, ...], states) -> list[Rated]:
    tried = [r for r in rules if set(_state_of(r.node.name, states)) & set(state)]
    found = [
        (
            rule,
            f"the lexer matched no token at {token.text[:1]!r} of the test's text: this token"
            f" rule (its regex is the docstring) is tried {_ordinal(i)} in its state",
            LEXER,
        )
        for i, rule in enumerate(tried)
    ]
    return _rated(found, rules, "lexer")


def _ordinal(i: int) -> str:
    return {0: "first", 1: "second", 2: "third"}.get(i, f"{i + 1}th")


def _rated(found: list[Found], rules: list[Rule], what: str) -> list[Rated]:
    """`found` scored in its order (each below its tier by its place), then every other rule
    of the grammar, listed low."""
    rated = {
        rule.node.def_line: (rule.node, why, tier - STEP * i)
        for i, (rule, why, tier) in enumerate(found)
    }
    why = f"a rule of the {what}'s grammar (its docstring) that refused the test's text"
    others = [(r.node, why, OTHER) for r in rules if r.node.def_line not in rated]
    return [*rated.values(), *others]
