"""The database work of PostgresTextSearch, written once for both pools (see ``textsearch._twins``).

Each operation is a plan of steps: `Sql` (one statement, its rows fetched as asked), `Copy`
(rows streamed into a ``COPY``), `Embed` (texts to vectors) and `Db` (a plan of `Sql`/`Copy`
steps run on one pooled connection, in a transaction when asked). ``PostgresTextSearch`` drives
a plan with the async pool and embedder calls, or with the blocking ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Literal

from textsearch._twins import Plan, drive, drive_sync
from textsearch.errors import InvalidRequestError

__all__ = [
    "ConnectionPlan",
    "Copy",
    "Db",
    "Embed",
    "Sql",
    "Step",
    "blocking",
    "checked_ids",
    "create_schema",
    "delete_ids",
    "execute",
    "fetch_all",
    "fetch_one",
    "on_connection",
    "write_rows",
]


@dataclass(frozen=True, slots=True)
class Sql:
    """One statement; the plan receives its rows (``"all"``), its first row (``"one"``) or None."""

    statement: Any
    params: Any = None
    fetch: Literal["none", "one", "all"] = "none"

    @classmethod
    def of(cls, query: tuple[Any, Any], fetch: Literal["none", "one", "all"] = "none") -> Sql:
        """A statement and its parameters, as the schema and SQL builders return them."""
        return cls(query[0], query[1], fetch)


@dataclass(frozen=True, slots=True)
class Copy:
    """Rows streamed into a ``COPY ... FROM STDIN`` statement."""

    statement: Any
    rows: Sequence[tuple[Any, ...]]


ConnectionPlan = Plan[Sql | Copy, Any]


@dataclass(frozen=True, slots=True)
class Db:
    """A plan of statements run on one pooled connection (in one transaction when asked)."""

    work: Callable[[], ConnectionPlan]
    transaction: bool = True


@dataclass(frozen=True, slots=True)
class Embed:
    """Passage texts to embed (the plan receives their vectors), or one query (its vector)."""

    texts: list[str] = field(default_factory=list)
    query: str | None = None


Step = Db | Embed


def blocking(db: Db) -> Callable[[Any], Any]:
    """``db`` as a function of a blocking psycopg connection (for ``SyncPool.run``)."""

    def perform(conn: Any, step: Sql | Copy) -> Any:
        if isinstance(step, Copy):
            with conn.cursor() as cursor, cursor.copy(step.statement) as loader:
                for row in step.rows:
                    loader.write_row(row)
            return None
        cursor = conn.execute(step.statement, step.params)
        if step.fetch == "one":
            return cursor.fetchone()
        return cursor.fetchall() if step.fetch == "all" else None

    def work(conn: Any) -> Any:
        with conn.transaction() if db.transaction else nullcontext():
            return drive_sync(db.work(), lambda step: perform(conn, step))

    return work


def on_connection(db: Db) -> Callable[[Any], Any]:
    """``db`` as a coroutine function of an async psycopg connection (for ``AsyncPool.run``)."""

    async def perform(conn: Any, step: Sql | Copy) -> Any:
        if isinstance(step, Copy):
            async with conn.cursor() as cursor, cursor.copy(step.statement) as loader:
                for row in step.rows:
                    await loader.write_row(row)
            return None
        cursor = await conn.execute(step.statement, step.params)
        if step.fetch == "one":
            return await cursor.fetchone()
        return await cursor.fetchall() if step.fetch == "all" else None

    async def work(conn: Any) -> Any:
        if not db.transaction:
            return await drive(db.work(), lambda step: perform(conn, step))
        async with conn.transaction():
            return await drive(db.work(), lambda step: perform(conn, step))

    return work


def _each(statements: Iterable[Any], params: Any = None) -> ConnectionPlan:
    for statement in statements:
        yield Sql(statement, params)


def cjk_pattern() -> str:
    """A POSIX class of the CJK characters: the rows an upgrade segments."""
    from textsearch._cjk import CJK_RANGES

    return f"[{CJK_RANGES}]"


def segmented(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """``(search_title, search_section, search_text, id, passage)`` of a stored row."""
    from textsearch.connectors.postgres._rows import search_texts

    doc_id, passage, title, section, text = row
    return (*search_texts(title, section, text or ""), doc_id, passage)


def create_schema(schema: Any, model: str | None, dimensions: int) -> ConnectionPlan:
    """Create (or upgrade) the managed table; returns the vector column's probe row, if any."""
    yield Sql(schema.lock())
    columns = {row[0] for row in (yield Sql.of(schema.probe(), "all"))}
    if not columns:  # a new table: statistics left by a dropped one are stale
        yield Sql(schema.drop_stats())
    if schema.needs_upgrade(columns):
        key = yield Sql.of(schema.primary_key(), "one")
        yield from _each(schema.upgrade(key[0] if key else None))
    if schema.needs_upgrade(columns) or schema.needs_cjk_upgrade(columns):
        # A table from before CJK segmentation: its CJK rows are cut on the client once, and
        # the BM25 statistics are rebuilt from the new vectors.
        if schema.needs_cjk_upgrade(columns):
            yield from _each(schema.cjk_upgrade())
        for row in (yield Sql(schema.cjk_rows(), (cjk_pattern(),), "all")):
            yield Sql(schema.set_search_text(), segmented(row))
        yield Sql(schema.drop_stats())
    yield from _each(schema.create())
    if not (yield Sql.of(schema.has_stats(), "one"))[0]:
        yield Sql(schema.write_lock())
        yield from _each(schema.create_stats())
    if model is None:
        return None
    row = yield Sql.of(schema.embedding_probe(), "one")
    if row is None:
        yield from _each(schema.add_embedding(dimensions, model))
        row = yield Sql.of(schema.embedding_probe(), "one")
    return row


def write_rows(schema: Any, rows: Sequence[tuple[Any, ...]]) -> ConnectionPlan:
    """Upsert the rows of whole documents (every passage of each) and keep BM25's statistics."""
    create, copy, insert, trim = schema.upsert()
    ids = schema.staged_ids()
    yield Sql(create)
    yield Copy(copy, rows)
    # Rows are staged before the lock: writers wait for each other only while the statistics
    # and the rows change.
    yield Sql(schema.write_lock())
    statistics = bool((yield Sql.of(schema.has_stats(), "one"))[0])
    yield from _each(schema.stats_before(ids) if statistics else ())
    yield Sql(insert)
    yield Sql(trim)
    yield from _each(schema.stats_after(ids) if statistics else ())


def delete_ids(schema: Any, params: dict[str, Any]) -> ConnectionPlan:
    """Delete documents by id (``params["ids"]``); returns how many existed."""
    gone = schema.deleted_ids()
    yield Sql(schema.write_lock())
    statistics = bool((yield Sql.of(schema.has_stats(), "one"))[0])
    for statement in schema.stats_before(gone) if statistics else ():
        yield Sql(statement, _params_of(statement, params))
    count = int((yield Sql(schema.delete(), params, fetch="one"))[0])
    for statement in schema.stats_after(gone) if statistics else ():
        yield Sql(statement, _params_of(statement, params))
    return count


def _params_of(statement: Any, params: dict[str, Any]) -> dict[str, Any] | None:
    """The parameters of a statement that has placeholders (DDL takes none)."""
    return params if b"%(" in statement.as_bytes(None) else None


def fetch_one(statement: Any, params: Any = None) -> ConnectionPlan:
    """One statement; returns its first row."""
    return (yield Sql(statement, params, fetch="one"))


def fetch_all(statement: Any, params: Any = None) -> ConnectionPlan:
    """One statement; returns its rows."""
    return (yield Sql(statement, params, fetch="all"))


def execute(statement: Any, params: Any = None) -> ConnectionPlan:
    """One statement, nothing fetched."""
    yield Sql(statement, params)


def checked_ids(ids: Iterable[str]) -> list[str]:
    """Document ids to delete: a list of strings (one string is refused, not split)."""
    if isinstance(ids, str | bytes):
        raise InvalidRequestError("delete_documents takes a list of ids, not one string")
    result = list(ids)
    if not all(isinstance(i, str) for i in result):
        raise InvalidRequestError("document ids must be strings")
    return result
