"""Do the healed function and the reference behave alike? A cheap random differential check.

Both module texts are loaded in a child process (bugs may loop forever: every call has a
time limit and so does the child). Random ints, lists and strings are fed to both; inputs the
reference rejects are skipped. Verdicts: "behaves" (agreed on enough inputs), "differs", "?".
"""

from __future__ import annotations

import asyncio
import sys

from heal_ls.testing.agent import heal_protocol as wire
from heal_ls.testing.prestart import PLUGIN_DIR
from heal_ls.testing.process import kill_group

MIN_AGREEMENTS = 5


# `python -c CHILD AGENT_DIR`: the input is a wire.Differential on stdin, read by the agent's
# reader (the interpreter may be the project's: heal_ls is not importable there)
CHILD = r"""
import copy, inspect, itertools, json, os, random, signal, sys, types
sys.path.insert(0, sys.argv[1])
from heal_protocol import Differential, build
data = build(Differential, json.load(sys.stdin))
sys.path[0:1] = [os.path.dirname(data.path), data.root]
sys.setrecursionlimit(3000)

class Slow(Exception):
    pass

def on_alarm(*_):
    raise Slow()

signal.signal(signal.SIGALRM, on_alarm)

def load(text, name):
    module = types.ModuleType(name)
    module.__file__ = data.path
    exec(compile(text, data.path, "exec"), module.__dict__)
    return getattr(module, data.name)

def value(rng):
    kind = rng.randrange(4)
    if kind == 0:
        return rng.randint(-3, 20)
    if kind == 1:
        return [rng.randint(-5, 20) for _ in range(rng.randint(0, 6))]
    if kind == 2:
        return "".join(rng.choice("abcab ") for _ in range(rng.randint(0, 6)))
    return rng.randint(0, 6)

def call(func, args):
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        result = func(*copy.deepcopy(args))
        if inspect.isgenerator(result):
            result = list(itertools.islice(result, 1000))
        return ["ok", repr(result)]
    except Slow:
        return ["slow"]
    except BaseException as exc:
        return ["raise", type(exc).__name__]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)

def main():
    healed, reference = load(data.healed, "_healed"), load(data.reference, "_reference")
    params = inspect.signature(reference).parameters.values()
    if any(p.kind in (p.VAR_POSITIONAL, p.KEYWORD_ONLY) and p.default is p.empty for p in params):
        return "?"
    arity = sum(p.default is p.empty and p.kind != p.VAR_KEYWORD for p in params)
    rng, agreed = random.Random(0), 0
    for _ in range(300):
        args = [value(rng) for _ in range(arity)]
        expected = call(reference, args)
        if expected[0] != "ok":
            continue
        if call(healed, args) != expected:
            return "differs"
        agreed += 1
        if agreed >= 30:
            break
    return "behaves" if agreed >= data.min else "?"

print("VERDICT " + main())
"""


async def behaves_alike(
    root: str,
    path: str,
    healed_module: str,
    reference_module: str,
    qualname: str,
    python: str | None = None,
    timeout: float = 20.0,
) -> str:
    """ "behaves", "differs" or "?" (nested functions, methods, odd signatures, hangs)."""
    if "." in qualname:
        return "?"
    message = wire.Differential(
        root, path, qualname, healed_module, reference_module, MIN_AGREEMENTS
    )
    proc = await asyncio.create_subprocess_exec(
        python or sys.executable, "-c", CHILD, PLUGIN_DIR,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL, cwd=root, start_new_session=True,
    )  # fmt: skip
    try:
        out, _ = await asyncio.wait_for(proc.communicate(wire.encode(message).encode()), timeout)
    except asyncio.TimeoutError:
        return "?"
    finally:
        if proc.returncode is None:  # timed out or cancelled: no child left behind
            kill_group(proc.pid)
            await proc.wait()
    for line in out.decode(errors="replace").splitlines():
        if line.startswith("VERDICT "):
            return line.split(" ", 1)[1]
    return "?"
