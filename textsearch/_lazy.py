"""Names a package exports but imports only on first use (PEP 562 module ``__getattr__``).

Every package that keeps ``import textsearch`` light builds its ``__getattr__`` and
``__dir__`` here from a table of where each name lives. Its ``__all__`` and the
``TYPE_CHECKING`` imports stay written out in the package, for static type checkers.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["by_module", "lazy_getattr", "public_dir"]


def by_module(modules: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """Invert ``{module: names}`` into the ``{name: module}`` table `lazy_getattr` reads."""
    return {name: module for module, names in modules.items() for name in names}


def lazy_getattr(
    package: str,
    namespace: dict[str, Any],
    where: Mapping[str, str] | Callable[[str], str | None],
) -> Callable[[str], Any]:
    """A package's ``__getattr__``: import a listed name from its module when first asked for.

    The value is then kept in ``namespace`` (the package's ``globals()``), so the next use
    is a plain attribute read and never comes back here.

    Args:
        package: The package's ``__name__``, for the error message.
        namespace: The package's ``globals()``.
        where: Public name → the module that defines it, or a function giving that module
            (``None`` for a name the package does not export).

    Returns:
        The function to bind to the package's ``__getattr__``; it raises
        ``AttributeError`` for a name the table does not know, and lets the ``ImportError``
        of a missing optional dependency through.
    """
    find = where.get if isinstance(where, Mapping) else where

    def __getattr__(name: str) -> Any:
        module = find(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    return __getattr__


def public_dir(namespace: dict[str, Any]) -> Callable[[], list[str]]:
    """A package's ``__dir__``: what it holds now and every name of its ``__all__``, each once.

    Lists the lazy names before they are loaded, so completion in a REPL or an IDE offers them.
    """

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace.get("__all__", ())})

    return __dir__
