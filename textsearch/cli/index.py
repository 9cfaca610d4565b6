"""``textsearch index DIR``: index a folder into a local index file or a PostgreSQL table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from textsearch.cli._common import EXIT_OK, Progress, UsageError, default_index_file
from textsearch.cli._providers import add_embedder_argument, open_local, postgres_from_args
from textsearch.cli._rerank import add_rank_arguments, index_ranking
from textsearch.errors import ConfigurationError

if TYPE_CHECKING:
    from textsearch.connectors.local import IndexReport


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``index`` command to the sub-command parsers."""
    index: argparse.ArgumentParser = commands.add_parser(
        "index", help="index a folder into a local index file"
    )
    index.add_argument("dir", help="folder (or file) to index")
    index.add_argument("--db", metavar="FILE", help="index file (default: the search cache file)")
    index.add_argument(
        "--provider",
        default="local",
        choices=("local", "postgres"),
        help="local (an index file, default) or postgres (TEXTSEARCH_POSTGRES_DSN)",
    )
    add_embedder_argument(index)
    add_rank_arguments(index)
    index.set_defaults(handler=run)
    return index


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run ``textsearch index``; returns the exit code."""
    folder = Path(args.dir)
    if not folder.exists():
        raise ConfigurationError(f"{args.dir!r}: no such file or folder")
    index_ranking(args)
    if getattr(args, "provider", "local") == "postgres":
        return _index_postgres(args, folder, out)
    db_path = Path(args.db) if args.db else default_index_file(folder)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    progress = Progress(sys.stderr)
    with open_local(db_path, args.embedder) as search:
        report = search.index_path(folder, progress=progress)
        progress.finish()
        embedded = 0
        if search.embedder is not None:
            # Passages indexed before the embedder was given (a keyword index, or files
            # unchanged since) have no vector yet: embed them now, or semantic search would
            # not find them and hybrid would silently be keyword search.
            embedded = search.embed_missing_sync(progress=progress.passages)
            progress.finish()
        total = search.document_count
    where = f"{total} document(s) in {db_path}"
    if embedded:
        where += f"; embedded {embedded} passage(s) that had no vector"
    return _report(out, report, where)


def _index_postgres(args: argparse.Namespace, folder: Path, out: TextIO) -> int:
    if args.db:
        raise UsageError("--db applies to --provider local only")
    if args.embedder:
        raise UsageError("--embedder applies to --provider local only")
    progress = Progress(sys.stderr)
    with postgres_from_args(args) as search:
        search.create_schema_sync()
        report = search.index_path(folder, progress=progress)
        progress.finish()
        total = search.count_documents_sync()
    return _report(out, report, f"{total} document(s) in PostgreSQL table {search.table}")


_SHOWN = 5  # reasons printed of each kind; the counts say how many there are


def _report(out: TextIO, report: IndexReport, where: str) -> int:
    # One line of counts, then the first few files skipped and failed, with their reasons.
    out.write(
        f"indexed {report.indexed} file(s) (added {report.added}, updated {report.updated}), "
        f"unchanged {report.unchanged}, removed {report.removed}, "
        f"skipped {len(report.skipped)}, failed {len(report.failed)}; {where}\n"
    )
    for kind, files in (("skipped", report.skipped), ("failed", report.failed)):
        for path, reason in files[:_SHOWN]:
            out.write(f"{kind}: {path}: {reason}\n")
        if len(files) > _SHOWN:
            out.write(f"{kind}: ... and {len(files) - _SHOWN} more\n")
    return EXIT_OK
