"""``canonical_link``: the one URL canonicalisation of textsearch.

Fusion merges results by it, `Citations` numbers sources by
it, and anything else that deduplicates links uses it, so two spellings of one page agree
everywhere.

It is written on the standard library (plus ``idna``, which httpx already depends on)
rather than on ``url-normalize``: that package would have to become a dependency of the
core for a hundred lines of RFC 3986 §6 rules, and its tracking-parameter handling is not
the list we want to own. The function is a pure function of its input, so its results are
memoised: fusion and citations see the same links many times.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote, unquote, urlsplit

__all__ = ["TRACKING_PARAMETERS", "canonical_link", "link_key"]

#: Query parameters that only track a visit, never select content (compared case-insensitively;
#: every ``utm_*`` parameter is tracking too).
TRACKING_PARAMETERS: frozenset[str] = frozenset(
    {
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "dclid",
        "ef_id",
        "fbclid",
        "gad_source",
        "gbraid",
        "gclid",
        "gclsrc",
        "igshid",
        "li_fat_id",
        "mc_cid",
        "mc_eid",
        "mkt_tok",
        "msclkid",
        "oly_anon_id",
        "oly_enc_id",
        "rb_clickid",
        "s_kwcid",
        "srsltid",
        "ttclid",
        "twclid",
        "vero_id",
        "wbraid",
        "wickedid",
        "yclid",
    }
)

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# Characters that may stay as they are in a path or a query (RFC 3986 pchar, "/" and "?"),
# plus "%" so that existing escapes are kept for _normalise_escapes to decide on.
_PATH_SAFE = "!$&'()*+,;=:@/%-._~"
_QUERY_SAFE = _PATH_SAFE + "?"


def _normalise_escapes(text: str) -> str:
    """Percent-encode what must be, decode escaped unreserved characters, upper-case hex."""
    if not text.isascii() or " " in text:
        text = quote(text, safe=_QUERY_SAFE)
    if "%" not in text:
        return text

    def one(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()

    return _PERCENT.sub(one, text)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 for an absolute path (``/a/./b/../c`` → ``/a/c``)."""
    if "." not in path:
        return path
    out: list[str] = []
    segments = path.split("/")[1:]
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if out:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    return "/" + "/".join(out)


def _is_tracking(pair: str) -> bool:
    name = unquote(pair.partition("=")[0]).strip().lower()
    return name.startswith("utm_") or name in TRACKING_PARAMETERS


def _idna(host: str) -> str:
    if host.isascii():
        return host
    try:
        import idna  # a dependency of httpx; IDNA 2008 with UTS 46 mapping, as browsers do

        return idna.encode(host, uts46=True).decode("ascii")
    except Exception:
        try:
            return host.encode("idna").decode("ascii")  # IDNA 2003, the stdlib's codec
        except UnicodeError:
            return host


@lru_cache(maxsize=8192)
def _stripped_parts(url: object) -> tuple[str, tuple[str, str, str, str] | None]:
    """The address without surrounding whitespace, and its canonical parts (``None``: not a URL)."""
    if not isinstance(url, str):
        return str(url).strip(), None
    text = url.strip()
    return text, _parts(text)


def _parts(text: str) -> tuple[str, str, str, str] | None:
    """``(scheme, authority, path, query)`` canonicalised, or ``None`` when not a URL."""
    try:
        parts = urlsplit(text)
        scheme = parts.scheme.lower()
        host = parts.hostname
        if not scheme or not parts.netloc or not host:
            return None
        port = parts.port
    except ValueError:
        return None
    host = host.rstrip(".")
    if not host:
        return None
    if ":" in host:  # IPv6 literal: urlsplit removed the brackets
        host = f"[{host}]"
    else:
        host = _idna(unquote(host)).lower()
    userinfo = parts.netloc.rpartition("@")[0] if "@" in parts.netloc else ""
    authority = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    if userinfo:
        authority = f"{_normalise_escapes(userinfo)}@{authority}"
    path = _remove_dot_segments(_normalise_escapes(parts.path)) or "/"
    query = parts.query
    if query:
        query = "&".join(p for p in query.split("&") if p and not _is_tracking(p))
        query = _normalise_escapes(query)
    return scheme, authority, path, query


def canonical_link(url: str) -> str:
    """The canonical spelling of a web address, so that two spellings of one page compare equal.

    Applies RFC 3986 §6 syntax- and scheme-based normalisation: the scheme and host are
    lower-cased, an internationalised host is IDNA-encoded (``bücher.de`` →
    ``xn--bcher-kva.de``) and loses a trailing dot, the default port is removed, escapes of
    unreserved characters are decoded and the others written in upper-case hex, characters
    that must be escaped are, ``.``/``..`` path segments are resolved, and an empty path
    becomes ``/``. The fragment is removed, and so are tracking parameters (``utm_*``,
    ``gclid``, ``fbclid``, ``msclkid``, ``mc_eid``... see `TRACKING_PARAMETERS`); the
    other query parameters keep their order and spelling.

    Anything that is not an absolute URL with a host (a file path, ``urn:``, junk) is
    returned with surrounding whitespace stripped. Never raises.

    Example::

        >>> canonical_link("HTTPS://Example.COM:443/a/./b/%7euser?utm_source=x&id=3#top")
        'https://example.com/a/b/~user?id=3'
    """
    text, parts = _stripped_parts(url)
    if parts is None:
        return text
    scheme, authority, path, query = parts
    return f"{scheme}://{authority}{path}?{query}" if query else f"{scheme}://{authority}{path}"


def link_key(url: str) -> str:
    """A deduplication key built on `canonical_link`, a little more forgiving.

    Besides what `canonical_link` makes equal, ``http`` and ``https`` (and ``ws`` and
    ``wss``) name the same page, and a trailing ``/`` on the path is ignored: search engines
    list both spellings of one page, and no site serves different content on them in
    practice. Not a URL: only use it to compare.
    """
    text, parts = _stripped_parts(url)
    if parts is None:
        return text
    scheme, authority, path, query = parts
    if scheme in ("http", "https", "ws", "wss"):
        scheme = ""
    path = path.rstrip("/")
    return f"{scheme}//{authority}{path}?{query}" if query else f"{scheme}//{authority}{path}"
