"""Connection pools for PostgresTextSearch: one blocking, one async, both opened on first use.

Each call runs a function on a pooled connection under three bounds: the wait for a free
connection (``pool_timeout``), the connection attempt (``connect_timeout``) and the statement
(``statement_timeout`` set on every pooled connection). A connection found broken (the server
restarted, a network blip) is discarded, the pool's idle connections are checked, and the call is
tried once more; any other failure is mapped to the documented error tree.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from textsearch.connectors.postgres._errors import map_error
from textsearch.errors import TextSearchError

T = TypeVar("T")

_CONFIGURE = "SELECT set_config('statement_timeout', %s, false)"
# With vectors: pgvector's iterative index scans (0.8+), which keep an HNSW scan going until
# enough rows pass a search's filters. 'relaxed_order' may return a scan's rows slightly out
# of order, which is harmless here (every statement sorts the nearest rows by their distance
# again) and cheaper than 'strict_order' when few rows pass the filters. An older pgvector that
# is already loaded refuses the unknown parameter: then searches run without it.
_CONFIGURE_VECTORS = (
    "DO $$BEGIN PERFORM set_config('hnsw.iterative_scan', 'relaxed_order', false); "
    "EXCEPTION WHEN OTHERS THEN NULL; END$$"
)


@dataclass(frozen=True)
class PoolSettings:
    dsn: str
    target: str
    table: str
    secrets: tuple[str, ...]
    min_size: int
    max_size: int
    statement_timeout: float
    pool_timeout: float
    connect_timeout: float
    vectors: bool = False

    def connection_kwargs(self) -> dict[str, Any]:
        # libpq counts connect_timeout in whole seconds (and treats 1 as 2).
        return {"autocommit": True, "connect_timeout": max(2, math.ceil(self.connect_timeout))}

    def error(self, exc: BaseException) -> TextSearchError:
        return map_error(exc, target=self.target, table=self.table, secrets=self.secrets)

    def pool_kwargs(self, configure: Callable[[Any], Any], name: str) -> dict[str, Any]:
        """The keywords of ``ConnectionPool`` and ``AsyncConnectionPool`` (opened later)."""
        return {
            "min_size": self.min_size,
            "max_size": self.max_size,
            "kwargs": self.connection_kwargs(),
            "configure": configure,
            "timeout": self.pool_timeout,
            "open": False,
            "name": name,
        }

    @property
    def statement_timeout_ms(self) -> str:
        return str(max(1, int(self.statement_timeout * 1000)))


def _stalled(pool: Any, settings: PoolSettings) -> bool:
    """Whether a pool timed out below its maximum size (it could not connect, not busy)."""
    try:
        return int(pool.get_stats().get("pool_size", 0)) < settings.max_size
    except Exception:  # pragma: no cover - stats are informative only
        return True


def _broken(conn: Any) -> bool:
    return conn is not None and bool(conn.broken or conn.closed)


class SyncPool:
    """Blocking side: ``psycopg_pool.ConnectionPool``."""

    def __init__(self, settings: PoolSettings) -> None:
        self.settings = settings
        self._pool: Any = None
        self._lock = threading.Lock()

    def _configure(self, conn: Any) -> None:
        conn.execute(_CONFIGURE, (self.settings.statement_timeout_ms,))
        if self.settings.vectors:
            conn.execute(_CONFIGURE_VECTORS)

    def _get(self) -> Any:
        if self._pool is not None:
            return self._pool
        with self._lock:
            if self._pool is None:
                import psycopg
                from psycopg_pool import ConnectionPool

                s = self.settings
                # A direct first connection reports a refused server or a wrong password at
                # once and precisely, where the pool would only time out.
                error: TextSearchError | None = None
                try:
                    psycopg.connect(s.dsn, **s.connection_kwargs()).close()
                except Exception as exc:
                    error = s.error(exc)
                if error is not None:
                    raise error  # outside the except block: psycopg's error is not chained
                pool = ConnectionPool(
                    s.dsn, **s.pool_kwargs(self._configure, f"textsearch-{id(self):x}")
                )
                pool.open(wait=False)
                self._pool = pool
        return self._pool

    def run(self, fn: Callable[[Any], T]) -> T:
        s = self.settings
        for attempt in (0, 1):
            pool = self._get()
            conn: Any = None
            failure: BaseException | None = None
            try:
                with pool.connection(timeout=s.pool_timeout) as conn:
                    return fn(conn)
            except TextSearchError:
                raise
            except Exception as exc:
                failure = exc
            # Decided and raised outside the except block: the documented error never keeps
            # psycopg's (which holds the connection, password included) as its __context__.
            if attempt == 0 and _broken(conn):
                self._recheck(pool)
                continue
            error = self._diagnose(failure, pool, retry=attempt == 0)
            del failure
            if error is not None:
                raise error
        raise AssertionError("unreachable")  # pragma: no cover

    def _recheck(self, pool: Any) -> None:
        try:
            pool.check()
        except Exception:  # a failed check leaves the next attempt to report
            pass

    def _diagnose(self, exc: BaseException, pool: Any, retry: bool) -> TextSearchError | None:
        """The error to raise, or None (with ``retry``) when a stalled pool was replaced."""
        from psycopg_pool import PoolTimeout

        s = self.settings
        if not isinstance(exc, PoolTimeout) or not _stalled(pool, s):
            return s.error(exc)
        # The pool could not grow: is the server gone, or is the pool still backing off after
        # an outage? A direct attempt tells them apart.
        import psycopg

        try:
            psycopg.connect(s.dsn, **s.connection_kwargs()).close()
        except Exception as probe:
            return s.error(probe)
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.close(timeout=0)
        return None if retry else s.error(exc)

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()


class AsyncPool:
    """Async side: ``psycopg_pool.AsyncConnectionPool``, bound to the loop that opened it."""

    def __init__(self, settings: PoolSettings) -> None:
        self.settings = settings
        self._pool: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def _configure(self, conn: Any) -> None:
        await conn.execute(_CONFIGURE, (self.settings.statement_timeout_ms,))
        if self.settings.vectors:
            await conn.execute(_CONFIGURE_VECTORS)

    async def _get(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._pool is None or self._loop is not loop:
            import psycopg
            from psycopg_pool import AsyncConnectionPool

            s = self.settings
            if self._pool is None:
                error: TextSearchError | None = None
                try:
                    conn = await psycopg.AsyncConnection.connect(s.dsn, **s.connection_kwargs())
                    await conn.close()
                except Exception as exc:
                    error = s.error(exc)
                if error is not None:
                    raise error  # outside the except block: psycopg's error is not chained
            if self._pool is None or self._loop is not loop:
                # A pool belongs to one event loop; a new loop (another asyncio.run) gets its own.
                self._pool = AsyncConnectionPool(
                    s.dsn, **s.pool_kwargs(self._configure, f"textsearch-async-{id(self):x}")
                )
                self._loop = loop
        pool = self._pool
        await pool.open(wait=False)  # idempotent; every caller waits for the same opening
        return pool

    async def run(self, fn: Callable[[Any], Awaitable[T]]) -> T:
        s = self.settings
        for attempt in (0, 1):
            pool = await self._get()
            conn: Any = None
            failure: BaseException | None = None
            try:
                async with pool.connection(timeout=s.pool_timeout) as conn:
                    return await fn(conn)
            except TextSearchError:
                raise
            except Exception as exc:
                failure = exc
            # Outside the except block, as in SyncPool.run: nothing of psycopg's is chained.
            if attempt == 0 and _broken(conn):
                try:
                    await pool.check()
                except Exception:
                    pass
                continue
            error = await self._diagnose(failure, pool, retry=attempt == 0)
            del failure
            if error is not None:
                raise error
        raise AssertionError("unreachable")  # pragma: no cover

    async def _diagnose(self, exc: BaseException, pool: Any, retry: bool) -> TextSearchError | None:
        """As SyncPool._diagnose."""
        from psycopg_pool import PoolTimeout

        s = self.settings
        if not isinstance(exc, PoolTimeout) or not _stalled(pool, s):
            return s.error(exc)
        import psycopg

        try:
            conn = await psycopg.AsyncConnection.connect(s.dsn, **s.connection_kwargs())
            await conn.close()
        except Exception as probe:
            return s.error(probe)
        if self._pool is pool:
            self._pool = None
        await pool.close(timeout=0)
        return None if retry else s.error(exc)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            if self._loop is asyncio.get_running_loop():
                await pool.close()
            self._loop = None
