"""Keep secrets out of traces: redact at capture time, check again before writing."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

REDACTED = "[redacted]"


SECRET_HEADERS = {"authorization", "proxy-authorization", "cookie", "set-cookie", "api-key", "x-api-key"}


# A header whose name holds one of these carries a credential or a session, whatever it is called (`X-Custom-Pass`,
# `X-Goog-Api-Key`, `Mcp-Session-Id`): a header is not a payload field, and its names follow no convention.
_SECRET_HEADER_PART = re.compile(r"key|token|secret|auth|cookie|session|pass|pwd|credential|signature", re.IGNORECASE)


# A challenge names what a server asks for (a realm, its resource metadata), never a credential; a rate limit
# (`x-ratelimit-remaining-tokens`) counts tokens, it carries none.
_PUBLIC_HEADER = re.compile(r"^(?:www|proxy)-authenticate$|ratelimit")


# Field names whose string values are secrets, wherever they appear in a payload.
_SECRET_FIELDS = (
    r"api[_-]?key|authorization|password|secret|client[_-]secret|(?:access|refresh|id|bearer|authorization)[_-]?token"
    r"|cookie"
)


_SECRET_NAME = re.compile(rf"^(?:{_SECRET_FIELDS})$", re.IGNORECASE)


_SECRET_ENV = re.compile(r"KEY|TOKEN|SECRET", re.IGNORECASE)


# The same names as they appear in JSON text with a string value not yet redacted, matched against
# UTF-8 bytes with the ASCII letters lowered: bytes.lower() is a table lookup, where str.lower() on
# text holding Chinese is ten times slower, and a plain pattern is twice as fast as IGNORECASE.
# IGNORECASE, as `_SECRET_NAME` uses it, also takes K (Kelvin) for k, ſ for s, and ı and İ for i;
# bytes.lower() leaves them be, so the pattern names their UTF-8 bytes beside the ASCII letter.
_LOOKALIKE_UTF8 = {"k": r"(?:k|\xe2\x84\xaa)", "s": r"(?:s|\xc5\xbf)", "i": r"(?:i|\xc4[\xb0\xb1])"}


_SECRET_FIELD_IN_JSON = re.compile(
    # Every name starts with one of these; the look-ahead rejects most quotes before trying the names.
    rb'"(?=[apscrib\xc4\xc5])(?:'
    + "".join(_LOOKALIKE_UTF8.get(c, c) for c in _SECRET_FIELDS).encode()
    + rb')"\s*:\s*"(?!\[redacted\])'
)


_MIN_SECRET_LEN = 6  # shorter env values ("1", "yes") would match everywhere and say nothing


class SecretLeakError(Exception):
    """Raised instead of writing text that still holds a secret."""


def secret_values(extra: Iterable[str] = ()) -> list[str]:
    """Values that must never be written: env vars named like secrets, plus any given."""
    env = os.environ  # only the values of matching names are decoded: a recorder reads this for every run
    values = [v for k in env if secret_named(k) and len(v := env[k]) >= _MIN_SECRET_LEN]
    values += [v for v in extra if v and len(v) >= _MIN_SECRET_LEN]
    return sorted(set(values), key=len, reverse=True)


@functools.lru_cache(maxsize=1024)  # asked of every variable for every run: the names seldom change
def secret_named(name: str) -> bool:
    """An environment variable whose name says it holds a secret (API_KEY, *_TOKEN, ...)."""
    return _SECRET_ENV.search(name) is not None


@functools.lru_cache(maxsize=64)  # each model request and MCP exchange is recorded with its URL: the same few
def redact_url(url: str) -> str:
    """A URL as a trace may hold it: user-info left out, every query and fragment value replaced.

    A password in a base URL, `?api-key=` in a model URL or `?access_token=` in an MCP URL are
    secrets whatever their names, so no value is kept; names, host, port and path stay readable."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL at all ("http://[::1"): nothing of it can be trusted to be harmless
        return REDACTED
    netloc = parts.netloc
    if "@" in netloc:  # dropped, not marked: brackets in a netloc would read as an IPv6 host
        netloc = netloc.rpartition("@")[2]
    return urlunsplit(
        parts._replace(netloc=netloc, query=_redact_pairs(parts.query), fragment=_redact_pairs(parts.fragment))
    )


def _redact_pairs(text: str) -> str:
    """`a=1&b` becomes `a=[redacted]&[redacted]`: a piece without `=` may be a bare key."""
    if not text:
        return text
    pieces: list[str] = []
    for piece in text.split("&"):
        name, eq, value = piece.partition("=")
        pieces.append(f"{name}={REDACTED}" if eq and value else piece if eq else REDACTED)
    return "&".join(pieces)


def url_secrets(url: str) -> list[str]:
    """The parts of a URL `redact_url` hides, for a recorder to scrub wherever a server echoes them."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return [url]
    found = [parts.netloc.rpartition("@")[0]] if "@" in parts.netloc else []
    found += [parts.password or "", parts.username or ""]
    for text in (parts.query, parts.fragment):
        for piece in text.split("&") if text else ():
            name, eq, value = piece.partition("=")
            found.append(value if eq else name)
    return sorted({v for raw in found for v in (raw, unquote(raw)) if v})  # as sent, and as a server decodes it


# A flag whose next argument (or whose `=value`) is a secret; and a NAME=value whose name says it is one.
_SECRET_FLAG = re.compile(
    r"^--?[\w.-]*(?:key|token|secret|password|passwd|auth|credential|bearer|cookie)[\w.-]*$", re.I
)
_SECRET_PAIR = re.compile(
    r"^(-{0,2}[\w.-]*(?:key|token|secret|password|passwd|auth|credential|bearer|cookie)[\w.-]*)[=:](.+)$", re.I
)
_SECRET_LOOKING = re.compile(r"^(?:sk-|ghp_|gho_|github_pat_|xox[abp]-|AKIA|Bearer\s)", re.I)


def redacted_command(argv: Iterable[str]) -> tuple[list[str], list[str]]:
    """A server's command line as a trace or a recording may show it, and the values it hid (to scrub wherever a
    peer echoes them): the value after `--api-key` or in `--token=...`, URL user-info and query values, what looks
    like a key. The one rule for the proxy's recording and the app's own trace."""
    shown: list[str] = []
    hidden: list[str] = []
    after_flag = False
    for arg in argv:
        if after_flag:
            shown.append(REDACTED)
            hidden.append(arg)
            after_flag = False
            continue
        if _SECRET_FLAG.match(arg):
            shown.append(arg)
            after_flag = True
            continue
        if pair := _SECRET_PAIR.match(arg):
            shown.append(f"{pair.group(1)}={REDACTED}")
            hidden.append(pair.group(2))
            continue
        if _SECRET_LOOKING.match(arg):
            shown.append(REDACTED)
            hidden.append(arg)
            continue
        if "://" in arg:
            url = redact_url(arg)
            hidden += url_secrets(arg) if url != arg else []
            shown.append(url)
            continue
        shown.append(arg)
    return shown, hidden


# What an MCP client gives every stdio server it starts, whatever it is configured with (the MCP SDKs' default
# environment, on POSIX and on Windows), and what a shell sets for every program it runs: the same for every server,
# so no secret of one. Every other variable a server gets was put there for it.
INHERITED_ENV = frozenset(
    {
        *("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"),
        *("APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATHEXT", "PROCESSOR_ARCHITECTURE"),
        *("SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE"),
        *("PWD", "OLDPWD", "SHLVL", "_", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TMPDIR"),
    }
)


def redacted_environment(
    env: Iterable[tuple[str, str]], *, public: Iterable[str] = ()
) -> tuple[list[list[str]], list[str]]:
    """A server's environment as a trace or a recording may show it, and the values it hid (to scrub wherever a
    server echoes them). One rule: every value is a secret, whatever its name (DB_PASSWORD, GITHUB_PAT, AUTH, DSN:
    a name proves nothing), except those whose names are `public`."""
    pairs, visible = list(env), set(public)
    return [[k, v if k in visible else REDACTED] for k, v in pairs], [v for k, v in pairs if k not in visible]


@functools.lru_cache(maxsize=1024)  # every header of every recorded exchange: the same names again and again
def secret_header(name: str) -> bool:
    """A header whose value no trace or recording keeps: the one rule for the app's traces and the proxies'."""
    lowered = name.lower()
    if lowered in SECRET_HEADERS:
        return True
    return _SECRET_HEADER_PART.search(lowered) is not None and _PUBLIC_HEADER.search(lowered) is None


def redact_headers(headers: Iterable[tuple[str, str]]) -> dict[str, str]:
    return {k: (REDACTED if secret_header(k) else v) for k, v in headers}


def header_secrets(headers: Iterable[tuple[str, str]]) -> list[str]:
    """The values of the secret headers among `headers`, to scrub wherever they are echoed (`credential_values`)."""
    return [s for k, v in headers if secret_header(k) for s in credential_values(v)]


def credential_values(value: str) -> list[str]:
    """A credential as it may be echoed: whole, and without its scheme (`Bearer …`); none too short to mean it."""
    found = [value, value.partition(" ")[2]] if " " in value else [value]
    return [s for s in found if len(s) >= _MIN_SECRET_LEN and s != REDACTED]


# Fields whose values are credentials a request hands on: an `Authorization` header, wherever a body carries one
# (Responses' hosted MCP `tools[].headers`), and Messages' `mcp_servers[].authorization_token`.
_CREDENTIAL_FIELDS = frozenset({"authorization", "authorization_token"})
_CREDENTIAL_LENGTHS = frozenset(len(name) for name in _CREDENTIAL_FIELDS)  # most keys are told apart by length alone


def credentials(value: Any) -> list[str]:
    """The credentials a JSON value carries (`_CREDENTIAL_FIELDS`, and every secret header of a `headers` object):
    secrets for the whole recording, since a provider may echo them anywhere (Responses' response object repeats the
    request's `tools`), where no field's name says so. A walk over a whole trace: the cheap tests come first."""
    found: list[str] = []
    todo: list[tuple[Any, bool]] = [(value, False)] if isinstance(value, dict | list) else []
    while todo:
        item, in_headers = todo.pop()
        if isinstance(item, list):
            todo += [(v, False) for v in item if isinstance(v, dict | list)]
            continue
        for k, v in item.items():
            if isinstance(v, str):
                name = str(k)
                if (in_headers and secret_header(name)) or (
                    len(name) in _CREDENTIAL_LENGTHS and name.lower() in _CREDENTIAL_FIELDS
                ):
                    found += credential_values(v)
            elif isinstance(v, dict | list):
                todo.append((v, k == "headers"))
    return found


def redact_recording(value: Any, secrets: Iterable[str] = ()) -> Any:
    """The one rule for what a writer keeps of a whole recording (a trace, an imported one, a proxy's line): the
    secrets it knows (`secret_values`) and every credential the value carries (`credentials`) replaced wherever
    they appear, and fields named like secrets (`redact`)."""
    return redact(value, secret_values([*secrets, *credentials(value)]))


_SECRET_FIELD_IN_TEXT = re.compile(
    rf'(?P<json>"(?:{_SECRET_FIELDS})"\s*:\s*")(?:[^"\\]|\\.)+"?|(?P<form>(?<![\w.-])(?:{_SECRET_FIELDS})=)[^&\s"]+',
    re.IGNORECASE,
)


def redact_text(text: str) -> str:
    """Text that is not a JSON value (a form body, the start of a line too long or too broken to parse) with the
    values of fields named like secrets replaced, as `redact` replaces them in JSON: `"api_key": "…"`, `api_key=…`.
    A value the text cuts short is replaced to the text's end."""
    if "=" not in text and '"' not in text:
        return text
    return _SECRET_FIELD_IN_TEXT.sub(
        lambda m: f'{m["json"]}{REDACTED}"' if m["json"] else f"{m['form']}{REDACTED}", text
    )


def needs_redaction(wire: bytes, secrets: Iterable[bytes]) -> bool:
    """A cheap look at a value's JSON text in UTF-8: does the walk in `redact` have anything to do?

    `secrets` are `secret_values()` in UTF-8, where a value is found exactly when it is in the text."""
    for s in secrets:
        if s in wire:
            return True
    return _SECRET_FIELD_IN_JSON.search(wire.lower()) is not None


def redact(value: Any, secrets: list[str]) -> Any:
    """Replace known secret values anywhere in a JSON-like value, and fields named like secrets."""
    if isinstance(value, str):
        for s in secrets:
            if s in value:
                value = value.replace(s, REDACTED)
        return value
    if isinstance(value, Mapping):
        return {
            k: (REDACTED if _SECRET_NAME.search(str(k)) and isinstance(v, str) and v else redact(v, secrets))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    return value


def assert_no_secrets(text: str, extra: Iterable[str] = ()) -> None:
    for s in secret_values(extra):
        if s in text:
            raise SecretLeakError("refusing to write: the output still contains a secret value")
