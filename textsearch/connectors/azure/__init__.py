"""``AzureAISearchTextSearch``: Azure AI Search (extra ``azure``: azure-search-documents).

The package holds the connector (``_search``) and its parts: query and OData building,
response parsing, the SDK bridge and its transport, and error translation. The public
import path is :mod:`textsearch.connectors.azure_ai_search`.
"""

from textsearch.connectors.azure._search import (
    CONTENT_BLOCK_FIELDS,
    DEFAULT_API_VERSION,
    DEFAULT_LINK_FIELDS,
    DEFAULT_NAME_FIELDS,
    DEFAULT_VALUE_FIELDS,
    AzureAISearchTextSearch,
    AzureSearchCaption,
    AzureSearchDocument,
    content_block_result,
    odata_literal,
    search_in,
)

__all__ = [
    "CONTENT_BLOCK_FIELDS",
    "DEFAULT_API_VERSION",
    "DEFAULT_LINK_FIELDS",
    "DEFAULT_NAME_FIELDS",
    "DEFAULT_VALUE_FIELDS",
    "AzureAISearchTextSearch",
    "AzureSearchCaption",
    "AzureSearchDocument",
    "content_block_result",
    "odata_literal",
    "search_in",
]
