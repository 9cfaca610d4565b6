"""Full pages for grounding: download each result's link and keep its readable text, safely.

Search results point at pages chosen by strangers, and a link can be made to point at the
machine the code runs on, the office network or a cloud metadata service. So, unless
``allow_private=True``:

* only ``http`` and ``https`` URLs without credentials are fetched;
* the host name is resolved and **every** address it resolves to is checked; private,
  loopback, link-local, multicast, reserved, unspecified, shared (CGNAT) and other
  non-global addresses are refused, as are known cloud metadata addresses, and IPv6 forms
  that embed an IPv4 address (IPv4-mapped, 6to4, Teredo, NAT64) are checked through it;
* the connection goes to the address that was checked: the request is sent to the IP
  address, with the original ``Host`` header and, for ``https``, the original name for SNI
  and certificate verification. A DNS answer that changes between the check and the
  connection (DNS rebinding) therefore cannot redirect the request;
* redirects are followed by hand, at most ``max_redirects`` of them, and every hop is
  checked again from the start; from the first hop to another origin on, no credential an
  injected client would add (its auth, cookies, default headers) is sent;
* the body is read as a stream and cut at ``max_bytes`` (after decompression, which is
  itself bounded, so a compression bomb cannot expand past the cap; only gzip and deflate
  are accepted), the whole page has a ``timeout``, and only text content types are read.

The redirect chain, the capped reader and the deadline are the HTTP engine's own guards
(`textsearch._http._guards`), shared with every connector.

A page that is refused or fails keeps its search snippet and says why; one bad page never
raises. With an injected ``http_client`` the same checks apply, but its own settings
(proxies, keep-alive) are yours: a proxy would see the checked IP address as the target.

HTML becomes text in a worker thread, never on the event loop: the page's main content with
``trafilatura`` when the ``fetch`` extra is installed (``pip install "textsearch-sdk[fetch]"``),
else with the standard library's parser (``textsearch._html``), which keeps
``<main>``/``<article>`` content and drops scripts, styles and navigation. Truncation to
``max_chars`` costs in proportion to ``max_chars``, not to the page.
"""

from __future__ import annotations

import asyncio
import codecs
import ipaddress
import logging
import re
import socket
import time
import zlib
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypedDict

import httpx
from typing_extensions import Unpack

from textsearch._http._guards import (
    ACCEPT_ENCODING,
    REDIRECT_STATUSES,
    BodyReader,
    RedirectChain,
    UnsupportedEncoding,
    drop_credentials,
    within,
)
from textsearch._version import user_agent
from textsearch.errors import InvalidRequestError
from textsearch.grounding._extract import Extractor, check_extractor, extract_main_text
from textsearch.grounding._fields import extract_fields
from textsearch.grounding.budget import truncate_text

__all__ = ["FetchOptions", "FetchedPage", "Resolver", "fetch_pages", "fetch_pages_sync"]

logger = logging.getLogger(__name__)

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""``await resolver(host, port)`` -> the IP addresses (as strings) the host name resolves to."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

#: Content types whose body is read (everything else is refused).
TEXT_CONTENT_TYPES = frozenset(
    {
        "text/html",
        "application/xhtml+xml",
        "text/plain",
        "text/markdown",
        "text/x-markdown",
        "text/x-rst",
    }
)
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})

# Instance metadata services reachable from cloud VMs; most are link-local or private
# anyway, but some are not (Azure's wire server, Oracle's) and all deserve a clear reason.
_METADATA = frozenset(
    ipaddress.ip_address(a)
    for a in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean...
        "169.254.170.2",  # AWS ECS task metadata
        "169.254.169.123",  # AWS time sync
        "168.63.129.16",  # Azure wire server
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud
        "fd00:ec2::254",  # AWS IMDS over IPv6
        "fd00:ec2::23",  # AWS DNS over IPv6
    )
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Ranges Python's ipaddress still calls global: deprecated IPv6 site-local addresses (RFC
# 3879, routed inside a site like private ones) and the 6to4 relay anycast (RFC 7526).
_NOT_PUBLIC = (
    (ipaddress.ip_network("fec0::/10"), "a site-local address"),
    (ipaddress.ip_network("192.88.99.0/24"), "a 6to4 relay address"),
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-]+)""", re.I)


@dataclass(frozen=True)
class FetchedPage:
    """One result with its page text, or with its snippet and the reason the page was not used.

    It has ``name``/``value``/``link`` (and ``date``, ``site_name``...), so a list of pages
    can be given to `format_results`, `Citations` or `render_prompt`.

    Attributes:
        result: The search result it was made from.
        link: The result's link.
        name: The page's title, else the result's.
        value: The page's readable text, else the result's snippet.
        ok: Whether the page text was used.
        error: Why not, when ``ok`` is false.
        refused: The page was refused by the safety policy (scheme, address, content type,
            redirect limit), rather than failing.
        final_url: The URL the text came from (after redirects).
        status_code: HTTP status of the last response, when there was one.
        content_type: Media type of the last response, when there was one.
        truncated: The body was cut at ``max_bytes`` or the text at ``max_chars``.
        original_snippet: The result's own text.
        date: The result's date, when known.
        site_name: The result's site name, when known.
        display_url: The result's display URL, when known.
        site_icon: The result's site icon, when known.
    """

    result: Any
    link: str | None
    name: str | None
    value: str | None
    ok: bool
    error: str | None = None
    refused: bool = False
    final_url: str | None = None
    status_code: int | None = None
    content_type: str | None = None
    truncated: bool = False
    original_snippet: str | None = None
    date: str | None = None
    site_name: str | None = None
    display_url: str | None = None
    site_icon: str | None = None


class _PageProblem(Exception):
    def __init__(
        self,
        message: str,
        *,
        url: str | None = None,
        status: int | None = None,
        media: str | None = None,
    ) -> None:
        super().__init__(message)
        self.url = url
        self.status = status
        self.media = media


class _Refused(_PageProblem):
    """The policy refuses this URL or response."""


class _Failed(_PageProblem):
    """The page could not be fetched or read."""


def _address_problem(ip: IPAddress) -> str | None:
    if ip in _METADATA:
        return "a cloud metadata address"
    if ip.is_loopback:
        return "a loopback address"
    if ip.is_unspecified:
        return "an unspecified address"
    if ip.is_link_local:
        return "a link-local address"
    if ip.is_multicast:
        return "a multicast address"
    if ip.is_private:
        return "a private address"
    if ip.is_reserved:
        return "a reserved address"
    for network, what in _NOT_PUBLIC:
        if ip.version == network.version and ip in network:
            return what
    if not ip.is_global:
        return "not a public address"
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if ip in _NAT64:
        found.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return found


def check_address(address: str, allow_networks: Sequence[IPNetwork] = ()) -> str | None:
    """Why ``address`` must not be fetched from, or ``None`` when it may be.

    ``allow_networks`` exempts addresses (for example your intranet's documentation host).
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return f"{address!r} is not an IP address"
    if any(ip.version == net.version and ip in net for net in allow_networks):
        return None
    problem = _address_problem(ip)
    if problem is None and isinstance(ip, ipaddress.IPv6Address):
        for inner in _embedded_ipv4(ip):
            inner_problem = _address_problem(inner)
            if inner_problem is not None:
                problem = f"an IPv6 form of {inner}, {inner_problem}"
                break
    return None if problem is None else f"{ip} is {problem}"


async def system_resolver(host: str, port: int) -> Sequence[str]:
    """Resolve ``host`` with the operating system's resolver (``getaddrinfo``)."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


class FetchOptions(TypedDict, total=False):
    """The settings of `fetch_pages`, each optional.

    ``ground(fetch_options=...)`` and the ``fetch_page`` tool take the same settings.

    Attributes:
        max_chars: Most characters of text kept per page (cut at a word, with a marker);
            default 20,000.
        concurrency: Most pages downloaded at once; default 4.
        allow_private: Fetch from private, loopback, link-local and other non-public
            addresses too (only for trusted links, such as your own intranet); default off.
        allow_networks: Networks (``"10.1.2.0/24"``) allowed even when ``allow_private``
            is false.
        timeout: Deadline in seconds for a whole page: every redirect, the headers, the
            body however slowly it trickles, and the conversion to text; default 10.
        max_redirects: Most redirects followed per page; default 5.
        max_bytes: Most bytes of body read per page (after decompression); default
            2,000,000.
        resolver: Host name resolver (default: the system's ``getaddrinfo``).
        extractor: How HTML becomes text: ``"auto"`` (default) keeps the main content with
            ``trafilatura`` when the ``fetch`` extra is installed, else (and whenever it
            finds nothing) the built-in converter; ``"trafilatura"`` requires it;
            ``"builtin"`` never uses it. The conversion runs in a worker thread.
    """

    max_chars: int
    concurrency: int
    allow_private: bool
    allow_networks: Iterable[str | IPNetwork]
    timeout: float
    max_redirects: int
    max_bytes: int
    resolver: Resolver | None
    extractor: Extractor


#: Every setting's default: the one place they are written.
_DEFAULTS: Final[FetchOptions] = {
    "max_chars": 20_000,
    "concurrency": 4,
    "allow_private": False,
    "allow_networks": (),
    "timeout": 10.0,
    "max_redirects": 5,
    "max_bytes": 2_000_000,
    "resolver": None,
    "extractor": "auto",
}


@dataclass(frozen=True)
class _Settings:
    max_chars: int
    max_bytes: int
    max_redirects: int
    timeout: float
    allow_private: bool
    allow_networks: tuple[IPNetwork, ...]
    resolver: Resolver
    concurrency: int
    extractor: Extractor


def _media_type(value: str | None) -> str | None:
    if not value:
        return None
    return value.split(";", 1)[0].strip().lower() or None


def _charset(content_type: str | None, head: bytes) -> str:
    if content_type:
        for param in content_type.split(";")[1:]:
            key, _, val = param.partition("=")
            if key.strip().lower() == "charset" and val.strip():
                name = val.strip().strip("\"'")
                try:
                    return codecs.lookup(name).name
                except LookupError:
                    break
    if head.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    match = _META_CHARSET.search(head[:2048])
    if match:
        try:
            return codecs.lookup(match.group(1).decode("ascii")).name
        except LookupError:
            pass
    return "utf-8"


def _pinned_url(url: httpx.URL, ip: str) -> httpx.URL:
    return url.copy_with(host=ip)


def _host_header(host: str, port: int | None, scheme: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    default = 443 if scheme == "https" else 80
    return shown if port is None or port == default else f"{shown}:{port}"


async def _resolve_checked(host: str, port: int, settings: _Settings) -> list[str]:
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = list(dict.fromkeys(await settings.resolver(host, port)))
        except (OSError, UnicodeError) as exc:
            raise _Failed(f"cannot resolve {host}: {exc}") from None
        if not addresses:
            raise _Failed(f"cannot resolve {host}: no addresses")
    if not settings.allow_private:
        for address in addresses:
            problem = check_address(address, settings.allow_networks)
            if problem is not None:
                where = "" if literal is not None else f" {host}"
                raise _Refused(f"refused{where}: {problem}")
    return addresses


def _reader(response: httpx.Response, max_bytes: int) -> BodyReader:
    try:
        return BodyReader(max_bytes, response.headers.get("content-encoding"), truncate=True)
    except UnsupportedEncoding as exc:
        raise _Refused(f"unsupported content encoding {exc}") from None


async def _read_capped(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    """The body, inflated with a bounded output, cut at ``max_bytes`` (then not read further)."""
    reader = _reader(response, max_bytes)
    try:
        async for raw in response.aiter_raw():
            if reader.feed(raw):
                break
        return reader.finish(), reader.cut
    except zlib.error:
        coding = response.headers.get("content-encoding", "").strip().lower()
        raise _Failed(f"the body is not valid {coding} data") from None


def _checked_url(url: str) -> tuple[httpx.URL, str]:
    """The URL and its ASCII host, when the policy allows fetching it at all."""
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError):
        raise _Refused(f"not a valid URL: {url[:200]!r}") from None
    if parsed.scheme not in ("http", "https"):
        raise _Refused(f"only http and https URLs are fetched, not {parsed.scheme or 'none'}:")
    if parsed.userinfo:
        raise _Refused("URLs with credentials are not fetched")
    # The ASCII (IDNA) form, as DNS, the Host header and SNI need it.
    host = parsed.raw_host.decode("ascii", errors="replace")
    if not host:
        raise _Refused("URL without a host")
    return parsed, host


async def _get_page(
    client: httpx.AsyncClient, link: str, settings: _Settings
) -> tuple[str, int, str, str | None, bytes, bool]:
    """Fetch ``link``: ``(final_url, status, media_type, content_type, body, body_cut)``.

    Redirects are followed by the shared `RedirectChain`:
    to another origin too (these are public pages), but from the first such hop on with
    no credential an injected client would add (its auth, cookies, default headers).
    """
    url = link.strip()
    chain: RedirectChain | None = None
    while True:
        parsed, host = _checked_url(url)
        if chain is None:
            chain = RedirectChain(url, limit=settings.max_redirects, cross_origin=True)
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        addresses = await _resolve_checked(host, port, settings)
        headers = {
            "Host": _host_header(host, parsed.port, parsed.scheme),
            "User-Agent": user_agent("page fetcher"),
            "Accept": "text/html,application/xhtml+xml,text/plain;q=0.9,text/*;q=0.8",
            "Accept-Encoding": ACCEPT_ENCODING,
        }
        extensions: dict[str, Any] = {}
        if parsed.scheme == "https":
            extensions["sni_hostname"] = host
        target = parsed.copy_with(fragment=None)
        response = await _connect(client, target, addresses, headers, extensions, chain.crossed)
        try:
            status = response.status_code
            if status in REDIRECT_STATUSES:
                location = response.headers.get("location")
                if not location:
                    raise _Failed(
                        f"HTTP {status} redirect without a Location", url=url, status=status
                    )
                try:
                    followed = chain.follow(status, location)
                except (httpx.InvalidURL, ValueError):
                    raise _Refused(f"not a valid URL: {location[:200]!r}") from None
                if not followed:
                    raise _Refused(f"too many redirects (more than {settings.max_redirects})")
                logger.debug("redirect %s of %s -> %s", chain.hops, link, chain.url)
                url = chain.url
                continue
            if status >= 400 or status < 200:
                raise _Failed(f"HTTP {status}", url=url, status=status)
            if status != 200 and status != 203:
                raise _Failed(f"HTTP {status} (no page content)", url=url, status=status)
            raw_type = response.headers.get("content-type")
            media = _media_type(raw_type)
            if media not in TEXT_CONTENT_TYPES:
                raise _Refused(
                    f"not a text page (content type {media or 'missing'})",
                    url=url,
                    status=status,
                    media=media,
                )
            body, cut = await _read_capped(response, settings.max_bytes)
        finally:
            await response.aclose()
        return url, status, media, raw_type, body, cut


async def _connect(
    client: httpx.AsyncClient,
    target: httpx.URL,
    addresses: Sequence[str],
    headers: dict[str, str],
    extensions: dict[str, Any],
    crossed: bool,
) -> httpx.Response:
    """The response (streamed) from the first checked address that accepts a connection."""
    last_error: Exception | None = None
    for address in addresses:
        request = client.build_request(
            "GET", _pinned_url(target, address), headers=headers, extensions=extensions
        )
        if crossed:
            drop_credentials(request.headers)
        try:
            return await client.send(
                request,
                stream=True,
                follow_redirects=False,
                auth=None if crossed else httpx.USE_CLIENT_DEFAULT,
            )
        except httpx.ConnectError as exc:
            last_error = exc
    detail = f": {last_error}" if last_error else ""
    raise _Failed(f"cannot connect to {target.host}{detail}")


async def _fetch_one(client: httpx.AsyncClient, result: Any, settings: _Settings) -> FetchedPage:
    fields = extract_fields(result)
    base = {
        "result": result,
        "link": fields.link,
        "original_snippet": fields.value,
        "date": fields.date,
        "site_name": fields.site_name,
        "display_url": fields.display_url,
        "site_icon": fields.site_icon,
    }

    def fallback(reason: str, *, refused: bool, **extra: Any) -> FetchedPage:
        logger.debug("page %s not used: %s", fields.link, reason)
        return FetchedPage(
            name=fields.name,
            value=fields.value,
            ok=False,
            error=reason,
            refused=refused,
            **base,
            **extra,
        )

    if not fields.link or not fields.link.strip():
        return fallback("the result has no link", refused=True)
    link = fields.link

    async def page() -> tuple[str, int, str, str | None, str, bool]:
        final_url, status, media, raw_type, body, cut = await _get_page(client, link, settings)
        # Decoding, HTML to text and truncation are CPU work (seconds for a page of a few
        # MB): a worker thread keeps the event loop free, and the deadline covers it too.
        title, text, cut_text = await asyncio.to_thread(_page_text, body, raw_type, media, settings)
        return final_url, status, media, title, text, cut or cut_text

    try:
        final_url, status, media, title, text, cut = await within(
            page(), time.monotonic() + settings.timeout
        )
    except _PageProblem as exc:
        return fallback(
            str(exc),
            refused=isinstance(exc, _Refused),
            final_url=exc.url,
            status_code=exc.status,
            content_type=exc.media,
        )
    except (TimeoutError, asyncio.TimeoutError, httpx.TimeoutException):
        return fallback(f"timed out after {settings.timeout:g} s", refused=False)
    except httpx.HTTPError as exc:
        return fallback(f"{type(exc).__name__}: {exc}", refused=False)
    except Exception as exc:  # one bad page must never break the others
        return fallback(f"{type(exc).__name__}: {exc}", refused=False)
    if not text.strip():
        return fallback(
            "the page has no readable text",
            refused=False,
            final_url=final_url,
            status_code=status,
            content_type=media,
        )
    return FetchedPage(
        name=title or fields.name,
        value=text,
        ok=True,
        final_url=final_url,
        status_code=status,
        content_type=media,
        truncated=cut,
        **base,
    )


def _page_text(
    body: bytes, raw_type: str | None, media: str, settings: _Settings
) -> tuple[str | None, str, bool]:
    """``(title, text, cut)`` of a downloaded body (run in a worker thread)."""
    text = body.decode(_charset(raw_type, body[:4096]), errors="replace")
    if media in _HTML_TYPES:
        title, readable = extract_main_text(text, settings.extractor)
    else:
        title, readable = None, text.replace("\r\n", "\n").strip()
    if not readable.strip():
        return title, "", False
    readable, cut = truncate_text(readable, settings.max_chars)
    return title, readable, cut


def fetch_settings(options: Mapping[str, Any]) -> _Settings:
    """`FetchOptions` checked, the defaults filled in (the read tools check theirs early).

    ``options`` may also hold ``http_client`` (a mapping of `fetch_pages`' keywords, as
    ``ground(fetch_options=)`` takes): it is no setting, and is left to `fetch_pages`.

    Raises:
        InvalidRequestError: An unknown option, or a value out of range or of the wrong type.
    """
    unknown = sorted(set(options) - _DEFAULTS.keys() - {"http_client"})
    if unknown:
        raise InvalidRequestError(f"fetch_pages: unknown options: {', '.join(map(str, unknown))}")
    values: dict[str, Any] = {**_DEFAULTS, **options}
    for name, low in (("max_chars", 1), ("max_bytes", 1), ("max_redirects", 0), ("concurrency", 1)):
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidRequestError(f"fetch_pages: {name} must be a whole number >= {low}")
    timeout = values["timeout"]
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise InvalidRequestError("fetch_pages: timeout must be a number of seconds > 0")
    if not isinstance(values["allow_private"], bool):
        raise InvalidRequestError("fetch_pages: allow_private must be True or False")
    networks: list[IPNetwork] = []
    for net in values["allow_networks"]:
        try:
            networks.append(ipaddress.ip_network(net, strict=False))
        except (TypeError, ValueError):
            raise InvalidRequestError(
                f"fetch_pages: bad network in allow_networks: {net!r}"
            ) from None
    return _Settings(
        max_chars=values["max_chars"],
        max_bytes=values["max_bytes"],
        max_redirects=values["max_redirects"],
        timeout=float(timeout),
        allow_private=values["allow_private"],
        allow_networks=tuple(networks),
        resolver=values["resolver"] or system_resolver,
        concurrency=values["concurrency"],
        extractor=check_extractor(values["extractor"]),
    )


async def fetch_pages(
    results: Iterable[Any],
    *,
    http_client: httpx.AsyncClient | None = None,
    **options: Unpack[FetchOptions],
) -> list[FetchedPage]:
    """Download each result's link and keep the page's main content as text.

    Args:
        results: Results of any shape (their ``link``/``url`` is fetched).
        http_client: An ``httpx.AsyncClient`` to use (not closed here); by default one is
            created for this call (no keep-alive, no proxy from the environment) and closed.
        **options: The settings of `FetchOptions` (``max_chars``, ``allow_private``,
            ``timeout``...).

    Returns:
        One `FetchedPage` per result, in order. A refused or failed page keeps the
        result's snippet and says why in ``error``.

    Raises:
        InvalidRequestError: A bad argument (before any network call).
        ImportError: ``extractor="trafilatura"`` without the ``fetch`` extra.
    """
    settings = fetch_settings(options)
    items = list(results)
    if not items:
        return []
    gate = asyncio.Semaphore(settings.concurrency)

    async def one(client: httpx.AsyncClient, item: Any) -> FetchedPage:
        async with gate:
            return await _fetch_one(client, item, settings)

    if http_client is not None:
        return list(await asyncio.gather(*(one(http_client, it) for it in items)))
    # No keep-alive: a pooled connection to an IP address would otherwise be reused for
    # another host name served from the same address, skipping that name's TLS check.
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(settings.timeout),
        trust_env=False,
        limits=httpx.Limits(max_keepalive_connections=0),
    ) as client:
        return list(await asyncio.gather(*(one(client, it) for it in items)))


def fetch_pages_sync(
    results: Iterable[Any],
    *,
    http_client: httpx.AsyncClient | None = None,
    **options: Unpack[FetchOptions],
) -> list[FetchedPage]:
    """Blocking twin of `fetch_pages` (same arguments, same result).

    Raises:
        InvalidRequestError: A bad argument.
        RuntimeError: Called inside a running event loop (await `fetch_pages` there).
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(fetch_pages(results, http_client=http_client, **options))
    raise RuntimeError("fetch_pages_sync was called inside a running event loop; await fetch_pages")
