"""Read tools: ``read_document(link)`` and ``fetch_page(url)`` beside a plugin's search.

Both are `SearchFunction` objects, so every tool format, the
plugin's ``invoke``, the framework adapters and the MCP server take them as they take a
search. Both keep the plugin's preset filter:

* ``read_document`` reads through the connector's ``get_document``/``get_section`` with the
  preset filter (the same rule as the MCP server's resources): a passage link reads as its
  section, a document's own link (a passage link without its fragment) or id as the whole
  document. A link the filter excludes gets the same answer as a link that does not exist,
  with no content.
* ``fetch_page`` fetches with the guarded fetcher of `textsearch.grounding.fetch` (public
  addresses only, bounded size and time). Under a preset filter only a URL that the filter
  admits is fetched, and a page whose redirects end outside it is refused without its text.

Like search results, what they return is capped in size and not fenced (tool results are
already kept apart from instructions by the API; fencing would rewrite code such as
``>>>``): ``read_document`` returns at most ``max_chars`` characters a call and says where
the rest starts.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, cast

from textsearch._twins import Call, Plan
from textsearch._types import EqualTo, SearchOptions, TextSearchFilter, TextSearchResult
from textsearch.base import TextSearch
from textsearch.errors import ConfigurationError, InvalidRequestError
from textsearch.plugins._function import Outcome, SearchFunction
from textsearch.plugins._parameters import (
    ParameterSpec,
    ParsedArguments,
    SearchParameter,
)

__all__ = [
    "DEFAULT_READ_CHARS",
    "FetchPageFunction",
    "ReadDocumentFunction",
    "can_read_documents",
    "url_admitted",
]

#: Most characters of one ``read_document`` answer (the rest is read with ``start``).
DEFAULT_READ_CHARS = 20_000

_READ_DESCRIPTION = (
    "Read a document or section found by search. Pass a result's link: a link with a "
    "'#fragment' reads that section, the same link without its fragment reads the whole "
    "document. Returns JSON with the title and text; when the text continues, call again "
    "with start set to next_start."
)
_FETCH_DESCRIPTION = (
    "Fetch a web page (http or https) found by search and return its readable text as "
    "JSON. Use it when a result's snippet is not enough."
)
_NULLABLE_STRING: dict[str, Any] = {"type": ["string", "null"]}


@dataclass(frozen=True)
class ReadArguments(ParsedArguments):
    """Validated arguments of a read tool: the link (as ``query``) and where to start."""

    start: int = 0


class _ReadSpec(ParameterSpec):
    """The parameters of a read tool: one required link or URL, and an optional start."""

    def __init__(self, parameters: Sequence[SearchParameter]) -> None:
        # Not ParameterSpec's rules (those are a search's): only the shared schema builders.
        self.out_of_bounds = "reject"
        self.parameters = tuple(parameters)
        self.fixed_top = 1
        self._by_name = {p.name: p for p in self.parameters}
        self._target = self.parameters[0].name
        self.model = self._build_model()
        self._schema = self._build_schema()

    def parse(
        self, arguments: Mapping[str, Any] | str | bytes | None, preset: TextSearchFilter | None
    ) -> ParsedArguments:
        data = self._known(arguments)
        prepared: dict[str, Any] = {}
        for name, value in data.items():
            if value is None and not self._by_name[name].required:
                continue
            if name == "start" and isinstance(value, bool):
                raise InvalidRequestError("start: must be a number, not true/false")
            prepared[name] = value
        values = self._validated(prepared)
        target = values[self._target].strip()
        if not target:
            raise InvalidRequestError(f"{self._target}: must not be empty")
        if len(target) > 4_000 or "\x00" in target:
            raise InvalidRequestError(f"{self._target}: not a link from a search result")
        return ReadArguments(
            target, SearchOptions(top=1, filter=preset), start=int(values.get("start") or 0)
        )


def can_read_documents(search: object) -> bool:
    """Whether ``search`` reads stored documents (a ``get_document`` method)."""
    return callable(getattr(search, "get_document", None))


class _ReadingFunction(SearchFunction):
    """What the two read tools share: no search, a JSON answer, refusals as errors."""

    #: Whether the MCP server serves this tool's connector's documents as resources under
    #: this tool's filter (``read_document``: yes; ``fetch_page`` reads no stored document).
    serves_documents = True
    #: Whether the same call twice gives the same answer (see `idempotent`).
    _idempotent: ClassVar[bool]
    #: The structured answer's properties (JSON schema) and the names it always has.
    _answer_properties: ClassVar[dict[str, Any]]
    _answer_required: ClassVar[tuple[str, ...]]

    def __init__(
        self,
        text_search: TextSearch,
        filter: TextSearchFilter | None,
        name: str,
        description: str,
        spec: _ReadSpec,
        max_chars: int,
    ) -> None:
        # one result, no string mapper, no loop guard: a read tool reads, it does not search
        super().__init__(
            text_search,
            kind="text_search_results",
            name=name,
            description=description,
            spec=spec,
            preset_filter=filter,
            top=1,
            max_top=1,
            string_mapper=None,
            max_repeats=None,
        )
        self.max_chars = max_chars

    @property
    def idempotent(self) -> bool:
        """Whether the same call twice has no further effect (an MCP ``idempotentHint``)."""
        return self._idempotent

    @property
    def output_json_schema(self) -> dict[str, Any]:
        """JSON schema of the structured answer (MCP ``outputSchema``); a fresh copy."""
        return {
            "type": "object",
            "properties": copy.deepcopy(self._answer_properties),
            "required": list(self._answer_required),
        }

    def _refusal(self, message: str, raise_errors: bool) -> Outcome:
        if raise_errors:
            error = InvalidRequestError(message)
            error.model_hint = message  # type: ignore[attr-defined]
            raise error
        return Outcome(message, True)

    def _answer_json(self, payload: dict[str, Any]) -> Outcome:
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        return Outcome(text, False, payload)

    def _step(self, parsed: ReadArguments, raise_errors: bool) -> Call | Outcome:
        """What reading ``parsed`` takes (a `Call`), or the answer that refuses it."""
        raise NotImplementedError

    def _finish(self, parsed: ReadArguments, answer: Any, raise_errors: bool) -> Outcome:
        """The tool's answer from what the read step returned."""
        raise NotImplementedError

    def _plan(
        self,
        arguments: Mapping[str, Any] | str | None,
        raise_errors: bool,
        session: Hashable,  # read tools have no loop guard
    ) -> Plan[Call, Outcome]:
        parsed = self._parse_or_outcome(arguments, raise_errors)
        if isinstance(parsed, Outcome):
            return parsed
        read = cast("ReadArguments", parsed)
        step = self._step(read, raise_errors)
        if isinstance(step, Outcome):
            return step
        try:
            answer = yield step
        except Exception as exc:
            return self._failure(exc, raise_errors)
        return self._finish(read, answer, raise_errors)


class ReadDocumentFunction(_ReadingFunction):
    """``read_document(link, start=0)``: a section or a whole document of the index.

    Build it with ``create_search_plugin(..., read_tools=True)``.
    """

    def __init__(
        self,
        text_search: TextSearch,
        *,
        filter: TextSearchFilter | None,
        name: str = "read_document",
        description: str = _READ_DESCRIPTION,
        max_chars: int = DEFAULT_READ_CHARS,
    ) -> None:
        from textsearch.plugins._stores import accepts_filter as _accepts_filter

        if not can_read_documents(text_search):
            raise ConfigurationError(
                f"read_tools=True needs a connector that reads documents (get_document); "
                f"{type(text_search).__name__} does not. Use fetch=True to read web pages."
            )
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 100:
            raise ConfigurationError("max_read_chars must be a whole number of at least 100")
        if filter is not None and not _accepts_filter(
            text_search.get_document  # type: ignore[attr-defined]
        ):
            raise ConfigurationError(
                f"{type(text_search).__name__}.get_document takes no filter, so a preset "
                "filter could not bound what read_document reads"
            )
        spec = _ReadSpec(
            [
                SearchParameter(
                    "link",
                    "The link of a search result (with '#fragment': that section; without: "
                    "the whole document), or a document's id.",
                    required=True,
                ),
                SearchParameter(
                    "start",
                    "Where to start reading, in characters (the next_start of the previous "
                    "answer).",
                    type=int,
                    default=0,
                    ge=0,
                ),
            ]
        )
        super().__init__(text_search, filter, name, description, spec, max_chars)

    def __repr__(self) -> str:
        kind = type(self.text_search).__name__
        return f"ReadDocumentFunction(name={self.name!r}, text_search={kind})"

    #: Reading the same link twice gives the same text (while the index is unchanged).
    _idempotent = True
    _answer_properties = {
        "link": {"type": "string", "description": "The link that was read."},
        "title": _NULLABLE_STRING,
        "section": _NULLABLE_STRING,
        "text": {"type": "string"},
        "start": {"type": "integer", "minimum": 0},
        "end": {"type": "integer", "minimum": 0},
        "total_chars": {"type": "integer", "minimum": 0},
        "next_start": {
            "type": "integer",
            "description": "Where the rest starts, when the text was cut.",
        },
    }
    _answer_required = ("link", "text", "start", "end", "total_chars")

    def _read(self, link: str) -> Any:
        from textsearch.plugins._stores import GuardedStore as _GuardedStore
        from textsearch.plugins._stores import read_document as _read_document

        store = _GuardedStore(self.text_search, [self._preset])
        if self._preset is not None:
            from textsearch.plugins._stores import accepts_filter as _accepts_filter

            store.sections = store.sections and _accepts_filter(
                self.text_search.get_section  # type: ignore[attr-defined]
            )
        try:
            document, _, _ = _read_document([store], link)
        except (LookupError, ValueError):
            return None
        return document

    def _not_found(self, link: str) -> str:
        shown = link if len(link) <= 200 else link[:199] + "…"
        return (
            f"No document or section {shown!r} can be read here. Pass the link of one of this "
            "plugin's search results exactly as it was given."
        )

    def _render_read(self, parsed: ReadArguments, document: Any) -> Outcome:
        text = str(getattr(document, "text", "") or "")
        start = min(parsed.start, len(text))
        end = min(len(text), start + self.max_chars)
        payload: dict[str, Any] = {
            "link": getattr(document, "link", None) or parsed.query,
            "title": getattr(document, "title", None),
            "section": getattr(document, "section", None),
            "text": text[start:end],
            "start": start,
            "end": end,
            "total_chars": len(text),
        }
        if end < len(text):
            payload["next_start"] = end
        return self._answer_json(payload)

    async def _read_off_loop(self, link: str) -> Any:
        # The store's reader is blocking (SQLite, a database connection): not on the loop.
        return await asyncio.to_thread(self._read, link)

    def _step(self, parsed: ReadArguments, raise_errors: bool) -> Call | Outcome:
        return Call(self._read, self._read_off_loop, (parsed.query,))

    def _finish(self, parsed: ReadArguments, document: Any, raise_errors: bool) -> Outcome:
        if document is None:
            return self._refusal(self._not_found(parsed.query), raise_errors)
        return self._render_read(parsed, document)


# -- fetch_page ------------------------------------------------------------------------------


def _host_matches(host: str, site: str) -> bool:
    site = site.lower().strip().rstrip(".")
    return bool(site) and (host == site or host.endswith("." + site))


def url_admitted(url: str, preset: TextSearchFilter | None) -> bool:
    """Whether a preset filter admits a page by its URL alone.

    Only ``equal_to`` clauses on ``site`` (the host or a subdomain of it, as the local index
    compares it) and ``link`` (the same canonical URL) can be checked on a URL; any other
    clause admits nothing (closed, not open, when in doubt).
    """
    if not preset:
        return True
    import httpx

    from textsearch._links import canonical_link

    try:
        host = (httpx.URL(url).host or "").lower().rstrip(".")
    except (httpx.InvalidURL, ValueError):
        return False
    for clause in preset.clauses:
        if not isinstance(clause, EqualTo) or not isinstance(clause.value, str):
            return False  # a range, any_of, not_equal_to...: not checkable on a URL
        field, value = clause.field_name, clause.value
        if field == "site":
            if not _host_matches(host, value):
                return False
        elif field == "link":
            if canonical_link(url) != canonical_link(value):
                return False
        else:
            return False
    return True


def check_fetch_filter(preset: TextSearchFilter | None) -> None:
    """Raise ``ConfigurationError`` for a preset filter that a URL cannot be checked against."""
    if not preset:
        return
    for clause in preset.clauses:
        if clause.kind != "equal_to" or clause.field_name not in ("site", "link"):
            raise ConfigurationError(
                "fetch=True under a preset filter needs a filter that a URL can be checked "
                f"against (equal_to on 'site' or 'link'); {clause.field_name!r} "
                f"({clause.kind}) cannot be"
            )


class FetchPageFunction(_ReadingFunction):
    """``fetch_page(url)``: a web page's readable text through the guarded fetcher.

    Build it with ``create_search_plugin(..., fetch=True)`` (or a mapping of
    `fetch_pages` options).
    """

    serves_documents = False

    def __init__(
        self,
        text_search: TextSearch,
        *,
        filter: TextSearchFilter | None,
        options: Mapping[str, Any] | None = None,
        name: str = "fetch_page",
        description: str = _FETCH_DESCRIPTION,
        max_chars: int = DEFAULT_READ_CHARS,
    ) -> None:
        check_fetch_filter(filter)
        fetch_options = dict(options or {})
        for reserved in ("results", "max_chars"):
            if reserved in fetch_options:
                raise ConfigurationError(
                    f"fetch options cannot set {reserved!r}"
                    + ("; use max_read_chars=" if reserved == "max_chars" else "")
                )
        from textsearch.grounding.fetch import fetch_settings

        try:  # every option checked now, not at the model's first call
            fetch_settings({**fetch_options, "max_chars": max_chars})
        except InvalidRequestError as exc:
            raise ConfigurationError(str(exc)) from None
        spec = _ReadSpec(
            [SearchParameter("url", "The http(s) address of the page to read.", required=True)]
        )
        super().__init__(text_search, filter, name, description, spec, max_chars)
        self.open_world = True
        self._fetch_options = fetch_options

    def __repr__(self) -> str:
        return f"FetchPageFunction(name={self.name!r})"

    #: A page may change between two fetches: not claimed.
    _idempotent = False
    _answer_properties = {
        "url": {"type": "string", "description": "The address asked for."},
        "final_url": {"type": "string", "description": "Where the text came from."},
        "title": _NULLABLE_STRING,
        "text": {"type": "string"},
        "truncated": {"type": "boolean"},
    }
    _answer_required = ("url", "final_url", "text", "truncated")

    def _check_url(self, url: str) -> str | None:
        """Why ``url`` is not fetched, or ``None``."""
        lowered = url.lower()
        if not (lowered.startswith("http://") or lowered.startswith("https://")):
            return "Only http and https pages can be fetched; pass a web address from a result."
        if not url_admitted(url, self._preset):
            return f"The page {url[:200]!r} is outside what this tool may read."
        return None

    def _page_outcome(self, url: str, page: Any, raise_errors: bool) -> Outcome:
        final = page.final_url or url
        if not url_admitted(final, self._preset):
            return self._refusal(
                f"The page {url[:200]!r} redirects outside what this tool may read.", raise_errors
            )
        if not page.ok:
            reason = " ".join(str(page.error or "unknown reason").split())[:200]
            return self._refusal(
                f"The page {url[:200]!r} could not be read: {reason}.", raise_errors
            )
        return self._answer_json(
            {
                "url": url,
                "final_url": final,
                "title": page.name,
                "text": page.value or "",
                "truncated": bool(page.truncated),
            }
        )

    def _step(self, parsed: ReadArguments, raise_errors: bool) -> Call | Outcome:
        """The fetch of the URL the model asked for, or the answer that refuses it."""
        problem = self._check_url(parsed.query)
        if problem is not None:
            return self._refusal(problem, raise_errors)
        options = {"max_chars": self.max_chars, **self._fetch_options}
        return Call(_fetch_one_sync, _fetch_one, (parsed.query, options))

    def _finish(self, parsed: ReadArguments, page: Any, raise_errors: bool) -> Outcome:
        return self._page_outcome(parsed.query, page, raise_errors)


def _page(url: str) -> TextSearchResult:
    """The result ``fetch_pages`` is asked to read: a link alone."""
    return TextSearchResult(name=None, value=None, link=url)


async def _fetch_one(url: str, options: dict[str, Any]) -> Any:
    from textsearch.grounding.fetch import fetch_pages  # the fetcher loads on first use

    return (await fetch_pages([_page(url)], **options))[0]


def _fetch_one_sync(url: str, options: dict[str, Any]) -> Any:
    from textsearch.grounding.fetch import fetch_pages_sync

    # An injected client is async: the blocking twin, which runs the fetch on its own loop,
    # leaves it out.
    blocking = {k: v for k, v in options.items() if k != "http_client"}
    return fetch_pages_sync([_page(url)], **blocking)[0]
