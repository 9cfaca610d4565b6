"""Walk everything an error reporter could reach from an exception, to look for secrets.

Error reporters (Sentry and the like) walk ``__cause__`` and ``__context__`` and dump
attributes; ``raise ... from None`` hides the context from a traceback but not from them.
"""

from __future__ import annotations

from typing import Any


def reachable_text(error: BaseException, *, depth: int = 4) -> str:
    """The text of the error, its chain, and the repr/str of every attribute reachable."""
    seen: set[int] = set()
    parts: list[str] = []

    def visit(value: Any, level: int) -> None:
        if id(value) in seen or level > depth:
            return
        seen.add(id(value))
        for render in (str, repr):
            try:
                parts.append(render(value))
            except Exception:  # a broken __repr__ of a third-party object
                parts.append(f"<unprintable {type(value).__name__}>")
        if isinstance(value, BaseException):
            visit(value.__cause__, level + 1)
            visit(value.__context__, level + 1)
            for arg in value.args:
                visit(arg, level + 1)
        if isinstance(value, (str, bytes, int, float, bool, type(None))):
            return
        if isinstance(value, dict):
            items: Any = list(value.values())
        elif isinstance(value, (list, tuple, set, frozenset)):
            items = list(value)
        else:
            try:
                items = list(vars(value).values())
            except TypeError:
                items = []
            for name in ("pgconn", "info", "diag", "request", "response"):
                try:
                    items.append(getattr(value, name))
                except Exception:
                    pass
        for item in items:
            visit(item, level + 1)

    visit(error, 0)
    return "\n".join(parts)
