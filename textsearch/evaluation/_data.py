"""Evaluation sets: a BEIR folder or a golden JSONL file, read into one shape."""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from textsearch.errors import ConfigurationError

__all__ = ["EvaluationSet", "load_beir", "load_golden"]


@dataclass
class EvaluationSet:
    """Questions, what answers each, and (for BEIR) the documents to search.

    Attributes:
        name: A label (the folder's or file's name).
        queries: Query id → query text, in file order.
        qrels: Query id → {document id or link → grade}; a grade of 1 or more is
            relevant (graded gains in nDCG), 0 is judged not relevant.
        corpus: Document id → ``{"title", "text"}`` for a BEIR set; empty for a golden file
            (the user's own index is searched).
    """

    name: str
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    corpus: dict[str, dict[str, str]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.queries)

    def __repr__(self) -> str:
        return (
            f"EvaluationSet({self.name!r}, {len(self.queries)} queries, "
            f"{len(self.corpus)} documents)"
        )

    def documents(self) -> Iterator[dict[str, Any]]:
        """The corpus in ``add_documents``' shape (``id``, ``title``, ``text``), to index it."""
        for doc_id, doc in self.corpus.items():
            yield {"id": doc_id, "title": doc.get("title") or "", "text": doc.get("text") or ""}

    def head(self, count: int) -> EvaluationSet:
        """The same set with only its first ``count`` queries (a quick look)."""
        kept = dict(list(self.queries.items())[:count])
        return EvaluationSet(self.name, kept, {q: self.qrels[q] for q in kept}, self.corpus)


def _bad(path: Path, why: str) -> ConfigurationError:
    return ConfigurationError(f"{str(path)!r}: {why}")


def _open_text(path: Path) -> TextIO:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def _json_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        with _open_text(path) as stream:
            for number, line in enumerate(stream, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError:
                    raise _bad(path, f"line {number} is not JSON") from None
                if not isinstance(row, dict):
                    raise _bad(path, f"line {number} is not a JSON object")
                yield number, row
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        raise _bad(path, f"cannot be read ({type(exc).__name__})") from None


def _grade(value: object, path: Path, where: str) -> int:
    try:
        number = float(str(value).strip())
    except ValueError:
        raise _bad(path, f"{where}: the grade {str(value)[:20]!r} is not a number") from None
    if number != int(number):
        raise _bad(path, f"{where}: the grade {number} is not a whole number")
    return int(number)


def load_beir(folder: str | os.PathLike[str], split: str = "test") -> EvaluationSet:
    """Read a BEIR folder: ``corpus.jsonl[.gz]``, ``queries.jsonl``, ``qrels/<split>.tsv``.

    Only the queries that have judgments in the split are kept, in ``queries.jsonl``'s
    order. The qrels file may start with a ``query-id corpus-id score`` header.

    Raises:
        ConfigurationError: A missing file, a line that is not JSON, a qrels row without
            three columns or with a grade that is not a whole number.
    """
    root = Path(folder).expanduser()
    if not root.is_dir():
        raise _bad(root, "no such folder (a BEIR folder holds corpus.jsonl and queries.jsonl)")
    corpus_path = next(
        (root / n for n in ("corpus.jsonl", "corpus.jsonl.gz") if (root / n).is_file()), None
    )
    if corpus_path is None:
        raise _bad(root, "no corpus.jsonl or corpus.jsonl.gz")
    qrels_path = root / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        raise _bad(root, f"no qrels/{split}.tsv")
    queries_path = next(
        (root / n for n in ("queries.jsonl", "queries.jsonl.gz") if (root / n).is_file()), None
    )
    if queries_path is None:
        raise _bad(root, "no queries.jsonl")
    qrels: dict[str, dict[str, int]] = {}
    try:
        with open(qrels_path, encoding="utf-8", newline="") as stream:
            for number, row in enumerate(csv.reader(stream, delimiter="\t"), 1):
                if not row or not "".join(row).strip():
                    continue
                if len(row) < 3:
                    raise _bad(qrels_path, f"row {number} has {len(row)} columns, not 3")
                if number == 1 and not row[2].strip().lstrip("-").isdigit():
                    continue  # the header
                grade = _grade(row[2], qrels_path, f"row {number}")
                qrels.setdefault(row[0].strip(), {})[row[1].strip()] = grade
    except OSError as exc:
        raise _bad(qrels_path, f"cannot be read ({type(exc).__name__})") from None
    queries: dict[str, str] = {}
    for number, item in _json_lines(queries_path):
        qid = str(item.get("_id", "")).strip()
        if qid in qrels:
            text = item.get("text")
            if not isinstance(text, str):
                raise _bad(queries_path, f"line {number} has no text")
            queries[qid] = text
    corpus: dict[str, dict[str, str]] = {}
    for number, item in _json_lines(corpus_path):
        doc_id = str(item.get("_id", "")).strip()
        if not doc_id:
            raise _bad(corpus_path, f"line {number} has no _id")
        corpus[doc_id] = {
            "title": str(item.get("title") or ""),
            "text": str(item.get("text") or ""),
        }
    return EvaluationSet(root.name, queries, {q: qrels[q] for q in queries}, corpus)


def _relevant(value: object, path: Path, number: int) -> dict[str, int]:
    where = f"line {number}"
    if isinstance(value, str):
        value = [value]
    if isinstance(value, Mapping):
        return {str(k).strip(): _grade(v, path, where) for k, v in value.items() if str(k).strip()}
    if not isinstance(value, list) or not value:
        raise _bad(path, f"{where}: 'relevant' must be a non-empty list of ids or links")
    out: dict[str, int] = {}
    for item in value:
        if isinstance(item, Mapping):
            key = item.get("id") or item.get("link")
            if not isinstance(key, str) or not key.strip():
                raise _bad(path, f"{where}: a relevant object needs an 'id' or a 'link'")
            out[key.strip()] = _grade(item.get("grade", 1), path, where)
        elif isinstance(item, str) and item.strip():
            out[item.strip()] = 1
        else:
            raise _bad(path, f"{where}: each relevant entry is an id or link string")
    return out


def load_golden(path: str | os.PathLike[str]) -> EvaluationSet:
    """Read golden questions: one JSON object a line.

    ``{"query": "how do I retry?", "relevant": ["docs/retry.md"], "id": "q1"}``; ``id`` is
    optional (the line number is used); ``relevant`` lists ids or links (a link with a
    ``#fragment`` names a section, without one the whole page), or maps each to a grade
    (``{"docs/retry.md#backoff": 2, "docs/retry.md": 1}``), or holds objects ``{"id"|"link",
    "grade"}``.

    Raises:
        ConfigurationError: A missing file, a line that is not a JSON object, a line
            without a query or without relevant entries, or two lines with one id.
    """
    where = Path(path).expanduser()
    if not where.is_file():
        raise _bad(where, "no such file (golden questions: one JSON object a line)")
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    for number, row in _json_lines(where):
        query = row.get("query")
        if not isinstance(query, str) or not query.strip():
            raise _bad(where, f"line {number} has no 'query'")
        qid = str(row.get("id") or number).strip()
        if qid in queries:
            raise _bad(where, f"line {number}: the id {qid!r} is used twice")
        queries[qid] = query
        qrels[qid] = _relevant(row.get("relevant"), where, number)
    if not queries:
        raise _bad(where, "holds no questions")
    name = where.name.removesuffix(".gz").removesuffix(".jsonl").removesuffix(".json")
    return EvaluationSet(name, queries, qrels)
