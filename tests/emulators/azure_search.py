"""A loopback emulator of the Azure AI Search "Search Documents" call.

It answers ``POST /indexes/{name}/docs/search`` and the OData-key form the SDK sends,
``POST /indexes('{name}')/docs/search.post.search``, on 127.0.0.1, in a thread, the way the
service does (as far as the textsearch connector needs, see shared/PROVIDERS.md section 3):

* ``api-version`` query parameter required; ``api-key`` header checked (401 when wrong, 403 for
  a configured read-forbidden key), or ``Authorization: Bearer <token>`` for configured tokens;
* 404 for an unknown index; documents from a JSON fixture (``fixtures/azure_search_indexes.json``);
* ``search`` matched by simple term matching (``*``/empty = all; ``searchMode`` any/all;
  ``searchFields``); ``queryType`` simple/full/semantic (semantic: reranker score, extractive
  captions and answers); ``vectorQueries`` (``kind: vector`` and, for fields with a vectorizer,
  ``kind: text``) with a toy embedding, fused with text hits by reciprocal rank (hybrid);
* the OData ``$filter`` subset, really parsed and applied (``eq ne gt ge lt le and or not``,
  parentheses, ``null true false``, numbers, strings with doubled quotes,
  ``coll/any(x: ...)``, ``coll/all(x: ...)``, ``search.in(x, 'a,b', ',')``), type-checked
  against the index schema: an unknown or non-filterable field, a type mismatch or a syntax
  error gives 400 with the service's error body;
* ``top``, ``skip``, ``count``, ``select``, ``highlight``; server-side paging with
  ``@odata.nextLink`` + ``@search.nextPageParameters`` (page size 50 without ``top``; pages of
  at most ``max_page_size``, 1000 like the service, when ``top`` is larger);
* scripted faults: any status (429 with ``Retry-After``, 503 ...), and slow answers.

The handler is a pure function of the request (apart from scripted faults), so repeated
identical requests (the SDK repeats the first page when ``get_count()`` comes first) get the
same answer. Every request is recorded in :attr:`AzureSearchEmulator.requests`.
"""

from __future__ import annotations

import json
import math
import re
import threading
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from tests.emulators.azure_odata import ODataError, ODataFilter

FIXTURE = Path(__file__).parent / "fixtures" / "azure_search_indexes.json"
API_VERSIONS = frozenset({"2023-11-01", "2024-07-01", "2025-09-01", "2026-04-01"})
_KNOWN_BODY_KEYS = frozenset(
    {
        "search",
        "searchMode",
        "queryType",
        "semanticConfiguration",
        "answers",
        "captions",
        "semanticErrorHandling",
        "semanticMaxWaitInMilliseconds",
        "semanticQuery",
        "filter",
        "orderby",
        "select",
        "searchFields",
        "highlight",
        "highlightPreTag",
        "highlightPostTag",
        "top",
        "skip",
        "count",
        "facets",
        "scoringProfile",
        "scoringParameters",
        "scoringStatistics",
        "sessionId",
        "minimumCoverage",
        "vectorQueries",
        "vectorFilterMode",
        "debug",
    }
)
_WORD = re.compile(r"\w+")
_SENTENCE = re.compile(r"[^.!?]+[.!?]?")


# -- schema ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldDef:
    name: str
    type: str
    key: bool = False
    searchable: bool = False
    filterable: bool = False
    retrievable: bool = True
    dimensions: int | None = None
    source: str | None = None
    vectorizer: bool = False

    @property
    def is_collection(self) -> bool:
        return self.type.startswith("Collection(")

    @property
    def element_type(self) -> str:
        return self.type[len("Collection(") : -1] if self.is_collection else self.type


@dataclass
class IndexDef:
    name: str
    fields: dict[str, FieldDef]
    documents: list[dict[str, Any]]
    semantic_configurations: tuple[str, ...] = ()
    default_semantic_configuration: str | None = None

    @property
    def key(self) -> str:
        return next(f.name for f in self.fields.values() if f.key)


def toy_embedding(text: str | None, dimensions: int = 16) -> list[float]:
    """A deterministic bag-of-words embedding (hashed words, L2-normalized)."""
    vector = [0.0] * dimensions
    for word in _WORD.findall((text or "").lower()):
        vector[zlib.crc32(word.encode()) % dimensions] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


def load_indexes(data: Mapping[str, Any]) -> dict[str, IndexDef]:
    indexes: dict[str, IndexDef] = {}
    for name, spec in data["indexes"].items():
        fields = {f["name"]: FieldDef(**f) for f in spec["fields"]}
        docs = [dict(d) for d in spec["documents"]]
        for fdef in fields.values():
            if fdef.dimensions:
                for doc in docs:
                    if fdef.name not in doc:
                        src = doc.get(fdef.source or "") if fdef.source else None
                        doc[fdef.name] = toy_embedding(src, fdef.dimensions)
        indexes[name] = IndexDef(
            name,
            fields,
            docs,
            tuple(spec.get("semantic_configurations", ())),
            spec.get("default_semantic_configuration"),
        )
    return indexes


# -- OData $filter: tests/emulators/azure_odata.py ---------------------------------------


# -- search ---------------------------------------------------------------------------------


class ServiceError(Exception):
    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})


def _bad_request(message: str) -> ServiceError:
    return ServiceError(400, message)


def _csv(value: Any, name: str) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise _bad_request(f"The request is invalid. Details: '{name}' must be a string.")
    return [v.strip() for v in value.split(",") if v.strip()]


def _terms(text: str | None) -> list[str]:
    return [w.lower() for w in _WORD.findall(text or "")]


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a)) or 1.0
    nb = math.sqrt(sum(y * y for y in b)) or 1.0
    return dot / (na * nb)


def _flag(option: str | None, name: str) -> bool:
    return bool(option) and str(option).split("|", 1)[0].strip().lower() == name


def _option_int(option: str | None, key: str, default: int) -> int:
    for part in str(option or "").split("|")[1:]:
        for item in part.split(","):
            if item.strip().lower().startswith(key + "-"):
                try:
                    return int(item.strip()[len(key) + 1 :])
                except ValueError:
                    raise _bad_request(f"Invalid value for '{key}'.") from None
    return default


def _option_highlight(option: str | None) -> bool:
    for part in str(option or "").split("|")[1:]:
        if part.strip().lower() == "highlight-false":
            return False
    return True


def run_search(
    index: IndexDef,
    body: Mapping[str, Any],
    *,
    base_url: str,
    api_version: str,
    page_size: int = 50,
    max_page_size: int = 1000,
) -> dict[str, Any]:
    """Answer one Search Documents request body; raise ServiceError for a 4xx."""
    unknown = sorted(set(body) - _KNOWN_BODY_KEYS)
    if unknown:
        raise _bad_request(
            f"The request is invalid. Details: The parameter '{unknown[0]}' in the request "
            "payload is not a valid parameter for the operation 'search'."
        )
    top, skip = body.get("top"), body.get("skip") or 0
    for name, value in (("top", top), ("skip", skip)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, int) or value < 0
        ):
            raise _bad_request(
                f"The request is invalid. Details: '{name}' must be a non-negative integer."
            )
    if skip > 100_000:
        raise _bad_request("The request is invalid. Details: skip must be at most 100000.")

    fields = index.fields
    select = _csv(body.get("select"), "select")
    for name in select or []:
        if name != "*" and name not in fields:
            raise _bad_request(
                f"Invalid expression: Could not find a property named '{name}' on type "
                "'search.document'.\r\nParameter name: $select"
            )
    searchable = [f.name for f in fields.values() if f.searchable]
    search_fields = _csv(body.get("searchFields"), "searchFields") or searchable
    for name in search_fields:
        fdef = fields.get(name)
        if fdef is None or not fdef.searchable:
            raise _bad_request(
                f"The field '{name}' in the search field list is not searchable.\r\n"
                "Parameter name: searchFields"
            )
    highlight = _csv(body.get("highlight"), "highlight") or []
    for name in highlight:
        fdef = fields.get(name)
        if fdef is None or not fdef.searchable:
            raise _bad_request(
                f"Invalid expression: The field '{name}' is not searchable and cannot be "
                "highlighted.\r\nParameter name: highlight"
            )

    docs = index.documents
    filter_text = body.get("filter")
    if filter_text is not None:
        try:
            parsed = ODataFilter(str(filter_text), index)
        except ODataError as exc:
            raise _bad_request(f"Invalid expression: {exc}\r\nParameter name: $filter") from None
        docs = [d for d in docs if parsed.matches(d)]

    query_type = body.get("queryType") or "simple"
    if query_type not in ("simple", "full", "semantic"):
        raise _bad_request(f"The request is invalid. Details: unknown queryType '{query_type}'.")
    if query_type == "semantic":
        config = body.get("semanticConfiguration") or index.default_semantic_configuration
        if config is None:
            raise _bad_request(
                "The request is invalid. Details: semanticConfiguration is required because the "
                "index has no default semantic configuration."
            )
        if config not in index.semantic_configurations:
            raise _bad_request(
                f"The request is invalid. Details: Unknown semantic configuration '{config}'."
            )

    search_text = body.get("search")
    terms = [] if search_text in (None, "*") else _terms(search_text)
    mode_all = str(body.get("searchMode") or "any").lower() == "all"
    has_text_part = "search" in body or not body.get("vectorQueries")

    text_ranked: list[tuple[dict[str, Any], float]] = []
    if has_text_part:
        for doc in docs:
            if not terms:
                text_ranked.append((doc, 1.0))
                continue
            words = [
                w.lower()
                for f in search_fields
                for t in _texts(doc.get(f))
                for w in _WORD.findall(t)
            ]
            hits = [words.count(t) for t in terms]
            ok = all(hits) if mode_all else any(hits)
            if ok:
                text_ranked.append((doc, float(sum(hits))))
        text_ranked.sort(key=lambda item: -item[1])

    vector_lists: list[list[tuple[dict[str, Any], float]]] = []
    for vq in body.get("vectorQueries") or []:
        vector_lists.append(_vector_hits(index, docs, vq))

    if vector_lists:
        fused: dict[str, float] = {}
        by_key = {d[index.key]: d for d in docs}
        for ranked in [text_ranked, *vector_lists] if has_text_part else vector_lists:
            for rank, (doc, _score) in enumerate(ranked, start=1):
                key = doc[index.key]
                fused[key] = fused.get(key, 0.0) + 1.0 / (60 + rank)
        ranked_all = sorted(((by_key[k], s) for k, s in fused.items()), key=lambda item: -item[1])
    else:
        ranked_all = text_ranked

    total = len(ranked_all)
    limit = min(top, max_page_size) if top is not None else page_size
    wanted = top if top is not None else None
    page = ranked_all[skip : skip + limit]
    if wanted is not None:
        page = page[:wanted]

    semantic = query_type == "semantic"
    captions_on = semantic and _flag(body.get("captions"), "extractive")
    caption_hl = _option_highlight(body.get("captions"))
    pre, post = body.get("highlightPreTag") or "<em>", body.get("highlightPostTag") or "</em>"
    value: list[dict[str, Any]] = []
    for doc, score in page:
        item: dict[str, Any] = {"@search.score": round(score, 6)}
        if semantic:
            item["@search.rerankerScore"] = round(min(4.0, 1.0 + score), 6)
        if highlight and terms:
            marks = {}
            for name in highlight:
                frags = [
                    _mark(t, terms, pre, post) for t in _texts(doc.get(name)) if _has_term(t, terms)
                ]
                if frags:
                    marks[name] = frags
            if marks:
                item["@search.highlights"] = marks
        if captions_on:
            text = _caption(doc, searchable, terms)
            if text:
                item["@search.captions"] = [
                    {
                        "text": text,
                        "highlights": _mark(text, terms, "<em>", "</em>") if caption_hl else None,
                    }
                ]
        for name, fdef in fields.items():
            if select and "*" not in select:
                if name not in select:
                    continue
            elif not fdef.retrievable:
                continue
            if name in doc:
                item[name] = doc[name]
        value.append(item)

    result: dict[str, Any] = {}
    if body.get("count"):
        result["@odata.count"] = total
    if semantic and _flag(body.get("answers"), "extractive"):
        count = _option_int(body.get("answers"), "count", 1)
        answers = []
        for doc, _score in ranked_all[:count]:
            text = _caption(doc, searchable, terms)
            if text and terms and _has_term(text, terms):
                answers.append(
                    {
                        "key": doc[index.key],
                        "text": text,
                        "highlights": _mark(text, terms, "<em>", "</em>"),
                        "score": 0.9,
                    }
                )
        result["@search.answers"] = answers
    result["value"] = value

    shown_until = skip + len(page)
    remaining_wanted = (top - len(page)) if top is not None else None
    if (
        shown_until < total
        and len(page) == limit
        and (remaining_wanted is None or remaining_wanted > 0)
    ):
        next_params = dict(body)
        next_params["skip"] = shown_until
        if remaining_wanted is not None:
            next_params["top"] = remaining_wanted
        result["@odata.nextLink"] = (
            f"{base_url}/indexes('{index.name}')/docs/search.post.search?api-version={api_version}"
        )
        result["@search.nextPageParameters"] = next_params
    return result


def _vector_hits(
    index: IndexDef, docs: list[dict[str, Any]], vq: Mapping[str, Any]
) -> list[tuple[dict[str, Any], float]]:
    kind = vq.get("kind")
    names = _csv(vq.get("fields"), "fields") or []
    if not names:
        raise _bad_request("The request is invalid. Details: a vector query needs 'fields'.")
    fdefs = []
    for name in names:
        fdef = index.fields.get(name)
        if fdef is None or not fdef.dimensions:
            raise _bad_request(
                f"The request is invalid. Details: The field '{name}' is not a vector field."
            )
        fdefs.append(fdef)
    if kind == "vector":
        vector = vq.get("vector")
        if not isinstance(vector, list) or not all(isinstance(v, (int, float)) for v in vector):
            raise _bad_request(
                "The request is invalid. Details: 'vector' must be a list of numbers."
            )
        for fdef in fdefs:
            if len(vector) != fdef.dimensions:
                raise _bad_request(
                    f"The request is invalid. Details: The vector field '{fdef.name}' has "
                    f"{fdef.dimensions} dimensions but the query vector has {len(vector)}."
                )
        query_vec = [float(v) for v in vector]
    elif kind == "text":
        for fdef in fdefs:
            if not fdef.vectorizer:
                raise _bad_request(
                    "The request is invalid. Details: The field "
                    f"'{fdef.name}' has no vectorizer configured, so a text vector query "
                    "cannot be vectorized."
                )
        query_vec = toy_embedding(str(vq.get("text") or ""), fdefs[0].dimensions or 16)
    else:
        raise _bad_request(f"The request is invalid. Details: unknown vector query kind '{kind}'.")
    k = vq.get("k") or 50
    scored = []
    for doc in docs:
        best = max(_cosine(query_vec, doc.get(f.name) or []) for f in fdefs)
        if best > 0:
            scored.append((doc, best))
    scored.sort(key=lambda item: -item[1])
    return scored[:k]


def _has_term(text: str, terms: list[str]) -> bool:
    return any(w.lower() in terms for w in _WORD.findall(text))


def _mark(text: str, terms: list[str], pre: str, post: str) -> str:
    return _WORD.sub(
        lambda m: f"{pre}{m.group()}{post}" if m.group().lower() in terms else m.group(), text
    )


def _caption(doc: Mapping[str, Any], searchable: list[str], terms: list[str]) -> str | None:
    first: str | None = None
    for name in searchable:
        for text in _texts(doc.get(name)):
            for sentence in _SENTENCE.findall(text):
                sentence = sentence.strip()
                if not sentence:
                    continue
                if first is None and name != "title":
                    first = sentence
                if terms and _has_term(sentence, terms) and name != "title":
                    return sentence
    return first


# -- HTTP server ----------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass
class Fault:
    """A scripted answer for the next matching request(s)."""

    status: int | None = None  # None: answer normally (after ``delay``)
    retry_after: str | None = None
    delay: float = 0.0
    times: int = 1
    body: dict[str, Any] | None = None
    raw: bytes | None = None  # sent as is (malformed JSON, empty body ...)
    # Writes the whole answer itself, on the wire (drips, resets, redirects, bombs): see
    # tests/emulators/azure_faults.py.
    writer: Callable[[BaseHTTPRequestHandler], None] | None = None


_PATH_PLAIN = re.compile(r"^/indexes/([^/()']+)/docs/search$")
_PATH_ODATA = re.compile(r"^/indexes\('([^']*)'\)/docs/search\.post\.search$")


@dataclass
class AzureSearchEmulator:
    """The emulator; use as a context manager or call :meth:`start`/:meth:`stop`."""

    fixture: Path | Mapping[str, Any] = FIXTURE
    api_key: str = "test-admin-key"
    forbidden_keys: tuple[str, ...] = ("test-forbidden-key",)
    bearer_tokens: tuple[str, ...] = ("test-bearer-token",)
    page_size: int = 50
    max_page_size: int = 1000
    service_name: str = "emulator"
    requests: list[RecordedRequest] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)

    def __post_init__(self) -> None:
        data = (
            json.loads(Path(self.fixture).read_text(encoding="utf-8"))
            if isinstance(self.fixture, (str, Path))
            else self.fixture
        )
        self.indexes = load_indexes(data)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # lifecycle ---------------------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        assert self._server is not None, "emulator not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> AzureSearchEmulator:
        server = _QuietServer(("127.0.0.1", 0), _make_handler(self))
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever,
            kwargs={"poll_interval": 0.02},
            name="azure-search-emulator",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None

    def __enter__(self) -> AzureSearchEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # scripting ---------------------------------------------------------------------------

    def add_index(
        self,
        name: str,
        fields: list[dict[str, Any]],
        documents: list[dict[str, Any]],
        **extra: Any,
    ) -> None:
        self.indexes.update(
            load_indexes({"indexes": {name: {"fields": fields, "documents": documents, **extra}}})
        )

    def fail_next(
        self,
        status: int,
        *,
        retry_after: str | None = None,
        times: int = 1,
        body: dict[str, Any] | None = None,
        raw: bytes | None = None,
    ) -> None:
        with self._lock:
            self.faults.append(
                Fault(status=status, retry_after=retry_after, times=times, body=body, raw=raw)
            )

    def answer_next(
        self, writer: Callable[[BaseHTTPRequestHandler], None], *, times: int = 1
    ) -> None:
        """Let ``writer`` write the next answer(s) byte for byte."""
        with self._lock:
            self.faults.append(Fault(writer=writer, times=times))

    def delay_next(self, seconds: float, *, times: int = 1) -> None:
        with self._lock:
            self.faults.append(Fault(delay=seconds, times=times))

    def search_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == "POST"]

    def bodies(self) -> list[Any]:
        return [r.body for r in self.search_requests()]

    def _take_fault(self) -> Fault | None:
        with self._lock:
            if not self.faults:
                return None
            fault = self.faults[0]
            fault.times -= 1
            if fault.times <= 0:
                self.faults.pop(0)
            return fault

    # request handling --------------------------------------------------------------------

    def handle(
        self, method: str, raw_path: str, headers: Mapping[str, str], raw_body: bytes
    ) -> tuple[int, dict[str, str], Any]:
        parts = urlsplit(raw_path)
        path = unquote(parts.path)
        query = parse_qs(parts.query, keep_blank_values=True)
        try:
            body: Any = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = raw_body.decode("utf-8", "replace")
        with self._lock:
            self.requests.append(RecordedRequest(method, path, query, dict(headers), body))

        fault = self._take_fault()
        if fault is not None and fault.writer is not None:
            return 0, {}, fault.writer
        if fault is not None:
            if fault.delay:
                self._stopping.wait(fault.delay)
            if fault.status is not None:
                extra = {"Retry-After": fault.retry_after} if fault.retry_after else {}
                message = {
                    429: "You are sending too many requests. Please try again later.",
                    503: "Service Unavailable: the service is under heavy load.",
                }.get(fault.status, "Scripted failure.")
                if fault.raw is not None:
                    return fault.status, extra, fault.raw
                return (
                    fault.status,
                    extra,
                    fault.body or {"error": {"code": "", "message": message}},
                )

        try:
            return 200, {}, self._search(method, path, query, headers, body)
        except ServiceError as exc:
            return exc.status, exc.headers, {"error": {"code": "", "message": exc.message}}

    def _search(
        self,
        method: str,
        path: str,
        query: Mapping[str, list[str]],
        headers: Mapping[str, str],
        body: Any,
    ) -> dict[str, Any]:
        match = _PATH_PLAIN.match(path) or _PATH_ODATA.match(path)
        if match is None:
            raise ServiceError(404, f"The resource '{path}' was not found.")
        if method != "POST":
            raise ServiceError(405, "The requested method is not allowed for this resource.")
        versions = query.get("api-version") or []
        if not versions or not versions[0]:
            raise ServiceError(400, "The request is invalid. Details: api-version is missing.")
        if versions[0] not in API_VERSIONS:
            raise ServiceError(400, f"Invalid or unsupported api-version '{versions[0]}'.")
        lowered = {k.lower(): v for k, v in headers.items()}
        key = lowered.get("api-key")
        auth = lowered.get("authorization", "")
        if key is not None:
            if key in self.forbidden_keys:
                raise ServiceError(
                    403, "Authorization failed: the key is not allowed to query this index."
                )
            if key != self.api_key:
                raise ServiceError(401, "Access denied due to invalid credentials.")
        elif auth.startswith("Bearer "):
            if auth[len("Bearer ") :] not in self.bearer_tokens:
                raise ServiceError(401, "Access denied due to invalid bearer token.")
        else:
            raise ServiceError(401, "Access denied: no credentials were supplied.")
        index = self.indexes.get(match.group(1))
        if index is None:
            raise ServiceError(
                404,
                f"The index '{match.group(1)}' for service '{self.service_name}' was not found.",
            )
        if not isinstance(body, dict):
            raise _bad_request(
                "The request is invalid. Details: the request body must be a JSON object."
            )
        return run_search(
            index,
            body,
            base_url=self.endpoint,
            api_version=versions[0],
            page_size=self.page_size,
            max_page_size=self.max_page_size,
        )


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hangs up (timeout tests) is expected; anything else is a bug to show.
        import sys

        exc = sys.exc_info()[1]
        if not isinstance(exc, ConnectionError):
            super().handle_error(request, client_address)


def _make_handler(emulator: AzureSearchEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            status, headers, payload = emulator.handle(method, self.path, dict(self.headers), raw)
            if callable(payload):
                try:
                    payload(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True
                return
            if isinstance(payload, bytes):
                data = payload
            else:
                data = json.dumps(payload).encode() if payload is not None else b""
            try:
                self.send_response(status)
                self.send_header(
                    "Content-Type", "application/json; odata.metadata=none; charset=utf-8"
                )
                self.send_header("Content-Length", str(len(data)))
                for name, val in headers.items():
                    self.send_header(name, val)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                self.close_connection = True

        def do_POST(self) -> None:
            self._answer("POST")

        def do_GET(self) -> None:
            self._answer("GET")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
