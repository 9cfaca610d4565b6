"""The cheap text paths of the web connectors give exactly what the general ones give."""

from __future__ import annotations

import html
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from textsearch._http._checks import _unescape, decode_json
from textsearch.connectors.web._base import unescaped_text

_PIECES = st.sampled_from(
    ["&amp;", "&", "amp;", "&lt;", "&#39;", "&#x27;", "&quot", "&amp", ";", "#", "a", " ", "é"]
)


@given(st.lists(_PIECES, max_size=12).map("".join))
def test_unescape_is_html_unescape(text: str) -> None:
    assert _unescape(text) == html.unescape(text)


@given(st.text(max_size=40))
def test_unescape_is_html_unescape_on_any_text(text: str) -> None:
    assert _unescape(text) == html.unescape(text)


def test_unescaped_text_removes_markers_decorations_and_entities() -> None:
    assert unescaped_text("\ue000AT&amp;T\ue001 <strong>news</strong> &amp;&amp; a &lt; b") == (
        "AT&T news && a < b"
    )


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(_JSON, st.booleans())
def test_decode_json_is_json_loads(value: object, ascii_only: bool) -> None:
    body = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    assert decode_json(body) == json.loads(body)


@pytest.mark.parametrize(
    "body",
    [
        b'\xef\xbb\xbf{"a": 1}',  # a byte-order mark
        '{"a": "é"}'.encode("utf-16"),
        '{"a": "é"}'.encode("utf-32-le"),
        b'{"a": "\\ud800"}',  # an escaped lone surrogate
        b"[" * 500 + b"]" * 500,  # deeper than pydantic-core goes
        b'{"a": NaN, "b": -Infinity, "c": 1e999}',
        b'{"a": 1, "a": 2}',
    ],
)
def test_decode_json_takes_what_json_loads_takes(body: bytes) -> None:
    decoded, expected = decode_json(body), json.loads(body)
    assert repr(decoded) == repr(expected)  # repr: NaN is not equal to itself


@pytest.mark.parametrize("body", [b"", b"{", b"not json", b"\xff\xfe\x00", b'{"a": 1} x'])
def test_decode_json_refuses_what_json_loads_refuses(body: bytes) -> None:
    with pytest.raises((ValueError, UnicodeDecodeError)):
        json.loads(body)
    with pytest.raises((ValueError, UnicodeDecodeError)):
        decode_json(body)
