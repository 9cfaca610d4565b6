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
    """An argument parser that raises `UsageError` instead of exiting."""

    def error(self, message: str) -> NoReturn:
        """Raise the mistake as `UsageError` (``main`` prints it as one line)."""
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


#: Seconds between progress lines when stderr is not a terminal (a log file, CI, a pipe).
PROGRESS_SECONDS = 5.0


class Progress:
    """Progress of a long command on stderr.

    On a terminal, a one-line bar redrawn in place; otherwise (a file, a pipe, CI) a plain
    line every ``PROGRESS_SECONDS`` (``TEXTSEARCH_PROGRESS_SECONDS`` overrides it), so a long
    run is never silent.
    """

    def __init__(self, stream: TextIO) -> None:
        import time

        self.stream = stream
        self.enabled = stream.isatty()
        self.shown = False
        self._clock = time.monotonic
        self._started = self._last = self._clock()
        try:
            self.period = float(os.environ.get("TEXTSEARCH_PROGRESS_SECONDS", PROGRESS_SECONDS))
        except ValueError:
            self.period = PROGRESS_SECONDS

    def __call__(self, done: int, total: int, path: str) -> None:
        self.step(done, total, os.path.basename(path), "files")

    def passages(self, done: int, total: int) -> None:
        """Progress of embedding passages (``embed_missing_sync``'s callback)."""
        self.step(done, total, "", "passages embedded")

    def step(self, done: int, total: int, name: str, unit: str) -> None:
        if not self.enabled:
            now = self._clock()
            if now - self._last < self.period and done != total:
                return
            self._last = now
            rate = done / max(now - self._started, 1e-9)
            self.stream.write(
                f"{done}/{total} {unit} ({rate:,.1f}/s){' ' + name if name else ''}\n"
            )
            self.stream.flush()
            return
        width = 30
        filled = int(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(f"\r[{bar}] {done}/{total} {name[:30]:<30}")
        self.stream.flush()
        self.shown = True

    def finish(self) -> None:
        """End the bar's line, when one was drawn."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
