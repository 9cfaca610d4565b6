"""Real Azure AI Search answers (``../shared/payloads/azure``, see its SOURCES.md) served by the
loopback emulator to the real SDK clients, async and sync: every success shape maps to
results, every error shape to its documented error; BOM, nulls and unknown fields are
tolerated, and no highlight markup reaches the text a model reads."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.connectors.azure.test_azure_ai_search import make, run
from tests.emulators import azure_faults
from tests.emulators.azure_search import AzureSearchEmulator
from textsearch import (
    BadRequestError,
    NotFoundError,
    PermissionDeniedError,
    ServiceUnavailableError,
    TextSearchError,
)

# The repo is checked out with shared/ next to it; TEXTSEARCH_PAYLOADS points elsewhere.
PAYLOADS = (
    Path(os.environ["TEXTSEARCH_PAYLOADS"]) / "azure"
    if os.environ.get("TEXTSEARCH_PAYLOADS")
    else Path(__file__).resolve().parents[3] / ".." / "shared" / "payloads" / "azure"
)
pytestmark = pytest.mark.skipif(
    not PAYLOADS.is_dir(), reason=f"real payloads not checked out next to the repo ({PAYLOADS})"
)
_MARKUP = re.compile(r"</?\w+[^<>]*>")


def _files(suffix: str) -> list[str]:
    return sorted(p.name for p in PAYLOADS.glob(f"*{suffix}")) if PAYLOADS.is_dir() else []


def _yaml_body(text: str) -> str:
    """The response body of a vcrpy recording (a folded single-quoted YAML scalar)."""
    start = text.index("  response:\n")
    block = text[text.index("string: '", start) + len("string: '") :]
    lines: list[str] = []
    for line in block.split("\n"):
        lines.append(line.strip())
        if line.rstrip().endswith("'") and not line.rstrip().endswith("''"):
            break
    folded = " ".join(lines)
    return folded[: folded.rindex("'")].replace("''", "'")


def answers_of(name: str) -> list[tuple[int, bytes, dict[str, str]]]:
    """(status, body, headers) of each answer stored in one payload file."""
    path = PAYLOADS / name
    if name.endswith(".yaml"):
        return [(200, _yaml_body(path.read_text(encoding="utf-8")).encode(), {})]
    data = json.loads(path.read_text(encoding="utf-8"))
    if "responses" in data:  # an azure-rest-api-specs example: {"200": {"body": {...}}, ...}
        return [
            (int(status), json.dumps(answer["body"]).encode(), {})
            for status, answer in data["responses"].items()
            if "body" in answer
        ]
    headers = {k: v for k, v in (data.get("headers") or {}).items() if k.lower() == "content-type"}
    return [(int(data["status"]), data["body_text"].encode("utf-8"), headers)]


@pytest.fixture
def emulator() -> Iterator[AzureSearchEmulator]:
    with AzureSearchEmulator() as emu:
        yield emu


@pytest.fixture(params=["async", "sync"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _search(
    emulator: AzureSearchEmulator,
    mode: str,
    status: int,
    body: bytes,
    headers: dict[str, str],
    **connector: Any,
) -> Any:
    payload = json.loads(body.decode("utf-8-sig")) if body.strip() else {}
    items = payload.get("value") or [] if isinstance(payload, dict) else []
    top = max(1, len(items))  # one page: the spec examples also carry nextPageParameters
    emulator.answer_next(azure_faults.raw_answer(status, body, headers), times=4)
    return run(
        mode,
        make(emulator, **connector),
        "get_search_results",
        top=top,
        include_total_count=True,
    ), payload


def _check_success(results: Any, payload: dict[str, Any]) -> None:
    items = payload.get("value") or []
    assert len(results) == len(items)
    for doc, raw in zip(results, items, strict=True):
        assert doc.fields == {k: v for k, v in raw.items() if not k.startswith("@")}
        assert doc.score == raw.get("@search.score")
        if raw.get("@search.rerankerScore") is not None:
            assert doc.reranker_score == pytest.approx(raw["@search.rerankerScore"])
    count = payload.get("@odata.count")
    assert results.total_count == count


def _text_results(emulator: AzureSearchEmulator, mode: str, body: bytes, **kw: Any) -> Any:
    payload = json.loads(body.decode("utf-8-sig"))
    emulator.answer_next(azure_faults.raw_answer(200, body), times=4)
    return run(
        mode,
        make(emulator, **kw),
        "get_text_search_results",
        top=max(1, len(payload.get("value") or [])),
    )


SUCCESS = [
    n
    for n in _files(".json") + _files(".yaml")
    if any(200 <= s < 300 for s, _, _ in (answers_of(n) if PAYLOADS.is_dir() else []))
]
ERRORS = [n for n in _files(".json") if n not in SUCCESS]


@pytest.mark.parametrize("name", SUCCESS)
def test_every_real_success_answer_maps(
    emulator: AzureSearchEmulator, mode: str, name: str
) -> None:
    for status, body, headers in answers_of(name):
        results, payload = _search(emulator, mode, status, body, headers)
        _check_success(results, payload)


@pytest.mark.parametrize("name", SUCCESS)
def test_real_success_answers_with_a_bom_nulls_and_unknown_fields(
    emulator: AzureSearchEmulator, mode: str, name: str
) -> None:
    status, body, _ = answers_of(name)[0]
    payload = json.loads(body)
    payload["@search.somethingNew"] = {"nested": [1, None]}
    payload["@search.coverage"] = None
    for item in payload.get("value") or []:
        item["@search.captions"] = None
        item["@search.highlights"] = None
        item["@search.futureScore"] = 1.5
        item["note"] = None
    altered = b"\xef\xbb\xbf" + json.dumps(payload).encode()
    results, _ = _search(emulator, mode, status, altered, {})
    _check_success(results, payload)


@pytest.mark.parametrize("name", SUCCESS)
def test_no_markup_reaches_the_model(emulator: AzureSearchEmulator, mode: str, name: str) -> None:
    _, body, _ = answers_of(name)[0]
    payload = json.loads(body)
    # Semantic answers and captions come back with <em> in their highlights; put it in the
    # text as well, as a gateway or an older API version may do.
    for item in payload.get("value") or []:
        for caption in item.get("@search.captions") or []:
            caption["text"] = caption.get("highlights") or "<em>caption</em> text"
    for answer in payload.get("@search.answers") or []:
        answer["text"] = answer.get("highlights") or answer["text"]
    results = _text_results(
        emulator, mode, json.dumps(payload).encode(), query_type="semantic", answers=3
    )
    texts = [t for r in results for t in (r.name, r.value) if t]
    assert texts, "the payload should produce some text"
    for text in texts:
        assert not _MARKUP.search(text), text


def test_semantic_spec_example_maps_the_answer_to_its_document(
    emulator: AzureSearchEmulator, mode: str
) -> None:
    _, body, _ = answers_of("spec_2024-07-01_SearchIndexSearchDocumentsSemanticPost.json")[0]
    payload = json.loads(body)
    results = _text_results(emulator, mode, body, query_type="semantic", answers=1)
    answer = payload["@search.answers"][0]
    by_name = {r.name: r.value for r in results}
    first = payload["value"][0]
    assert first["id"] == answer["key"]
    assert by_name[first["title"]] == answer["text"]


EXPECTED_ERRORS: dict[str, tuple[type[TextSearchError], str]] = {
    "issue_azuredocs54546_503_throttled.json": (ServiceUnavailableError, "Reduce the rate"),
    "issue_llamaindex13513_400_filter_syntax.json": (
        BadRequestError,
        "Syntax error at position 62",
    ),
    "issue_mslearn19_400_select_unknown_field.json": (
        BadRequestError,
        "Could not find a property named 'url'",
    ),
    "issue_openaidemo232_403_empty_body.json": (PermissionDeniedError, "HTTP 403"),
    "issue_sk3015_404_index_not_found.json": (NotFoundError, "was not found"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_every_real_error_answer_maps(emulator: AzureSearchEmulator, mode: str, name: str) -> None:
    expected, fragment = EXPECTED_ERRORS[name]  # a new file needs its expectation here
    [(status, body, headers)] = answers_of(name)
    emulator.answer_next(azure_faults.raw_answer(status, body, headers), times=4)
    with pytest.raises(TextSearchError) as info:
        run(mode, make(emulator))
    error = info.value
    assert type(error) is expected
    assert fragment in str(error)
    assert error.status_code == status
    assert "\r" not in str(error) and "\n" not in str(error)


def test_the_yaml_recordings_hold_the_json_bodies() -> None:
    for name in _files(".yaml"):
        twin = json.loads((PAYLOADS / name.replace(".yaml", ".json")).read_text("utf-8"))
        assert answers_of(name)[0][1].decode() == twin["body_text"]


def test_a_partial_answer_206_maps_like_200(emulator: AzureSearchEmulator, mode: str) -> None:
    # The 2025-08-01-preview example documents the same body as a 206 (partial coverage).
    [(_, body, _)] = answers_of("spec_2025-08-01-preview_SearchIndexSearchDocumentsPost_200.json")
    results, payload = _search(emulator, mode, 206, body, {})
    _check_success(results, payload)
