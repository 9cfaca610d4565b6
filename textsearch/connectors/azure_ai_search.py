"""``textsearch.connectors.azure_ai_search``: the public import path of the Azure connector.

Everything here comes from :mod:`textsearch.connectors.azure`.
"""

from textsearch.connectors.azure import (
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
