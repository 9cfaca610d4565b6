"""``textsearch.connectors.azure_ai_search``: the public import path of the Azure connector.

Everything here comes from `textsearch.connectors.azure`, under the same names.
"""

from textsearch.connectors.azure import *  # noqa: F403 - the same public names, once
from textsearch.connectors.azure import __all__ as __all__
