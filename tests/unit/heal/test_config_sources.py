"""One mapping from the editor's settings and the command line's flags to HealConfig
(heal/config.py SOURCES): `heal-ls fix`, `heal-ls bench` and the language server read it."""

from __future__ import annotations

import sys
from dataclasses import fields

from heal_ls.cli import build_parser
from heal_ls.commands.bench import localise_options
from heal_ls.commands.check import options_from
from heal_ls.heal.config import SOURCES, HealConfig
from heal_ls.lsp.workspace.config import Settings, heal_config, parse_settings


def parse(command: str, *argv: str):
    return build_parser(command).parse_args([command, *argv])


def flags_of(command: str) -> set[str]:
    parser = build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return {flag for action in sub._actions for flag in action.option_strings}


def test_every_source_names_a_real_option_setting_and_flag():
    options = {f.name for f in fields(HealConfig)}
    settings = {f.name for f in fields(Settings)}
    fix_flags = flags_of("fix")
    assert set(SOURCES) <= options
    for option, (setting, flag) in SOURCES.items():
        assert setting is None or setting in settings, option
        assert flag is None or flag in fix_flags, option
    # every engine option the editor offers is in the mapping (the rest are the editor's own)
    editor_only = {
        "autoVerifyOnSave", "runOnStartup", "followPytestRuns", "previewAboveCallers",
    }  # fmt: skip
    assert settings - editor_only == {s for s, _ in SOURCES.values() if s}


def test_the_defaults_of_the_flags_and_the_settings_are_the_engine_s():
    assert HealConfig.from_flags(parse("fix")) == HealConfig()
    assert heal_config(parse_settings({})[0]) == HealConfig()


def test_flags_reach_the_config_no_flags_negated():
    args = parse(
        "fix", "--no-imports", "--no-cache", "--local-budget", "5", "--timeout", "9",
        "--pytest-args", "-x -q", "--test-env", "A=1", "--max-tokens", "-3", "--flaky-runs", "0",
    )  # fmt: skip
    config = HealConfig.from_flags(args)
    assert config.flaky_runs == 0
    assert (config.allow_imports, config.use_cache) == (False, False)
    assert (config.local_budget_count, config.request_timeout) == (5, 9.0)
    assert (config.pytest_args, config.test_env, config.max_tokens) == (("-x", "-q"), ("A=1",), 0)


def test_the_bench_s_flags_reach_the_same_options():
    config = HealConfig.from_flags(
        parse("bench", "--budget-count", "7", "--budget-seconds", "2", "--test-timeout", "4"),
        use_cache=False,
    )
    assert (config.local_budget_count, config.local_budget_seconds) == (7, 2.0)
    assert (config.test_timeout, config.use_cache, config.provider) == (4.0, False, "local")
    assert config.max_attempts == HealConfig().max_attempts  # no flag: the engine's default


def test_settings_reach_the_config_by_their_camel_case_names():
    settings, problems = parse_settings(
        {"heal": {"baseUrl": "http://x", "pytestArgs": ["-x"], "testEnv": ["A"], "prices": {}}}
    )
    config = heal_config(settings)
    assert problems == []
    assert (config.base_url, config.pytest_args, config.test_env) == ("http://x", ("-x",), ("A",))
    assert config.prices is None  # the editor's empty default overrides nothing
    assert config.run_options().pytest_args == ("-x",)


def test_check_index_and_the_localise_bench_build_their_run_options_by_the_same_mapping():
    argv = ("--python", sys.executable, "--test-timeout", "4")
    expected = HealConfig.from_flags(parse("fix", *argv)).run_options(run_timeout=50.0)
    for command in ("check", "index"):
        options = options_from(parse(command, *argv, "--run-timeout", "50"))
        assert options == expected, command
        assert (options.python, options.test_timeout, options.run_timeout) == (
            sys.executable, 4.0, 50.0
        )  # fmt: skip
    checked = options_from(parse("check", "--pytest-args", "-x -q"))
    assert (checked.pytest_args, checked.test_timeout) == (("-x", "-q"), 10.0)
    localise = localise_options(parse("bench", "--suite", "localise", "--test-timeout", "4"))
    assert (localise.test_timeout, localise.run_timeout, localise.python) == (10.0, 300, None)
