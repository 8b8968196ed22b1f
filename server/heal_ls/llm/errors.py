"""Turn SDK exceptions into one clear line each, and decide which are worth a retry.

Both official SDKs share the same exception shapes (APIStatusError with .status_code/.response/
.body, APITimeoutError, APIConnectionError), so one converter serves both.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass
from types import ModuleType

import httpx2

from heal_ls.redact import redact

RETRYABLE_STATUSES = {408, 409, 429}


class IncompleteStream(Exception):
    """The stream ended without the provider's end marker: the answer may be cut short."""


class AnswerTooLarge(Exception):
    """The answer passed the size cap; reading stopped there."""

    def __init__(self, limit: int):
        super().__init__(f"larger than {limit} characters")
        self.limit = limit


@dataclass
class CallError:
    # "status" | "timeout" (a read) | "connect" | "broken" (mid-stream) | "api" (an error event)
    # | "slow" (the whole step took too long) | "large" (the answer passed the size cap)
    kind: str
    status: int | None = None
    retry_after: float | None = None  # seconds, from the retry-after header
    detail: str = ""  # the server's own message, one line, already redacted

    @property
    def retryable(self) -> bool:
        if self.kind == "status":
            return self.status in RETRYABLE_STATUSES or (self.status or 0) >= 500
        if self.kind == "connect":
            return "refused" not in self.detail  # nobody listens there: fail fast
        return self.kind in ("timeout", "broken", "api")  # not "slow": it would be slow again


def call_error_from(exc: BaseException, sdk: ModuleType, secrets=()) -> CallError | None:
    """The CallError for an exception raised by `sdk` (anthropic or openai), else None."""
    if isinstance(exc, AnswerTooLarge):
        return CallError("large", detail=f"was {exc}; stopped reading it")
    if isinstance(exc, IncompleteStream):
        return CallError("broken", detail="the stream ended before the answer was complete")
    if isinstance(exc, sdk.APIStatusError) and exc.status_code < 400:  # an error event, 200 OK
        return CallError("api", detail=_clean(_server_message(exc), secrets))
    if isinstance(exc, sdk.APIStatusError):
        headers = exc.response.headers
        detail = _server_message(exc)
        return CallError("status", exc.status_code, _retry_after(headers), _clean(detail, secrets))
    if isinstance(exc, sdk.APITimeoutError):
        return CallError("timeout")
    if isinstance(exc, sdk.APIConnectionError | httpx2.ConnectError):
        return CallError("connect", detail=_clean(_root_cause(exc), secrets))
    # While a stream is read the SDKs let transport errors through unwrapped.
    if isinstance(exc, httpx2.TimeoutException):
        return CallError("timeout")
    if isinstance(exc, httpx2.TransportError):
        return CallError("broken", detail=_clean(_root_cause(exc), secrets))
    if isinstance(exc, sdk.APIError):  # e.g. an error event inside an SSE stream
        return CallError("api", detail=_clean(_server_message(exc), secrets))
    return None


def describe(
    provider: str, err: CallError, *, model: str, base_url: str, attempts: int, timeout: float
) -> str:
    """One line a user can act on. Never includes a key: details were redacted on the way in."""
    tried = f" after {attempts} attempts" if attempts > 1 else ""
    detail = f": {err.detail}" if err.detail else ""
    if err.kind == "timeout":
        return f"{provider}: no answer from {base_url} within {timeout:g}s{tried}"
    if err.kind == "connect":
        return f"{provider}: cannot connect to {base_url}{detail}{tried}"
    if err.kind == "slow":
        return (
            f"{provider}: the answer from {base_url} {err.detail} (--timeout / heal.requestTimeout)"
        )
    if err.kind == "large":
        return f"{provider}: the answer from {base_url} {err.detail}"
    if err.kind == "broken":
        return f"{provider}: connection to {base_url} lost while streaming{detail}{tried}"
    if err.kind == "api":
        return f"{provider}: the server reported an error{detail}{tried}"
    status = err.status
    if status == 401:
        return f"{provider}: authentication failed (401), the API key was rejected{detail}"
    if status == 403:
        return f"{provider}: permission denied (403) for model {model}{detail}"
    if status == 404:
        return f"{provider}: model '{model}' not found (404) at {base_url}{detail}; try --model"
    if status == 429:
        wait = f"; retry after {err.retry_after:g}s" if err.retry_after is not None else ""
        return f"{provider}: rate limited (429){tried}{wait}{detail}"
    if status in (503, 529):
        return f"{provider}: service overloaded ({status}){tried}{detail}"
    if status and status >= 500:
        return f"{provider}: server error ({status}){tried}{detail}"
    return f"{provider}: request rejected ({status}){detail}"


def _server_message(exc) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
    return str(getattr(exc, "message", "") or "")


def _retry_after(headers) -> float | None:
    value = headers.get("retry-after-ms")
    if value:
        try:
            return float(value) / 1000
        except ValueError:
            pass
    try:
        return float(headers.get("retry-after", ""))
    except ValueError:
        return None  # an HTTP date or nothing: fall back to our own backoff


def _root_cause(exc: BaseException) -> str:
    chain = [exc]
    while len(chain) < 20 and (link := chain[-1].__cause__ or chain[-1].__context__):
        chain.append(link)
    for link in chain:
        if isinstance(link, ConnectionRefusedError) or "refused" in str(link).lower():
            return "connection refused"
        if getattr(link, "errno", None) == errno.ECONNREFUSED or "errno 111" in str(link).lower():
            return "connection refused"
    return str(chain[-1]) or type(chain[-1]).__name__


def _clean(text: str, secrets) -> str:
    line = " ".join(redact(text, secrets).split())
    return line if len(line) <= 200 else line[:197] + "..."
