"""heal-ls's own runs leave the user's coverage reports and thresholds alone.

A project's pytest-cov settings (`--cov-report=xml`, `html`, `json`... in addopts, `fail_under`
in its coverage config) act at the end of every session, heal-ls's runs included: a run of a few
tests rewrote the user's coverage.xml and htmlcov/ with the coverage of those tests, and failed
its session for coverage under the threshold, so no candidate could verify (and in the sandbox
the read-only workspace refused the report). heal-ls reads neither, so its runs make no report
and enforce no threshold; its runs' coverage data is theirs too (COVERAGE_FILE,
testing/invocation.py). The user's own run (heal-ls check, standing in for pytest) keeps both.

Standard library and pytest only: this runs in the user's interpreter (heal_protocol.py).
"""

import os

import heal_env


def leave_alone(config) -> None:
    """In pytest_configure of a run heal-ls marked its own (COV_REPORTS=0): pytest-cov, when it
    is loaded, has read its options by then (its plugin is made before conftests load) and
    reads them again only when the session ends."""
    if os.environ.get(heal_env.COV_REPORTS) != "0":
        return
    options = getattr(config.pluginmanager.getplugin("_cov"), "options", None)
    if options is None:  # pytest-cov is not loaded, or not as any of its versions so far
        return
    options.cov_report = {}  # no report: `--cov-report=` with nothing after it
    options.cov_fail_under = 0  # no threshold (None would be read again from coverage's config)
