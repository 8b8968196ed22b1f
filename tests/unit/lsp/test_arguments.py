"""Typed command arguments (lsp/arguments.py): the wire object becomes one attrs instance per
command, with a present-null key kept apart from an absent one where that is the choice, and an
InvalidParams error that names the key for any value of the wrong type."""

from __future__ import annotations

import pytest
from heal_ls.lsp.arguments import (
    DebugTestArgs,
    HealFailingTestArgs,
    HealFunctionArgs,
    RunScriptArgs,
    RunTestsArgs,
    convert,
    to_wire,
)
from pygls.exceptions import JsonRpcInvalidParams

NODEID = "tests/test_shop.py::test_total"
URI = "file:///work/shop/cart.py"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), RunTestsArgs()),
        ((None,), RunTestsArgs()),
        (({},), RunTestsArgs()),
        (({"test": NODEID},), RunTestsArgs(test=NODEID)),
        (({"uri": URI},), RunTestsArgs(uri=URI)),
        (({"uri": None},), RunTestsArgs()),  # a null uri: all tests, as no uri
        ((URI,), RunTestsArgs(uri=URI)),  # a bare string is a uri
        (({"test": NODEID, "uri": URI, "other": 1},), RunTestsArgs(test=NODEID, uri=URI)),
    ],
)
def test_run_tests_arguments(args, expected):
    assert convert(args, RunTestsArgs, "heal.runTests") == expected


def test_each_command_converts_its_own_shape():
    assert convert(({"script": "tools/boom.py"},), RunScriptArgs, "c").script == "tools/boom.py"
    assert convert((URI,), RunScriptArgs, "c") == RunScriptArgs(uri=URI)
    assert convert(({"test": NODEID},), DebugTestArgs, "c") == DebugTestArgs(test=NODEID)
    assert convert((), DebugTestArgs, "c") == DebugTestArgs()
    assert convert(({"test": None},), HealFailingTestArgs, "c") == HealFailingTestArgs()
    assert convert((URI,), HealFailingTestArgs, "c") == HealFailingTestArgs()  # no test: pick
    function = {"uri": URI, "qualname": "Cart.total"}
    assert convert((function,), HealFunctionArgs, "c") == HealFunctionArgs(None, URI, "Cart.total")
    assert convert(({"failure": NODEID},), HealFunctionArgs, "c").failure == NODEID


@pytest.mark.parametrize(
    ("cls", "arg", "message"),
    [
        (RunTestsArgs, {"test": None}, "heal.x: test must be a pytest node id, got None"),
        (DebugTestArgs, {"test": None}, "test must be a pytest node id, got None"),
        (RunTestsArgs, {"test": ["-p", "x"]}, r"test must be a pytest node id, got \['-p'"),
        (RunTestsArgs, {"uri": 5}, "uri must be a file uri, got 5"),
        (RunScriptArgs, {"script": None}, "script must be a script path or a file uri, got None"),
        (HealFunctionArgs, {"failure": {"id": 1}}, "failure must be a failure id"),
        (HealFunctionArgs, {"qualname": 3, "uri": URI}, "qualname must be a qualified function"),
        (HealFailingTestArgs, {"test": 7}, "test must be a pytest node id or failure id, got 7"),
        (RunTestsArgs, [NODEID], r"heal.x: expected an object argument, got \['tests/"),
        (DebugTestArgs, 12, "expected an object argument, got 12"),
    ],
)
def test_a_wrong_type_is_a_clear_invalid_params_error(cls, arg, message):
    with pytest.raises(JsonRpcInvalidParams, match=message):
        convert((arg,), cls, "heal.x")


@pytest.mark.parametrize(
    "args",
    [
        RunTestsArgs(test=NODEID),
        RunTestsArgs(uri=URI),
        RunScriptArgs(script="tools/boom.py"),
        DebugTestArgs(test=NODEID),
        HealFunctionArgs(failure=NODEID),
        HealFunctionArgs(uri=URI, qualname="Cart.total"),
        HealFailingTestArgs(test=NODEID),
    ],
)
def test_the_wire_object_carries_only_the_given_keys_and_converts_back(args):
    wire = to_wire(args)
    assert None not in wire.values() and len(wire) in (1, 2)
    assert convert((wire,), type(args), "heal.x") == args
