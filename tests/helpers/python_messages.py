"""Print, as JSON, the messages the ranking reads, as the Python running this script words them.

Run by each pyenv interpreter (3.8-3.13) in tests/unit/test_python_messages.py; keep it to
syntax and modules every one of them has."""

import csv
import json
import os
import re
import sys
import tempfile
import unittest


def _message(action):
    try:
        action()
    except Exception as error:  # noqa: BLE001 - any exception's words are what we want
        return str(error)
    raise AssertionError("did not raise")


def _raised(action):
    """The name of the exception's type, and of its cause's (`raise ... from`; "" for none)."""
    try:
        action()
    except Exception as error:  # noqa: BLE001 - any exception's kind is what we want
        cause = error.__cause__
        return [type(error).__name__, type(cause).__name__ if cause is not None else ""]
    raise AssertionError("did not raise")


class Owner:
    @property
    def netmask(self):
        return 0

    def mask(self, bits):
        return bits


def _import_missing_name():
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "heal_probe_mod.py"), "w") as module:
            module.write("x = 1\n")
        sys.path.insert(0, folder)
        exec("from heal_probe_mod import absent")


def _set_netmask():
    Owner().netmask = 1


def _open_owner():
    with open(Owner()):
        pass


THREE = 3  # a name, so no Python warns at compile time about `3[0]`
SEND = "send"  # likewise for `"send"()`


class Entered:
    def __enter__(self):
        return self

    async def __aenter__(self):
        return self


def _with(manager):
    with manager:
        pass


def _async_with(manager):
    async def enter():
        async with manager:
            pass

    enter().send(None)  # raises before the coroutine's first await: no event loop needed


def _generator_stopped():
    def rows():
        yield next(iter(()))

    list(rows())


def _async_generator_stopped():
    async def rows():
        raise StopAsyncIteration
        yield  # an async generator

    rows().__anext__().send(None)


MESSAGES = {
    "cannot_import_name": _message(_import_missing_name),
    "no_module": _message(lambda: __import__("heal_probe_absent_module")),
    "module_no_attribute": _message(lambda: os.absent_name),
    "object_no_attribute": _message(lambda: Owner().absent_name),
    "none_no_attribute": _message(lambda: None.absent_name),
    "unsupported_operand": _message(lambda: Owner() / "a"),
    "unsupported_operand_augmented": _message(lambda: exec("o = Owner(); o /= 'a'")),
    "unsupported_operand_pow": _message(lambda: Owner() ** 2),
    "unhashable": _message(lambda: {[]: 1}),
    "no_setter": _message(_set_netmask),
    "re_refused_none": _message(lambda: re.match("a", None)),
    "re_refused_kind": _message(lambda: re.match("a", Owner())),
    "open_refused_kind": _message(_open_owner),
    "int_refused_kind": _message(lambda: int(Owner())),
    "descriptor_refused_none": _message(lambda: bytes.decode(None)),
    "uncallable_kind": _message(lambda: SEND()),
    "wrong_kind_with": _message(lambda: exec("with 3:\n    pass")),
    "context_manager": _message(lambda: _with(Owner())),
    "context_manager_exit": _message(lambda: _with(Entered())),
    "async_context_manager": _message(lambda: _async_with(Owner())),
    "async_context_manager_exit": _message(lambda: _async_with(Entered())),
    "generator_stopped": _message(_generator_stopped),
    "async_generator_stopped": _message(_async_generator_stopped),
    "wrong_kind_subscript": _message(lambda: THREE[0]),
    "wrong_kind_call": _message(lambda: THREE()),
    "signature_unexpected_keyword": _message(lambda: _message.__call__(nope=1)),
    "signature_missing": _message(lambda: _message()),
    "keyword_refused_by_c_unnamed": _message(lambda: csv.reader([], row_limit=1)),
    "keyword_refused_by_c_named": _message(lambda: int("1", row_limit=1)),
    "signature_too_many": _message(lambda: _message(1, 2)),
    "signature_method_missing": _message(lambda: Owner().mask()),
    "protocol_iter": _message(lambda: iter(type("It", (), {"__iter__": lambda s: 3})())),
    "protocol_len": _message(lambda: len(type("Ln", (), {"__len__": lambda s: "x"})())),
    "protocol_str": _message(lambda: str(type("St", (), {"__str__": lambda s: 3})())),
    "assert_in": _message(lambda: unittest.TestCase().assertIn("a", "bc")),
    "built_in_repr": repr("".join),
}
RAISED = {  # [the exception's type, its cause's type]
    "context_manager": _raised(lambda: _with(Owner())),
    "async_context_manager": _raised(lambda: _async_with(Owner())),
    "generator_stopped": _raised(_generator_stopped),
    "async_generator_stopped": _raised(_async_generator_stopped),
}

VERSION = "{}.{}".format(*sys.version_info[:2])
print(json.dumps({"version": VERSION, "messages": MESSAGES, "raised": RAISED}))
