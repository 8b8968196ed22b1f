"""benchmarks/setups.py (the harness over tests/setups/), loaded as a module for the tests."""

import importlib.util
import sys
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[2] / "benchmarks" / "setups.py"


def load_harness():
    spec = importlib.util.spec_from_file_location("setups_harness", HARNESS)
    assert spec is not None and spec.loader is not None
    if spec.name in sys.modules:
        return sys.modules[spec.name]
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
