"""The public import path of `textsearch.connectors.web.bing`."""

from textsearch.connectors.web.bing import BingTextSearch, BingWebPage

__all__ = ["BingTextSearch", "BingWebPage"]
