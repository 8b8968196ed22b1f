"""The environment of a candidate run: an allow-list, keys never, pass-through only when asked."""

from heal_ls.testing.sandbox_env import scrub

HOST = {
    "PATH": "/usr/bin",
    "LANG": "C.UTF-8",
    "PYTHONPATH": "/plugin",
    "PYTEST_ADDOPTS": "-q",
    "HEAL_LS_REPORT": "/r/report.jsonl",
    "OPENAI_API_KEY": "sk-1",
    "ANTHROPIC_API_KEY": "sk-2",
    "GITHUB_TOKEN": "ghp",
    "AWS_SECRET_ACCESS_KEY": "aws",
    "PYTHON_API_KEY": "sneaky",
    "PYTEST_TOKEN": "sneaky",
    "DATABASE_URL": "postgres://db",
    "SSH_AUTH_SOCK": "/run/agent",
    "PYTHONSTARTUP": "/home/u/.pythonrc",
}


def test_only_allowed_names_pass_and_never_a_key():
    assert scrub(HOST) == {
        "PATH": "/usr/bin",
        "LANG": "C.UTF-8",
        "PYTHONPATH": "/plugin",
        "PYTEST_ADDOPTS": "-q",
        "HEAL_LS_REPORT": "/r/report.jsonl",
    }


def test_explicit_pass_through_takes_the_value_or_sets_one():
    env = scrub(HOST, ["DATABASE_URL", "MODE=ci", "MISSING", " =x"], source=HOST)
    assert env["DATABASE_URL"] == "postgres://db"
    assert env["MODE"] == "ci"
    assert "MISSING" not in env and "" not in env
    assert "OPENAI_API_KEY" not in env


def test_locale_variables_pass_only_with_a_locale_shape():
    host = {
        "LANG": "en_US.UTF-8",
        "LC_ALL": "C",
        "LC_MESSAGES": "de_DE@euro",
        "LANGUAGE": "fr_CA:fr:en",
        "LC_CTYPE": "ghp_0123456789abcdefghijABCDEFGHIJ",  # a secret smuggled as a locale
        "LC_TIME": "$(cat ~/.aws/credentials)",
        "LC_PAPER": "en_US.UTF-8 extra",
    }
    assert scrub(host) == {
        "LANG": "en_US.UTF-8",
        "LC_ALL": "C",
        "LC_MESSAGES": "de_DE@euro",
        "LANGUAGE": "fr_CA:fr:en",
    }


def test_only_the_plugin_protocol_of_heal_ls_own_variables_passes():
    host = {
        "HEAL_LS_REPORT": "/r/report.jsonl",
        "HEAL_LS_SEAL": "/r/seal",
        "HEAL_LS_CACHE_DIR": "/home/u/.cache/heal-ls",
        "HEAL_LS_BASE_URL": "https://user:hunter2@models.internal/v1",
        "HEAL_LS_WHATEVER": "x",
    }
    assert scrub(host) == {"HEAL_LS_REPORT": "/r/report.jsonl", "HEAL_LS_SEAL": "/r/seal"}
