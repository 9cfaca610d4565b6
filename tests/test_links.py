from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import textsearch
from textsearch._links import canonical_link, link_key
from textsearch.compose import canonical_link as from_compose


def test_importable_from_every_public_place() -> None:
    assert textsearch.canonical_link is canonical_link is from_compose


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # scheme and host lower-cased; default ports removed
        ("HTTPS://Example.COM:443/Path", "https://example.com/Path"),
        ("http://example.com:80/a", "http://example.com/a"),
        ("https://example.com:8443/a", "https://example.com:8443/a"),
        ("http://example.com:443/a", "http://example.com:443/a"),
        # empty path becomes "/"
        ("https://example.com", "https://example.com/"),
        ("https://example.com?x=1", "https://example.com/?x=1"),
        # fragment removed
        ("https://example.com/a#section-2", "https://example.com/a"),
        # tracking parameters removed, others keep order and spelling
        (
            "https://example.com/a?utm_source=news&b=2&UTM_Medium=x&a=1&gclid=z&fbclid=y",
            "https://example.com/a?b=2&a=1",
        ),
        ("https://example.com/a?msclkid=1&mc_eid=2&mc_cid=3", "https://example.com/a"),
        ("https://example.com/a?ref=home", "https://example.com/a?ref=home"),
        ("https://example.com/a?q=1&&q=2", "https://example.com/a?q=1&q=2"),
        # RFC 3986 §6.2.2.2: unreserved escapes decoded, other escapes upper-case hex
        ("https://example.com/%7euser/%41%2d%5F", "https://example.com/~user/A-_"),
        ("https://example.com/a%2fb?x=%3d", "https://example.com/a%2Fb?x=%3D"),
        # characters that must be escaped are
        ("https://example.com/caf\u00e9 menu", "https://example.com/caf%C3%A9%20menu"),
        # §6.2.2.3 dot segments
        ("https://example.com/a/./b/../c", "https://example.com/a/c"),
        ("https://example.com/../../x", "https://example.com/x"),
        # IDNA host, trailing dot
        ("https://B\u00fccher.example/", "https://xn--bcher-kva.example/"),
        ("https://example.com./a", "https://example.com/a"),
        # IPv6 literal kept in brackets
        ("http://[2001:DB8::1]:80/x", "http://[2001:db8::1]/x"),
        # userinfo kept (case-sensitive)
        ("https://User@Example.com/", "https://User@example.com/"),
        # whitespace around is not part of the link
        ("  https://example.com/a \n", "https://example.com/a"),
    ],
)
def test_canonical_link(url: str, expected: str) -> None:
    assert canonical_link(url) == expected


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "   ",
        "not a url",
        "/docs/a.md",
        "mailto:someone@example.com",
        "urn:isbn:0451450523",
        "http://[::1",
        "http://example.com:99999999/",
        "http://",
        "https://:80/",
        "\x00\ud800",
    ],
)
def test_junk_is_returned_stripped_and_never_raises(junk: str) -> None:
    assert canonical_link(f" {junk} ") == junk.strip()


def test_not_a_string_never_raises() -> None:
    assert canonical_link(None) == "None"  # type: ignore[arg-type]


@given(st.text(max_size=60))
def test_never_raises_and_is_idempotent(text: str) -> None:
    once = canonical_link(text)
    assert canonical_link(once) == once


@given(
    st.sampled_from(["http", "HTTPS"]),
    st.from_regex(r"[A-Za-z0-9]{1,10}\.(com|org)", fullmatch=True),
    st.lists(st.from_regex(r"[A-Za-z0-9~_.-]{0,8}", fullmatch=True), max_size=4),
)
def test_urls_are_idempotent(scheme: str, host: str, segments: list[str]) -> None:
    url = f"{scheme}://{host}/" + "/".join(segments) + "?utm_source=x&k=v#f"
    once = canonical_link(url)
    assert canonical_link(once) == once
    assert "utm_source" not in once and "#" not in once


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("http://example.com/a", "https://example.com/a", True),
        ("https://example.com/a/", "https://example.com/a", True),
        ("https://example.com/", "https://example.com", True),
        ("https://Example.com/a?utm_source=x#top", "https://example.com/a", True),
        ("https://example.com/a?id=1", "https://example.com/a?id=2", False),
        ("https://example.com/A", "https://example.com/a", False),
        ("https://www.example.com/a", "https://example.com/a", False),
        ("ftp://example.com/a", "https://example.com/a", False),
    ],
)
def test_link_key(a: str, b: str, same: bool) -> None:
    assert (link_key(a) == link_key(b)) is same
