"""Hosted rerankers against servers that lie beyond test_hosted's cases (issue #33, 2nd attack).

Scores that are not finite numbers (Infinity, 1e400 read as inf, a 400-digit integer that no
float holds, true, null, a list, a quoted number) and indexes that are not plain in-range
integers (1.0, "1", 10**30, null) are refused as `ResponseFormatError`, as are answers
nested too deeply to parse and many more results than texts; finite scores outside a
documented range pass unchanged (TEI returns raw logits).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.rerank.fake_rerank import Scripted, fake_rerank
from tests.rerank.test_hosted import APIS, KEY, TEXTS, make, scores
from textsearch.errors import ResponseFormatError

BAD_SCORES = [b"Infinity", b"-Infinity", b"1e400", b"1" + b"0" * 400, b"true", b"null"]
BAD_SCORES += [b"[1]", b'"0.5"']
BAD_INDEXES = [b"1.0", b'"1"', b"1" + b"0" * 30, b"1" + b"0" * 400, b"null"]


def _body(api: str, first_index: bytes = b"0", first_score: bytes = b"0.1") -> bytes:
    key = b'"score"' if api == "tei" else b'"relevance_score"'
    items = [b'{"index": %s, %s: %s}' % (first_index, key, first_score)]
    items += [b'{"index": %d, %s: 0.1}' % (i, key) for i in range(1, len(TEXTS))]
    joined = b", ".join(items)
    if api == "tei":
        return b"[" + joined + b"]"
    if api == "voyage":
        return b'{"object": "list", "data": [' + joined + b"]}"
    return b'{"results": [' + joined + b"]}"


def _answer(api: str, raw: bytes) -> Any:
    with fake_rerank(api, key=KEY) as server:
        server.script(Scripted(200, raw))
        return scores(make(api, server.url), "sync")


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("score", BAD_SCORES, ids=lambda s: s[:12].decode())
def test_a_score_that_is_no_finite_number_is_refused(api: str, score: bytes) -> None:
    with pytest.raises(ResponseFormatError):
        _answer(api, _body(api, first_score=score))


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("index", BAD_INDEXES, ids=lambda s: s[:12].decode())
def test_an_index_that_is_no_plain_integer_in_range_is_refused(api: str, index: bytes) -> None:
    with pytest.raises(ResponseFormatError):
        _answer(api, _body(api, first_index=index))


@pytest.mark.parametrize("api", APIS)
def test_deep_json_and_a_flood_of_results_are_refused(api: str) -> None:
    with pytest.raises(ResponseFormatError):
        _answer(api, b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(ResponseFormatError):
        _answer(api, _body(api, first_score=b"[" * 50_000 + b"]" * 50_000))
    key = b'"score"' if api == "tei" else b'"relevance_score"'
    flood = b", ".join(b'{"index": %d, %s: 0.1}' % (i % 5, key) for i in range(100_000))
    wrapped = {"tei": b"[%s]", "voyage": b'{"data": [%s]}'}.get(api, b'{"results": [%s]}')
    with pytest.raises(ResponseFormatError):
        _answer(api, wrapped % flood)


@pytest.mark.parametrize("api", APIS)
def test_finite_scores_out_of_a_documented_range_pass_unchanged(api: str) -> None:
    got = _answer(api, _body(api, first_score=b"-5.5"))
    assert got[0] == -5.5 and got[1:] == [0.1] * (len(TEXTS) - 1)
