"""Take the target function out of a model's answer.

Answers come in many shapes: fenced code with any language tag (or none), prose around it,
several blocks, a whole class or module around the function, a method written at column 0, CRLF,
tabs, `<think>` sections from local reasoning models. We return the source of one `def` (its
decorators included) dedented to column 0 with "\\n" line endings. Every failure raises
AnswerError with a reason worded so it can be sent back to the model.

An answer is read once (`read_answer`: cleaned, cut into its code blocks, each parsed); the
plan (heal/plan.py) and the single-function extraction below both take that reading.
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass
from typing import Any

from heal_ls.pysource.parse import (
    DEF_TYPES,
    Def,
    describe_syntax_error,
    node_source,
    parse_block,
    parse_python,
)

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_THINK = re.compile(r"<think>.*?(</think>|\Z)", re.DOTALL)
_UNICODE_INDENT = re.compile(
    r"^[ \t]*[\u00a0\u2000-\u200b\u202f\u3000][ \t\u00a0\u2000-\u200b\u202f\u3000]*", re.M
)
_DIFF = re.compile(r"^(@@ -\d|--- a/|\+\+\+ b/)", re.MULTILINE)
_ELISION = re.compile(
    r"^#\s*\.\.\.|\b(rest|remainder) of (the )?(code|function|method|body|implementation)\b"
    r"|\b(existing|original|previous|same) (code|logic|implementation)\b.*"
    r"\b(unchanged|here|as before|remains|stays|omitted)\b",
    re.IGNORECASE,
)


class AnswerError(Exception):
    """The answer holds no usable definition of the target; str(err) is the reason."""


@dataclass
class Block:
    """One code block of an answer: its text, and the code parsed (or why it did not parse)."""

    text: str
    code: str = ""  # what parsed: the block dedented, or wrapped when dedent could not
    tree: ast.Module | None = None
    error: SyntaxError | None = None


@dataclass
class ReadAnswer:
    """A model's answer, read once: its cleaned text and its code blocks (fenced, else all)."""

    text: str
    blocks: list[Block]


def read_answer(answer: str | ReadAnswer) -> ReadAnswer:
    if isinstance(answer, ReadAnswer):
        return answer
    text = normalise_answer(answer)
    blocks = []
    for block in fenced_blocks(text) or [text]:
        try:
            code, tree = parse_block(block)
        except SyntaxError as err:
            blocks.append(Block(block, error=err))
        else:
            blocks.append(Block(block, code, tree))
    return ReadAnswer(text, blocks)


def extract_function(
    answer: str | ReadAnswer,
    name: str,
    class_name: str | None = None,
    *,
    original: str | None = None,
) -> str:
    """Return the source of the def called `name` found in `answer`, dedented to column 0.

    With `class_name`, a method of that class wins over other defs of the same name. When several
    defs qualify (property getter and setter, overloads), the one whose decorators match
    `original` (the function as it stands) wins, else the last one that is not an `@overload`.
    """
    read = read_answer(answer)
    text = read.text
    syntax_errors: list[str] = []
    seen: list[str] = []
    incomplete: list[AnswerError] = []
    for block in reversed(read.blocks):  # the last block defining the target is usually the fix
        if block.tree is None:
            if block.error and re.search(rf"\bdef\s+{re.escape(name)}\b", block.text):
                syntax_errors.append(describe_syntax_error(block.error))
            continue
        node = _pick(block.tree, name, class_name, original)
        if node is None:
            seen.extend(_defined_names(block.tree))
            continue
        try:  # an elided def may sit after a complete one ("in short: ..."): keep looking
            return _complete(node_source(block.code, node), node, original)
        except AnswerError as err:
            incomplete.append(err)
    loose = _unfenced_def(text, name)
    if loose is not None and not incomplete:
        return _complete(loose, parse_python(loose).body[0], original)
    if incomplete:
        raise incomplete[0]
    if _DIFF.search(text):
        raise AnswerError(
            f"the answer is a diff; send the whole corrected function `{name}` instead"
        )
    if syntax_errors:
        raise AnswerError(f"the code does not parse: {syntax_errors[0]}")
    if name in seen:
        raise AnswerError(f"`{name}` is a class in the answer; write it as a function `def {name}`")
    if seen:
        listed = ", ".join(f"`{n}`" for n in dict.fromkeys(seen))
        raise AnswerError(f"the answer's code defines {listed} but no function `{name}`")
    raise AnswerError(f"the answer has no Python code block defining `{name}`")


def normalise_answer(answer: str) -> str:
    """ "\\n" line breaks, no NUL, no `<think>` sections, plain-space indentation."""
    text = answer.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")  # NUL: never code
    return _UNICODE_INDENT.sub(_plain_indent, _THINK.sub("", text))


def check_complete(source: str, original: str | None) -> None:
    """Raise AnswerError when the def in `source` was elided ("# ... rest unchanged", `...`)."""
    code, tree = parse_block(source.replace("\r\n", "\n"))
    if tree.body:
        _complete(node_source(code, tree.body[0]), tree.body[0], original)


def _plain_indent(match: re.Match[str]) -> str:
    """Chat UIs and some models indent with no-break or zero-width spaces: make them spaces."""
    return re.sub(r"[\u00a0\u2000-\u200a\u202f\u3000]", " ", match.group()).replace("\u200b", "")


def _complete(source: str, node: Any, original: str | None) -> str:
    """Refuse a def the model elided ("# ... rest unchanged", a bare `...` body)."""
    comments = [t.string for t in _tokens(source) if t.type == tokenize.COMMENT]
    elided = next((c for c in comments if _ELISION.search(c)), None)
    if elided:
        raise AnswerError(f"the function is incomplete (`{elided.strip()}`); send all of it")
    if _is_stub(node) and not (original and _is_stub(_first_def(original))):
        raise AnswerError(f"the body of `{node.name}` is only `...`; send the complete function")
    return source


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return []


def _is_stub(node: ast.AST | None) -> bool:
    body = [s for s in getattr(node, "body", []) if not _is_docstring(s)]
    return bool(body) and all(
        isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and s.value.value is ...
        for s in body
    )


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _first_def(source: str) -> Def | None:
    try:
        defs = parse_block(source.replace("\r\n", "\n"))[1].body
    except SyntaxError:
        return None
    return next((n for n in defs if isinstance(n, DEF_TYPES)), None)


def fenced_blocks(text: str) -> list[str]:
    """The bodies of ``` / ~~~ fenced blocks, in order; an unclosed last fence runs to the end."""
    blocks: list[str] = []
    fence: str | None = None
    lines: list[str] = []
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence is None and match:
            fence, lines = match.group(1), []
        elif fence is not None and match and line.strip() == fence[0] * len(line.strip()):
            if len(line.strip()) >= len(fence):
                blocks.append("\n".join(lines) + "\n")
                fence = None
            else:
                lines.append(line)
        elif fence is not None:
            lines.append(line)
    if fence is not None and lines:
        blocks.append("\n".join(lines) + "\n")
    return blocks


def _pick(tree: ast.Module, name: str, class_name: str | None, original: str | None) -> Def | None:
    """The def to take: a method of `class_name` first, then a top-level def, then any def."""
    found = [n for n in ast.walk(tree) if isinstance(n, DEF_TYPES) and n.name == name]
    if not found:
        return None
    if class_name:
        methods = [
            m
            for c in ast.walk(tree)
            if isinstance(c, ast.ClassDef) and c.name == class_name
            for m in c.body
            if isinstance(m, DEF_TYPES) and m.name == name
        ]
        found = methods or found
    top = [n for n in found if n in tree.body]
    return _best_of(top or found, original)


def _best_of(nodes: list[Def], original: str | None) -> Def:
    wanted = _decorators_of(original)
    if wanted is not None:
        same = [n for n in nodes if [ast.unparse(d) for d in n.decorator_list] == wanted]
        if same:
            return same[-1]
    real = [n for n in nodes if not any("overload" in ast.unparse(d) for d in n.decorator_list)]
    return (real or nodes)[-1]


def _decorators_of(original: str | None) -> list[str] | None:
    node = _first_def(original) if original else None
    return [ast.unparse(d) for d in node.decorator_list] if node else None


def _defined_names(tree: ast.Module) -> list[str]:
    kinds = (*DEF_TYPES, ast.ClassDef)
    return [n.name for n in ast.walk(tree) if isinstance(n, kinds)]


def _unfenced_def(text: str, name: str) -> str | None:
    """A def written in prose without fences: the header, decorators above, indented lines below."""
    lines = text.split("\n")
    header = re.compile(rf"^([ \t]*)(async[ \t]+)?def[ \t]+{re.escape(name)}\b")
    for i, line in enumerate(lines):
        match = header.match(line)
        if not match:
            continue
        indent = match.group(1)
        start = i
        while start > 0 and lines[start - 1].startswith(indent + "@"):
            start -= 1
        end = i + 1
        while end < len(lines) and _inside(lines[end], indent):
            end += 1
        code = textwrap.dedent("\n".join(lines[start:end]))
        try:
            tree = parse_python(code)
        except SyntaxError:
            continue
        if len(tree.body) == 1 and isinstance(tree.body[0], DEF_TYPES):
            return node_source(code, tree.body[0])
    return None


def _inside(line: str, indent: str) -> bool:
    """Whether a line after a def header still belongs to its body (blank or indented deeper)."""
    return not line.strip() or (line.startswith(indent) and line[len(indent)] in " \t")
