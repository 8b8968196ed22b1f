"""Serve candidate source text in place of files on disk, for `import` and for scripts.

Stdlib only: it runs inside the user's interpreter, which may not have heal-ls installed.
The pytest plugin installs `OverlayFinder` before conftest files import workspace code; the
script runner executes this file directly:

    python heal_overlay.py SCRIPT [ARGS...]     (env HEAL_LS_OVERLAY, HEAL_LS_SCRIPT_TIMEOUT)

Overlaid modules are compiled from the given text with the real path as their filename, so
tracebacks point at the real file, and no bytecode is read or written for them.
"""

import faulthandler
import importlib.abc
import importlib.machinery
import json
import linecache
import os
import sys
import traceback
import types

import heal_env


def load_overlay_file(path):
    """Read {abs_path: source_text} from a JSON file (paths as given: links unresolved)."""
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _seed_linecache(path, text):
    # mtime None marks the entry as "not from disk": checkcache() keeps it, so tracebacks
    # and pytest's assertion messages show the overlay's lines, not the file's.
    linecache.cache[path] = (len(text), None, text.splitlines(True), path)


class OverlayLoader(importlib.abc.InspectLoader):
    def __init__(self, fullname, path, text):
        self.fullname, self.path, self.text = fullname, path, text

    def create_module(self, spec):
        return None

    def get_source(self, fullname):
        return self.text

    def get_filename(self, fullname):
        return self.path

    def is_package(self, fullname):
        return os.path.basename(self.path) == "__init__.py"

    def get_code(self, fullname):
        return self.compile_source(self.text, self.path)

    def compile_source(self, text, path):  # replaced when function coverage is recorded
        return compile(text, path, "exec", dont_inherit=True)

    def exec_module(self, module):
        _seed_linecache(self.path, self.text)
        exec(self.get_code(module.__name__), module.__dict__)


class OverlayFinder(importlib.abc.MetaPathFinder):
    """Finds modules as the normal path finder does, but loads overlaid files from text."""

    def __init__(self, sources):
        self.sources = {os.path.realpath(p): t for p, t in sources.items()}
        self.given = {os.path.abspath(p): t for p, t in sources.items()}
        # Cheap pre-filter so most imports cost one set lookup, not a second path search. A
        # module may be a symlink: it is imported by the link's name, matched by the target.
        self.names = {_module_name(p) for p in sources} | {_module_name(p) for p in self.sources}

    def find_spec(self, fullname, path=None, target=None):
        if fullname.rpartition(".")[2] not in self.names:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not spec.origin:
            return self._through_link(fullname, path)
        text = self.sources.get(os.path.realpath(spec.origin))
        if text is None:
            return None
        spec.loader = OverlayLoader(fullname, spec.origin, text)
        spec.cached = None
        return spec

    def _through_link(self, fullname, path):
        """A symlinked module whose target cannot be read here (a sandbox shows only the
        workspace): found by the link's own path; its text is the overlay's anyway."""
        name = fullname.rpartition(".")[2]
        folders = {os.path.abspath(d or os.getcwd()) for d in (sys.path if path is None else path)}
        for file, text in self.given.items():
            package = os.path.basename(file) == "__init__.py"
            folder = os.path.dirname(os.path.dirname(file) if package else file)
            if _module_name(file) == name and folder in folders and os.path.islink(file):
                loader = OverlayLoader(fullname, file, text)
                spec = importlib.machinery.ModuleSpec(
                    fullname, loader, origin=file, is_package=package
                )
                spec.has_location = True
                if package:
                    spec.submodule_search_locations = [os.path.dirname(file)]
                return spec
        return None


def _module_name(path):
    base = os.path.basename(path)
    if base == "__init__.py":
        return os.path.basename(os.path.dirname(path))
    return base[:-3] if base.endswith(".py") else base


def install(sources):
    """Put an OverlayFinder first on sys.meta_path; returns it (for uninstall)."""
    finder = OverlayFinder(sources)
    sys.meta_path.insert(0, finder)
    return finder


_FROM_ENVIRONMENT: "dict[str, OverlayFinder]" = {}  # the overlay file's path -> its finder: installed once a process


def install_from_environment(variable=heal_env.OVERLAY):
    """The overlay of the file `variable` names, installed once a process; None when the run
    overlays nothing.

    The plugins call it with OVERLAY from pytest_addoption, the first hook pytest calls on a `-p`
    plugin: before pytest loads installed packages' plugins (`pytest11` entry points), which
    import the workspace's modules when the workspace is one (its egg-info on the path: faker,
    pyfakefs). It names the file in CHILD_OVERLAY too, which every Python process the run starts
    inherits (xdist's workers, a CLI a test runs through subprocess) and sitecustomize.py serves:
    a test that runs the changed code only in a child would otherwise pass whatever the candidate
    does. Not OVERLAY itself: a warm runner's server starts with a run's environment and must
    never serve that run's candidate to the runs it forks later.
    """
    path = os.environ.get(variable)
    if not path:
        return None
    os.environ[heal_env.CHILD_OVERLAY] = path
    finder = _FROM_ENVIRONMENT.get(path)
    if finder is None or finder not in sys.meta_path:
        finder = _FROM_ENVIRONMENT[path] = install(load_overlay_file(path))
    return finder


def uninstall(finder):
    if finder in sys.meta_path:
        sys.meta_path.remove(finder)


def _strip_own_frames(tb):
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return tb


def run_script(script, args, sources):
    """Run SCRIPT as __main__ the way `python SCRIPT` would, using overlay text if given."""
    script = os.path.abspath(script)
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(script)
    real = {os.path.realpath(p): t for p, t in sources.items()}
    text = real.get(os.path.realpath(script))
    if text is None:
        with open(script, "rb") as handle:
            source = handle.read()  # bytes: compile() honours the PEP 263 cookie and BOM
    else:
        source = text
        _seed_linecache(script, text)
    main = types.ModuleType("__main__")
    main.__file__ = script
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    try:
        exec(compile(source, script, "exec", dont_inherit=True), main.__dict__)
    except SystemExit:
        raise
    except BaseException as exc:
        # As `python SCRIPT` would print it, without this file's frames on top.
        traceback.print_exception(type(exc), exc, _strip_own_frames(exc.__traceback__))
        raise SystemExit(1) from None


def _serve_to_children(overlay_path):
    """The Python processes the script starts serve the overlay too (sitecustomize.py, from this
    folder, which they find on PYTHONPATH): else a script that runs the changed code in a child
    runs the file on disk there. Set after start-up, so the script's own sys.path is unchanged."""
    here = os.path.dirname(os.path.abspath(__file__))
    os.environ[heal_env.CHILD_OVERLAY] = overlay_path
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write("usage: heal_overlay.py SCRIPT [ARGS...]\n")
        return 2
    overlay_path = os.environ.pop(heal_env.OVERLAY, "")
    sources = load_overlay_file(overlay_path) if overlay_path else {}
    if sources:
        install(sources)
        _serve_to_children(overlay_path)
    timeout = float(os.environ.pop(heal_env.SCRIPT_TIMEOUT, "0") or 0)
    if timeout > 0:
        # Works even when the script is stuck in C code holding the GIL.
        faulthandler.dump_traceback_later(timeout, exit=True)
    run_script(sys.argv[1], sys.argv[2:], sources)
    return 0


if __name__ == "__main__":
    sys.exit(main())
