"""Which workspace functions ran, recorded by the functions themselves instead of a trace hook.

On Python <= 3.11 any `sys.settrace` hook makes every line of every module run in the
interpreter's slow tracing mode (2-3x on pure bytecode, even when the hook returns at once), so a
traced test suite cost 1.5-1.7x a plain one. Instead, workspace modules (outside test files) are
compiled with one extra statement at the top of each def body:

    __heal_ls_hit__("abs_path:first_line")

`__heal_ls_hit__` lives in builtins: a set's `add` while recording, a no-op otherwise. Only
workspace functions pay (one call into C); the standard library, pytest and third-party code run
at full speed. The key is the one a code object gives (co_firstlineno = first decorator line).
The line numbers of the module are unchanged, so tracebacks and line coverage are too.

Stdlib only. No bytecode is read or written for instrumented modules.
"""

import ast
import builtins
import importlib.machinery
import os
import sys

HIT = "__heal_ls_hit__"
OFF = frozenset().__contains__  # takes the key, does nothing: the switch when not recording

if not hasattr(builtins, HIT):
    setattr(builtins, HIT, OFF)


def record_into(add):
    """Send every hit to `add` (a set's add), or nowhere with OFF."""
    setattr(builtins, HIT, add)


class _AddHits(ast.NodeTransformer):
    def __init__(self, path):
        self.path = path

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        hit = ast.Expr(
            ast.Call(ast.Name(HIT, ast.Load()), [ast.Constant(f"{self.path}:{first}")], [])
        )
        at = 1 if _is_docstring(node.body[0]) and len(node.body) > 1 else 0
        node.body.insert(at, ast.copy_location(hit, node.body[at]))
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


def _is_docstring(statement):
    value = getattr(statement, "value", None)
    return (
        isinstance(statement, ast.Expr)
        and isinstance(value, ast.Constant)
        and isinstance(value.value, str)
    )


def compile_recording(source, path):
    """Module code for `source` whose functions report their runs (compiled as `path`)."""
    tree = ast.parse(source, path)
    tree = ast.fix_missing_locations(_AddHits(os.path.abspath(path)).visit(tree))
    return compile(tree, path, "exec", dont_inherit=True)


class RecordingLoader(importlib.machinery.SourceFileLoader):
    """Loads a workspace source file with its functions instrumented, never from bytecode."""

    def get_code(self, fullname):
        return compile_recording(self.get_data(self.path), self.path)


class RecordingFinder:
    """First on sys.meta_path: asks the finders after it, then instruments workspace sources.

    Loaders that already compile from text with a `compile_source` hook (the overlay) are handed
    `compile_recording`; test files and non-workspace modules are left exactly as found.
    """

    def __init__(self, wants):
        self.wants = wants  # path -> bool: a workspace file outside the tests

    def find_spec(self, fullname, path=None, target=None):
        spec = None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1 :]:
            find = getattr(finder, "find_spec", None)
            if find is None:
                return None  # a legacy finder: let the import system go on without us
            spec = find(fullname, path, target)
            if spec is not None:
                break
        if spec is None or not spec.origin or not self.wants(spec.origin):
            return spec
        loader = spec.loader
        if type(loader) is importlib.machinery.SourceFileLoader:
            spec.loader = RecordingLoader(loader.name, loader.path)
        elif hasattr(loader, "compile_source"):
            loader.compile_source = compile_recording
        return spec


def install(wants):
    finder = RecordingFinder(wants)
    sys.meta_path.insert(0, finder)
    return finder


def uninstall(finder):
    record_into(OFF)
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)
