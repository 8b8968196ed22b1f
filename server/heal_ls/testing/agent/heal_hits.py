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

With BLOCKS=1 in the environment (the run whose tests are ranking evidence: diagnose's), each
def's blocks report too, through the same call: the first statement of every branch a def can
take (an if's or elif's body and else, a loop's body and else, an except handler, a match case)
and the statement after every compound statement (reached only when it fell through):

    __heal_ls_hit__("abs_path:line:b")

keyed by that statement's line. A def's entry block is its own hit. `split_hits` parts a test's
hits into the functions and each module's block lines.

Compiling a big package from source on every run (networkx: ~300 modules at import) costs as
much as its tests (plain pytest reads the modules' bytecode), so the instrumented code is kept in
heal-ls's own cache folder (HEAL_LS_HITS_CACHE, set by the invocation; never the workspace's
__pycache__, so PYTHONDONTWRITEBYTECODE is honoured there): one file per module path, read back
only when its header matches the interpreter's magic number and a digest of the module's source
and path (the keys name the path). A write that fails (a sandbox, a full disk) only costs the
compile next time.

A Python process a recorded test starts (a command-line tool run with subprocess) records too:
the plugin names a folder in CHILD_HITS, which the child inherits with PYTHONPATH, so this
folder's sitecustomize.py installs the same finder there (`record_child`); its keys are left in
that folder when it exits and join the test's own (`take_child_hits`).

Stdlib only.
"""

import ast
import atexit
import builtins
import hashlib
import importlib.machinery
import importlib.util
import marshal
import os
import sys

from heal_env import BLOCKS, CHILD_HITS, HITS_CACHE

HIT = "__heal_ls_hit__"
CACHE_TAG = "heal-hits-1"  # bump when the instrumentation changes: old files are never read
BLOCKS_TAG = "heal-blocks-1"  # the same with block hits (another file: either may be wanted)
BLOCK_MARK = ":b"  # ends a block key
ASSERT_REWRITER = "_pytest.assertion.rewrite"  # the module of pytest's assert-rewriting loader
OFF = frozenset().__contains__  # takes the key, does nothing: the switch when not recording


class _Real:
    """The cache's file functions, taken when the agent is imported, before any test: a test that
    fakes them (mock.patch("builtins.open"), mock.patch("os.replace")) and imports a workspace
    module must neither break that import nor see our calls in its mocks. Held in a class, not as
    module names, which pyfakefs would find and stub for every test (running its stubber)."""

    open, makedirs, replace, unlink = builtins.open, os.makedirs, os.replace, os.unlink
    listdir = os.listdir


if not hasattr(builtins, HIT):
    setattr(builtins, HIT, OFF)


def record_into(add):
    """Send every hit to `add` (a set's add), or nowhere with OFF."""
    setattr(builtins, HIT, add)


# Each hit key's parse, kept for the process: every test of a file hits mostly the same keys
# (networkx: 54 tests of one file, 9,772 keys; the split took ~7.8 ms of a check's child, ~3.2 so)
_PARSED = {}  # type: dict[str, tuple[str, int]]  # key -> (abs_path, block line) or _FUNCTION
_FUNCTION = ("", 0)


def split_hits(keys):
    """(sorted function keys, {abs_path: sorted block lines}) of one recording's hits."""
    functions, blocks = [], {}
    for key in keys:
        where = _PARSED.get(key)
        if where is None:
            where = _PARSED[key] = _parse(key)
        if where is _FUNCTION:
            functions.append(key)
        else:
            blocks.setdefault(where[0], []).append(where[1])
    for lines in blocks.values():
        lines.sort()
    return sorted(functions), blocks


def _parse(key):
    if not key.endswith(BLOCK_MARK):
        return _FUNCTION
    path, _, line = key[: -len(BLOCK_MARK)].rpartition(":")
    return path, int(line)


CHILD_SUFFIX = ".hits"


def record_child(wants):
    """In a Python process a recorded test started (CHILD_HITS in its environment): record the
    workspace functions it runs and leave their keys in that folder when it exits, for the test
    that started it (`take_child_hits`)."""
    folder = os.environ.get(CHILD_HITS)
    if not folder:
        return
    hits = set()
    install(wants)
    record_into(hits.add)
    atexit.register(save_child_hits, folder, hits)
    for name in LEAVING:
        real = getattr(os, name, None)
        if real is not None:
            setattr(os, name, _saving_first(real, folder, hits))


# os._exit skips atexit (a forked multiprocessing worker ends in it) and an exec replaces the
# process: both save the hits first. The other exec* functions of os call these two.
LEAVING = ("_exit", "execv", "execve")


def _saving_first(leave, folder, hits):
    def leaving(*args, **kwargs):
        save_child_hits(folder, hits)  # an exec that fails goes on; atexit saves again, more
        return leave(*args, **kwargs)

    return leaving


def save_child_hits(folder, keys):
    # not the pid alone: an exec keeps it, and the new program would overwrite these hits
    where = os.path.join(folder, f"{os.getpid()}-{os.urandom(4).hex()}{CHILD_SUFFIX}")
    tmp = f"{where}.tmp"
    try:
        with _Real.open(tmp, "w", encoding="utf-8", errors="surrogatepass") as handle:
            handle.write("\n".join(sorted(keys)))
        _Real.replace(tmp, where)  # the reader never sees half a file
    except OSError:
        pass


def take_child_hits(folder):
    """The keys the finished child processes left in `folder` (their files removed)."""
    keys = set()
    try:
        names = _Real.listdir(folder)
    except OSError:
        return keys
    for name in names:
        if not name.endswith(CHILD_SUFFIX):
            continue
        where = os.path.join(folder, name)
        try:
            with _Real.open(where, encoding="utf-8", errors="surrogatepass") as handle:
                keys.update(line for line in handle.read().split("\n") if line)
            _Real.unlink(where)
        except OSError:
            pass
    return keys


def _hit(key, where):
    """`HIT(key)` at `where`'s place; every node of it placed, so the module needs no
    ast.fix_missing_locations (a walk of the whole tree, a quarter of instrumenting one)."""
    call = ast.Call(ast.Name(HIT, ast.Load()), [ast.Constant(key)], [])
    for node in (call.func, call.args[0], call):
        ast.copy_location(node, where)
    return ast.copy_location(ast.Expr(call), where)


# Statement lists where a branch starts (its first statement is a block), by node type; the
# other lists of a compound statement (a try's body, its finally, a with's body) run whenever
# the statement itself does, and are only searched for branches inside.
_BRANCHES = {
    "If": ("body", "orelse"),
    "For": ("body", "orelse"),
    "AsyncFor": ("body", "orelse"),
    "While": ("body", "orelse"),
    "Try": ("orelse",),
    "TryStar": ("orelse",),
    "ExceptHandler": ("body",),
    "match_case": ("body",),
}
_INSIDE = ("body", "orelse", "finalbody", "handlers", "cases")
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


# The statement lists a statement holds: a def is a statement, found only in these (no
# expression holds one), so the walk for defs never enters an expression.
_BODIES = ("body", "orelse", "finalbody")
_PARTS = ("handlers", "cases")  # except handlers and match cases, each with its own body


class _AddHits:
    def __init__(self, path, blocks=False):
        self.path = path
        self.blocks = blocks

    def add(self, statements):
        """Instrument every def among `statements` and inside them, nested defs first. Only
        statements are visited: an ast.NodeTransformer's walk of every expression node was
        ~40% of instrumenting a module (networkx: 1.7 s of CPU against a plain compile's 0.6)."""
        for statement in statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._def(statement)
                continue
            for name in _BODIES:
                inner = getattr(statement, name, None)
                if isinstance(inner, list):
                    self.add(inner)
            for name in _PARTS:
                for part in getattr(statement, name, None) or ():
                    self.add(part.body)

    def _def(self, node):
        self.add(node.body)
        if self.blocks:
            node.body = self._blocks(node.body, entry=True)
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        at = 1 if _is_docstring(node.body[0]) and len(node.body) > 1 else 0
        node.body.insert(at, _hit(f"{self.path}:{first}", node.body[at]))

    def _blocks(self, statements, entry):
        """`statements` with a block hit before the first (unless `entry`) and after every
        compound statement; branches inside are marked too (never inside a nested scope)."""
        out, mark = [], not entry
        for statement in statements:
            if mark:
                out.append(_hit(f"{self.path}:{statement.lineno}{BLOCK_MARK}", statement))
            out.append(statement)
            mark = self._branches(statement)
        return out

    def _branches(self, node):
        """Mark the branches of a compound statement; True if it is one."""
        if isinstance(node, _SCOPES):
            return False
        starts = _BRANCHES.get(type(node).__name__, ())
        compound = False
        for name in _INSIDE:
            inner = getattr(node, name, None)
            if not isinstance(inner, list) or not inner:
                continue
            compound = True
            if name in ("handlers", "cases"):
                for part in inner:
                    self._branches(part)
            else:
                setattr(node, name, self._blocks(inner, entry=name not in starts))
        return compound


def _is_docstring(statement):
    value = getattr(statement, "value", None)
    return (
        isinstance(statement, ast.Expr)
        and isinstance(value, ast.Constant)
        and isinstance(value.value, str)
    )


def blocks_wanted():
    """Whether this run's workspace modules report their blocks too (BLOCKS=1)."""
    return os.environ.get(BLOCKS) == "1"


def compile_recording(source, path, blocks=None):
    """Module code for `source` whose functions (and with `blocks`, their blocks; None: as the
    environment says) report their runs, compiled as `path`."""
    blocks = blocks_wanted() if blocks is None else blocks
    tree = ast.parse(source, path)
    _AddHits(os.path.abspath(path), blocks).add(tree.body)
    return compile(tree, path, "exec", dont_inherit=True)


class RecordingLoader(importlib.machinery.SourceFileLoader):
    """Loads a workspace source file with its functions instrumented (cached: see above)."""

    def get_code(self, fullname):
        source = self.get_data(self.path)
        blocks = blocks_wanted()
        where = cache_path(self.path, blocks)
        header = importlib.util.MAGIC_NUMBER + _digest(source, self.path)
        code = _read_cached(where, header) if where else None
        if code is None:
            code = compile_recording(source, self.path, blocks)
            if where:
                _write_cached(where, header, code)
        return code


def cache_path(path, blocks=False):
    """The file keeping `path`'s instrumented code (with block hits or without), or None when no
    cache folder was given."""
    folder = os.environ.get(HITS_CACHE)
    if not folder:
        return None
    name = hashlib.blake2b(os.path.abspath(path).encode("utf-8", "surrogatepass"), digest_size=12)
    tag = sys.implementation.cache_tag or "python"
    kind = BLOCKS_TAG if blocks else CACHE_TAG
    return os.path.join(folder, f"{name.hexdigest()}.{tag}.{kind}.pyc")


def _digest(source, path):
    digest = hashlib.blake2b(source, digest_size=16)
    digest.update(b"\0" + os.path.abspath(path).encode("utf-8", "surrogatepass"))
    return digest.digest()


def _read_cached(where, header):
    try:
        with _Real.open(where, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if not data.startswith(header):
        return None
    try:
        return marshal.loads(data[len(header) :])
    except (EOFError, ValueError, TypeError):
        return None


def _write_cached(where, header, code):
    tmp = f"{where}.{os.getpid()}.tmp"
    try:
        _Real.makedirs(os.path.dirname(where), mode=0o700, exist_ok=True)
        with _Real.open(tmp, "wb") as handle:
            handle.write(header + marshal.dumps(code))
        _Real.replace(tmp, where)
    except OSError:
        try:
            _Real.unlink(tmp)
        except OSError:
            pass


class RecordingFinder:
    """First on sys.meta_path: asks the finders after it, then instruments workspace sources.

    Loaders that already compile from text with a `compile_source` hook (the overlay) are handed
    `compile_recording`; test files and non-workspace modules are left exactly as found.

    A module none of them finds is searched twice: by this finder, then by the import system,
    which asks the same finders after this one returns None. Such a search is remembered
    (`missing`) until the places it looked change or `importlib.invalidate_caches()`, so a
    repeated import of a missing module is searched once, as without heal-ls: networkx calls
    `import numpy` (not installed) inside its random-graph functions, ~80,000 times in one test
    file, which ran 1.6x as long recorded (19 -> 31 s of CPU).
    """

    def __init__(self, wants):
        self.wants = wants  # path -> bool: a workspace file outside the tests
        self.missing = set()  # (name, where it was looked for, the finders asked): none had it

    def invalidate_caches(self):
        self.missing.clear()

    def find_spec(self, fullname, path=None, target=None):
        searched = (fullname, tuple(sys.path if path is None else path), tuple(sys.meta_path))
        try:
            if searched in self.missing:
                return None
        except TypeError:  # something unhashable on a path: not remembered
            searched = None
        spec = None
        for finder in sys.meta_path[sys.meta_path.index(self) + 1 :]:
            find = getattr(finder, "find_spec", None)
            if find is None:
                return None  # a legacy finder: let the import system go on without us
            spec = find(fullname, path, target)
            if spec is not None:
                break
        if spec is None and searched is not None:
            self.missing.add(searched)
        if spec is None or not spec.origin or not self.wants(spec.origin):
            return spec
        loader = spec.loader
        if type(loader) is importlib.machinery.SourceFileLoader:
            spec.loader = RecordingLoader(loader.name, loader.path)
        elif type(loader).__module__ == ASSERT_REWRITER and spec.origin.endswith(".py"):
            # pytest rewrites the asserts of every module of a package that is a pytest plugin
            # (a `pytest11` entry point): the workspace's own, when it is one (faker, pyfakefs).
            # Recording what ran is the evidence; those modules' asserts lose pytest's
            # explanation (their tests' asserts are not these: test files are left alone).
            spec.loader = RecordingLoader(fullname, spec.origin)
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
