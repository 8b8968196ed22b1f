"""Mask secrets before text leaves the machine or reaches a log, a progress line or an error.

Two kinds: values we know (every value of a secret-looking environment variable, every value of
the workspace's `.env`), masked in plain, reversed, hex and base64 forms, since a test or a
candidate can print any of them; and strings that look like secrets (key shapes, `password =
"..."`). Prompts use numbered placeholders (`***SECRET_1***`) kept in a table, so a model answer
that echoes a placeholder can be given its original value back with `unmask` before it is spliced.
"""

from __future__ import annotations

import base64
import functools
import os
import re
from collections.abc import Iterable, Mapping

MASK = "***"
# Names whose values are secrets, whatever their shape (AWS_SECRET_ACCESS_KEY, HF_TOKEN, ...).
SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION)", re.IGNORECASE)
NOT_SECRET_NAME = re.compile(r"(_SOCK(ET)?$|^XDG_SESSION_|^SESSION_MANAGER$|^DESKTOP_SESSION$)")
MIN_KNOWN = 6  # shorter values (PORT=8080, DEBUG=true) would mask ordinary words
MIN_ENCODED = 8  # an encoded form shorter than this would mask unrelated text
FRAGMENT = 12  # a piece of a secret's form this long is the secret (ordinary text never has it)
ENV_FILES = (".env", ".env.local")

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


def known_secrets(root: str | None = None, environ: Mapping[str, str] | None = None) -> list[str]:
    """The secret values we know of: environment variables with secret-looking names, and every
    value of the workspace's `.env` files (their names say nothing: DATABASE_URL holds a password)."""
    environ = os.environ if environ is None else environ
    values = [v for name, v in environ.items() if _secret_variable(name, v)]
    if root:
        for name in ENV_FILES:
            values += _env_file_values(os.path.join(root, name))
    return sorted({v for v in values if len(v) >= MIN_KNOWN}, key=len, reverse=True)


def secret_forms(value: str) -> list[str]:
    """How a value can show up in printed text: as is, reversed, hex, and base64 (standard and
    URL-safe, at each of the three byte alignments it can have inside a longer encoded text)."""
    raw = value.encode("utf-8", "surrogatepass")
    forms = {value, value[::-1], raw.hex(), raw.hex().upper()}
    for shift in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(b"\0" * shift + raw).decode()
            # drop the groups the padding or the neighbouring bytes decide
            core = encoded[4 if shift else 0 : -4]
            if len(core) >= MIN_ENCODED:
                forms.add(core)
    return sorted(forms, key=len, reverse=True)


def hide_known(text: str, secrets: Iterable[str], hide=lambda value: MASK) -> str:
    """Every known secret becomes `hide(value)` (*** by default); then every run of text made
    of FRAGMENT-long pieces of any of its forms becomes *** (a reversed, encoded or truncated
    copy: pytest shortens a long value to its head and tail)."""
    secrets = tuple(s for s in secrets if s and len(s) >= MIN_KNOWN)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, hide(secret))
    pieces = _pieces(secrets)
    if not pieces or len(text) < FRAGMENT:
        return text
    covered = bytearray(len(text))
    for start in range(len(text) - FRAGMENT + 1):
        if text[start : start + FRAGMENT] in pieces:
            covered[start : start + FRAGMENT] = b"\1" * FRAGMENT
    if not any(covered):
        return text
    out, start = [], 0
    for match in re.finditer(b"\1+", covered):
        out += [text[start : match.start()], MASK]
        start = match.end()
    return "".join([*out, text[start:]])


@functools.lru_cache(maxsize=8)
def _pieces(secrets: tuple[str, ...]) -> frozenset[str]:
    """Every FRAGMENT-long piece of every form of the secrets."""
    return frozenset(
        form[start : start + FRAGMENT]
        for secret in secrets
        for form in secret_forms(secret)
        for start in range(len(form) - FRAGMENT + 1)
    )


def mask_secrets(text: str, table: dict[str, str] | None = None, known: Iterable[str] = ()) -> str:
    """Replace known secrets (in every form) and secret-looking values. With a table, each
    distinct value gets a numbered placeholder recorded as table[placeholder] = value; without
    one, values become ***."""

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

    text = hide_known(text, known, hide)
    text = _URL_CREDENTIALS.sub(lambda m: f"{m['scheme']}{hide(m['userinfo'])}@", text)
    text = _KEYS.sub(lambda m: hide(m[0]), text)
    text = _ASSIGNED.sub(lambda m: f"{m['name']}{m['q']}{hide(m['value'])}{m['q']}", text)
    return _ENV_STYLE.sub(lambda m: f"{m['name']}{hide(m['value'])}", text)


def unmask(text: str, table: dict[str, str]) -> str:
    """Put the original values back where an answer repeats a placeholder."""
    if not table:
        return text
    return _PLACEHOLDER.sub(lambda m: table.get(m[0], m[0]), text)


def redact(text: str, secrets: Iterable[str | None] = (), root: str | None = None) -> str:
    """For errors, logs and progress lines: every secret we know of (the configured keys, the
    environment's and `root`'s `.env` values, in every form), then anything else that looks
    like one, becomes ***."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, MASK)
    known = known_secrets(root)
    return mask_secrets(redact_url_credentials(text), known=known)


def _secret_variable(name: str, value: str) -> bool:
    """A secret-named variable, but not a desktop session's plumbing (socket paths, session
    ids): masking those would cut every /run/user/... path out of the output."""
    if not SECRET_NAME.search(name) or NOT_SECRET_NAME.search(name):
        return False
    return not value.startswith(("/", "unix:"))


def _env_file_values(path: str) -> list[str]:
    try:
        stat = os.stat(path)
    except OSError:
        return []
    return list(_read_env_file(path, stat.st_mtime_ns, stat.st_size))


@functools.lru_cache(maxsize=32)
def _read_env_file(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """`NAME=value` lines (with `export`, quotes and comments as dotenv allows); cached by stat."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read(1024 * 1024).splitlines()
    except OSError:
        return ()
    values = []
    for line in lines:
        name, sep, value = line.strip().removeprefix("export ").partition("=")
        if not sep or not name.strip() or name.strip().startswith("#"):
            continue
        value = value.strip()
        if value[:1] in "'\"" and value[-1:] == value[:1] and len(value) >= 2:
            value = value[1:-1]
        else:
            value = value.split(" #", 1)[0].strip()
        values.append(value)
    return tuple(values)
