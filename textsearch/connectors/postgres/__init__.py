"""``PostgresTextSearch``: PostgreSQL full-text search (extra ``postgres``: psycopg 3).

The package holds the connector (``_search``) and its parts: SQL building, the managed
schema, the connection pools, row mapping and error translation.
"""

from textsearch.connectors.postgres._search import PostgresDocument, PostgresTextSearch

__all__ = ["PostgresDocument", "PostgresTextSearch"]
