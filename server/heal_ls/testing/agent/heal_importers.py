"""The run's import hooks (the overlay's finder, the call recorder), installed before pytest reads
its command line.

A project's addopts `-p its_package.plugin` come before heal-ls's `-p heal_pytest_plugin`, so
pytest imports that package before our plugin's first hook: trio's code ran unrecorded and not
overlaid (covered [] for every test). heal_pytest_main installs them here first; the plugin takes
them. Its own module, not the plugin's: a plugin imported before pytest marks it for assertion
rewriting draws PytestAssertRewriteWarning, an error under `-W error` / `--strict-config`
suites (trio's run then ended before any test).

Standard library and pytest only: this runs in the user's interpreter (heal_protocol.py).
"""

import os

import heal_env
import heal_overlay
import heal_report_parts as parts
import heal_watch

_EARLY: "dict[str, tuple]" = {}  # installed by heal_pytest_main, taken once by the plugin


def install_early():
    _EARLY["importers"] = importers()


def take_early():
    """(overlay, recorder) installed by install_early, once; None when it did not run."""
    return _EARLY.pop("importers", None)


def importers():
    """(the overlay's finder, the recorder): either None when the run asks for neither."""
    overlay = heal_overlay.install_from_environment()
    # Ahead of the overlay on sys.meta_path, so overlaid workspace modules report their calls too.
    if os.environ.get(heal_env.REPORT) and os.environ.get(heal_env.TRACE) == "1":
        # pytest's rootdir may be unknown yet; which files are the workspace's needs only ROOT
        return overlay, heal_watch.CallRecorder(parts.PathRules(root()))
    return overlay, None


def root():
    return os.path.realpath(os.environ.get(heal_env.ROOT) or os.getcwd())
