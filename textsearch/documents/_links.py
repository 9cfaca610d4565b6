"""Links of passages: a file's link plus a fragment, and the host a link names."""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlsplit

__all__ = ["link_host", "passage_link"]


def link_host(link: str | None) -> str | None:
    if not link or "://" not in link:
        return None
    # urlsplit finds the host in what comes before the first "/", "?" or "#" after "://";
    # parsing only that prefix, cached, is what keeps it off the indexing profile.
    scheme, _, rest = link.partition("://")
    end = len(rest)
    for mark in "/?#":
        found = rest.find(mark, 0, end)
        if found != -1:
            end = found
    return _host_of(scheme + "://" + rest[:end])


@lru_cache(maxsize=4096)
def _host_of(prefix: str) -> str | None:
    try:
        host = urlsplit(prefix).hostname
    except ValueError:
        return None
    return host.lower() if host else None


def passage_link(link: str | None, anchor: str | None, line: int | None) -> str | None:
    if not link:
        return None
    if "#" in link:  # the document's link names its place already (read_path's sections)
        return link
    if anchor:
        return f"{link}#{anchor}"
    if line and line > 1:
        return f"{link}#L{line}"
    return link
