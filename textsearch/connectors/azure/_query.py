"""Azure AI Search request building: pure checks and the keyword arguments of one search.

Nothing here sends anything; the SDK is imported only to build vector query models.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

from textsearch._types import SearchOptions, result_window
from textsearch.connectors.azure._odata import check_balanced, check_field_name
from textsearch.errors import ConfigurationError, InvalidRequestError, UnsupportedFilterError

#: The REST API version sent unless ``api_version=`` says otherwise (the SDK's own default moves).
DEFAULT_API_VERSION = "2024-07-01"
_INDEX_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,127}$")
_MAX_ANSWERS = 10
# SDK keywords the connector sets itself; ``search_kwargs`` may not override them, so that
# nothing can replace the filter (and with it the security filter) or the paging.
_RESERVED_SEARCH_KWARGS = frozenset(
    {
        "search_text",
        "filter",
        "top",
        "skip",
        "include_total_count",
        "select",
        "search_fields",
        "query_type",
        "semantic_configuration_name",
        "query_caption",
        "query_caption_highlight_enabled",
        "query_answer",
        "query_answer_count",
        "vector_queries",
        "vector_filter_mode",
        "highlight_fields",
        "search_mode",
        "order_by",
        "scoring_profile",
    }
)

QueryType = Literal["simple", "full", "semantic"]
FieldSpec = str | Sequence[str] | None
EmbeddingFunction = Callable[[str], Sequence[float] | Awaitable[Sequence[float]]]
SecurityFilter = str | Callable[[Any], str]


def _field_names(spec: FieldSpec, what: str) -> tuple[str, ...]:
    if spec is None:
        return ()
    names = (spec,) if isinstance(spec, str) else tuple(spec)
    for name in names:
        if not isinstance(name, str) or not name:
            raise ConfigurationError(f"{what} must be field names (strings), got {name!r}")
    return names


def _identifiers(values: Sequence[str] | str | None, what: str) -> tuple[str, ...] | None:
    if values is None:
        return None
    items = (values,) if isinstance(values, str) else tuple(values)
    for item in items:
        try:
            check_field_name(item)
        except UnsupportedFilterError:
            raise ConfigurationError(
                f"{what}: {item!r} is not a valid Azure AI Search field name"
            ) from None
    return items


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# -- request --------------------------------------------------------------------------------


@dataclass
class _Request:
    """Everything one search sends, built without I/O; ``kwargs`` go to ``client.search``."""

    kwargs: dict[str, Any]
    top: int
    include_total_count: bool
    wants_answers: bool
    vector_fields: str | None = None
    vector_text: str | None = None
    vector_k: int = 50
    embed: bool = False
    extras: dict[str, Any] = field(default_factory=dict)

    def sdk_kwargs(self, embedding: Sequence[float] | None) -> dict[str, Any]:
        """The final keyword arguments, with vector queries as SDK models (imports the SDK)."""
        kwargs = dict(self.kwargs)
        if self.vector_fields is not None:
            from azure.search.documents.models import VectorizableTextQuery, VectorizedQuery

            if self.embed:
                if embedding is None:  # pragma: no cover - guarded by the callers
                    raise ConfigurationError("an embedding is required for this vector query")
                query: Any = VectorizedQuery(
                    vector=[float(v) for v in embedding],
                    k_nearest_neighbors=self.vector_k,
                    fields=self.vector_fields,
                )
            else:
                query = VectorizableTextQuery(
                    text=self.vector_text or "",
                    k_nearest_neighbors=self.vector_k,
                    fields=self.vector_fields,
                )
            kwargs["vector_queries"] = [query]
        kwargs.update(self.extras)
        return kwargs


def _check_embedding(value: Any) -> Sequence[float]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or not value:
        raise InvalidRequestError("embedding_function must return a non-empty sequence of floats")
    for item in value:
        if isinstance(item, bool) or not isinstance(item, (int, float)):
            raise InvalidRequestError("embedding_function must return a sequence of floats")
    return value


def check_endpoint(endpoint: object) -> str:
    if not isinstance(endpoint, str):
        raise ConfigurationError("endpoint must be a URL string")
    parts = urlsplit(endpoint.strip())
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise ConfigurationError(
            f"endpoint {endpoint!r} is not a URL like https://<service>.search.windows.net"
        )
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ConfigurationError(
            "endpoint must be the service URL only (no credentials, query or fragment)"
        )
    return endpoint.strip().rstrip("/")


def build_request(cfg: Any, query: str, options: SearchOptions, expression: str | None) -> _Request:
    """The request one search sends; ``cfg`` is the connector (its query settings)."""
    window = result_window(options)
    kwargs: dict[str, Any] = {"top": options.top}
    vector_only = cfg.vector_fields is not None and not cfg.hybrid
    if not vector_only:
        kwargs["search_text"] = query
    if options.skip:
        kwargs["skip"] = options.skip
    if options.include_total_count:
        kwargs["include_total_count"] = True
    if expression is not None:
        kwargs["filter"] = expression
    if cfg.select is not None:
        kwargs["select"] = list(cfg.select)
    if cfg.search_fields is not None:
        kwargs["search_fields"] = list(cfg.search_fields)
    if cfg.search_mode is not None:
        kwargs["search_mode"] = cfg.search_mode
    if cfg.highlight_fields:
        kwargs["highlight_fields"] = ",".join(cfg.highlight_fields)
    if cfg.order_by:
        kwargs["order_by"] = list(cfg.order_by)
    if cfg.scoring_profile:
        kwargs["scoring_profile"] = cfg.scoring_profile
    kwargs["query_type"] = cfg.query_type
    wants_answers = False
    if cfg.query_type == "semantic":
        if cfg.semantic_configuration:
            kwargs["semantic_configuration_name"] = cfg.semantic_configuration
        if cfg.captions:
            kwargs["query_caption"] = "extractive"
            kwargs["query_caption_highlight_enabled"] = True
        if cfg.answers:
            kwargs["query_answer"] = "extractive"
            kwargs["query_answer_count"] = cfg.answers
            wants_answers = True
    if cfg.vector_filter_mode and cfg.vector_fields:
        kwargs["vector_filter_mode"] = cfg.vector_filter_mode
    if cfg._insecure_token_ok:
        kwargs["enforce_https"] = False
    return _Request(
        kwargs=kwargs,
        top=options.top,
        include_total_count=options.include_total_count,
        wants_answers=wants_answers,
        vector_fields=",".join(cfg.vector_fields) if cfg.vector_fields else None,
        vector_text=query,
        vector_k=cfg.vector_k or max(50, window),
        embed=cfg.embedding_function is not None,
        extras=dict(cfg.search_kwargs),
    )


def check_query_shape(
    query_type: object, semantic_configuration: object, answers: object, search_mode: object
) -> None:
    """Validate the query-shape arguments of the constructor.

    Raises:
        ConfigurationError: One of them is invalid or they do not fit together.
    """
    if query_type not in ("simple", "full", "semantic"):
        raise ConfigurationError(
            f"query_type must be 'simple', 'full' or 'semantic', not {query_type!r}"
        )
    if semantic_configuration is not None and query_type != "semantic":
        raise ConfigurationError("semantic_configuration needs query_type='semantic'")
    if (
        isinstance(answers, bool)
        or not isinstance(answers, int)
        or not (0 <= answers <= _MAX_ANSWERS)
    ):
        raise ConfigurationError(f"answers must be a whole number from 0 to {_MAX_ANSWERS}")
    if search_mode not in (None, "any", "all"):
        raise ConfigurationError(f"search_mode must be 'any' or 'all', not {search_mode!r}")


def check_vector_settings(
    vector_fields: str | Sequence[str] | None,
    embedding_function: object,
    hybrid: bool,
    vector_k: object,
    vector_filter_mode: object,
) -> tuple[str, ...] | None:
    """Validate the vector-search arguments; returns the vector fields.

    Raises:
        ConfigurationError: One of them is invalid or they do not fit together.
    """
    vectors = _identifiers(vector_fields, "vector_fields")
    if vectors is not None and not vectors:
        raise ConfigurationError("vector_fields must name at least one field")
    if vectors is None and embedding_function is not None:
        raise ConfigurationError("embedding_function needs vector_fields= (the fields to query)")
    if vectors is None and not hybrid:
        raise ConfigurationError("hybrid=False (pure vector search) needs vector_fields=")
    if embedding_function is not None and not callable(embedding_function):
        raise ConfigurationError("embedding_function must be callable")
    if vector_k is not None and (
        isinstance(vector_k, bool) or not isinstance(vector_k, int) or vector_k < 1
    ):
        raise ConfigurationError("vector_k must be a whole number of at least 1")
    if vector_filter_mode not in (None, "preFilter", "postFilter"):
        raise ConfigurationError("vector_filter_mode must be 'preFilter' or 'postFilter'")
    return vectors


def check_search_kwargs(search_kwargs: Mapping[str, Any] | None) -> dict[str, Any]:
    """Extra ``SearchClient.search`` keywords, refusing the ones the connector manages.

    Raises:
        ConfigurationError: A managed keyword (filter, top, skip, ...) is among them.
    """
    extras = dict(search_kwargs or {})
    refused = sorted(set(extras) & _RESERVED_SEARCH_KWARGS)
    if refused:
        raise ConfigurationError(
            "search_kwargs may not set " + ", ".join(refused) + " (use the connector's own "
            "arguments or per-call options)"
        )
    return extras


def security_expression(rule: Any, context: tuple[Any] | None) -> str | None:
    """The developer's security filter for this call; ``context`` is ``(value,)`` when set.

    Raises:
        ConfigurationError: A callable rule without a security context (fail closed), or one
            that returned no expression or an unbalanced one.
    """
    if rule is None:
        return None
    if isinstance(rule, str):
        return rule
    if context is None:
        raise ConfigurationError(
            "this connector's security_filter needs a security context: wrap the call in "
            "`with search.security_context(user): ...`"
        )
    expression = rule(context[0])
    if not isinstance(expression, str) or not expression.strip():
        raise ConfigurationError(
            "security_filter returned no filter; return an OData expression (e.g. "
            "\"acl/any(a: a eq 'u1')\"; 'true' only if this user may see everything)"
        )
    return check_balanced(expression)
