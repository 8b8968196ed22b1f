"""locate() after a def refused a value it was handed (issue 22, class A (ii): a caller passed
the refused value on). The refusal says which argument: a raise reports a local the def made
from a parameter by calls on it alone (`lang = parts.pop(0).lower()`), a raise quotes the
arguments by name (`give either `port` or `socket``), a builtin refuses the kind a parameter
held (`open(filename)`: `..., not Quoted`). The def that chose the value, up the failing
path, comes first."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, keys_of, line_of, write_project

TAGS = """\
def parse_tag(text, sep="_"):
    parts = text.split(sep)
    lang = parts.pop(0).lower()
    if not lang.isalpha():
        raise ValueError(f"expected letters, got {lang!r}")
    return lang


def tag_of(text):
    return parse_tag(text)


def set_tag(doc, text):
    doc["tag"] = tag_of(text)


def read(header):
    name, value = header.split(":", 1)
    doc = {"name": name}
    set_tag(doc, value.strip())
    return doc
"""
TAGS_PATH = [
    ("set_tag(doc, value", "read", {}),
    ('doc["tag"] =', "set_tag", {}),
    ("return parse_tag(text)", "tag_of", {}),
    ("raise ValueError", "parse_tag", {}),
]
SERVER = """\
def connect(host, port=None, **options):
    if port is not None and "socket" in options:
        raise ValueError("give either `port` or `socket`, not both")
    return (host, port, options)


def from_settings(settings):
    return connect(settings["host"], port=settings.get("port"), socket=settings.get("socket"))
"""
SERVER_PATH = [("return connect(", "from_settings", {}), ("raise ValueError", "connect", {})]
CONFIG = """\
class Quoted:
    def __init__(self, text):
        self.text = text


def load(filename):
    with open(filename) as fd:
        return fd.read()


def include(token):
    path = token[1]
    return load(path)
"""
QUOTED = "Quoted('a.conf')"
CONFIG_PATH = [
    ("return load(path)", "include", {"path": QUOTED}),
    ("with open(", "load", {"filename": QUOTED}),
]
OPEN = [Frame("<frozen codecs>", 918, "open")]


def ranked(tmp_path, text: str, path, error: tuple[str, str], below=()) -> list[str]:
    """The suspects of a test of module `m` that crashed with `error` down `path` ((needle of
    the frame's line, function, locals), outermost first) and the library frames `below` it,
    every def of `path` run."""
    here, test_path = write_project(tmp_path, "m", text, "def test_it():\n    assert False\n")
    keys = keys_of(here, text, tuple(function for _, function, _ in path))
    frames = [Frame(here, line_of(text, needle), f, held) for needle, f, held in path]
    nodeid = "tests/test_m.py::test_it"
    failure, run = failed_run(tmp_path, test_path, nodeid, 2, error, [*frames, *below], keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_the_maker_of_a_value_refused_through_a_local_comes_first(tmp_path):
    error = ("ValueError", "expected letters, got ''")
    assert ranked(tmp_path, TAGS, TAGS_PATH, error)[:2] == ["read", "parse_tag"]


def test_a_local_made_by_another_function_is_not_the_parameter(tmp_path):
    """`lang = normalise(parts)`: what the def refused is what `normalise` made."""
    tags = TAGS.replace("lang = parts.pop(0).lower()", "lang = normalise(parts)")
    tags += "\n\ndef normalise(parts):\n    return parts.pop(0).lower()\n"
    error = ("ValueError", "expected letters, got ''")
    assert ranked(tmp_path, tags, TAGS_PATH, error)[0] == "parse_tag"


def test_the_caller_of_arguments_a_raise_refused_by_name_comes_first(tmp_path):
    error = ("ValueError", "give either `port` or `socket`, not both")
    assert ranked(tmp_path, SERVER, SERVER_PATH, error)[:2] == ["from_settings", "connect"]


def test_a_message_naming_no_argument_leaves_the_raise_site_first(tmp_path):
    server = SERVER.replace("give either `port` or `socket`, not both", "conflicting settings")
    error = ("ValueError", "conflicting settings")
    assert ranked(tmp_path, server, SERVER_PATH, error)[0] == "connect"


def test_the_caller_that_chose_a_kind_a_builtin_refused_comes_first(tmp_path):
    error = ("TypeError", "expected str, bytes or os.PathLike object, not Quoted")
    assert ranked(tmp_path, CONFIG, CONFIG_PATH, error, OPEN)[:2] == ["include", "load"]


def test_a_refusal_of_another_kind_leaves_the_raise_site_first(tmp_path):
    """The builtin refused a kind the parameter does not hold: nothing says it was handed it."""
    error = ("TypeError", "expected str, bytes or os.PathLike object, not int")
    assert ranked(tmp_path, CONFIG, CONFIG_PATH, error, OPEN)[0] == "load"
