"""Safety rails: candidates that add dangerous capabilities or touch tests are refused with a reason."""

from pathlib import Path

import heal_ls.testing.agent as agent_package
import pytest
from heal_ls.heal.answer import AnswerError, extract_function
from heal_ls.heal.safety import UnsafeCandidate, check_candidate
from heal_ls.models import Suspect
from heal_ls.pysource.splice import SpliceError, splice

AGENT = Path(next(iter(agent_package.__path__)))

ORIGINAL = "    def total(self, items):\n        return sum(items)\n"
SOURCE = "/w/shop/cart.py"


def refuse(new: str, original: str = ORIGINAL, path: str = SOURCE) -> str:
    with pytest.raises(UnsafeCandidate) as err:
        check_candidate(original, new, path)
    return str(err.value)


@pytest.mark.parametrize(
    ("body", "label"),
    [
        ("return eval('sum(items)')", "`eval`"),
        ("exec('x = 1')\n    return 0", "`exec`"),
        ("return compile('1', 'f', 'eval')", "`compile`"),
        ("return __import__('os').getcwd()", "`__import__`"),
        ("import os\n    os.system('rm -rf ~')\n    return 0", "`os.system`"),
        ("import os as o\n    return o.popen('ls').read()", "`os.popen`"),
        ("from os import system\n    system('ls')\n    return 0", "`os.system`"),
        ("import subprocess\n    return subprocess.run(['ls'])", "`subprocess`"),
        ("import subprocess as sp\n    return sp.check_output(['ls'])", "`subprocess`"),
        ("from subprocess import run as go\n    return go(['ls'])", "`subprocess`"),
        ("import socket\n    return socket.create_connection(('x', 1))", "`socket`"),
        ("import ctypes\n    return ctypes.CDLL(None)", "`ctypes`"),
        ("import shutil\n    shutil.rmtree('/')\n    return 0", "`shutil.rmtree`"),
        ("import os\n    os._exit(0)", "`os._exit`"),
        ("import os\n    os.execv('/bin/sh', ['sh'])", "`os.exec`"),
        ("import importlib\n    return importlib.import_module('os')", "`importlib`"),
        ("return self.total.__globals__['x']", "`__globals__`"),
        ("return __builtins__", "`__builtins__`"),
        ("return object.__subclasses__()", "`__subclasses__`"),
        ("return getattr(self.total, '__globals__')", "getattr(..., '__globals__')"),
        ("import pytest\n    pytest.skip('flaky')", "`pytest.skip`"),
        ("import pytest\n    pytest.xfail('known')", "`pytest.xfail`"),
        ("import pytest\n    pytest.importorskip('numpy')", "`pytest.importorskip`"),
        ("import pytest\n    pytest.exit('stop')", "`pytest.exit`"),
        ("import pytest\n    return pytest.approx(1)", "`pytest`"),
        ("import sys\n    return sys._getframe(1).f_locals['expected']", "`sys._getframe`"),
        ("import inspect\n    return inspect.currentframe().f_back", "`f_back`"),
        ("import os\n    return 0 if 'PYTEST_CURRENT_TEST' in os.environ else 1", "test run"),
        ("import sys\n    return 0 if 'pytest' in sys.modules else 1", "test run"),
        ("import os\n    os.posix_spawn('/bin/sh', ['sh'], {})", "`os.posix_spawn`"),
        (
            "import asyncio\n    return asyncio.create_subprocess_exec('ls')",
            "`asyncio.create_subprocess_`",
        ),
        ("import pickle\n    return pickle.loads(b'x')", "`pickle`"),
        (
            "import operator\n    return operator.methodcaller('system', 'ls')(o)",
            "`operator.methodcaller`",
        ),
        ("import multiprocessing\n    return multiprocessing.Process()", "`multiprocessing`"),
        ("return globals()['__builtins__']", "`globals`"),
        ("import sys\n    return getattr(sys.modules['os'], 'sys' + 'tem')('ls')", "`sys.modules`"),
        ("import os\n    os.fork() or os.setsid()", "`os.setsid`"),
        ("import builtins\n    builtins.len = lambda x: 0", "`builtins`"),
        # ways to make a test run look passed without fixing anything (issue 10)
        ("import unittest\n    raise unittest.SkipTest('later')", "`unittest`"),
        ("from unittest import SkipTest\n    raise SkipTest('x')", "`unittest`"),
        ("from _pytest.outcomes import skip\n    skip('x')", "`_pytest`"),
        ("import _pytest.outcomes\n    _pytest.outcomes.exit('x')", "`_pytest`"),
        ("import sys\n    sys.modules['_pytest.outcomes'].skip('x')", "`sys.modules`"),
        ("import sys\n    sys.exit(0)", "`sys.exit`"),
        ("raise KeyboardInterrupt", "`KeyboardInterrupt`"),
        ("raise SystemExit(0)", "`SystemExit`"),
        ("import signal, os\n    os.kill(os.getpid(), signal.SIGINT)", "`signal`"),
        (
            "import os\n    open(os.environ['HEAL_LS_REPORT'], 'a').write('{}')\n    return 0",
            "`os.environ`",
        ),
        ("import heal_pytest_plugin\n    heal_pytest_plugin.HealReporter = None", "heal_pytest"),
        ("import gc\n    return gc.get_objects()", "`gc`"),
        ("import heal_hits\n    heal_hits.record_into(print)", "`heal_hits`"),
        ("return __heal_ls_hit__('x')", "`__heal_ls_hit__`"),
        (
            "class Any:\n        def __eq__(self, other):\n            return True\n"
            "    return Any()",
            "`class definition`",
        ),
        ("return type('A', (), {'__eq__': lambda s, o: True})()", "`type(name, bases, dict)`"),
        ("r = sum(items)\n    r.__eq__ = lambda o: True\n    return r", "`.__eq__`"),
        ("import math\n    math.fsum = lambda xs: 0\n    return 0", "`math.fsum = ...`"),
        ("setattr(self, 'total', None)\n    return 0", "`setattr`"),
        ("from unittest import mock\n    return mock.ANY", "`unittest`"),
        ("def __bool__():\n        return True\n    return 0", "`def __bool__`"),
    ],
)
def test_added_capabilities_are_refused(body, label):
    reason = refuse(f"def total(self, items):\n    {body}\n")
    assert label in reason
    assert "the original function did not use" in reason


@pytest.mark.parametrize(
    "module", sorted(path.stem for path in AGENT.glob("*.py")), ids=lambda name: name
)
def test_every_module_of_heal_ls_beside_the_tests_is_refused(module):
    """Derived from the folder, not a hand list: `import warm_child` once slipped through."""
    reason = refuse(f"def total(self, items):\n    import {module}\n    return {module}\n")
    assert f"`{module}`" in reason


def test_skip_decorator_is_refused():
    reason = refuse("@pytest.mark.skip(reason='later')\ndef total(self, items):\n    return 0\n")
    assert "`pytest.mark.skip`" in reason


def test_capabilities_the_original_had_may_stay():
    original = "def run(cmd):\n    import subprocess\n    return subprocess.run(cmd, shell=False)\n"
    fixed = (
        "def run(cmd):\n    import subprocess\n    return subprocess.run(list(cmd), check=True)\n"
    )
    check_candidate(original, fixed, SOURCE)
    with pytest.raises(UnsafeCandidate, match="`os.system`"):
        check_candidate(
            original, fixed.replace("return", "import os; os.system('x'); return"), SOURCE
        )


def test_plain_fixes_pass():
    check_candidate(
        ORIGINAL, "def total(self, items):\n    return sum(i.price for i in items)\n", SOURCE
    )
    check_candidate(
        ORIGINAL, "def total(self, items):\n    import re\n    return re.compile('x')\n", SOURCE
    )


def test_local_names_that_shadow_guarded_ones_are_not_refused():
    fixed = (
        "def total(self, items, socket=None):\n"
        "    system = platform_name()\n"
        "    compile = self.compiler\n"
        "    for subprocess in items:\n"
        "        socket.send(subprocess)\n"
        "    return compile(system)\n"
    )
    check_candidate(ORIGINAL, fixed, SOURCE)


def test_recursion_into_a_function_named_like_a_builtin_is_allowed():
    original = "def compile(pattern):\n    return pattern\n"
    check_candidate(
        original,
        "def compile(pattern):\n    return compile(pattern[1:]) if pattern else ''\n",
        SOURCE,
    )


@pytest.mark.parametrize(
    "candidate",
    [
        "def total(self, items, subprocess=subprocess):\n    return subprocess.run(items)\n",
        "def total(self, items, run=eval):\n    return run(items)\n",
        "def total(self, items):\n    global socket\n    socket = socket.socket()\n    return 0\n",
        "@contextlib.contextmanager\n@ctypes.CDLL\ndef total(self, items):\n    return 0\n",
    ],
)
def test_defaults_decorators_and_globals_are_not_local(candidate):
    refuse(candidate)


def test_several_additions_are_all_named():
    reason = refuse(
        "def total(self, items):\n    import os\n    os.system('x')\n    return eval('1')\n"
    )
    assert "`eval`" in reason and "`os.system`" in reason


@pytest.mark.parametrize(
    "path",
    ["/w/tests/test_cart.py", "/w/shop/test_cart.py", "/w/shop/cart_test.py", "/w/conftest.py"],
)
def test_test_files_are_refused_unless_allowed(path):
    assert "test file" in refuse(ORIGINAL, path=path)
    check_candidate(ORIGINAL, ORIGINAL, path, allow_test_edits=True)


def test_unparsable_candidate_is_refused():
    assert "does not parse" in refuse("def total(self, items:\n    return 0\n")


def test_hostile_answers_run_nothing_and_change_no_file(tmp_path):
    module = tmp_path / "cart.py"
    text = "class Cart:\n    def total(self, items):\n        return sum(items)\n"
    module.write_text(text)
    witness = tmp_path / "pwned"
    suspect = Suspect(str(module), "Cart.total", 2, 4, 3, 25, "test", 1.0, 2)
    hostile = [
        "garbage with no code",
        "```python\ndef total(self, items:\n```",
        "```python\ndef grand_total(self, items):\n    return 0\n```",
        f"```python\ndef total(self, items, _=open({str(witness)!r}, 'w')):\n"
        f"    import os\n    os.system('touch {witness}')\n    return 0\n```",
        "```python\nclass total:\n    pass\n```",
    ]
    for answer in hostile:
        with pytest.raises((AnswerError, UnsafeCandidate, SpliceError)):
            new = extract_function(answer, "total", "Cart")
            check_candidate(ORIGINAL, new, str(module))
            splice(text, suspect, new)
    assert module.read_text() == text
    assert not witness.exists()


def test_tampering_rails_allow_what_the_original_already_did():
    original = "    def __eq__(self, other):\n        return self.items == other.items\n"
    fixed = "    def __eq__(self, other):\n        return list(self.items) == list(other.items)\n"
    check_candidate(original, fixed, SOURCE)  # its own name is no added dunder
    check_candidate(
        ORIGINAL, "def total(self, items):\n    self.count = len(items)\n    return 0\n", SOURCE
    )
