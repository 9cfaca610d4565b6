"""Logging for one run of the command: silent by default, DEBUG on stderr with ``-v``."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable


def key_variables() -> tuple[str, ...]:
    """Variables that may hold a key (from the registry); with --verbose their values are
    masked in every record."""
    from textsearch.registry import providers

    return tuple(dict.fromkeys(v for spec in providers() for v in spec.secret_variables))


def setup_logging(verbose: bool) -> Callable[[], None]:
    """Logging for one run: silent by default, DEBUG on stderr with ``--verbose``.

    Silent means a handler that drops records: without any handler, Python's last-resort
    handler prints every WARNING record of every library (azure-core, asyncio...) on
    stderr, around the one line the command prints for an error. Returns the undo.
    """
    import logging

    root = logging.getLogger()
    level = root.level
    handler: logging.Handler
    if verbose:
        from textsearch._http._redact import SecretFilter, register_secret

        for variable in key_variables():
            register_secret(os.environ.get(variable, "").strip() or None)
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handler.addFilter(SecretFilter())  # every logger's records, not only ours
        root.setLevel(logging.DEBUG)
    else:
        handler = logging.NullHandler()
    root.addHandler(handler)

    def undo() -> None:
        root.removeHandler(handler)
        root.setLevel(level)

    return undo
