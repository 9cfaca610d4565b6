"""What every command shares: exit codes, the usage error, argument types, closing."""

from __future__ import annotations

import argparse
import hashlib
import os
from pathlib import Path
from typing import NoReturn, TextIO

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A command-line mistake: printed as one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser that raises :class:`UsageError` instead of exiting."""

    def error(self, message: str) -> NoReturn:
        """Raise the mistake as :class:`UsageError` (``main`` prints it as one line)."""
        raise UsageError(message)


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(base) / "textsearch"


def default_index_file(folder: str | os.PathLike[str]) -> Path:
    """The cache file ``textsearch search --path DIR`` keeps DIR's index in."""
    resolved = str(Path(folder).expanduser().resolve())
    digest = hashlib.sha256(resolved.encode()).hexdigest()[:16]
    return _cache_dir() / f"index-{digest}.sqlite3"


def close(search: object) -> None:
    """Close a search (its blocking ``close``), when it has one."""
    closer = getattr(search, "close", None)
    if callable(closer):
        closer()


def positive(text: str) -> int:
    """``argparse`` type: a whole number of at least 1."""
    return _whole_number(text, 1)


def non_negative(text: str) -> int:
    """``argparse`` type: a whole number of at least 0."""
    return _whole_number(text, 0)


def _whole_number(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"expected a number of at least {least}, got {value}")
    return value


class Progress:
    """A one-line progress bar on a terminal; silent when the stream is not a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.shown = False

    def __call__(self, done: int, total: int, path: str) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        name = os.path.basename(path)[:30]
        self.stream.write(f"\r[{bar}] {done}/{total} {name:<30}")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        """End the bar's line, when one was drawn."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
