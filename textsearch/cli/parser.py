"""The argument parser of the ``textsearch`` command: one sub-command per module.

Each command module (`search`, `ground`, ...)
has ``add_parser(commands)``, which adds its sub-command with every flag it takes and sets
``handler`` to its ``run(args, out)``; a new flag of one command is written in its module
only. Options shared by several commands (``--provider``...) come from
``add_provider_arguments``.
"""

from __future__ import annotations

import argparse
from typing import Any

from textsearch.cli import eval as eval_command
from textsearch.cli import ground, index, mcp, search, tools
from textsearch.cli._common import Parser

#: The command modules, in the order ``textsearch --help`` lists them.
COMMANDS = (search, ground, index, tools, mcp, eval_command)

_VERBOSE_HELP = "log what happens at DEBUG level on stderr (keys masked)"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``textsearch`` command."""
    parser = Parser(
        prog="textsearch",
        description="Search text backends from the command line (the embedded index by default).",
    )
    from textsearch import __version__

    parser.add_argument("--version", action="version", version=f"textsearch {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    commands.required = True
    for command in COMMANDS:
        command.add_parser(commands)
    _add_verbose(parser, commands)
    return parser


def _add_verbose(parser: argparse.ArgumentParser, commands: Any) -> None:
    # Accepted before or after the command: "textsearch -v search q" and "... search q -v".
    parser.add_argument("-v", "--verbose", action="store_true", help=_VERBOSE_HELP)
    for command in commands.choices.values():
        command.add_argument(
            "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=_VERBOSE_HELP
        )
