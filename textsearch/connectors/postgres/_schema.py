"""The managed table of PostgresTextSearch: its DDL, the upgrade of older tables, and writes.

One row per passage: ``(id, passage)`` is the key, ``id`` the document's id, ``passage`` its
number (0, 1, ...). Every passage row repeats the document's title, link, metadata and
``index_path`` bookkeeping, so a search and its filters read one row and never join.

Tables made by the first version (one row per document, ``id`` alone the key, a vector of
title and text only) are upgraded by `SchemaBuilder.upgrade`, which ``create_schema()``
runs when it finds such a table; until then the search statements fail on the missing columns
with a hint to call ``create_schema()``.
"""

from __future__ import annotations

import json
from typing import Any

from textsearch.connectors.postgres._sql import MAX_INDEXED_CHARS, sql
from textsearch.connectors.postgres._tables import TableSpec

#: the columns of a passage row, in the order the rows are built (see _postgres_rows)
ROW_COLUMNS = (
    "id",
    "passage",
    "title",
    "section",
    "anchor",
    "line",
    "text",
    "link",
    "site",
    "metadata",
    "source_root",
    "mtime_ns",
    "size",
    "sha256",
    "search_title",
    "search_section",
    "search_text",
)
#: the columns holding title, section and text as the index reads them (CJK runs cut into
#: bigrams and characters on the client, textsearch._cjk); NULL when that is the column itself
SEARCH_COLUMNS = ("search_title", "search_section", "search_text")
_STAGE = "textsearch_passage_stage"
_OLD_TERMS = "textsearch_terms_stage"
#: second key of the advisory lock every writer of one table holds until it commits
WRITE_LOCK_KEY = 0x7453
#: bytes above which a row's values are compressed or moved out of line (two rows per 8 kB page)
TOAST_TUPLE_TARGET = 4080


class SchemaBuilder:
    """DDL and write statements of one managed table."""

    def __init__(self, spec: TableSpec) -> None:
        self.spec = spec
        self.table = sql.Identifier(*spec.table)
        self.config = sql.SQL("{}::regconfig").format(sql.Literal(".".join(spec.config)))

    def _index_name(self, suffix: str) -> sql.Composable:
        # Index names live in the table's schema; keep them within 63 bytes.
        base = self.spec.table[-1]
        return sql.Identifier(f"{base[: 63 - len(suffix)]}{suffix}")

    def regclass_name(self) -> str:
        """The table's name as ``to_regclass`` reads it (parts validated, then quoted)."""
        return ".".join(f'"{part}"' for part in self.spec.table)

    def stats_regclass_name(self) -> str:
        """The term-statistics table's name as ``to_regclass`` reads it."""
        return ".".join(f'"{part}"' for part in self.spec.stats_table)

    # -- term statistics (BM25) ------------------------------------------------------------
    #
    # ``<table>_terms`` holds, for every lexeme of the stored vectors, the number of passages
    # holding it; the row whose term is '' holds the number of passages and the sum of their
    # lengths (distinct lexemes per passage). Every write through this connector updates it in
    # the transaction that changes the passages, under a lock that one writer of the table
    # holds at a time, so readers always see statistics matching the rows they see.

    def write_lock(self) -> sql.Composable:
        """Serialize the writers of this table (readers never wait for it)."""
        return sql.SQL("SELECT pg_advisory_xact_lock(hashtext({}), {})").format(
            sql.Literal(self.spec.table_name), sql.Literal(WRITE_LOCK_KEY)
        )

    def has_stats(self) -> tuple[sql.Composable, tuple[Any, ...]]:
        """One row: whether the statistics table exists (tables of older versions lack it)."""
        return sql.SQL("SELECT to_regclass(%s) IS NOT NULL"), (self.stats_regclass_name(),)

    def drop_stats(self) -> sql.Composable:
        return sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(*self.spec.stats_table))

    def create_stats(self) -> list[sql.Composable]:
        """Create the statistics table and fill it from the rows already there."""
        stats = sql.Identifier(*self.spec.stats_table)
        return [
            sql.SQL(
                "CREATE TABLE {} (term text PRIMARY KEY, passages bigint NOT NULL, "
                "length bigint NOT NULL DEFAULT 0)"
            ).format(stats),
            sql.SQL("INSERT INTO {} (term, passages, length) {}").format(
                stats, self._counts(sql.SQL(""))
            ),
        ]

    def _counts(self, where: sql.Composable) -> sql.Composable:
        """Per lexeme, passages holding it; for '', passages and their summed length."""
        return sql.SQL(
            "SELECT l, count(*), 0 FROM {table} AS d, "
            "unnest(tsvector_to_array(d.search_vector)) AS l {where} GROUP BY l "
            "UNION ALL SELECT '', count(*), coalesce(sum(length(d.search_vector)), 0) "
            "FROM {table} AS d {where}"
        ).format(table=self.table, where=where)

    def _ids_where(self, ids: sql.Composable) -> sql.Composable:
        return sql.SQL("WHERE d.id IN ({})").format(ids)

    def stats_before(self, ids: sql.Composable) -> list[sql.Composable]:
        """Keep the counts of the passages about to be replaced or deleted."""
        stage = sql.Identifier(_OLD_TERMS)
        return [
            sql.SQL(
                "CREATE TEMP TABLE IF NOT EXISTS {} (term text, passages bigint, length bigint) "
                "ON COMMIT DELETE ROWS"
            ).format(stage),
            sql.SQL("INSERT INTO {} {}").format(stage, self._counts(self._ids_where(ids))),
        ]

    def stats_after(self, ids: sql.Composable) -> list[sql.Composable]:
        """Apply the change: counts of the passages now stored minus those kept before.

        Terms are updated in sorted order; terms no passage holds any more are removed.
        """
        stats = sql.Identifier(*self.spec.stats_table)
        stage = sql.Identifier(_OLD_TERMS)
        return [
            sql.SQL(
                "INSERT INTO {stats} AS s (term, passages, length) "
                "SELECT term, sum(n), sum(len) FROM ("
                "{counts} UNION ALL SELECT term, -passages, -length FROM {stage}"
                ") AS c (term, n, len) GROUP BY term HAVING sum(n) <> 0 OR sum(len) <> 0 "
                "ORDER BY term ON CONFLICT (term) DO UPDATE SET "
                "passages = s.passages + EXCLUDED.passages, length = s.length + EXCLUDED.length"
            ).format(stats=stats, counts=self._counts(self._ids_where(ids)), stage=stage),
            sql.SQL(
                "DELETE FROM {} WHERE term <> '' AND passages <= 0 "
                "AND term IN (SELECT term FROM {})"
            ).format(stats, stage),
        ]

    def staged_ids(self) -> sql.Composable:
        stage = _STAGE + ("_embedded" if self.spec.embedding_column else "")
        return sql.SQL("SELECT DISTINCT id FROM {}").format(sql.Identifier(stage))

    def _vector(self) -> sql.Composable:
        # Title and section heading weigh A, the passage's text B: a heading names what its
        # section is about, as a title does for the document.
        # CJK text is segmented on the client (no server extension needed): the search_*
        # columns hold its bigrams where the row has CJK characters.
        return sql.SQL(
            "setweight(to_tsvector({cfg}, coalesce(search_title, title, '')), 'A') || "
            "setweight(to_tsvector({cfg}, coalesce(search_section, section, '')), 'A') || "
            "setweight(to_tsvector({cfg}, left(coalesce(search_text, text), {n})), 'B')"
        ).format(cfg=self.config, n=sql.Literal(MAX_INDEXED_CHARS))

    @staticmethod
    def needs_cjk_upgrade(columns: set[str]) -> bool:
        """A table from before CJK segmentation: it has passages but no ``search_text``."""
        return "passage" in columns and "search_text" not in columns

    def cjk_upgrade(self) -> list[sql.Composable]:
        """Add the segmented-text columns and rebuild the vector over them (a table rewrite)."""
        return [
            sql.SQL(
                "ALTER TABLE {} ADD COLUMN search_title text, ADD COLUMN search_section text, "
                "ADD COLUMN search_text text"
            ).format(self.table),
            sql.SQL("ALTER TABLE {} DROP COLUMN search_vector").format(self.table),
            sql.SQL(
                "ALTER TABLE {} ADD COLUMN search_vector tsvector GENERATED ALWAYS AS ({}) STORED"
            ).format(self.table, self._vector()),
        ]

    def cjk_rows(self) -> sql.Composable:
        """The rows whose title, section or text holds a CJK character (to segment)."""
        return sql.SQL(
            "SELECT id, passage, title, section, text FROM {} "
            "WHERE concat(title, section, text) ~ %s"
        ).format(self.table)

    def set_search_text(self) -> sql.Composable:
        return sql.SQL(
            "UPDATE {} SET search_title = %s, search_section = %s, search_text = %s "
            "WHERE id = %s AND passage = %s"
        ).format(self.table)

    def lock(self) -> sql.Composable:
        return sql.SQL("SELECT pg_advisory_xact_lock(hashtext({}))").format(
            sql.Literal(self.spec.table_name)
        )

    def probe(self) -> tuple[sql.Composable, tuple[Any, ...]]:
        """The table's column names (no rows: the table does not exist yet)."""
        return self._catalog(
            "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(%s) "
            "AND attnum > 0 AND NOT attisdropped"
        )

    def primary_key(self) -> tuple[sql.Composable, tuple[Any, ...]]:
        return self._catalog(
            "SELECT conname FROM pg_constraint WHERE conrelid = to_regclass(%s) AND contype = 'p'"
        )

    def _catalog(self, query: str) -> tuple[sql.Composable, tuple[Any, ...]]:
        """A catalog query about this table: its one parameter is the table's name."""
        return sql.SQL(query), (self.regclass_name(),)

    @staticmethod
    def needs_upgrade(columns: set[str]) -> bool:
        """A table of the first version: it exists and has no ``passage`` column."""
        return bool(columns) and "passage" not in columns

    def upgrade(self, primary_key: str | None) -> list[sql.Composable]:
        """Turn a first-version table (one row per document) into the passage table.

        Existing rows become passage 0 of their document and stay searchable; their
        ``index_path`` bookkeeping is cleared so that the next ``index_path`` run re-reads
        those files and splits them into passages. The vector column is rebuilt (a table
        rewrite) because its expression now includes the section heading; its GIN index goes
        with it and is recreated by the statements that follow.
        """
        statements: list[sql.Composable] = [
            sql.SQL(
                "ALTER TABLE {} ADD COLUMN passage int NOT NULL DEFAULT 0, "
                "ADD COLUMN section text, ADD COLUMN anchor text, ADD COLUMN line int, "
                "ADD COLUMN search_title text, ADD COLUMN search_section text, "
                "ADD COLUMN search_text text"
            ).format(self.table),
        ]
        if primary_key:
            statements.append(
                sql.SQL("ALTER TABLE {} DROP CONSTRAINT {}").format(
                    self.table, sql.Identifier(primary_key)
                )
            )
        statements += [
            sql.SQL("ALTER TABLE {} ADD PRIMARY KEY (id, passage)").format(self.table),
            sql.SQL("ALTER TABLE {} DROP COLUMN search_vector").format(self.table),
            sql.SQL(
                "ALTER TABLE {} ADD COLUMN search_vector tsvector GENERATED ALWAYS AS ({}) STORED"
            ).format(self.table, self._vector()),
            sql.SQL(
                "UPDATE {} SET mtime_ns = NULL, size = NULL, sha256 = NULL "
                "WHERE source_root IS NOT NULL"
            ).format(self.table),
        ]
        return statements

    def create(self) -> list[sql.Composable]:
        """``CREATE ... IF NOT EXISTS`` of the table and its indexes (after the lock).

        The vector is the third column: ranking reads it from every candidate row, and a
        column after the text (as in tables made before) is reached only by stepping over
        every column before it (~10% of the server's time in a typical query).
        """
        return [
            sql.SQL(
                "CREATE TABLE IF NOT EXISTS {table} ("
                "id text NOT NULL, "
                "passage int NOT NULL DEFAULT 0, "
                "search_vector tsvector GENERATED ALWAYS AS ({vector}) STORED, "
                "title text, "
                "section text, "
                "anchor text, "
                "line int, "
                "text text NOT NULL DEFAULT '', "
                "link text, "
                "site text, "
                "metadata jsonb NOT NULL DEFAULT '{{}}'::jsonb, "
                "source_root text, "
                "mtime_ns bigint, "
                "size bigint, "
                "sha256 text, "
                "search_title text, "
                "search_section text, "
                "search_text text, "
                "PRIMARY KEY (id, passage))"
            ).format(table=self.table, vector=self._vector()),
            # Kept in the row (not TOAST): ranking reads the vector of every candidate, and an
            # out-of-line vector would be fetched from the TOAST table for each of them.
            sql.SQL("ALTER TABLE {} ALTER COLUMN search_vector SET STORAGE MAIN").format(
                self.table
            ),
            # Rows are made smaller only above 4,080 bytes (two rows still fit a page), not
            # above the default 2,032: a ~200-word passage then keeps its text in the row
            # (compressed) and its vector uncompressed. At 2,032 every such row sent its text
            # to TOAST and 1 vector in 20 was compressed, to be decompressed for each ranking.
            sql.SQL("ALTER TABLE {} SET (toast_tuple_target = {})").format(
                self.table, sql.Literal(TOAST_TUPLE_TARGET)
            ),
            sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING gin (search_vector)").format(
                self._index_name("_search_idx"), self.table
            ),
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {} ON {} USING gin (metadata jsonb_path_ops)"
            ).format(self._index_name("_metadata_idx"), self.table),
            sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (site)").format(
                self._index_name("_site_idx"), self.table
            ),
            sql.SQL(
                "CREATE INDEX IF NOT EXISTS {} ON {} (source_root) WHERE source_root IS NOT NULL"
            ).format(self._index_name("_root_idx"), self.table),
        ]

    # -- embeddings (pgvector) ---------------------------------------------------------------

    def embedding_probe(self) -> tuple[sql.Composable, tuple[Any, ...]]:
        """The embedding column's dimensions and comment (no row: no such column)."""
        column = self.spec.embedding_column or ""
        return (
            sql.SQL(
                "SELECT a.atttypmod, col_description(a.attrelid, a.attnum), "
                "format_type(a.atttypid, a.atttypmod) FROM pg_attribute AS a "
                "WHERE a.attrelid = to_regclass(%s) AND a.attname = %s AND NOT a.attisdropped"
            ),
            (self.regclass_name(), column),
        )

    def add_embedding(self, dimensions: int, model: str) -> list[sql.Composable]:
        """The vector column, its HNSW (cosine) index, and the model recorded on the column."""
        column = sql.Identifier(self.spec.embedding_column or "")
        record = json.dumps({"textsearch_embedder": model, "dimensions": dimensions})
        return [
            sql.SQL("CREATE EXTENSION IF NOT EXISTS vector"),
            sql.SQL("ALTER TABLE {} ADD COLUMN IF NOT EXISTS {} vector({})").format(
                self.table, column, sql.Literal(dimensions)
            ),
            sql.SQL("COMMENT ON COLUMN {}.{} IS {}").format(
                self.table, column, sql.Literal(record)
            ),
            sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw ({} vector_cosine_ops)").format(
                self._index_name("_embedding_idx"), self.table, column
            ),
        ]

    def missing_embeddings(self) -> sql.Composable:
        return sql.SQL(
            "SELECT id, passage, title, section, text FROM {} WHERE {} IS NULL "
            "ORDER BY id, passage LIMIT %s"
        ).format(self.table, sql.Identifier(self.spec.embedding_column or ""))

    def set_embeddings(self) -> sql.Composable:
        return sql.SQL(
            "UPDATE {table} AS t SET {col} = v.e::vector FROM "
            "(SELECT unnest(%s::text[]) AS id, unnest(%s::int[]) AS passage, "
            "unnest(%s::text[]) AS e) AS v WHERE t.id = v.id AND t.passage = v.passage"
        ).format(table=self.table, col=sql.Identifier(self.spec.embedding_column or ""))

    def upsert(self) -> list[sql.Composable]:
        """Statements of one batch: a session temp table, COPY into it, insert, trim.

        COPY then one ``INSERT ... ON CONFLICT`` measured about twice as fast as one INSERT
        per row. A document that now has fewer passages loses the rest by the DELETE, which
        runs after the INSERT on purpose: when two writers replace the same document at once,
        the INSERT waits for the other's rows, and the DELETE (a new statement, a new
        snapshot) then sees and trims them, so the last writer's document is whole. Rows go in
        by ``(id, passage)`` order so concurrent batches lock rows in the same order.
        """
        names = ROW_COLUMNS + ((self.spec.embedding_column,) if self.spec.embedding_column else ())
        columns = sql.SQL(", ").join(sql.Identifier(c) for c in names)
        updates = sql.SQL(", ").join(
            sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c)) for c in names[2:]
        )
        # A table with embeddings stages its vectors too (as text: pgvector's input reads it).
        stage = _STAGE + ("_embedded" if self.spec.embedding_column else "")
        extra = ", embedding text" if self.spec.embedding_column else ""
        embedded = {"embedding": sql.SQL("embedding::vector")}
        selected = sql.SQL(", ").join(embedded.get(c, sql.Identifier(c)) for c in names)
        return [
            sql.SQL(
                "CREATE TEMP TABLE IF NOT EXISTS {} (id text, passage int, title text, "
                "section text, anchor text, line int, text text, link text, site text, "
                "metadata jsonb, source_root text, mtime_ns bigint, size bigint, sha256 text, "
                "search_title text, search_section text, search_text text"
                + extra
                + ") ON COMMIT DELETE ROWS"
            ).format(sql.Identifier(stage)),
            sql.SQL("COPY {} ({}) FROM STDIN").format(sql.Identifier(stage), columns),
            sql.SQL(
                "INSERT INTO {table} ({columns}) SELECT {selected} FROM {stage} "
                "ORDER BY id, passage ON CONFLICT (id, passage) DO UPDATE SET {updates}"
            ).format(
                table=self.table,
                columns=columns,
                selected=selected,
                stage=sql.Identifier(stage),
                updates=updates,
            ),
            sql.SQL(
                "DELETE FROM {table} AS t USING (SELECT id, count(*) AS n FROM {stage} "
                "GROUP BY id) AS s WHERE t.id = s.id AND t.passage >= s.n"
            ).format(table=self.table, stage=sql.Identifier(stage)),
        ]

    def delete(self) -> sql.Composable:
        """Delete whole documents; the one column counted is how many documents existed."""
        return sql.SQL(
            "WITH gone AS (DELETE FROM {} WHERE id = ANY(%(ids)s) RETURNING id) "
            "SELECT count(DISTINCT id) FROM gone"
        ).format(self.table)

    @staticmethod
    def deleted_ids() -> sql.Composable:
        return sql.SQL("SELECT unnest(%(ids)s::text[])")

    def touch(self) -> sql.Composable:
        return sql.SQL("UPDATE {} SET mtime_ns = %s, size = %s WHERE id = %s").format(self.table)

    def known_files(self) -> sql.Composable:
        return sql.SQL(
            "SELECT id, mtime_ns, size, sha256 FROM {} WHERE source_root = %s AND passage = 0"
        ).format(self.table)

    def count_all(self) -> sql.Composable:
        return sql.SQL("SELECT count(*) FROM {} WHERE passage = 0").format(self.table)

    def document(self, column: str) -> sql.Composable:
        """Every passage of the first document whose ``id`` or ``link`` is the parameter."""
        return sql.SQL(
            "SELECT id, title, text, link, metadata FROM {table} WHERE id = ("
            "SELECT id FROM {table} WHERE {column} = %s ORDER BY id LIMIT 1) ORDER BY passage"
        ).format(table=self.table, column=sql.Identifier(column))
