"""Secret masking for prompts (reversible placeholders) and errors/logs (***)."""

import pytest
from heal_ls.redact import mask_secrets, redact, unmask


@pytest.mark.parametrize(
    "text, secret",
    [
        ('client = Client(api_key="sk-proj-abcdefghijklmnop1234")', "sk-proj-abcdefghijklmnop1234"),
        ("token: ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_abcdefghijklmnopqrstuvwxyz0123"),
        ('PASSWORD = "hunter22"', "hunter22"),
        ("db_password='p@ss:w0rd!'", "p@ss:w0rd!"),
        ('{"auth_token": "abcdef123456"}', "abcdef123456"),
        ("export GITHUB_TOKEN=abc123def456", "abc123def456"),
        ("aws = 'AKIAABCDEFGHIJKLMNOP'", "AKIAABCDEFGHIJKLMNOP"),
    ],
)
def test_secrets_are_masked(text, secret):
    masked = mask_secrets(text)
    assert secret not in masked and "***" in masked


@pytest.mark.parametrize(
    "text",
    [
        'token = "("',  # a tokenizer's token, not a credential
        'message = "the password is wrong"',  # prose, not assigned to a secret name
        "def check_password(password):\n    return password == expected",
        'author = "Ada Lovelace"',
        "tokens = tokenize(source)",
    ],
)
def test_ordinary_code_is_left_alone(text):
    assert mask_secrets(text) == text


def test_placeholders_are_numbered_shared_and_reversible():
    table = {}
    text = 'KEY = "sk-abcdefghijklmnopqrstu"\nOTHER = "sk-abcdefghijklmnopqrstu"\npassword = "letmein1"'
    masked = mask_secrets(text, table)
    assert masked.count("***SECRET_1***") == 2 and "***SECRET_2***" in masked
    assert unmask(masked, table) == text
    assert unmask("no placeholders", table) == "no placeholders"


def test_redact_removes_known_keys_even_when_they_look_harmless():
    assert redact("bad key local-key-123 here", ["local-key-123", None]) == "bad key *** here"


def test_env_style_needs_an_upper_case_name_and_a_credential_like_value():
    assert mask_secrets("API_TOKEN = DEFAULT_TOKEN") == "API_TOKEN = DEFAULT_TOKEN"
    assert mask_secrets("SECRET_KEY=dj4ngo-s3cr3t") == "SECRET_KEY=***"


def test_a_value_is_masked_once_even_when_two_patterns_match():
    table = {}
    masked = mask_secrets('TOKEN = "sk-abcdefghijklmnopqrstuvwxyz"', table)
    assert masked == 'TOKEN = "***SECRET_1***"' and len(table) == 1
    assert mask_secrets('api_key = "sk-abcdefghijklmnopqrstuvwxyz"') == 'api_key = "***"'
