"""``main``: parse, run one command, and turn every error into one line and an exit code."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from textsearch.cli._common import EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError
from textsearch.cli._logging import setup_logging
from textsearch.cli.parser import build_parser
from textsearch.errors import ConfigurationError, InvalidRequestError, TextSearchError


def main(argv: Sequence[str] | None = None, *, out: TextIO | None = None) -> int:
    """Run the command line; returns the exit code.

    Args:
        argv: The arguments (default: ``sys.argv[1:]``).
        out: Where results are written (default: ``sys.stdout``).

    Returns:
        0 on success (including "no results"), 1 when the backend fails, 2 for a usage or
        configuration error, 130 when interrupted. Errors are one line on stderr; nothing
        is raised.
    """
    stream = out if out is not None else sys.stdout
    undo: Callable[[], None] | None = None
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        undo = setup_logging(bool(getattr(args, "verbose", False)))
        handler: Callable[[argparse.Namespace, TextIO], int] = args.handler
        return handler(args, stream)
    except UsageError as exc:
        _fail(f"usage: {exc} (see textsearch --help)")
        return EXIT_USAGE
    except (ConfigurationError, InvalidRequestError) as exc:
        _fail(str(exc))
        return EXIT_USAGE
    except TextSearchError as exc:
        _fail(str(exc))
        return EXIT_FAILURE
    except KeyboardInterrupt:
        _fail("interrupted")
        return 130
    except BrokenPipeError:
        # Output piped into a command that stopped reading (e.g. head): not an error.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_OK
    except Exception as exc:  # last resort: one line, never a traceback
        _fail(f"unexpected {type(exc).__name__}: {exc}")
        return EXIT_FAILURE
    finally:
        if undo is not None:
            undo()


def _fail(message: str) -> None:
    first_line = " ".join(str(message).split())
    print(f"textsearch: error: {first_line}", file=sys.stderr)
