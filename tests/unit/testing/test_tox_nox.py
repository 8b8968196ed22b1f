"""What tox.ini or noxfile.py set up for pytest that a direct pytest run lacks, named."""

from heal_ls.testing.tox_nox import not_applied


def test_tox_setenv_and_pytest_arguments_are_named(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tox.ini").write_text(
        "[tox]\nenv_list = py311\n\n[testenv]\ndeps = pytest\n"
        "setenv =\n    SHOP_CURRENCY = EUR\n    PYTHONHASHSEED=0\n"
        "commands = pytest -p no:randomly --strict-markers tests {posargs}\n\n"
        "[testenv:lint]\ncommands = ruff check .\n"
    )
    assert not_applied(str(tmp_path)) == [
        "tox.ini sets PYTHONHASHSEED, SHOP_CURRENCY for the tests; heal-ls runs pytest directly"
        " without them: set them in the environment heal-ls runs in",
        "tox.ini runs pytest with -p no:randomly --strict-markers; heal-ls runs pytest directly"
        ' without them: pass them with --pytest-args "-p no:randomly --strict-markers"',
    ]


def test_nox_pytest_arguments_and_env_are_named(tmp_path):
    (tmp_path / "noxfile.py").write_text(
        "import nox\n\n\n@nox.session\ndef tests(session):\n    session.install('pytest')\n"
        "    session.run('pytest', '-x', *session.posargs, env={'SHOP_DB': 'sqlite://'})\n"
    )
    assert not_applied(str(tmp_path)) == [
        "noxfile.py sets SHOP_DB for the tests; heal-ls runs pytest directly without them:"
        " set them in the environment heal-ls runs in",
        "noxfile.py runs pytest with -x; heal-ls runs pytest directly without them:"
        ' pass them with --pytest-args "-x"',
    ]


def test_plain_tox_and_nox_files_need_no_note(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tox.ini").write_text("[testenv]\ncommands = python -m pytest tests {posargs}\n")
    (tmp_path / "noxfile.py").write_text("def tests(session):\n    session.run('pytest')\n")
    assert not_applied(str(tmp_path)) == []
    (tmp_path / "noxfile.py").write_text("def tests(session:\n")  # does not parse: no note
    assert not_applied(str(tmp_path)) == []


def test_an_environment_that_runs_no_pytest_sets_nothing_up_for_the_tests(tmp_path):
    """jaraco's tox.ini: a release environment's TWINE_USERNAME was named as a variable the
    tests lack; an environment without commands runs [testenv]'s pytest."""
    (tmp_path / "tox.ini").write_text(
        "[testenv]\nsetenv =\n    PYTHONWARNDEFAULTENCODING = 1\ncommands =\n    pytest {posargs}\n\n"
        "[testenv:release]\nsetenv =\n    TWINE_USERNAME = {env:TWINE_USERNAME:__token__}\n"
        "commands =\n    python -m build\n    python -m twine upload dist/*\n\n"
        "[testenv:slow]\nsetenv =\n    SLOW = 1\n\n"
        "[testenv:cover]\ncommands = coverage run -m pytest -x\n"
    )
    assert not_applied(str(tmp_path)) == [
        "tox.ini sets PYTHONWARNDEFAULTENCODING, SLOW for the tests; heal-ls runs pytest directly"
        " without them: set them in the environment heal-ls runs in",
        "tox.ini runs pytest with -x; heal-ls runs pytest directly"
        ' without them: pass them with --pytest-args "-x"',
    ]
