"""The emulator itself, over raw HTTP (httpx): routes, auth, errors, filters, paging."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.emulators.azure_search import AzureSearchEmulator

KEY = {"api-key": "test-admin-key"}


@pytest.fixture
def emulator() -> Iterator[AzureSearchEmulator]:
    with AzureSearchEmulator() as emu:
        yield emu


@pytest.fixture
def http(emulator: AzureSearchEmulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=emulator.endpoint, timeout=5) as client:
        yield client


def _ids(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [d["id"] for d in response.json()["value"]]


@pytest.mark.parametrize(
    "path", ["/indexes/kb-docs/docs/search", "/indexes('kb-docs')/docs/search.post.search"]
)
def test_both_path_forms(http: httpx.Client, path: str) -> None:
    response = http.post(
        path, params={"api-version": "2024-07-01"}, headers=KEY, json={"search": "jitter"}
    )
    assert _ids(response) == ["doc-2"]


def test_api_version_is_required(http: httpx.Client) -> None:
    response = http.post("/indexes/kb-docs/docs/search", headers=KEY, json={})
    assert response.status_code == 400
    assert "api-version" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("headers", "status"),
    [({}, 401), ({"api-key": "wrong"}, 401), ({"api-key": "test-forbidden-key"}, 403)],
)
def test_auth(http: httpx.Client, headers: dict[str, str], status: int) -> None:
    response = http.post(
        "/indexes/kb-docs/docs/search",
        params={"api-version": "2024-07-01"},
        headers=headers,
        json={},
    )
    assert response.status_code == status
    assert set(response.json()["error"]) == {"code", "message"}


def test_unknown_index_is_404(http: httpx.Client) -> None:
    response = http.post(
        "/indexes/nope/docs/search", params={"api-version": "2024-07-01"}, headers=KEY, json={}
    )
    assert response.status_code == 404
    assert "'nope'" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("owner eq 'O''Brien'", ["doc-2", "doc-6"]),
        ("category ne 'ops' and year ge 2024", ["doc-3", "doc-6", "doc-9", "doc-10"]),
        ("rating gt 4.5 or rating lt 1.5", ["doc-5", "doc-6", "doc-9"]),
        ("rating eq null", ["doc-4"]),
        ("not (published eq true)", ["doc-4"]),
        (
            "published",
            ["doc-1", "doc-2", "doc-3", "doc-5", "doc-6", "doc-7", "doc-8", "doc-9", "doc-10"],
        ),
        ("tags/any(x: x eq 'retry') and year le 2023", ["doc-1"]),
        ("acl/any(a: search.in(a, 'u3|g-admin', '|'))", ["doc-4", "doc-5"]),
        ("search.in(owner, 'bob, carol')", ["doc-3", "doc-7"]),
        ("category eq 'x'') or (1 eq 1'", ["doc-5"]),
        ("tags/all(t: t ne 'python') and year eq 2020", ["doc-5"]),
    ],
)
def test_filter_subset_is_applied(http: httpx.Client, expression: str, expected: list[str]) -> None:
    response = http.post(
        "/indexes/kb-docs/docs/search",
        params={"api-version": "2024-07-01"},
        headers=KEY,
        json={"search": "*", "filter": expression, "select": "id"},
    )
    assert sorted(_ids(response)) == sorted(expected)


@pytest.mark.parametrize(
    ("expression", "fragment"),
    [
        ("categ eq 'x'", "Could not find a property named 'categ'"),
        ("content eq 'x'", "is not filterable"),
        ("year eq 'x'", "incompatible types"),
        ("(year eq 1", "Syntax error"),
        ("owner eq 'open", "Syntax error"),
        ("tags eq 'x'", "collection"),
    ],
)
def test_bad_filters_get_the_service_error_body(
    http: httpx.Client, expression: str, fragment: str
) -> None:
    response = http.post(
        "/indexes/kb-docs/docs/search",
        params={"api-version": "2024-07-01"},
        headers=KEY,
        json={"filter": expression},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == ""
    assert error["message"].startswith("Invalid expression: ")
    assert fragment in error["message"]
    assert error["message"].endswith("\r\nParameter name: $filter")


def test_paging_with_next_page_parameters(
    emulator: AzureSearchEmulator, http: httpx.Client
) -> None:
    emulator.add_index(
        "bulk",
        [
            {"name": "id", "type": "Edm.String", "key": True},
            {"name": "n", "type": "Edm.Int32", "filterable": True},
        ],
        [{"id": f"d{i:03d}", "n": i} for i in range(120)],
    )
    url, params = "/indexes/bulk/docs/search", {"api-version": "2024-07-01"}
    first = http.post(url, params=params, headers=KEY, json={"count": True}).json()
    assert len(first["value"]) == 50  # server page size without top
    assert first["@odata.count"] == 120
    assert first["@search.nextPageParameters"] == {"count": True, "skip": 50}
    assert "@odata.nextLink" in first
    third = http.post(url, params=params, headers=KEY, json={"skip": 100}).json()
    assert [d["id"] for d in third["value"]] == [f"d{i:03d}" for i in range(100, 120)]
    assert "@search.nextPageParameters" not in third
    # top up to 1000 comes in one page, like the service
    whole = http.post(url, params=params, headers=KEY, json={"top": 120}).json()
    assert len(whole["value"]) == 120 and "@search.nextPageParameters" not in whole


def test_scripted_faults_and_idempotence(emulator: AzureSearchEmulator, http: httpx.Client) -> None:
    emulator.fail_next(429, retry_after="3")
    url, params = "/indexes/kb-docs/docs/search", {"api-version": "2024-07-01"}
    throttled = http.post(url, params=params, headers=KEY, json={"search": "retry"})
    assert throttled.status_code == 429 and throttled.headers["Retry-After"] == "3"
    a = http.post(url, params=params, headers=KEY, json={"search": "retry", "count": True})
    b = http.post(url, params=params, headers=KEY, json={"search": "retry", "count": True})
    assert a.json() == b.json()
    emulator.fail_next(503)
    assert http.post(url, params=params, headers=KEY, json={}).status_code == 503
