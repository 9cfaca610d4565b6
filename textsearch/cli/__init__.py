"""The ``textsearch`` command line (entry point ``textsearch.cli:main``).

::

    textsearch search "query" [--provider local] [--path DIR] [--top N] [--site D] [--json]
        [--format numbered|citations|markdown|labelled|json]
    textsearch index DIR [--db FILE | --provider postgres]
    textsearch tools [--provider P] --format openai|anthropic|mcp [--strict]
    textsearch mcp [--provider P] [--path DIR]      (MCP server over stdio)
    textsearch ground "question" [--provider P] [--path DIR] [--top N] [--full-pages]
    textsearch eval DATASET [--path DIR | --db FILE] [--mode M[,M...]] [--rerank SPEC]
        [--k 10] [--min-ndcg X] [--json]      (golden JSONL or a BEIR folder; see cli._rerank)

``--provider a,b`` falls back from ``a`` to ``b``; ``--fuse`` fuses them instead; ``--cache``
answers repeated searches from memory (on by default for ``mcp``).

Exit codes: 0 on success (including "no results"), 1 when the backend fails,
2 for a usage or configuration error; errors are one line on stderr, never a traceback.
``-v``/``--verbose`` (before or after the command) logs at DEBUG level on stderr, keys masked.

The package has a parser module (`textsearch.cli.parser`) and one module per command
(``search``, ``ground``, ``index``, ``tools``, ``mcp``), each adding its own flags.
"""

from __future__ import annotations

from textsearch.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    default_index_file,
)
from textsearch.cli._main import main
from textsearch.cli._providers import (
    ARGUMENT_BUILDERS,
    ProviderBuilder,
    add_provider_arguments,
    build_provider,
    provider_names,
)
from textsearch.cli.parser import build_parser

__all__ = [
    "ARGUMENT_BUILDERS",
    "EXIT_FAILURE",
    "EXIT_OK",
    "EXIT_USAGE",
    "ProviderBuilder",
    "UsageError",
    "add_provider_arguments",
    "build_parser",
    "build_provider",
    "default_index_file",
    "main",
    "provider_names",
]
