"""Settings: the server's names and defaults are the ones in client-vscode/package.json."""

import json
from dataclasses import asdict, fields

from heal_ls.lsp.workspace.config import Settings, parse_settings


def package_defaults(repo_root) -> dict:
    package = json.loads((repo_root / "client-vscode" / "package.json").read_text())
    properties = package["contributes"]["configuration"]["properties"]
    return {name.removeprefix("heal."): spec["default"] for name, spec in properties.items()}


def test_every_server_setting_is_declared_with_the_same_default(repo_root):
    declared = package_defaults(repo_root)
    parsed, problems = parse_settings({"heal": declared})
    assert problems == []
    assert parsed == Settings()  # "" means unset for the optional strings
    for f in fields(Settings):
        assert f.name in declared, f"heal.{f.name} missing from package.json"


def test_accepts_the_bare_section_and_the_wrapped_one():
    wrapped, _ = parse_settings({"heal": {"maxAttempts": 5, "provider": "openai"}})
    bare, _ = parse_settings({"maxAttempts": 5, "provider": "openai"})
    assert wrapped == bare
    assert (wrapped.maxAttempts, wrapped.provider) == (5, "openai")


def test_invalid_values_fall_back_to_defaults_with_one_message_each():
    raw = {
        "heal": {
            "provider": "gpt-banana",
            "maxAttempts": 0,
            "testTimeout": "fast",
            "pytestArgs": "-x",
            "autoVerifyOnSave": "yes",
            "candidates": True,
            "model": "m1",
        }
    }
    settings, problems = parse_settings(raw)
    defaults = asdict(Settings())
    for name in ("provider", "maxAttempts", "testTimeout", "pytestArgs", "autoVerifyOnSave"):
        assert getattr(settings, name) == defaults[name]
    assert settings.candidates == 1  # a bool is not an int here
    assert settings.model == "m1"
    assert len(problems) == 6
    assert any("heal.provider" in p and "gpt-banana" in p for p in problems)


def test_garbage_is_an_empty_section():
    for raw in (None, [], "heal", 3, {"heal": 3}):
        settings, problems = parse_settings(raw)
        assert settings == Settings() and problems == []


def test_local_budgets_reach_the_heal_config():
    from heal_ls.lsp.workspace.config import heal_config

    settings, problems = parse_settings({"heal": {"localBudget": 25, "localSeconds": 7}})
    assert problems == []
    config = heal_config(settings)
    assert (config.local_budget_count, config.local_budget_seconds) == (25, 7.0)


def test_the_verification_budget_reaches_the_heal_config_and_0_means_every_guard():
    from heal_ls.lsp.workspace.config import heal_config

    assert heal_config(parse_settings({"heal": {}})[0]).verify_seconds == 30.0
    settings, problems = parse_settings({"heal": {"verifySeconds": 0}})
    assert problems == [] and heal_config(settings).verify_seconds == 0
    settings, problems = parse_settings({"heal": {"verifySeconds": -1}})
    assert problems == ["heal.verifySeconds: invalid value -1, using 30.0"]
    _, problems = parse_settings({"heal": {"localBudget": 0}})
    assert problems == ["heal.localBudget: invalid value 0, using 300"]
