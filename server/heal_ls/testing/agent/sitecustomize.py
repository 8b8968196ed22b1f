"""Imported by `site` at the start of every Python process with this folder on PYTHONPATH: the
tests' pytest and whatever Python a test starts (a CLI run in a subprocess), which inherit it.

In every Python process a run that overlays files starts (CHILD_OVERLAY, set by the plugin or
the script boot once it served a candidate or unsaved buffers), the overlay is served too
(heal_overlay.install_from_environment): a test's or a script's child Python imports the
candidate as its parent does. In a process a recorded test started (CHILD_HITS set by the plugin
while it records), the workspace functions it runs are recorded for that test
(heal_hits.record_child; the path rules are heal_paths', which need no pytest: the child may be
another interpreter, a console script on PATH): a function that only ever runs in a subprocess is
still something the failing test ran. Then the sitecustomize this one shadows, if any (the
user's or the distribution's), runs as it would have.

Stdlib only; nothing here may stop the process from starting.
"""

import os
import sys


def _serve_overlay():
    import heal_env  # lazy: inside the guard (a child's Python may be too old)

    if os.environ.get(heal_env.CHILD_OVERLAY):
        import heal_overlay  # lazy: only an overlaid run's processes pay for it

        heal_overlay.install_from_environment(heal_env.CHILD_OVERLAY)


def _record_child():
    import heal_env  # lazy: inside the guard (a child's Python may be too old)

    if not os.environ.get(heal_env.CHILD_HITS):
        return
    import heal_hits  # lazy: only a recorded test's children pay for the recorder
    import heal_paths  # lazy: the same

    heal_hits.record_child(
        heal_paths.WorkspacePaths(os.environ.get(heal_env.ROOT) or os.getcwd()).is_code
    )


def _run_shadowed():
    try:
        import importlib.machinery  # lazy: Python 2 has none (a child may be one)
        import importlib.util  # lazy: the same
    except ImportError:
        return

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec(__name__, rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules[__name__] = module
    spec.loader.exec_module(module)


try:
    _serve_overlay()  # first: the recorder goes ahead of it, as in the plugin
    _record_child()
except Exception:  # noqa: BLE001 - an interpreter we cannot record in still runs the child
    pass
_run_shadowed()
