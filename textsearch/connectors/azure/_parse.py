"""Azure AI Search response parsing: the native model and pure mapping of SDK results.

No I/O and no SDK import: the functions take what ``SearchClient.search`` yields (dicts, with
captions and answers as SDK models or dicts) and return textsearch types.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from textsearch._http._checks import clean_text
from textsearch._types import SearchResults, TextSearchResult
from textsearch.errors import ResponseFormatError

PROVIDER = "azure_ai_search"
#: Candidate fields for ``name``, tried in order (first non-empty string wins).
DEFAULT_NAME_FIELDS: tuple[str, ...] = ("title", "name", "sourcefile", "filename")
#: Candidate fields for ``value``, tried in order.
DEFAULT_VALUE_FIELDS: tuple[str, ...] = ("content", "chunk", "text", "description")
#: Candidate fields for ``link``, tried in order.
DEFAULT_LINK_FIELDS: tuple[str, ...] = (
    "url",
    "link",
    "source",
    "sourcepage",
    "filepath",
    "metadata_storage_path",
)
#: Candidate key fields, used to attach semantic answers (which name a document key) to results.
DEFAULT_KEY_FIELDS: tuple[str, ...] = ("id", "chunk_id", "key")
#: Fields of a multimodal RAG index of text and image blocks (see `content_block_result`).
CONTENT_BLOCK_FIELDS: tuple[str, ...] = (
    "id",
    "block_type",
    "content",
    "image_url",
    "image_caption",
    "doc_id",
    "filename",
    "page_number",
)

# -- native model ---------------------------------------------------------------------------


class AzureSearchCaption(BaseModel):
    """A semantic caption: a passage of the document chosen by the semantic ranker.

    Attributes:
        text: The passage as plain text.
        highlights: The passage with the key phrases wrapped in ``<em>`` tags, when asked for.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    text: str | None = None
    highlights: str | None = None


class AzureSearchDocument(BaseModel):
    """One Azure AI Search hit: the native result of `AzureAISearchTextSearch`.

    Attributes:
        fields: The document's retrievable fields as returned by the service (all of them, or
            those named by ``select``); ``@search.*`` annotations are not included.
        score: The relevance score (``@search.score``); for hybrid queries a fused score.
        reranker_score: The semantic ranker's score (0-4), for ``query_type="semantic"``.
        highlights: Hit highlights per field (``{"content": ["... <em>retry</em> ..."]}``),
            when ``highlight_fields`` were configured.
        captions: Semantic captions, for ``query_type="semantic"`` with captions on.
        answer: The text of a semantic answer extracted from this document, if any.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    fields: dict[str, Any] = Field(default_factory=dict)
    score: float | None = None
    reranker_score: float | None = None
    highlights: dict[str, list[str]] | None = None
    captions: list[AzureSearchCaption] = Field(default_factory=list)
    answer: str | None = None

    def get(self, name: str, default: Any = None) -> Any:
        """Return the field ``name``, or ``default`` when the document has no such field."""
        return self.fields.get(name, default)

    def __getitem__(self, name: str) -> Any:
        return self.fields[name]

    @property
    def caption(self) -> str | None:
        """The text of the first semantic caption, if any."""
        for cap in self.captions:
            if cap.text:
                return cap.text
        return None


# -- pure helpers: mapping ------------------------------------------------------------------


def _as_text(value: Any) -> str | None:
    """A field value as display text: strings as is, lists of strings joined, scalars str()."""
    if value is None:
        return None
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, (list, tuple)):
        parts = [p for p in (_as_text(v) for v in value) if p]
        return "\n".join(parts) if parts else None
    return None


def _first_text(fields: Mapping[str, Any], names: Sequence[str]) -> str | None:
    for name in names:
        text = _as_text(fields.get(name))
        if text:
            return text
    return None


def content_block_result(doc: AzureSearchDocument) -> TextSearchResult:
    """Map a text or image block of a multimodal RAG index to a normalized result.

    The index holds one block per document: ``block_type`` (``"text"`` or ``"image"``),
    ``content``, ``image_url``, ``image_caption``, ``doc_id``, ``filename``, ``page_number``.

    * name: ``filename`` (or ``doc_id``), with ``" (page N)"`` when the page is known;
    * image block: value = the image caption (else ``content``), link = ``image_url``;
    * text block: value = the semantic answer or caption when present, else ``content``;
      link = a ``url``/``link``/``source`` field when the index has one, else
      ``filename#page=N`` (or just ``filename``) so a citation can point at the page.

    Use it as ``AzureAISearchTextSearch(..., text_search_result_mapper=content_block_result)``
    or through `AzureAISearchTextSearch.for_content_blocks`.
    """
    f = doc.fields
    source = _as_text(f.get("filename")) or _as_text(f.get("doc_id"))
    page = f.get("page_number")
    has_page = isinstance(page, int) and not isinstance(page, bool)
    name = f"{source} (page {page})" if source and has_page else source
    if str(f.get("block_type") or "text").strip().lower() == "image":
        value = _as_text(f.get("image_caption")) or _as_text(f.get("content"))
        link = _as_text(f.get("image_url"))
    else:
        value = doc.answer or doc.caption or _as_text(f.get("content"))
        filename = _as_text(f.get("filename"))
        link = _first_text(f, ("url", "link", "source")) or (
            f"{filename}#page={page}" if filename and has_page else filename
        )
    return TextSearchResult(name=name, value=value, link=link)


# -- pure helpers: parsing ------------------------------------------------------------------


def _plain(text: Any) -> Any:
    """Caption and answer text without hit-highlight tags (``<em>``), which must not reach a
    model; other values are left for the model's validation to judge."""
    return clean_text(text) if isinstance(text, str) else text


def _read(obj: Any, name: str) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def parse_document(raw: Mapping[str, Any]) -> AzureSearchDocument:
    """Turn one result dict of the SDK into an `AzureSearchDocument`.

    Raises:
        ResponseFormatError: The result is not a mapping or its annotations have the wrong
            shape.
    """
    if not isinstance(raw, Mapping):
        raise ResponseFormatError(
            f"Azure AI Search returned a result that is not an object ({type(raw).__name__})",
            provider=PROVIDER,
        )
    fields = {k: v for k, v in raw.items() if not k.startswith("@")}
    captions = raw.get("@search.captions") or []
    reranker = raw.get("@search.reranker_score")
    if reranker is None:
        reranker = raw.get("@search.rerankerScore")
    try:
        return AzureSearchDocument(
            fields=fields,
            score=raw.get("@search.score"),
            reranker_score=reranker,
            highlights=raw.get("@search.highlights"),
            captions=[
                AzureSearchCaption(text=_plain(_read(c, "text")), highlights=_read(c, "highlights"))
                for c in captions
            ],
        )
    except (ValidationError, TypeError) as exc:
        raise ResponseFormatError(
            "Azure AI Search returned a result in an unexpected shape: " + str(exc).splitlines()[0],
            provider=PROVIDER,
        ) from None


def parse_answers(answers: Any) -> list[dict[str, Any]]:
    """Semantic answers (SDK models or dicts) as plain dicts: key, text, highlights, score."""
    result: list[dict[str, Any]] = []
    for answer in answers or []:
        text = _plain(_read(answer, "text"))
        if not isinstance(text, str):
            continue
        result.append(
            {
                "key": _read(answer, "key"),
                "text": text,
                "highlights": _read(answer, "highlights"),
                "score": _read(answer, "score"),
            }
        )
    return result


def attach_answers(
    docs: list[AzureSearchDocument], answers: list[dict[str, Any]], key_fields: Sequence[str]
) -> list[AzureSearchDocument]:
    """Give each document the text of the answer whose key is the document's key."""
    if not answers:
        return docs
    by_key: dict[str, str] = {}
    for answer in answers:
        if answer.get("key") is not None:
            by_key.setdefault(str(answer["key"]), answer["text"])
    out: list[AzureSearchDocument] = []
    for doc in docs:
        text = next(
            (
                by_key[str(doc.fields[k])]
                for k in key_fields
                if doc.fields.get(k) is not None and str(doc.fields[k]) in by_key
            ),
            None,
        )
        out.append(doc.model_copy(update={"answer": text}) if text else doc)
    return out


def assemble(
    raws: list[Any],
    count: Any,
    answers: Any,
    *,
    top: int,
    include_total_count: bool,
    wants_answers: bool,
    key_fields: Sequence[str],
    index_name: str | None,
) -> SearchResults[AzureSearchDocument]:
    """The results of one search from what the SDK yielded.

    Raises:
        ResponseFormatError: A result, the count or the answers have the wrong shape.
    """
    docs = [parse_document(raw) for raw in raws[:top]]
    parsed_answers = parse_answers(answers) if wants_answers else []
    docs = attach_answers(docs, parsed_answers, key_fields)
    total: int | None = None
    if include_total_count and count is not None:
        if isinstance(count, bool) or not isinstance(count, int):
            raise ResponseFormatError(
                f"Azure AI Search returned a count that is not a number: {count!r}",
                provider=PROVIDER,
            )
        total = count
    metadata: dict[str, Any] = {"index": index_name}
    if wants_answers:
        metadata["answers"] = parsed_answers
    return SearchResults(docs, total, metadata)
