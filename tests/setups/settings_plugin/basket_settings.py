"""A local plugin in the style of pytest-django: a required ini key names the settings module,
and pytest_configure puts it in the environment before any test module is imported."""

import os

import pytest


def pytest_addoption(parser):
    parser.addini("basket_settings", "the settings module of the basket app")


def pytest_configure(config):
    name = config.getini("basket_settings")
    if not name:
        raise pytest.UsageError("basket_settings is not set in the pytest config")
    os.environ["BASKET_SETTINGS"] = name
