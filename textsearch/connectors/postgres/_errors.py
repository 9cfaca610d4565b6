"""psycopg and pool exceptions -> the documented error tree, and DSN redaction.

Messages are built from the server's message and from the non-secret parts of the connection
string (host, port, database, user); the password never reaches a message, a hint or a repr.
Original exceptions are never chained: the documented error is raised outside the ``except``
block that caught psycopg's, so neither ``__cause__`` nor ``__context__`` reaches an exception
that may hold the connection string (psycopg's errors keep the failed connection).
"""

from __future__ import annotations

from typing import Any

from textsearch import errors

PROVIDER = "postgres"
_SAFE_KEYS = ("host", "hostaddr", "port", "dbname", "user")
_INSTALL_HINT = 'pip install "textsearch-sdk[postgres]"'


def require_psycopg() -> Any:
    """Import psycopg and psycopg_pool, or explain which extra to install."""
    try:
        import psycopg
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"PostgresTextSearch needs psycopg 3 and psycopg_pool: {_INSTALL_HINT}"
        ) from exc
    return psycopg


def parse_dsn(dsn: str) -> dict[str, str]:
    """The DSN's parameters; an unparsable DSN is reported without echoing it."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        return {k: str(v) for k, v in conninfo_to_dict(dsn).items() if v is not None}
    except Exception:
        pass
    # The parser's message quotes the DSN, which may hold a password: never repeat it, and
    # raise outside the except block so the parser's error is not even the __context__.
    raise errors.ConfigurationError(
        "the PostgreSQL DSN is not a valid connection string "
        "(use 'host=... dbname=... user=...' or a postgresql:// URL)"
    )


def describe(params: dict[str, str]) -> str:
    """``host=... port=... dbname=... user=...`` without the password (or other secrets)."""
    shown = [f"{k}={params[k]}" for k in _SAFE_KEYS if params.get(k)]
    return " ".join(shown) or "libpq defaults (PG* environment variables)"


def redact(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, "***")
    return text


# Server errors that name what is wrong: SQLSTATE, the error, its message and hints ({table}
# and {message} filled in).
_SERVER_ERRORS: tuple[tuple[str, type[errors.ProviderError], str, tuple[str, ...]], ...] = (
    (
        "42P01",  # undefined_table
        errors.NotFoundError,
        "table {table!r} does not exist ({message})",
        ("call create_schema() / create_schema_sync() first, or check table=",),
    ),
    (
        "42703",  # undefined_column
        errors.NotFoundError,
        "a configured column does not exist in {table!r} ({message})",
        (
            "check the *_column arguments of from_table()",
            "a managed table made by an older version: call create_schema() once to upgrade it",
        ),
    ),
    (
        "42501",  # insufficient_privilege
        errors.PermissionDeniedError,
        "{message}",
        ("GRANT the needed rights on {table!r} to this user",),
    ),
)


def map_error(
    exc: BaseException, *, target: str, table: str, secrets: tuple[str, ...]
) -> errors.TextSearchError:
    """Translate one psycopg / psycopg_pool exception."""
    import psycopg
    from psycopg import errors as pgerrors
    from psycopg_pool import PoolTimeout

    if isinstance(exc, errors.TextSearchError):
        return exc
    message = redact(" ".join(str(exc).split()), secrets)[:500]
    where = f"PostgreSQL ({target})"
    if isinstance(exc, PoolTimeout):
        return errors.SearchTimeoutError(
            f"{where}: no free connection in the pool within the timeout",
            provider=PROVIDER,
            hints=(
                "every pooled connection is busy: raise max_size, or pool_timeout",
                "or the server is not accepting connections",
            ),
        )
    if isinstance(exc, pgerrors.QueryCanceled):
        return errors.SearchTimeoutError(
            f"{where}: the statement was cancelled after the timeout ({message})",
            provider=PROVIDER,
            hints=("raise timeout=, or narrow the query with a filter",),
        )
    for sqlstate, error_class, text, hints in _SERVER_ERRORS:
        if getattr(exc, "sqlstate", None) == sqlstate:
            return error_class(
                f"{where}: " + text.format(table=table, message=message),
                provider=PROVIDER,
                code=sqlstate,
                hints=tuple(h.format(table=table) for h in hints),
            )
    if isinstance(exc, pgerrors.UndefinedObject | pgerrors.UndefinedFunction):
        return errors.ConfigurationError(
            f"{where}: {message} (check text_search_config=; "
            "SELECT cfgname FROM pg_ts_config lists what the server has)"
        )
    if isinstance(exc, pgerrors.InvalidPassword | pgerrors.InvalidAuthorizationSpecification):
        return _auth_error(where, message, exc.sqlstate)
    if isinstance(exc, psycopg.DataError | psycopg.ProgrammingError) and not isinstance(
        exc, psycopg.InterfaceError
    ):
        return errors.BadRequestError(
            f"{where}: {message}", provider=PROVIDER, code=getattr(exc, "sqlstate", None)
        )
    if isinstance(exc, psycopg.OperationalError):
        lowered = message.lower()
        if "authentication failed" in lowered or "no password supplied" in lowered:
            return _auth_error(where, message, getattr(exc, "sqlstate", None))
        if "does not exist" in lowered and "database" in lowered:
            return errors.NotFoundError(
                f"{where}: {message}",
                provider=PROVIDER,
                hints=("check dbname in the DSN",),
            )
        if "timeout expired" in lowered:
            return errors.SearchTimeoutError(
                f"{where}: could not connect within connect_timeout",
                provider=PROVIDER,
                hints=("check that the server is reachable from here",),
            )
        if getattr(exc, "sqlstate", None) in ("57P01", "57P02", "57P03", "53300"):
            return errors.ServiceUnavailableError(
                f"{where}: {message}", provider=PROVIDER, code=getattr(exc, "sqlstate", None)
            )
        return errors.SearchTransportError(
            f"{where}: cannot reach the server: {message}",
            provider=PROVIDER,
            hints=(
                "check that PostgreSQL is running and the DSN's host and port "
                "(TEXTSEARCH_POSTGRES_DSN or dsn=)",
            ),
        )
    if isinstance(exc, psycopg.Error):
        return errors.ProviderError(
            f"{where}: {message}", provider=PROVIDER, code=getattr(exc, "sqlstate", None)
        )
    if isinstance(exc, OSError):
        return errors.SearchTransportError(f"{where}: {message}", provider=PROVIDER)
    return errors.ProviderError(
        f"{where}: unexpected {type(exc).__name__}: {message}", provider=PROVIDER
    )


def _auth_error(where: str, message: str, sqlstate: str | None) -> errors.AuthenticationError:
    return errors.AuthenticationError(
        f"{where}: authentication failed ({message})",
        provider=PROVIDER,
        code=sqlstate,
        hints=("check the user and password in the DSN (or PGPASSWORD / ~/.pgpass)",),
    )
