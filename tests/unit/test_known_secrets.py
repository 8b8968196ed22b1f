"""Known secrets (secret-named environment variables, `.env` values) are masked in every form a
test or a candidate could print them in: plain, reversed, hex, base64 at any alignment."""

from __future__ import annotations

import base64
import logging

import pytest
from heal_ls.lsp.log import RedactFilter
from heal_ls.redact import hide_known, known_secrets, mask_secrets, secret_forms

AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLE"  # no known key shape: found only by its name
HF = "hf_QmVyeVNlY3JldFZhbHVlMTIz"
ENV_VALUE = "postgres://app:s3cr3t-pw@db.internal/app"


def forms_of(secret: str) -> dict[str, str]:
    raw = secret.encode()
    return {
        "plain": f"got {secret}!",
        "reversed": f"got {secret[::-1]}!",
        "hex": f"got {raw.hex()}",
        "HEX": f"got {raw.hex().upper()}",
        "base64": base64.b64encode(raw).decode(),
        "base64 after 1 byte": base64.b64encode(b"x" + raw + b"tail").decode(),
        "base64 after 2 bytes": base64.b64encode(b"xy" + raw).decode(),
        "urlsafe base64": base64.urlsafe_b64encode(b"\xff" + raw).decode(),
    }


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", AWS)
    monkeypatch.setenv("HF_TOKEN", HF)
    monkeypatch.setenv("PORT_NUMBER", "8080")
    (tmp_path / ".env").write_text(
        f"# local settings\nexport DATABASE_URL='{ENV_VALUE}'\nDEBUG=true\nEMPTY=\n"
    )
    return tmp_path


def test_known_secrets_are_the_secret_named_variables_and_every_env_file_value(workspace):
    known = known_secrets(str(workspace))
    assert {AWS, HF, ENV_VALUE} <= set(known)
    assert "8080" not in known and "true" not in known  # not secret-named / too short


@pytest.mark.parametrize("secret", [AWS, HF, ENV_VALUE])
@pytest.mark.parametrize("form", list(forms_of("x")))
def test_every_form_is_masked(workspace, secret, form):
    text = forms_of(secret)[form]
    masked = hide_known(text, known_secrets(str(workspace)))
    assert "***" in masked
    assert not any(shown in masked for shown in secret_forms(secret))


def test_prompts_give_known_secrets_placeholders_and_hide_the_other_forms(workspace):
    table: dict[str, str] = {}
    text = f"AssertionError: {HF} != {HF[::-1]}"
    masked = mask_secrets(text, table, known_secrets(str(workspace)))
    assert HF not in masked and HF[::-1] not in masked
    assert list(table.values()) == [HF]


def test_ordinary_text_is_left_alone(workspace):
    text = "assert add(2, 3) == 5; tokens = tokenize(source); DEBUG is true"
    assert hide_known(text, known_secrets(str(workspace))) == text


def test_the_server_log_never_shows_an_environment_secret(workspace):
    record = logging.LogRecord(
        "heal_ls", logging.INFO, __file__, 1, "run said %s", (HF[::-1],), None
    )
    assert RedactFilter().filter(record)
    assert HF[::-1] not in record.getMessage() and "***" in record.getMessage()


def test_desktop_session_plumbing_is_not_a_secret(monkeypatch, tmp_path):
    monkeypatch.setenv("SSH_AUTH_SOCK", "/run/user/1000/keyring/ssh")
    monkeypatch.setenv("XAUTHORITY", "/run/user/1000/gdm/Xauthority")
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus")
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    text = "wrote /run/user/1000/gdm/Xauthority-report.txt on wayland"
    assert hide_known(text, known_secrets(str(tmp_path))) == text
