"""Composition: searches built from other searches, each one a ``TextSearch`` itself.

- `FallbackTextSearch` asks providers in order and cools down the ones that fail.
- `FusedTextSearch` asks them all at once and fuses their lists (reciprocal rank
  fusion), keeping where each result came from (`FusedResult`).
- `CachedTextSearch` answers a repeated search from memory and shares one request
  between identical searches made at the same time.
- `RerankedTextSearch` asks a search for candidates and lets a reranker
  (`textsearch.rerank`) order them, optionally with diversity (`RerankedResult`).
- `canonical_link` is the URL canonicalisation fusion and citations merge by.

They nest (a cache over a fallback over fused providers) and work wherever a connector
does: plugins, grounding, the command line::

    from textsearch.compose import CachedTextSearch, FallbackTextSearch

    search = CachedTextSearch(FallbackTextSearch([brave, tavily]), ttl=600)

The wrappers use only the core (``base``, ``_types``, ``errors``); they import no connector.
"""

from __future__ import annotations

from textsearch._links import TRACKING_PARAMETERS, canonical_link
from textsearch.compose._cache import CachedTextSearch, CacheStats
from textsearch.compose._fallback import DEFAULT_FALLBACK_ON, FallbackTextSearch
from textsearch.compose._fusion import FusedResult, FusedTextSearch
from textsearch.compose._rerank import RerankedResult, RerankedTextSearch
from textsearch.errors import AllProvidersFailedError

__all__ = [
    "DEFAULT_FALLBACK_ON",
    "TRACKING_PARAMETERS",
    "AllProvidersFailedError",
    "CacheStats",
    "CachedTextSearch",
    "FallbackTextSearch",
    "FusedResult",
    "FusedTextSearch",
    "RerankedResult",
    "RerankedTextSearch",
    "canonical_link",
]
