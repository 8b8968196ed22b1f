"""Which tests a run keeps when heal-ls names many: their files are the run's arguments and
this keeps exactly the named ids (SELECT in heal_protocol.py).

pytest resolves every test id given as an argument on its own: for a parametrized test it builds
all of the function's cases again for each id, ~15 ms an id in a 5,000-case function, so 18,000
guards given as ids cost minutes where their files take seconds. Stdlib only.
"""

import json
import os

import heal_env


def deselect(config, items, exclude):
    """Drop the `exclude`d ids and, with SELECT, every test it does not name."""
    keep = wanted()
    dropped = [i for i in items if i.nodeid in exclude or not named(i.nodeid, keep)]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        gone = {id(item) for item in dropped}
        items[:] = [item for item in items if id(item) not in gone]


def wanted():
    """The ids this run keeps (a frozenset), or None when it keeps what it collected."""
    path = os.environ.get(heal_env.SELECT)
    if not path:
        return None
    with open(path, encoding="utf-8") as handle:
        return frozenset(json.load(handle))


def named(nodeid, ids):
    """Is the test `nodeid` one of `ids`, or below one (a case of a named function, a test of a
    named class, a test of a named file)? Every test is, when `ids` is None."""
    if ids is None or nodeid in ids:
        return True
    at = nodeid.find("[")  # a case's id: everything after the first "[" is its parameters
    part = nodeid[:at] if at >= 0 else nodeid
    while True:
        if part in ids:
            return True
        if "::" not in part:
            return False
        part = part.rsplit("::", 1)[0]
