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


def ranked(tmp_path, changed=False):
    rules = RULES
    if changed:  # check's call computes the value below gets: the locals no longer match
        rules = RULES.replace('"3.1+"', '"3.1"').replace(
            "return below(value,", 'return below(value + "+",'
        )
    here, test_path = write_project(tmp_path, "rules", rules, TEST)
    keys = keys_of(here, rules, NAMES) + [f"{here}:{line_of(rules, 'def __init__(')}"]
    version = "'3.1+'"
    env = "{'version': '3.1'}" if changed else "{'version': '3.1+'}"
    passed = "'3.1'" if changed else version
    crash_frames = [
        Frame(here, line_of(rules, "return check(env)"), "evaluate", {"extra": "{}", "env": env}),
        Frame(here, line_of(rules, "return below(value"), "check", {"env": env, "value": passed}),
        Frame(here, line_of(rules, "return to_version(value)"), "below", {"value": version}),
        Frame(here, line_of(rules, "return Version(text)"), "to_version", {"text": version}),
        Frame(here, line_of(rules, "raise ValueError"), "__init__", {"text": version}),
    ]
    nodeid = "tests/test_rules.py::test_a_local_version_evaluates"
    failure, run = failed_run(tmp_path, test_path, nodeid, 5, ERROR, crash_frames, keys)
    return locate(failure, str(tmp_path), run).suspects


def test_the_frame_that_made_the_value_passed_down_unchanged_comes_first(tmp_path):
    suspects = ranked(tmp_path)
    assert [s.qualname for s in suspects[:2]] == ["check", "evaluate"]
    assert suspects[0].reason.startswith("made the value passed down unchanged")


def test_a_value_computed_on_a_call_line_is_not_followed_past_it(tmp_path):
    assert ranked(tmp_path, changed=True)[0].qualname == "to_version"
