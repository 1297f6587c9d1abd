"""Where a back end is (``Location``, from a URL such as ``jaeger+http://127.0.0.1:16686``) and one GET to
it (``fetch``): the standard library's urllib, a timeout, the answer read within a size limit, no
redirect followed (a credential never goes to an address the user did not give), no proxy for a loopback
address. Credentials come from the environment only (``credentials``) and never appear in what is shown:
a message quotes the server's words with every value sent in a header replaced, then redacted."""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from email.message import Message
from typing import IO
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from ..._common.redact import REDACTED, redact_text
from ..._errors import BackendError

__all__ = [
    "HEADERS_VAR",
    "Answer",
    "Location",
    "credential_vars",
    "credentials",
    "fetch",
    "parse_location",
    "scrubbed",
]

#: extra request headers for every back end: ``Name=value,Name2=value2`` (values percent-decoded), the
#: format of ``OTEL_EXPORTER_OTLP_HEADERS``
HEADERS_VAR = "TRACEASSERT_BACKEND_HEADERS"
#: a back end's own variables: (variable, header, how its value is written)
_OWN = {"phoenix": [("PHOENIX_API_KEY", "Authorization", "Bearer {}")]}
_SCHEME = re.compile(r"^(?P<kind>[a-z0-9-]+)\+(?P<scheme>https?)$")
#: how much of a server's answer a message quotes
_QUOTED = 200


@dataclass(frozen=True)
class Location:
    """A back end: its kind, base URL (scheme, host, port and base path), and options (the URL's query)."""

    kind: str
    base: str
    options: dict[str, str] = field(default_factory=dict)

    @property
    def shown(self) -> str:
        """The address as a message shows it (no credentials: a URL with them is refused)."""
        query = f"?{urlencode(self.options)}" if self.options else ""
        return f"{self.kind}+{self.base}{query}"

    def url(self, path: str, query: dict[str, str] | None = None) -> str:
        return self.base.rstrip("/") + path + (f"?{urlencode(query)}" if query else "")

    def error(self, message: str, status: int | None = None) -> BackendError:
        return BackendError(message, backend=self.kind, url=self.shown, status=status)


def parse_location(url: str, kinds: dict[str, tuple[str, ...]]) -> Location:
    """The back end a URL names; ``kinds`` maps each kind to the options it takes."""
    head, sep, _rest = url.partition("://")
    found = _SCHEME.match(head.lower())
    if not sep or found is None or found["kind"] not in kinds:
        names = ", ".join(f"{k}+http://" for k in kinds)
        said = head.lower() if found else "?"
        raise BackendError(
            f"not a back end traceassert reads: an address starts with one of {names} (or https)",
            backend=found["kind"] if found else "?",
            url=f"{said}://...",
        )
    kind = found["kind"]
    url = head.lower() + url[len(head) :]
    parts = urlsplit(url[len(kind) + 1 :])
    shown = f"{kind}+{parts.scheme}://{parts.hostname or ''}" + (f":{parts.port}" if parts.port else "")
    if parts.username is not None or parts.password is not None:
        raise BackendError(
            f"credentials in the URL are not taken: give them in the environment ({credential_vars(kind)})",
            backend=kind,
            url=shown,
        )
    if not parts.hostname:
        raise BackendError("the address has no host", backend=kind, url=shown)
    options = dict(parse_qsl(parts.query, keep_blank_values=True))
    unknown = sorted(set(options) - set(kinds[kind]))
    if unknown:
        takes = ", ".join(kinds[kind]) or "none"
        raise BackendError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for {kind} (options: {takes})",
            backend=kind,
            url=shown,
        )
    netloc = parts.netloc
    return Location(kind, f"{parts.scheme}://{netloc}{parts.path}", options)


def credential_vars(kind: str) -> str:
    """The environment variables a back end of ``kind`` takes credentials from, for a message."""
    return ", ".join([*(var for var, _h, _f in _OWN.get(kind, ())), HEADERS_VAR])


def credentials(kind: str, environ: dict[str, str] | None = None) -> dict[str, str]:
    """The headers to send to a back end of ``kind``, from the environment: its own variables
    (``PHOENIX_API_KEY``), then ``TRACEASSERT_BACKEND_HEADERS``, which wins."""
    env = os.environ if environ is None else environ
    headers: dict[str, str] = {}
    for var, header, form in _OWN.get(kind, ()):
        value = env.get(var, "").strip()
        if value:
            headers[header] = form.format(value)
    for item in env.get(HEADERS_VAR, "").split(","):
        name, eq, value = item.partition("=")
        if eq and name.strip():
            headers[name.strip()] = unquote(value.strip())
    return headers


def _secrets(headers: dict[str, str]) -> list[str]:
    """Every value sent in a header, and its parts (the token of ``Bearer x``, the ``user:password`` of
    ``Basic ...``), longest first."""
    found: set[str] = set()
    for value in headers.values():
        found.add(value)
        for part in value.split():
            found.add(part)
            with contextlib.suppress(ValueError):
                decoded = base64.b64decode(part, validate=True).decode("utf-8")
                found.update([decoded, *decoded.split(":")])
    return sorted((s for s in found if len(s) >= 4), key=len, reverse=True)


def scrubbed(text: str, secrets: list[str]) -> str:
    """``text`` with each value sent replaced by ``[REDACTED]``, then redacted as messages are."""
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return redact_text(text)


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes
    #: where a redirect points (3xx)
    redirect: str | None = None

    def quoted(self, secrets: list[str]) -> str:
        """The start of the body, as a message quotes it."""
        text = self.body[:_QUOTED].decode("utf-8", "replace").strip()
        more = "..." if len(self.body) > _QUOTED else ""
        return repr(scrubbed(text, secrets) + more) if text else "an empty body"


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None  # the 3xx answer comes back as it is


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def fetch(
    location: Location,
    path: str,
    *,
    query: dict[str, str] | None = None,
    accept: str,
    timeout: float,
    max_bytes: int | None,
    secrets_out: list[str] | None = None,
) -> Answer:
    """GET ``path`` under the back end's base URL: the answer, whatever its status; a ``BackendError``
    when none comes (refused, timed out, unreachable) or it is larger than ``max_bytes``."""
    headers = {"Accept": accept, "User-Agent": "traceassert", **credentials(location.kind)}
    secrets = _secrets(headers)
    if secrets_out is not None:
        secrets_out[:] = secrets
    request = urllib.request.Request(location.url(path, query), headers=headers)
    handlers: list[urllib.request.BaseHandler] = [_NoRedirect()]
    if _loopback(urlsplit(location.base).hostname or ""):
        handlers.append(urllib.request.ProxyHandler({}))
    opener = urllib.request.build_opener(*handlers)
    try:
        response: IO[bytes] = opener.open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:  # an answer with an error status: read it like any other
        response = exc
    except (OSError, ValueError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        text = scrubbed(str(reason) or type(reason).__name__, secrets)
        raise location.error(
            f"cannot reach the {location.kind} back end: {text} (is it running, at this address?)"
        ) from None
    with response:
        found = getattr(response, "status", None) or getattr(response, "code", None)
        status = found if isinstance(found, int) else 0
        info = getattr(response, "headers", None)
        content_type = info.get("Content-Type", "") if isinstance(info, Message) else ""
        redirect = info.get("Location") if isinstance(info, Message) else None
        try:
            body = response.read() if max_bytes is None else response.read(max_bytes + 1)
        except (OSError, ValueError) as exc:
            text = scrubbed(str(exc) or type(exc).__name__, secrets)
            raise location.error(f"the answer was cut off: {text}", status) from None
    if max_bytes is not None and len(body) > max_bytes:
        raise location.error(f"the answer is larger than max_bytes ({max_bytes} bytes)", status)
    return Answer(status, content_type, body, redirect)
