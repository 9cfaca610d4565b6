"""The real PostgreSQL server of the connector tests, for the store tests here."""

from tests.connectors.conftest import pg_dsn, pg_server, pg_table

__all__ = ["pg_dsn", "pg_server", "pg_table"]
