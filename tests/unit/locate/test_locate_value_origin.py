"""locate() after a crash whose bad value was made high on the call path and passed down
unchanged, frame after frame, to where it was refused (issue 22, ranking): the frames' recorded
locals show the same value travelling down, so the blame moves up to the frame where it stops
being a parameter (it was made there), then its caller; the frames below only passed it."""

from heal_ls.locate import locate
from heal_ls.models import Frame

from tests.helpers.locate import failed_run, keys_of, line_of, write_project

RULES = """\
class Version:
    def __init__(self, text):
        if not text[-1].isdigit():
            raise ValueError(f"bad version: {text}")
        self.text = text


def to_version(text):
    return Version(text)


def below(value, limit):
    return to_version(value).text < limit


def check(env):
    value = env["version"]
    return below(value, "9")


def evaluate(extra):
    env = {"version": "3.1+"}
    env.update(extra)
    return check(env)
"""
TEST = """\
from rules import evaluate


def test_a_local_version_evaluates():
    assert evaluate({})
"""
NAMES = ("to_version", "below", "check", "evaluate")
ERROR = ("ValueError", "bad version: 3.1+")


def ranked(tmp_path, changed=False, made=False, from_test=False):
    """`from_test`: the test calls `check` with its own dict, not `evaluate`."""
    rules = RULES
    if changed:  # check's call computes the value below gets: the locals no longer match
        rules = RULES.replace('"3.1+"', '"3.1"').replace(
            "return below(value,", 'return below(value + "+",'
        )
    if made:  # check makes the value from what it reads out of env, not passing it on as is
        rules = RULES.replace('"3.1+"', '"3.1"').replace(
            'value = env["version"]', 'value = env["version"] + "+"'
        )
    test = TEST.replace("import evaluate", "import check")
    test = test.replace("evaluate({})", 'check({"version": "3.1+"})') if from_test else TEST
    here, test_path = write_project(tmp_path, "rules", rules, test)
    keys = keys_of(here, rules, NAMES) + [f"{here}:{line_of(rules, 'def __init__(')}"]
    version = "'3.1+'"
    env = "{'version': '3.1'}" if changed or made else "{'version': '3.1+'}"
    passed = "'3.1'" if changed else version
    crash_frames = [
        Frame(here, line_of(rules, "return check(env)"), "evaluate", {"extra": "{}", "env": env}),
        Frame(here, line_of(rules, "return below(value"), "check", {"env": env, "value": passed}),
        Frame(here, line_of(rules, "return to_version(value)"), "below", {"value": version}),
        Frame(here, line_of(rules, "return Version(text)"), "to_version", {"text": version}),
        Frame(here, line_of(rules, "raise ValueError"), "__init__", {"text": version}),
    ][from_test:]
    nodeid = "tests/test_rules.py::test_a_local_version_evaluates"
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, ERROR, crash_frames, keys)
    return locate(failure, str(tmp_path), run).suspects


def test_the_frame_that_made_the_value_passed_down_unchanged_comes_first(tmp_path):
    suspects = ranked(tmp_path, made=True)
    assert [s.qualname for s in suspects[:2]] == ["check", "evaluate"]
    assert suspects[0].reason.startswith("made the value passed down unchanged")


def test_a_value_read_out_of_a_container_was_made_where_the_container_was_filled(tmp_path):
    """`check` only took `env["version"]` out of the dict `evaluate` filled and handed it:
    `evaluate` made the value (packaging's `Marker.evaluate` and `_evaluate_markers`)."""
    suspects = ranked(tmp_path)
    assert [s.qualname for s in suspects[:2]] == ["evaluate", "check"]
    assert suspects[0].reason.startswith("made the value passed down unchanged")
    assert suspects[1].reason.startswith("read the value raised on out of a container")


def test_a_value_computed_on_a_call_line_is_not_followed_past_it(tmp_path):
    """`check` computed what `Version` refused on its call line (`value + "+"`), `below` and
    `to_version` passed it on as their parameter: `check` made it, `evaluate` is not blamed."""
    assert [s.qualname for s in ranked(tmp_path, changed=True)[:2]] == ["check", "to_version"]


def test_a_container_the_test_handed_in_leaves_the_blame_on_its_reader(tmp_path):
    """The dict came from the test (`check({...})`): where it was filled is no function of
    ours, so the frame that read the value out of it is blamed, as before."""
    suspects = ranked(tmp_path, from_test=True)
    assert suspects[0].qualname == "check"
    assert suspects[0].reason.startswith("made the value passed down unchanged")


BINDINGS = """\
class Binding:
    def __init__(self, name, source=None):
        self.name = name
        self.source = source


def parent_of(node):
    return node.parent


def bind(binding):
    return parent_of(binding.source)


def builtins():
    return bind(Binding("_"))
"""
BINDINGS_TEST = """\
from bindings import builtins


def test_builtins_bind():
    assert builtins()
"""


def ranked_on_none(tmp_path, bindings=BINDINGS, message="'NoneType' object has no attribute"):
    """`builtins` made a Binding with no source; `bind` passed its source on; `parent_of`
    tripped over the None (pyflakes' `addBinding(None, Builtin('_'))`)."""
    here, test_path = write_project(tmp_path, "bindings", bindings, BINDINGS_TEST)
    keys = keys_of(here, bindings, ("parent_of", "bind", "builtins", "__init__"))
    binding = "<bindings.Binding object at 0x7f>"
    crash_frames = [
        Frame(here, line_of(bindings, "return bind("), "builtins", {}),
        Frame(here, line_of(bindings, "return parent_of("), "bind", {"binding": binding}),
        Frame(here, line_of(bindings, "return node.parent"), "parent_of", {"node": "None"}),
    ]
    nodeid = "tests/test_bindings.py::test_builtins_bind"
    error = ("AttributeError", f"{message} 'parent'")
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, crash_frames, keys)
    return [s.qualname for s in locate(failure, str(tmp_path), run).suspects]


def test_a_none_passed_on_unchanged_was_made_by_the_frame_that_computed_it(tmp_path):
    """`parent_of` was handed None (its parameter, None in its locals): a refusal of what it
    was given, so its caller comes before it; and `bind` only passed on its own parameter's
    attribute, so `builtins`, whose call built the Binding, made the None: first."""
    assert ranked_on_none(tmp_path)[:3] == ["builtins", "bind", "parent_of"]


def test_a_none_computed_by_the_direct_caller_blames_that_caller(tmp_path):
    """`bind` passes a None it wrote itself: it made it, and comes first; `builtins` only led
    there."""
    text = BINDINGS.replace("parent_of(binding.source)", "parent_of(None)")
    assert ranked_on_none(tmp_path, text)[:2] == ["bind", "parent_of"]


def test_a_value_that_is_not_none_leaves_the_raise_site_first(tmp_path):
    """An int has no `parent` either, but nothing says the argument was refused: the line
    that read its attribute is first, as before."""
    message = "'int' object has no attribute"
    assert ranked_on_none(tmp_path, message=message)[0] == "parent_of"


EMIT = """\
def unparse(tree, **options):
    handler = Handler()
    return emit(tree, handler, 0, **options)


def emit(node, handler, depth, indent):
    handler.whitespace(depth * indent)
    for child in node:
        emit(child, handler, depth + 1, indent)
"""
EMIT_TEST = """\
from emitter import unparse


def test_an_int_indent():
    assert unparse([[1]], indent=2)
"""


def test_a_library_refusing_an_argument_follows_the_argument_not_the_object_called(tmp_path):
    """A library's `handler.whitespace(depth * indent)` refused an int: `indent` came down from
    the test, so `emit`, which handed it on, stays first; the handler `unparse` made and passed
    down unchanged (the same object in every frame) is not what the library refused
    (xmltodict's `_emit` and `unparse`)."""
    here, test_path = write_project(tmp_path, "emitter", EMIT, EMIT_TEST)
    keys = keys_of(here, EMIT, ("unparse", "emit"))
    handler = "<Handler object at 0x7f>"
    crash_frames = [
        Frame(here, 3, "unparse", {"options": "{'indent': 2}", "handler": handler}),
        Frame(here, 9, "emit", {"handler": handler, "depth": "0", "indent": "2"}),
        Frame(here, 7, "emit", {"handler": handler, "depth": "1", "indent": "2"}),
        Frame("/usr/lib/python3/xml/sax/saxutils.py", 219, "whitespace", {}),
    ]
    nodeid = "tests/test_emitter.py::test_an_int_indent"
    error = ("TypeError", "decoding to str: need a bytes-like object, int found")
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, error, crash_frames, keys)
    suspects = locate(failure, str(tmp_path), run).suspects
    assert [s.qualname for s in suspects] == ["emit", "unparse"]
    assert suspects[0].reason == "raised in whitespace (saxutils.py), called from here"
