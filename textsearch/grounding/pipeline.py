"""``ground``: search, number the sources, fit the budget and render a prompt, in one call.

Which results are read: ``ground`` asks the connector for its native results
(``get_search_results``), because they carry what normalized results lose (publication
dates, site names, display URLs). For connectors with the public ``to_text_search_result``
hook (`ResultMapper`: every `BaseTextSearch`) the
title/text/link come from the connector's own mapping (including a custom
``text_search_result_mapper``), and the extra fields are read from the native model. For
other `TextSearch` implementations the fields are read generically, and
when the native results have no readable title, text or link (or ``get_search_results``
raises ``NotImplementedError``) ``get_text_search_results`` is used instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from textsearch._twins import Call, Plan, drive, drive_sync, perform, perform_sync
from textsearch._types import SearchOptions, TextSearchFilter
from textsearch.base import DocumentReader, ResultMapper, TextSearch
from textsearch.errors import InvalidRequestError
from textsearch.grounding._fields import ResultFields, extract_fields, page_origin
from textsearch.grounding.budget import Budget, truncate_text
from textsearch.grounding.citations import Citations, Source
from textsearch.grounding.fencing import Fencing
from textsearch.grounding.fetch import FetchedPage, fetch_pages, fetch_pages_sync, fetch_settings
from textsearch.grounding.templates import (
    ANSWER_WITH_CITATIONS,
    PromptTemplate,
    _render,
    _template_source,
)

__all__ = ["DEFAULT_BUDGET", "FULL_PAGE_BUDGET", "GroundedPrompt", "ground", "ground_sync"]

#: Budget of `ground` for search snippets: 2,000 characters a result, 24,000 in all.
DEFAULT_BUDGET = Budget(max_result_chars=2_000, max_chars=24_000)
#: Budget of `ground` with ``full_pages=True``: 6,000 characters a page, 24,000 in all.
FULL_PAGE_BUDGET = Budget(max_result_chars=6_000, max_chars=24_000)


@dataclass(frozen=True)
class GroundedPrompt:
    """A ready prompt and the sources it cites.

    Attributes:
        prompt: The rendered prompt (also ``str(grounded)``).
        query: The question.
        citations: The sources in the prompt, numbered as the prompt numbers them (results
            dropped by the budget are not in it).
        truncated: Numbers of the sources whose text was cut by the budget.
        dropped: How many results the budget left out.
        pages: With ``full_pages=True``, what happened to each page (in result order).
        metadata: The search's ``metadata``.
    """

    prompt: str
    query: str
    citations: Citations
    truncated: list[int] = field(default_factory=list)
    dropped: int = 0
    pages: list[FetchedPage] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def references(self) -> str:
        """The reference list of every source in the prompt."""
        return self.citations.render()

    @property
    def sources(self) -> list[Source]:
        """The sources in number order."""
        return self.citations.sources

    def references_for(self, answer: str) -> str:
        """The reference list of the sources a model's answer cites."""
        return self.citations.render(only=self.citations.used_in(answer))

    def __str__(self) -> str:
        return self.prompt


def _options(
    options: SearchOptions | None, top: int, search_filter: TextSearchFilter | None
) -> SearchOptions:
    if options is not None and not isinstance(options, SearchOptions):
        raise InvalidRequestError(f"options must be a SearchOptions, not {type(options).__name__}")
    updates: dict[str, Any] = {"top": top}
    if search_filter is not None:
        # AND-ed with the options' own filter: a filter is never silently replaced.
        preset = options.filter if options is not None else None
        updates["filter"] = preset.and_(search_filter) if preset is not None else search_filter
    return (options or SearchOptions()).with_updates(**updates)


def _merge(text_search: Any, natives: list[Any]) -> list[tuple[Any, ResultFields]]:
    # The connector's own mapping (its text_search_result_mapper included), through the
    # public hook of BaseTextSearch and of any connector that offers it.
    mapper = text_search.to_text_search_result if isinstance(text_search, ResultMapper) else None
    merged: list[tuple[Any, ResultFields]] = []
    for item in natives:
        fields = extract_fields(item)
        if mapper is not None:
            fields = extract_fields(mapper(item)).filled_from(fields)
        merged.append((item, fields))
    return merged


def _readable(merged: list[tuple[Any, ResultFields]]) -> bool:
    return not merged or any(f.name or f.value or f.link for _, f in merged)


def _build(
    query: str,
    merged: list[tuple[Any, ResultFields]],
    pages: list[FetchedPage] | None,
    metadata: dict[str, Any],
    *,
    template: str | PromptTemplate | None,
    budget: Budget | None,
    fence: bool | Fencing,
    variables: Mapping[str, Any],
) -> GroundedPrompt:
    if budget is None:
        budget = FULL_PAGE_BUDGET if pages is not None else DEFAULT_BUDGET
    numbered = Citations()
    if pages is not None:
        for page in pages:
            numbered.add(page, fields=extract_fields(page))
    else:
        for item, fields in merged:
            numbered.add(item, fields=fields)
    text, syntax = _template_source(
        template if template is not None else ANSWER_WITH_CITATIONS, None
    )
    prompt, kept, report = _render(
        text, syntax, query=query, results=numbered, fence=fence, budget=budget, variables=variables
    )
    final = Citations()
    for source in numbered.sources[: len(kept)]:
        final.add(source.result, fields=source.fields)
    return GroundedPrompt(
        prompt=prompt,
        query=query,
        citations=final,
        truncated=list(report.truncated),
        dropped=report.dropped,
        pages=pages,
        metadata=metadata,
    )


def _check_query(query: object) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InvalidRequestError("query must be a non-empty string")
    return query


# ground and ground_sync run the same plan (see textsearch._twins): each step is a Call in
# its async and its blocking form, so only the driver differs.
_Steps = Plan[Call, GroundedPrompt]


async def _in_thread(work: Callable[..., Any], *args: Any) -> Any:
    import asyncio  # only here: the rest of grounding never needs it

    return await asyncio.to_thread(work, *args)


def _steps(
    text_search: TextSearch,
    query: object,
    options: SearchOptions | None,
    top: int,
    search_filter: TextSearchFilter | None,
    full_pages: bool,
    fetch_options: Mapping[str, Any] | None,
    render: Callable[
        [str, list[tuple[Any, ResultFields]], list[FetchedPage] | None, dict[str, Any]],
        GroundedPrompt,
    ],
) -> _Steps:
    query = _check_query(query)
    effective = _options(options, top, search_filter)
    fetch_kwargs = dict(fetch_options or {})
    settings = fetch_settings(fetch_kwargs)  # before the search: a bad setting costs no call
    merged: list[tuple[Any, ResultFields]] | None = None
    metadata: dict[str, Any] = {}
    try:
        native = yield Call(
            text_search.get_search_results_sync, text_search.get_search_results, (query, effective)
        )
    except NotImplementedError:
        native = None
    if native is not None:
        merged = _merge(text_search, list(native))
        metadata = dict(native.metadata)
    if merged is None or not _readable(merged):
        normal = yield Call(
            text_search.get_text_search_results_sync,
            text_search.get_text_search_results,
            (query, effective),
        )
        merged = [(r, extract_fields(r)) for r in normal]
        metadata = dict(normal.metadata)
    pages = None
    if full_pages:
        # Whole stored documents may be read from an index file: off the event loop.
        reader = _document_reader(text_search)
        stored, todo = yield Call(
            _stored_pages,
            partial(_in_thread, _stored_pages),
            (merged, settings.max_chars, reader),
        )
        fetched: list[FetchedPage] = []
        if todo:
            fetched = yield Call(
                partial(fetch_pages_sync, **fetch_kwargs),
                partial(fetch_pages, **fetch_kwargs),
                (todo,),
            )
        pages = _all_pages(merged, stored, fetched)
    return render(query, merged, pages, metadata)


async def ground(
    text_search: TextSearch,
    query: str,
    *,
    template: str | PromptTemplate | None = None,
    top: int = 5,
    budget: Budget | None = None,
    fence: bool | Fencing = True,
    full_pages: bool = False,
    fetch_options: Mapping[str, Any] | None = None,
    options: SearchOptions | None = None,
    filter: TextSearchFilter | None = None,
    **variables: Any,
) -> GroundedPrompt:
    """Search, number the sources, fit the budget and render a prompt.

    Args:
        text_search: Any `TextSearch` connector.
        query: The question (searched for, and ``{query}`` in the template).
        template: A template (see `render_prompt`); default
            `ANSWER_WITH_CITATIONS`.
        top: How many results to search for.
        budget: Limits on the results' text (see `Budget`); ``None`` for
            `DEFAULT_BUDGET` (or `FULL_PAGE_BUDGET` with full pages), ``Budget()``
            for no limit.
        fence: Fence the results as untrusted data (default on).
        full_pages: Replace each result's snippet by its page's text (see
            `fetch_pages`); a page that cannot be used keeps its snippet. A result
            that carries its document's whole text (``LocalTextSearch``, PostgreSQL) uses
            that text and is not downloaded.
        fetch_options: Keyword arguments for `fetch_pages` (``allow_private``,
            ``timeout``, ``max_chars``...).
        options: Search options (``top`` above overrides theirs; ``filter`` is AND-ed
            with their filter).
        filter: A filter for the search.
        **variables: More template variables.

    Returns:
        The prompt with its `Citations`.

    Raises:
        InvalidRequestError: Empty query, bad options or template, or a budget too small.
        TextSearchError: Whatever the connector raises for the search.
    """
    render = partial(_build, template=template, budget=budget, fence=fence, variables=variables)
    return await drive(
        _steps(text_search, query, options, top, filter, full_pages, fetch_options, render),
        perform,
    )


def ground_sync(
    text_search: TextSearch,
    query: str,
    *,
    template: str | PromptTemplate | None = None,
    top: int = 5,
    budget: Budget | None = None,
    fence: bool | Fencing = True,
    full_pages: bool = False,
    fetch_options: Mapping[str, Any] | None = None,
    options: SearchOptions | None = None,
    filter: TextSearchFilter | None = None,
    **variables: Any,
) -> GroundedPrompt:
    """Blocking twin of `ground` (uses the connector's ``*_sync`` methods).

    Raises:
        InvalidRequestError: Empty query, bad options or template, or a budget too small.
        TextSearchError: Whatever the connector raises for the search.
    """
    render = partial(_build, template=template, budget=budget, fence=fence, variables=variables)
    return drive_sync(
        _steps(text_search, query, options, top, filter, full_pages, fetch_options, render),
        perform_sync,
    )


def _document_reader(text_search: Any) -> Callable[[Any], str | None] | None:
    """How to read a result's whole stored document, when the search can (LocalTextSearch)."""
    if not isinstance(text_search, DocumentReader):
        return None
    get_document = text_search.get_document

    def read(item: Any) -> str | None:
        key = getattr(item, "id", None)
        if not isinstance(key, str):
            return None
        document = get_document(key)
        text = getattr(document, "text", None)
        return text if isinstance(text, str) and text.strip() else None

    return read


def _stored_text(item: Any, read_document: Callable[[Any], str | None] | None) -> str | None:
    # A result whose document is stored (LocalTextSearch, PostgreSQL) needs no download; its
    # link may not even be a URL. The full page is the whole document, not the passage.
    if read_document is not None:
        whole = read_document(item)
        if whole is not None:
            return whole
    text = getattr(item, "text", None)
    if text is None and isinstance(item, Mapping):
        text = item.get("text")
    return text if isinstance(text, str) and text.strip() else None


def _stored_pages(
    merged: list[tuple[Any, ResultFields]],
    max_chars: int,
    read_document: Callable[[Any], str | None] | None = None,
) -> tuple[list[FetchedPage | None], list[ResultFields]]:
    """Pages made from stored text, and the results still to fetch."""
    stored: list[FetchedPage | None] = []
    todo: list[ResultFields] = []
    for item, fields in merged:
        text = _stored_text(item, read_document)
        if text is None:
            stored.append(None)
            todo.append(fields)
            continue
        value, cut = truncate_text(text.strip(), max_chars)
        stored.append(
            FetchedPage(
                name=fields.name, value=value, ok=True, truncated=cut, **page_origin(item, fields)
            )
        )
    return stored, todo


def _all_pages(
    merged: list[tuple[Any, ResultFields]],
    stored: list[FetchedPage | None],
    fetched: list[FetchedPage],
) -> list[FetchedPage]:
    downloads = iter(fetched)
    return [
        page if page is not None else _with_result(next(downloads), item)
        for page, (item, _) in zip(stored, merged, strict=True)
    ]


def _with_result(page: FetchedPage, item: Any) -> FetchedPage:
    # fetch_pages saw the merged fields; point the page back at the connector's own result.
    from dataclasses import replace

    return replace(page, result=item)
