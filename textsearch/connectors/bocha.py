"""The public import path of `textsearch.connectors.web.bocha`."""

from textsearch.connectors.web.bocha import BochaTextSearch, BochaWebPage

__all__ = ["BochaTextSearch", "BochaWebPage"]
