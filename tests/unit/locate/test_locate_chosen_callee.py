"""locate() after a crash in a def that decides nothing (issue 22, class H: a condition missing
in the caller). `module_from_name(name)` only imports what it is handed; the import of
`setup.py` ran `setup()`, which exited. The def that chose to hand it that name, and chose
between paths to get there, is where the refusal is missing: it comes first."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, keys_of, line_of, write_project

LOADER = """\
import sys


def module_from_name(name):
    __import__(name)
    return sys.modules[name]


def load_file(path):
    if not path.endswith(".py"):
        return None
    name = path[:-3]
    return module_from_name(name)
"""
LOADER_PATH = [
    ("return module_from_name(name)", "load_file", {"path": "'setup.py'", "name": "'setup'"}),
    ("__import__(name)", "module_from_name", {"name": "'setup'"}),
]
IMPORTED = [Frame("/elsewhere/setup.py", 3, "<module>")]
EXITED = ("SystemExit", "error: option -p not recognized")


def ranked(tmp_path, text: str, path, error=EXITED, below=IMPORTED) -> list[str]:
    """The suspects of a test of module `m` that crashed with `error` down `path` ((needle of
    the frame's line, function, locals), outermost first) and the frames `below` it, every def
    of `path` run."""
    here, test_path = write_project(tmp_path, "m", text, "def test_it():\n    assert False\n")
    keys = keys_of(here, text, tuple(function for _, function, _ in path))
    frames = [Frame(here, line_of(text, needle), f, held) for needle, f, held in path]
    nodeid = "tests/test_m.py::test_it"
    failure, run = failed_run(tmp_path, test_path, nodeid, 2, error, [*frames, *below], keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_caller_that_chose_a_def_deciding_nothing_comes_first(tmp_path):
    assert ranked(tmp_path, LOADER, LOADER_PATH)[:2] == ["load_file", "module_from_name"]


def test_a_def_that_decides_keeps_the_blame(tmp_path):
    """`module_from_name` checks the name itself: it may have let this one through."""
    loader = LOADER.replace(
        "    __import__(name)\n", "    if name.isidentifier():\n        __import__(name)\n"
    )
    assert ranked(tmp_path, loader, LOADER_PATH)[0] == "module_from_name"


def test_a_caller_that_decides_nothing_chose_nothing(tmp_path):
    """The caller only passes the path on, trimmed: no condition of its own to be missing."""
    loader = LOADER.replace('    if not path.endswith(".py"):\n        return None\n', "")
    assert ranked(tmp_path, loader, LOADER_PATH)[0] == "module_from_name"


def test_a_raising_line_that_reads_no_argument_keeps_the_blame(tmp_path):
    """`__import__("setup")`: the def crashed on its own constant, whatever it was handed."""
    loader = LOADER.replace("__import__(name)", '__import__("setup")')
    path = [LOADER_PATH[0], ('__import__("setup")', "module_from_name", {"name": "'setup'"})]
    assert ranked(tmp_path, loader, path)[0] == "module_from_name"
