"""The public import path of :mod:`textsearch.connectors.web.searxng`."""

from textsearch.connectors.web.searxng import SearxngResult, SearxngTextSearch

__all__ = ["SearxngTextSearch", "SearxngResult"]
