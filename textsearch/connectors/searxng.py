"""The public import path of `textsearch.connectors.web.searxng`."""

from textsearch.connectors.web.searxng import SearxngResult, SearxngTextSearch

__all__ = ["SearxngTextSearch", "SearxngResult"]
