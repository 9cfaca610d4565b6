"""The public import path of `textsearch.connectors.web.brave`."""

from textsearch.connectors.web.brave import BraveTextSearch, BraveWebResult

__all__ = ["BraveTextSearch", "BraveWebResult"]
