"""The cheap text paths of the web connectors give exactly what the general ones give."""

from __future__ import annotations

import html

from hypothesis import given
from hypothesis import strategies as st

from textsearch.connectors._web import _unescape, unescaped_text

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
