"""``AzureAISearchTextSearch``: Azure AI Search (extra ``azure``: azure-search-documents).

The package holds the connector (``_search``) and its parts: query and OData building,
response parsing, the SDK bridge and its transport, and error translation. The public
import path is `textsearch.connectors.azure_ai_search`.
"""

from textsearch.connectors.azure._search import *  # noqa: F403 - the connector's public names
from textsearch.connectors.azure._search import __all__ as __all__
