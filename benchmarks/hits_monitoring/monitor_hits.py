# Prototype for the measurement in benchmarks/RESULTS.md (sys.monitoring); not used by heal-ls.
# Prototype: heal_hits' API (install/uninstall/record_into/OFF) on sys.monitoring PY_START.
import os
import sys

OFF = frozenset().__contains__
MODE = os.environ.get("HEAL_MON_MODE", "B")  # B: callback per workspace call; C: once per test
CO_OPTIMIZED = 0x1
_add = OFF
_keys = {}
_skip = set()
mon = sys.monitoring
TOOL = mon.PROFILER_ID
DISABLE = mon.DISABLE


def record_into(add):
    global _add
    if MODE == "C" and add is not OFF and _add is OFF:
        mon.restart_events()
    _add = add


def _on_start_b(code, offset):
    key = _keys.get(code)
    if key is None:
        return _first(code)
    _add(key)


def _on_start_c(code, offset):
    key = _keys.get(code)
    if key is None:
        return _first(code)
    if _add is OFF:
        return DISABLE
    _add(key)
    return DISABLE


def _first(code):
    if code in _skip:
        return DISABLE
    name = code.co_name
    if not (code.co_flags & CO_OPTIMIZED) or name.startswith("<") or not _wants(code.co_filename):
        _skip.add(code)
        return DISABLE
    key = _keys[code] = f"{os.path.abspath(code.co_filename)}:{code.co_firstlineno}"
    _add(key)
    return DISABLE if MODE == "C" else None


def install(wants):
    global _wants
    _wants = wants
    mon.use_tool_id(TOOL, "heal-ls")
    mon.register_callback(TOOL, mon.events.PY_START, _on_start_c if MODE == "C" else _on_start_b)
    mon.set_events(TOOL, mon.events.PY_START)
    return TOOL


def uninstall(finder):
    record_into(OFF)
    mon.set_events(TOOL, 0)
    mon.register_callback(TOOL, mon.events.PY_START, None)
    mon.free_tool_id(TOOL)
