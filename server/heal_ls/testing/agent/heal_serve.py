"""heal-ls's plugin for the plugin-free confirmation run: it serves the candidate, nothing more.

Loaded with `-p heal_serve` in place of heal_pytest_plugin (testing/confirm.py). It installs the
overlay (the candidate's text for its file) before any workspace module is imported, and keeps
the tests in pytest's own process; it records nothing and writes no report, so there is no
reporter object for code under test to reach. What the run says is read by heal-ls's own process
from pytest's exit status and pytest's own JUnit XML, which this plugin points at the report's
path (HEAL_LS_REPORT).
"""

import os

import heal_cov
import heal_env
import heal_overlay
import heal_select
import heal_xdist
import pytest


def pytest_addoption(parser, pluginmanager):
    # before installed packages' plugins import workspace modules (install_from_environment)
    config = pluginmanager.get_plugin("pytestconfig")
    config._heal_overlay = heal_overlay.install_from_environment()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # before pytest's junitxml plugin reads them: its XML goes where heal-ls reads the report
    # (the warm runner's exchange folder carries that file back out of the sandbox)
    config.option.xmlpath = os.environ.get(heal_env.REPORT) or None
    config.option.junitprefix = None
    heal_xdist.run_in_process(config)
    heal_cov.leave_alone(config)  # its exit status counts: no coverage threshold may fail it


def pytest_collection_modifyitems(config, items):
    # many asked tests come as their files (testing/invocation.py): keep exactly the asked ids
    heal_select.deselect(config, items, set())


def pytest_unconfigure(config):
    finder = getattr(config, "_heal_overlay", None)
    if finder is not None:
        heal_overlay.uninstall(finder)
