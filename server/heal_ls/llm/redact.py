"""Mask strings that look like secrets before they leave the machine or reach a log.

Prompts use numbered placeholders (`***SECRET_1***`) kept in a table, so a model answer that
echoes a placeholder can be given its original value back with `unmask` before it is spliced.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MASK = "***"

# Well-known key shapes: OpenAI/Anthropic (sk-...), GitHub, Slack, AWS, Google, JWT.
_KEY_PATTERNS = [
    r"sk-[A-Za-z0-9_\-]{16,}",
    r"gh[pousr]_[A-Za-z0-9]{20,}",
    r"github_pat_[A-Za-z0-9_]{20,}",
    r"xox[abposr]-[A-Za-z0-9\-]{10,}",
    r"AKIA[0-9A-Z]{16}",
    r"AIza[0-9A-Za-z_\-]{35}",
    r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}",
]
_KEYS = re.compile("|".join(f"(?:{p})" for p in _KEY_PATTERNS))

# `password = "..."`, `api_key: '...'`, `"token": "..."`: keep the name, mask a value that has
# no spaces and is long enough to be a credential (so `token = "("` stays readable).
_NAME = r"[A-Za-z_]*(?:passw(?:or)?d|passwd|secret|token|api_?key|apikey|credential)[A-Za-z_]*"
_ASSIGNED = re.compile(
    rf"""(?P<name>["']?\b{_NAME}["']?\s*(?::|=|:=)\s*)(?P<q>["'])(?P<value>[^\s"']{{6,}})(?P=q)""",
    re.IGNORECASE,
)
# Shell / .env style: `export API_TOKEN=abc123...` (upper-case name, a bare value with a digit,
# so Python like `tokens = tokenize(source)` or `TOKEN = DEFAULT_TOKEN` is left alone).
_ENV_NAME = r"[A-Z_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|APIKEY|CREDENTIALS?)[A-Z_]*"
_ENV_STYLE = re.compile(
    rf"""(?P<name>^[ \t]*(?:export[ \t]+)?{_ENV_NAME}[ \t]*=[ \t]*)"""
    r"""(?P<value>(?=[^\s]*\d)[A-Za-z0-9_\-+/.=]{6,})(?=\s|$)""",
    re.MULTILINE,
)
_PLACEHOLDER = re.compile(r"\*\*\*SECRET_\d+\*\*\*")
# Credentials inside a URL: scheme://user:password@host or scheme://token@host.
_URL_CREDENTIALS = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^\s/?#@]+)@")


def redact_url_credentials(text: str) -> str:
    """`https://user:pass@host/v1` -> `https://***@host/v1`, wherever URLs appear in text."""
    return _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{MASK}@", text)


def mask_secrets(text: str, table: dict[str, str] | None = None) -> str:
    """Replace secret-looking values. With a table, each distinct value gets a numbered
    placeholder recorded as table[placeholder] = value; without one, values become ***."""

    def hide(value: str) -> str:
        if value == MASK or _PLACEHOLDER.fullmatch(value):  # masked by an earlier pattern
            return value
        if table is None:
            return MASK
        for placeholder, known in table.items():
            if known == value:
                return placeholder
        placeholder = f"***SECRET_{len(table) + 1}***"
        table[placeholder] = value
        return placeholder

    text = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{hide(m['userinfo'])}@", text)
    text = _KEYS.sub(lambda m: hide(m[0]), text)
    text = _ASSIGNED.sub(lambda m: f"{m['name']}{m['q']}{hide(m['value'])}{m['q']}", text)
    return _ENV_STYLE.sub(lambda m: f"{m['name']}{hide(m['value'])}", text)


def unmask(text: str, table: dict[str, str]) -> str:
    """Put the original values back where an answer repeats a placeholder."""
    if not table:
        return text
    return _PLACEHOLDER.sub(lambda m: table.get(m[0], m[0]), text)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """For errors and logs: every literal secret we know of (the configured keys), then
    anything else that looks like one, becomes ***."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, MASK)
    return mask_secrets(redact_url_credentials(text))
