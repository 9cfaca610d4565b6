"""textsearch: one abstraction over text-search backends, for prompts and LLM tools.

The public names are re-exported here and loaded on first use, so ``import textsearch``
stays light and never imports a provider SDK::

    from textsearch import LocalTextSearch, TextSearchFilter

    search = LocalTextSearch()
    search.index_path("docs")
    for text in search.search_sync("retry policy", top=3):
        print(text)
"""

from __future__ import annotations

import importlib
import logging as _logging
from typing import TYPE_CHECKING

from textsearch import _lazy, connectors, errors

# The error tree is cheap and always loaded; its names are public here too (see __all__).
from textsearch.errors import *  # noqa: F403

if TYPE_CHECKING:
    from textsearch._types import (
        AnyOf,
        AnyTagEqualTo,
        EqualTo,
        FilterClause,
        FilterValue,
        NotEqualTo,
        Range,
        SearchOptionArgs,
        SearchOptions,
        SearchResults,
        TextSearchFilter,
        TextSearchResult,
    )
    from textsearch.base import BaseTextSearch, TextSearch
    from textsearch.compose import (
        CachedTextSearch,
        FallbackTextSearch,
        FusedResult,
        FusedTextSearch,
        RerankedResult,
        RerankedTextSearch,
        canonical_link,
    )

    # every connector and its native model, as the provider registry lists them
    from textsearch.connectors import *  # noqa: F403

from textsearch._version import __version__

# A library never configures logging; without a handler of its own, Python's last-resort
# handler would print our WARNING records on stderr of every application that uses us.
_logging.getLogger("textsearch").addHandler(_logging.NullHandler())

__all__ = [
    "AnyOf",
    "AnyTagEqualTo",
    "BaseTextSearch",
    "CachedTextSearch",
    "EqualTo",
    "FallbackTextSearch",
    "FilterClause",
    "FilterValue",
    "FusedResult",
    "FusedTextSearch",
    "NotEqualTo",
    "Range",
    "RerankedResult",
    "RerankedTextSearch",
    "SearchOptionArgs",
    "SearchOptions",
    "SearchResults",
    "TextSearch",
    "TextSearchFilter",
    "TextSearchResult",
    "__version__",
    "canonical_link",
]
# The error classes, imported above, and the connectors (textsearch.connectors reads them
# from the provider registry; importing it loads no connector).
__all__ += errors.__all__
__all__ += connectors.__all__


# Everything but the error tree is loaded on first use, so that ``import textsearch`` stays
# light (pydantic alone is a heavy import; benchmarks/bench_import.py) and loads no connector.
# The connector names come from the provider registry (textsearch.registry), through
# textsearch.connectors.LAZY_EXPORTS; __all__ and the TYPE_CHECKING imports above are
# written out for type checkers, and tests/test_registry.py keeps them equal to it.
# Every other lazy name is in the __all__ of one of these core modules, each of which
# imports the ones before it: trying them in order imports nothing that is not needed.
_CORE_MODULES = ("textsearch._types", "textsearch.base", "textsearch.compose")


def _module_of(name: str) -> str | None:
    from textsearch.connectors import LAZY_EXPORTS

    module = LAZY_EXPORTS.get(name)
    if module is not None or name not in __all__:
        return module
    return next(
        (core for core in _CORE_MODULES if name in importlib.import_module(core).__all__), None
    )


__getattr__ = _lazy.lazy_getattr(__name__, globals(), _module_of)


def __dir__() -> list[str]:
    # The public names, each once (the error classes are both imported and listed), and the
    # module's dunders; not the helpers this module imports for itself.
    dunders = (name for name in globals() if name.startswith("__") and name.endswith("__"))
    return sorted({*__all__, *dunders})
