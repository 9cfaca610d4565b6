"""The public import path of :mod:`textsearch.connectors.web.tavily`."""

from textsearch.connectors.web.tavily import TavilyResult, TavilyTextSearch

__all__ = ["TavilyTextSearch", "TavilyResult"]
