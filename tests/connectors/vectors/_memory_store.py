"""``MemoryTextSearch``: the smallest vector store written on the connector base.

Its "client library" is this module: `MemoryClient` keeps collections of records in dicts
and ranks by cosine similarity. It is what a new store costs (the architecture page counts
it): the seven abstract hooks of `VectorStoreTextSearch`, each written once as a plan of
client calls; no async client, so the async methods run the plans in a worker thread.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from textsearch import SearchOptions
from textsearch.connectors.vectors import _base as vs
from textsearch.connectors.vectors._base import Plan, Step, call
from textsearch.connectors.vectors._filters import INSTANT_SUFFIX, companions, visible
from textsearch.errors import NotFoundError, ProviderError, TextSearchError

Fields = dict[str, Any]
Predicate = Callable[[Fields], bool]


class MemoryClient:
    """The store's client: collections of ``record id -> (vector, fields)``."""

    def __init__(self) -> None:
        self.collections: dict[str, dict[str, tuple[list[float], Fields]]] = {}

    def records(self, name: str) -> dict[str, tuple[list[float], Fields]]:
        return self.collections[name]  # KeyError: no such collection

    def upsert(self, name: str, rows: Mapping[str, tuple[list[float], Fields]]) -> None:
        self.collections.setdefault(name, {}).update(rows)

    def delete(self, name: str, keep: Predicate) -> None:
        records = self.collections.get(name, {})
        for record_id in [r for r, (_, fields) in records.items() if not keep(fields)]:
            del records[record_id]

    def query(self, name: str, vector: list[float], where: Predicate, limit: int) -> list[Any]:
        scored = [
            (_cosine(vector, stored), record_id, fields)
            for record_id, (stored, fields) in self.records(name).items()
            if where(fields)
        ]
        scored.sort(key=lambda hit: (-hit[0], hit[1]))
        return scored[:limit]

    def count(self, name: str, where: Predicate) -> int:
        return sum(1 for _, fields in self.records(name).values() if where(fields))

    def close(self) -> None:
        pass


class AsyncMemoryClient:
    """No async client: the base's worker thread serves the async methods."""


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def _same(actual: Any, wanted: Any) -> bool:
    if isinstance(actual, bool) or isinstance(wanted, bool):
        return actual is wanted
    return bool(actual == wanted)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class MemoryDocument(vs.VectorDocument):
    """One passage found in a memory collection (score: cosine similarity)."""


class MemoryTextSearch(vs.VectorStoreTextSearch[MemoryDocument]):
    """Semantic search over an in-memory collection (for tests and for the docs' example)."""

    spec: ClassVar[vs.StoreSpec] = vs.StoreSpec(
        "memory",
        __name__,
        MemoryDocument,
        ("AsyncMemoryClient", "MemoryClient"),
        vs.UrlRule("Memory", "a memory store has no server", "no URL", path=False),
        "a MemoryClient or ':memory:'",
    )

    def __init__(self, client_or_location: Any, collection: str, **settings: Any) -> None:
        super().__init__(client_or_location, collection, settings)
        self._reserved = sorted(self._own_keys)  # metadata may not use the written fields

    def _new_client(self) -> MemoryClient:
        return MemoryClient()

    def _error(self, exc: BaseException) -> TextSearchError:
        if isinstance(exc, KeyError):
            return NotFoundError(f"no collection {self.collection!r}", provider="memory")
        return ProviderError(f"memory store: {type(exc).__name__}", provider="memory")

    # -- filters: a predicate over a record's fields ------------------------------------

    def _value(self, clause: vs.Clause, fields: Fields) -> Any:
        name = {"id": self.id_field, "link": self.link_field, "site": self.site_field}
        return fields.get(name.get(clause.target, clause.name))

    def _test(self, clause: vs.Clause) -> Predicate:
        if clause.op in (">", ">=", "<", "<="):
            key = clause.name + INSTANT_SUFFIX if clause.date else clause.name
            compare: Callable[[Any], bool] = {
                ">": lambda v: v > clause.value,
                ">=": lambda v: v >= clause.value,
                "<": lambda v: v < clause.value,
                "<=": lambda v: v <= clause.value,
            }[clause.op]
            return lambda fields: _number(fields.get(key)) and compare(fields[key])
        wanted = clause.values if clause.op == "any" else (clause.value,)

        def equal(fields: Fields) -> bool:
            actual = self._value(clause, fields)
            if clause.target == "site" or clause.any_tag:
                items = actual if isinstance(actual, list) else []
                return any(_same(item, w) for item in items for w in wanted)
            return any(_same(actual, w) for w in wanted)

        return (lambda fields: not equal(fields)) if clause.op == "ne" else equal

    def _filter_of(self, options: SearchOptions) -> Predicate:
        tests = [self._test(c) for c in self._clauses(options)]
        return lambda fields: all(test(fields) for test in tests)

    def _results(self, hits: list[Any]) -> list[MemoryDocument]:
        return [
            self._native(
                fields,
                record_id=record_id,
                text=fields.get(self.text_field),
                metadata=visible({k: v for k, v in fields.items() if k not in self._own_keys}),
                score=score,
            )
            for score, record_id, fields in hits
        ]

    # -- the three operations, each a plan of client calls ------------------------------

    def _search(
        self, client: Any, vector: list[float], query: str, options: SearchOptions, flt: Predicate
    ) -> Plan[Step, tuple[Any, int | None]]:
        limit = options.top + options.skip
        hits = yield call(client.query, self.collection, vector, flt, limit)
        if not options.include_total_count:
            return hits, None
        return hits, (yield call(client.count, self.collection, flt))

    def _write(
        self, client: Any, doc_ids: list[str], records: list[vs.PassageRecord], vectors: Any
    ) -> Plan[Step, None]:
        yield from self._delete(client, doc_ids)
        rows = {
            r.record_id: (
                list(v),
                {**r.metadata, **companions(r.metadata), **self._record_fields(r)},
            )
            for r, v in zip(records, vectors, strict=True)
        }
        yield call(client.upsert, self.collection, rows)

    def _delete(self, client: Any, wanted: list[str]) -> Plan[Step, None]:
        gone = set(wanted)
        yield call(client.delete, self.collection, lambda f: f.get(self.id_field) not in gone)
