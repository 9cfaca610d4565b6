"""The public import path of `textsearch.connectors.web.exa`."""

from textsearch.connectors.web.exa import ExaResult, ExaTextSearch

__all__ = ["ExaTextSearch", "ExaResult"]
