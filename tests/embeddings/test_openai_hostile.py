"""OpenAIEmbedder fed hostile bodies (issue #24: new code attacked as the old was).

Whatever a server sends back — any JSON, any status, BOM, nulls, huge numbers, wrong
nesting — the embedder raises an error of the documented tree (or returns valid vectors),
and its key never appears in a message.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import respx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from textsearch.embeddings import OpenAIEmbedder
from textsearch.errors import TextSearchError

KEY = "sk-proj-HOSTILE0123456789abcdefXYZ"
URL = "https://api.openai.com/v1/embeddings"

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(
            st.sampled_from(
                [
                    "data",
                    "index",
                    "embedding",
                    "error",
                    "object",
                    "model",
                    "message",
                    "code",
                    "type",
                ]
            )
            | st.text(max_size=8),
            children,
            max_size=5,
        )
    ),
    max_leaves=30,
)

shaped = st.fixed_dictionaries(
    {
        "data": st.lists(
            st.fixed_dictionaries(
                {"index": json_values, "embedding": json_values, "object": json_values}
            ),
            max_size=4,
        )
    }
)


_EMBEDDERS: list[OpenAIEmbedder] = []


def _shared_embedder() -> OpenAIEmbedder:
    if not _EMBEDDERS:
        _EMBEDDERS.append(OpenAIEmbedder(api_key=KEY, max_retries=0))
    return _EMBEDDERS[0]


def _body(value: Any) -> bytes:
    return json.dumps(value, allow_nan=True).encode()


@settings(
    max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    body=st.one_of(
        json_values.map(_body),
        shaped.map(_body),
        st.binary(max_size=64),
        st.just(b"\xef\xbb\xbf" + _body({"data": []})),
    ),
    status=st.sampled_from([200, 200, 200, 400, 401, 404, 429, 500, 503]),
)
def test_any_body_gives_vectors_or_a_documented_error(body: bytes, status: int) -> None:
    # One embedder for every example: building an HTTP client (its TLS context) per example
    # is what made 300 examples outlast the test timeout on a loaded machine.
    embedder = _shared_embedder()
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL).mock(return_value=httpx.Response(status, content=body))
        try:
            vectors = embedder.embed_documents_sync(["a", "b"])
        except TextSearchError as exc:
            assert KEY not in str(exc) and KEY not in repr(exc)
        else:
            assert len(vectors) == 2 and len({len(v) for v in vectors}) == 1
        assert route.called  # the answer came from the mock, not from a failed connection
