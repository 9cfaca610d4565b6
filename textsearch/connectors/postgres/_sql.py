"""SQL text for PostgresTextSearch: identifiers, schema, search, filters, writes.

Everything here is shared by the async and the blocking paths. Identifiers (table, columns,
text-search configuration) are validated and then quoted with ``psycopg.sql``; the user's query
text and every filter value travel as bound parameters. The *shape* of a statement depends only on
configuration and on counts (how many filter clauses, whether the query has exclusions), never on
the text itself.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from textsearch._cjk import has_cjk, question_text
from textsearch._types import TextSearchFilter
from textsearch.connectors.postgres import _filters
from textsearch.connectors.postgres._tables import (
    TableSpec,
)
from textsearch.connectors.postgres._templates import (
    BM25_QUERY_CTE as _BM25_QUERY_CTE,
)
from textsearch.connectors.postgres._templates import (
    KEYWORD_CTES as _KEYWORD_CTES,
)
from textsearch.connectors.postgres._templates import (
    PARTIAL as _PARTIAL,
)
from textsearch.connectors.postgres._templates import (
    QUERY_CTE as _QUERY_CTE,
)
from textsearch.connectors.postgres._templates import (
    RANKED_ALL as _RANKED_ALL,
)
from textsearch.connectors.postgres._templates import (
    RANKED_BEST as _RANKED_BEST,
)
from textsearch.connectors.postgres._templates import (
    SEARCH_TEMPLATE as _SEARCH_TEMPLATE,
)
from textsearch.connectors.postgres._templates import (
    TOP_ALL as _TOP_ALL,
)
from textsearch.connectors.postgres._templates import (
    TOP_BEST as _TOP_BEST,
)
from textsearch.connectors.postgres._templates import (
    WHOLE as _WHOLE,
)
from textsearch.errors import ConfigurationError

# The connector's other modules take ``sql`` from here: one place says which extra to install.
try:
    from psycopg import sql as sql
except ImportError as exc:  # only reached when the connector is used without its extra
    raise ImportError(
        "PostgresTextSearch needs psycopg 3 and psycopg_pool: "
        'pip install "textsearch-sdk[postgres]"'
    ) from exc

#: most distinct query words used (a pasted paragraph must not become a 500-term query)
MAX_QUERY_TERMS = 32
#: text indexed per document, in characters (a tsvector holds at most 1 MB)
MAX_INDEXED_CHARS = 500_000
#: share of rows above which a word is "very common" (left out of the any-word query)
COMMON_SHARE = 0.05
# With BM25's statistics only words found somewhere make another word very common: a query
# word no passage holds must not leave out the one word that matches. No floor on the count:
# in SciFact (5,183 passages) a floor of 1,000 let so many candidates in that the
# max_candidates cap (which keeps the first matches found, not the best) ranked far worse.
#: ranking functions: BM25 (managed tables: the default), word frequency or cover density
RANK_FUNCTIONS = ("bm25", "ts_rank", "ts_rank_cd")
#: BM25's term-frequency saturation and length normalization (as SQLite FTS5's bm25())
BM25_K1 = 1.2
BM25_B = 0.75
#: a title or section-heading word counts as this many body words (as in LocalTextSearch)
TITLE_WEIGHT = 4
# Host of a URL in SQL, for tables whose rows have no stored host (existing-table mode).
_HOST_PATTERN = r"^[A-Za-z][A-Za-z0-9+.\-]*://(?:[^@/?#]*@)?(\[[^\]/?#]*\]|[^:/?#]+)"
# `-word` or `-"a phrase"` at the start of the text or after a space: a websearch exclusion.
_EXCLUSION = re.compile(r'(?:(?<=\s)|^)-("[^"]*"?|[^\s"]+)')
_WORD = re.compile(r"\w+")


#: reciprocal rank fusion's constant: a result's share is 1 / (RRF_K + its rank in an arm)
RRF_K = 60
#: hybrid search fuses at least this many of each arm's best results (fewer cost the server
#: less per query, and the fused top 10 rarely reaches past rank 20)
HYBRID_CANDIDATES = 20


@dataclass(frozen=True)
class Request:
    """One search as the statements see it: the query, the filter, the page and the ranking."""

    query: str
    filter: TextSearchFilter | None
    top: int
    skip: int
    max_candidates: int = 1000
    #: lexemes left out of the any-word query (see `Builder._query_cte`)
    common_words: Sequence[str] = ()
    #: the managed table's BM25 statistics exist (rank by BM25)
    statistics: bool = False


class Builder:
    """Builds the statements for one `TableSpec` (psycopg is imported by the caller)."""

    def __init__(
        self, spec: TableSpec, *, rank_function: str = "ts_rank", one_per_document: bool = False
    ) -> None:
        if rank_function not in RANK_FUNCTIONS:
            raise ConfigurationError(
                f"rank_function must be one of {', '.join(RANK_FUNCTIONS)}, got {rank_function!r}"
            )
        if rank_function == "bm25" and not spec.managed:
            raise ConfigurationError(
                "rank_function='bm25' needs the managed table's term statistics; an existing "
                "table (from_table) ranks with 'ts_rank' or 'ts_rank_cd'"
            )
        self.spec = spec
        self.table = sql.Identifier(*spec.table)
        self.config = sql.SQL("{}::regconfig").format(sql.Literal(".".join(spec.config)))
        self.bm25 = rank_function == "bm25"
        # The fallback of a managed table whose statistics are not built yet (made by an
        # older version, before create_schema() ran again): word frequency.
        self.rank = sql.SQL("ts_rank" if self.bm25 else rank_function)  # a known name
        self.one_per_document = one_per_document
        # Results are collapsed by document (one_per_document) or, in the managed table, by
        # section: passages of one section share its link, and one result stands for them.
        self.collapse = one_per_document or spec.passage_columns
        self._rendered: dict[tuple[Any, ...], bytes] = {}

    # -- pieces --------------------------------------------------------------------------

    def group(self) -> sql.Composable:
        """What one result stands for: a document, a section (its link), or a row.

        A managed passage with a section anchor links to ``file#anchor``, shared by every
        passage of that section (a long section is split into several); one without links to
        itself (``#L<line>``, or the document for its first passage).
        """
        if self.one_per_document:
            return self.col(self.spec.id_column)
        if self.spec.passage_columns:
            return sql.SQL("(d.id || coalesce('#' || d.anchor, '@' || d.passage::text))")
        return sql.SQL("NULL")

    def col(self, name: str | None) -> sql.Composable:
        if name is None:
            return sql.SQL("NULL")
        return sql.SQL("d.{}").format(sql.Identifier(name))

    def vector(self) -> sql.Composable:
        if self.spec.vector_column:
            return self.col(self.spec.vector_column)
        parts = [
            sql.SQL("setweight(to_tsvector({}, left(coalesce({}::text, ''), {})), {})").format(
                self.config,
                self.col(name),
                sql.Literal(MAX_INDEXED_CHARS),
                sql.Literal("A" if i == 0 and len(self.spec.text_columns) > 1 else "B"),
            )
            for i, name in enumerate(self.spec.text_columns)
        ]
        return sql.SQL("({})").format(sql.SQL(" || ").join(parts))

    def site(self) -> sql.Composable:
        if self.spec.site_column:
            return self.col(self.spec.site_column)
        return sql.SQL("lower(substring({}::text from {}))").format(
            self.col(self.spec.link_column), sql.Literal(_HOST_PATTERN)
        )

    # -- filters -------------------------------------------------------------------------

    def supported_fields(self) -> list[str]:
        fields = ["id"]
        if self.spec.link_column:
            fields += ["link", "site"]
        if self.spec.metadata_column:
            fields.append("<any metadata key>")
        return fields

    def check_filter(self, search_filter: TextSearchFilter | None) -> None:
        """Raise UnsupportedFilterError before any connection is taken."""
        _filters.check(self, search_filter)

    def filters(
        self, search_filter: TextSearchFilter | None, params: dict[str, Any]
    ) -> sql.Composable:
        """`` AND ...`` for each clause, values added to ``params``; empty without a filter."""
        result: sql.Composable = _filters.filters(self, search_filter, params)
        return result

    # -- search --------------------------------------------------------------------------

    def search(self, request: Request) -> tuple[bytes, dict[str, Any]]:
        """One statement: rank capped candidates, read the rows of the page only.

        Natural-language semantics: a document matches when it has any of the query's words;
        documents that satisfy the whole websearch query (every word, quoted phrases) come first,
        then the others by the rank function over the any-word query, with title words
        weighted above body words.

        The text of the statement depends only on the filter's shape, on whether the query
        has exclusions and (BM25) on a bound of its number of words, so it is rendered once
        per shape and kept: rendering the composed statement cost ~0.7 ms of client CPU per
        search.

        With ``request.statistics`` (a managed table whose term statistics exist), candidates
        are ranked by BM25 (see `_bm25`); otherwise by the rank function.
        """
        params, where, negative = self._parts(request)
        params.update(
            cap=request.max_candidates,
            need=request.top + request.skip,
            top=request.top,
            skip=request.skip,
        )
        slots = self._slots(request)
        rendered = self._rendered_once(
            ("search", negative, _shape(request.filter), slots),
            lambda: self._search_statement(where, negative, slots),
        )
        return rendered, params

    def _parts(self, request: Request) -> tuple[dict[str, Any], sql.Composable, bool]:
        """The parameters every statement of a search binds, its filter clauses, exclusions."""
        query = request.query
        if self.spec.managed and has_cjk(query):
            # The managed table's vectors hold CJK text as bigrams and characters, cut on the
            # client (textsearch._cjk): the query is cut the same way, less the question's
            # grammar (as the local index plans it). An existing table is read by its own
            # configuration (a server-side segmenter, if it has one).
            query = question_text(query)
        positive, negative = split_exclusions(query)
        params: dict[str, Any] = {
            "query": query,
            "words": positive,
            "common_words": " ".join(request.common_words),
        }
        where = self.filters(request.filter, params)
        if negative:
            params["neg"] = negative
        return params, where, bool(negative)

    def _slots(self, request: Request) -> int:
        """How many lexemes BM25 scores (0: rank with the rank function)."""
        query = request.query
        if self.spec.managed and has_cjk(query):
            query = question_text(query)
        return term_slots(split_exclusions(query)[0]) if request.statistics else 0

    def _rendered_once(
        self, key: tuple[Any, ...], statement: Callable[[], sql.Composable]
    ) -> bytes:
        """The statement's text, rendered the first time its shape is seen."""
        rendered = self._rendered.get(key)
        if rendered is None:
            rendered = statement().as_bytes(None)
            self._remember(key, rendered)
        return rendered

    def _remember(self, key: tuple[Any, ...], rendered: bytes) -> None:
        if len(self._rendered) >= 256:  # filters of many shapes: keep the memory bounded
            self._rendered.clear()
        self._rendered[key] = rendered

    def _exclusion(self, negative: bool) -> sql.Composable:
        if not negative:
            return sql.SQL("")
        return sql.SQL(" AND NOT ({vec} @@ websearch_to_tsquery({cfg}, %(neg)s))").format(
            vec=self.vector(), cfg=self.config
        )

    def _bm25(self, slots: int) -> sql.Composable:
        """BM25 of a candidate row over the query's first ``slots`` lexemes.

        For each lexeme, its weighted frequency in the row comes from ``ts_rank_cd`` with
        one-word queries: for a query of one word each occurrence is a cover of its own, worth
        the weight of its position, so with weights {D, C, B, A} = {1, 1, 1, TITLE_WEIGHT} /
        (TITLE_WEIGHT + 1) the result times ``TITLE_WEIGHT + 1`` counts body occurrences once
        and title/heading ones ``TITLE_WEIGHT`` times (FTS5's column weights; PostgreSQL keeps
        at most 256 positions per lexeme, far past where BM25 saturates). The row's length is
        its number of distinct lexemes (``length(vector)``, read from the vector's header;
        the number of words measured 0.005 nDCG@10 better on SciFact and would need another
        stored column). Each term is written as ``idf * (1 - K / (f + K))``, which is
        ``f (k1 + 1) / (f + K)`` up to the factor ``k1 + 1``, so ``f`` is computed once. Slots
        past the query's lexemes hold NULL and add 0. (Reading the vector and its length once
        per row in a subquery, rather than once per word, measured slower at 100k.)
        """
        body = 1 / (TITLE_WEIGHT + 1)
        weights = sql.Literal(f"{{{body},{body},{body},{TITLE_WEIGHT * body}}}")
        norm = sql.SQL("({k1} * ({one_b} + {b} * length({vec}) / q.avgdl))").format(
            k1=sql.Literal(BM25_K1),
            one_b=sql.Literal(1 - BM25_B),
            b=sql.Literal(BM25_B),
            vec=self.vector(),
        )
        terms = [
            sql.SQL(
                "coalesce(q.idf{i} * (1 - {k} / ({scale} * ts_rank_cd({w}::float4[], {vec}, "
                "q.tq{i}) + {k})), 0)"
            ).format(
                i=sql.SQL(str(i)),
                k=norm,
                scale=sql.Literal(TITLE_WEIGHT + 1),
                w=weights,
                vec=self.vector(),
            )
            for i in range(1, slots + 1)
        ]
        return sql.SQL("({} * ({}))").format(sql.Literal(BM25_K1 + 1), sql.SQL(" + ").join(terms))

    def _tiers(self, template: str) -> str:
        top = _TOP_BEST if self.collapse else _TOP_ALL
        tiers = {
            "{top_whole}": top.replace("{score}", "1 + rank / (1 + rank)").replace(
                "{candidates}", _WHOLE
            ),
            "{top_partial}": top.replace("{score}", "rank / (1 + rank)").replace(
                "{candidates}", _PARTIAL
            ),
            "{ranked}": _RANKED_BEST if self.collapse else _RANKED_ALL,
        }
        for name, text in tiers.items():
            template = template.replace(name, text)
        return template

    def _keyword_format(self, where: sql.Composable, negative: bool, slots: int) -> dict[str, Any]:
        """The values of the keyword CTEs' placeholders."""
        rank = (
            self._bm25(slots)
            if slots
            else sql.SQL("{}({}, q.q_any)").format(self.rank, self.vector())
        )
        return {
            "query_cte": self._query_cte(bool(slots), slots),
            "table": self.table,
            "vec": self.vector(),
            "rank": rank,
            "where": where,
            "exclude": self._exclusion(negative),
            "doc": self.group(),
            # ctid reaches a row without an index, but views have none: there the id column
            # (unique, as documented for from_table) joins the page back to its rows.
            "key": sql.SQL("d.ctid") if self.spec.managed else self.col(self.spec.id_column),
        }

    def _keyword_ctes(self, where: sql.Composable, negative: bool, slots: int) -> str:
        """The keyword search's CTEs (ending in ``ranked``) as SQL text, for hybrid search."""
        text = self._tiers(_KEYWORD_CTES).replace("{where}", "{where}{exclude}")
        statement = sql.SQL(text).format(**self._keyword_format(where, negative, slots))
        # Braces in the rendered text would be read as placeholders by the next format().
        return statement.as_string(None).replace("{", "{{").replace("}", "}}")

    def _search_statement(
        self, where: sql.Composable, negative: bool, slots: int = 0
    ) -> sql.Composable:
        template = self._tiers(_SEARCH_TEMPLATE).replace("{where}", "{where}{exclude}")
        return sql.SQL(template).format(
            **self._keyword_format(where, negative, slots),
            id=self.col(self.spec.id_column),
            name=self.col(self.spec.name_column),
            value=self.col(self.spec.value_column),
            link=self.col(self.spec.link_column),
            meta=self.col(self.spec.metadata_column),
            passage_columns=self._passage_columns(),
        )

    # -- meaning: the vector arm -----------------------------------------------------------

    def _near(self) -> sql.Composable:
        """The passages nearest the query's vector (cosine distance), after the filters.

        ``ORDER BY column <=> vector LIMIT k`` is what pgvector's HNSW index answers; with
        filters, ``hnsw.iterative_scan`` (set on every pooled connection) keeps the index
        scanning until ``k`` rows pass them, so a filter never leaves a page short.
        """
        return sql.SQL(
            "SELECT {key} AS row_id, {doc} AS doc, {emb} <=> %(vec)s::vector AS dist "
            "FROM {table} AS d WHERE {emb} IS NOT NULL{where}{exclude} "
            "ORDER BY {emb} <=> %(vec)s::vector LIMIT %(k)s"
        )

    def _common_format(self, where: sql.Composable, negative: bool) -> dict[str, Any]:
        if not self.spec.embedding_column:  # pragma: no cover - checked by the caller
            raise ConfigurationError("this table has no embedding column")
        return {
            "table": self.table,
            "emb": self.col(self.spec.embedding_column),
            "key": sql.SQL("d.ctid") if self.spec.managed else self.col(self.spec.id_column),
            "doc": self.group(),
            "where": where,
            "exclude": self._exclusion(negative),
            "id": self.col(self.spec.id_column),
            "name": self.col(self.spec.name_column),
            "value": self.col(self.spec.value_column),
            "link": self.col(self.spec.link_column),
            "meta": self.col(self.spec.metadata_column),
            "passage_columns": self._passage_columns(),
        }

    def _passage_columns(self) -> sql.Composable:
        return sql.SQL(
            "d.passage, d.section, d.anchor, d.line"
            if self.spec.passage_columns
            else "0, NULL::text, NULL::text, NULL::int"
        )

    def semantic(self, request: Request, vector: Sequence[float]) -> tuple[bytes, dict[str, Any]]:
        """Passages by cosine similarity to the query's vector (score ``1 - distance``).

        One result per section of the managed table (per document with
        ``one_per_document``): the best passage of each among the nearest
        ``4 x (top + skip)`` passages (at least 40).
        """
        params, where, negative = self._parts(request)
        need = request.top + request.skip
        params.update(
            vec=vector_text(vector),
            top=request.top,
            skip=request.skip,
            k=max(4 * need, 40) if self.collapse else need,
        )

        def statement() -> sql.Composable:
            best = (
                "SELECT DISTINCT ON (doc) row_id, dist FROM near ORDER BY doc, dist, row_id"
                if self.collapse
                else "SELECT row_id, dist FROM near"
            )
            template = (
                "WITH near AS (" + self._near().as_string(None) + "), "
                f"best AS ({best}), "
                "page AS (SELECT row_id, 1 - dist AS score FROM best ORDER BY dist, row_id "
                "LIMIT %(top)s OFFSET %(skip)s) "
                "SELECT {id}, {name}, {value}, {link}, {meta}, r.score, {passage_columns} "
                "FROM page AS r JOIN {table} AS d ON {key} = r.row_id "
                "ORDER BY r.score DESC, r.row_id"
            )
            return sql.SQL(template).format(**self._common_format(where, negative))

        key = ("semantic", negative, _shape(request.filter))
        return self._rendered_once(key, statement), params

    def hybrid(self, request: Request, vector: Sequence[float]) -> tuple[bytes, dict[str, Any]]:
        """Keyword and vector arms fused by reciprocal rank, in one statement.

        Each arm ranks its best ``max(top + skip, HYBRID_CANDIDATES)`` (after the filters
        and exclusions, which both arms apply before ranking); a result's score is the sum of
        ``1 / (RRF_K + rank)`` over the arms that found it. The arms are fused by section of
        the managed table (by document with ``one_per_document``), each counted once per arm
        and represented by the passage its better arm ranked higher.
        """
        k = max(request.top + request.skip, HYBRID_CANDIDATES)
        # The keyword search's parameters (its statement text is rebuilt below as CTEs).
        _, params = self.search(replace(request, top=k, skip=0, common_words=()))
        _, where, negative = self._parts(request)
        params.update(vec=vector_text(vector), k=k, page_top=request.top, page_skip=request.skip)
        slots = self._slots(request)

        def statement() -> sql.Composable:
            keyword_cte = self._keyword_ctes(where, negative, slots)
            group = "doc" if self.collapse else "row_id"
            template = (
                keyword_cte + ", near AS (" + self._near().as_string(None) + "), arms AS ("
                f"SELECT row_id, doc, 1 AS arm, 1.0 / ({RRF_K} + row_number() OVER "
                "(ORDER BY score DESC, row_id)) AS s FROM ranked "
                f"UNION ALL SELECT row_id, doc, 2, 1.0 / ({RRF_K} + row_number() OVER "
                "(ORDER BY dist, row_id)) FROM near), "
                # A document counts once per arm (its best passage there), not once per passage.
                f"per_arm AS (SELECT {group} AS g, max(s) AS s, "
                "(array_agg(row_id ORDER BY s DESC))[1] AS row_id "
                f"FROM arms GROUP BY {group}, arm), "
                "fused AS (SELECT (array_agg(row_id ORDER BY s DESC))[1] AS row_id, "
                "sum(s) AS score FROM per_arm GROUP BY g "
                "ORDER BY score DESC, row_id LIMIT %(page_top)s OFFSET %(page_skip)s) "
                "SELECT {id}, {name}, {value}, {link}, {meta}, r.score, {passage_columns} "
                "FROM fused AS r JOIN {table} AS d ON {key} = r.row_id "
                "ORDER BY r.score DESC, r.row_id"
            )
            return sql.SQL(template).format(**self._common_format(where, negative))

        key = ("hybrid", negative, _shape(request.filter), slots)
        return self._rendered_once(key, statement), params

    def vector_count(
        self, request: Request, *, keyword: bool
    ) -> tuple[sql.Composable, dict[str, Any]]:
        """Rows (documents) that meaning can reach: embedded, or (hybrid) matching a word."""
        emb = self.col(self.spec.embedding_column)
        reach = (
            sql.SQL("({} IS NOT NULL OR {vec} @@ q.q_all OR {vec} @@ q.q_any)").format(
                emb, vec=self.vector()
            )
            if keyword
            else sql.SQL("{} IS NOT NULL").format(emb)
        )
        return self._count(replace(request, common_words=(), statistics=False), reach)

    def count(self, request: Request) -> tuple[sql.Composable, dict[str, Any]]:
        """How many documents match (any word, after filters and exclusions)."""
        reach = sql.SQL("({vec} @@ q.q_all OR {vec} @@ q.q_any)").format(vec=self.vector())
        return self._count(request, reach)

    def _count(
        self, request: Request, reach: sql.Composable
    ) -> tuple[sql.Composable, dict[str, Any]]:
        """Rows (documents, when collapsed) that ``reach`` admits after filters and exclusions."""
        params, where, negative = self._parts(request)
        statement = sql.SQL(
            "WITH {query_cte} SELECT {counted} FROM {table} AS d, q WHERE {reach}{where}{exclude}"
        ).format(
            counted=sql.SQL("count(DISTINCT {})").format(self.group())
            if self.collapse
            else sql.SQL("count(*)"),
            query_cte=self._query_cte(request.statistics),
            table=self.table,
            reach=reach,
            where=where,
            exclude=self._exclusion(negative),
        )
        return statement, params

    def _query_cte(self, statistics: bool = False, slots: int = 0) -> sql.Composable:
        """The CTEs ending in ``q`` (``q_all``, ``q_any``, ``n_terms``) of a search or count.

        The query's lexemes come from the same parser and dictionaries as the index; each is
        quoted as a tsquery literal (quotes doubled, backslashes escaped) inside SQL, so no user
        text is ever parsed as tsquery syntax. ``common_words`` (lexemes in more than
        ``COMMON_SHARE`` of the rows, from `common_words`, cached by the caller) are left
        out of the any-word query when rarer words are present: they add next to nothing to
        the ranking but would make the set to rank huge. Whole-query matches (``q_all``) still
        include them. They travel as one space-separated string (the parsers never put a space
        in a lexeme): as a text array, the adaptation of a few hundred words cost ~1 ms of
        client CPU per search.
        """
        if statistics:
            # BM25: the very common words come from the term statistics (exact, current)
            # rather than ANALYZE's sample; q also carries each lexeme's one-word tsquery and
            # inverse document frequency, and the average length.
            # Each scored lexeme's tsquery and idf as a column of its own: a candidate row reads
            # q.tq1 rather than subscripting an array of tsqueries for every term.
            columns = "".join(
                f", tqs[{i}] AS tq{i}, idfs[{i}] AS idf{i}" for i in range(1, slots + 1)
            )
            return sql.SQL(_BM25_QUERY_CTE.replace("{slot_columns}", columns)).format(
                cfg=self.config,
                max_terms=sql.Literal(MAX_QUERY_TERMS),
                stats=sql.Identifier(*self.spec.stats_table),
                share=sql.Literal(COMMON_SHARE),
            )
        return sql.SQL(_QUERY_CTE).format(cfg=self.config, max_terms=sql.Literal(MAX_QUERY_TERMS))

    def common_words(self) -> tuple[sql.Composable, dict[str, Any]] | None:
        """Lexemes in more than ``COMMON_SHARE`` of the rows, by the vector's ANALYZE statistics.

        One row ``(lexemes,)`` when the column has statistics, none before the first ANALYZE;
        ``None`` for a vector computed at query time (it has no statistics). Read once in a
        while, not per query: the ``pg_stats`` view cost ~0.4 ms per query word when the
        search statement read it itself.
        """
        if not self.spec.vector_column:
            return None
        params: dict[str, Any] = {
            "schema": self.spec.table[0] if len(self.spec.table) == 2 else None,
            "table": self.spec.table[-1],
            "column": self.spec.vector_column,
            "common": COMMON_SHARE,
        }
        # most_common_elem_freqs has three more entries than most_common_elems (minimum,
        # maximum, null share): unnest pads the lexemes with NULLs there.
        statement = sql.SQL(
            "SELECT coalesce((SELECT array_agg(x.e) FROM unnest("
            "s.most_common_elems::text::text[], s.most_common_elem_freqs) AS x(e, f) "
            "WHERE x.e IS NOT NULL AND x.f > %(common)s), '{}'::text[]) FROM pg_stats AS s "
            "WHERE s.schemaname = coalesce(%(schema)s, current_schema()) "
            "AND s.tablename = %(table)s AND s.attname = %(column)s"
        )
        return statement, params

    def count_all(self) -> sql.Composable:
        """Documents in the table (managed: rows of passage 0; an existing table: rows)."""
        if self.spec.passage_columns:
            return sql.SQL("SELECT count(*) FROM {} WHERE passage = 0").format(self.table)
        return sql.SQL("SELECT count(*) FROM {}").format(self.table)

    def document_by_id(
        self, key: str, search_filter: TextSearchFilter | None = None
    ) -> tuple[sql.Composable, dict[str, Any]]:
        """An existing table's row by its id (as text) if the filter admits it."""
        params: dict[str, Any] = {"key": key}
        statement = sql.SQL(
            "SELECT {}, {}, {}, {}, {} FROM {} AS d WHERE {}::text = %(key)s{} LIMIT 1"
        ).format(
            self.col(self.spec.id_column),
            self.col(self.spec.name_column),
            self.col(self.spec.value_column),
            self.col(self.spec.link_column),
            self.col(self.spec.metadata_column),
            self.table,
            self.col(self.spec.id_column),
            self.filters(search_filter, params),
        )
        return statement, params

    def document_allowed(
        self, doc_id: str, search_filter: TextSearchFilter
    ) -> tuple[sql.Composable, dict[str, Any]]:
        """A managed document's first passage row if the filter admits it (else no row)."""
        params: dict[str, Any] = {"doc": doc_id}
        statement = sql.SQL(
            "SELECT 1 FROM {} AS d WHERE d.id = %(doc)s AND d.passage = 0{} LIMIT 1"
        ).format(self.table, self.filters(search_filter, params))
        return statement, params


# Lexemes of the query, each quoted as a tsquery literal; `kept` drops the very common ones
# when rarer ones are present (see Builder._query_cte).
def _shape(search_filter: TextSearchFilter | None) -> tuple[Any, ...]:
    """What the SQL text of a filter depends on (never its values, which are parameters)."""
    return _filters.shape(search_filter)


def vector_text(vector: Sequence[float]) -> str:
    """pgvector's text form of a vector, sent as a bound parameter and cast with ``::vector``.

    pgvector stores float4: each value is rounded to float4 here, as the server would round
    it, and written with 9 significant digits, which read back as exactly that float4. Half
    the client time of ``repr`` of each double (0.22 against 0.4-0.58 ms for 384 values),
    which a hybrid query and every embedded passage pay; a value past float4's range becomes
    ``inf``, which the server refuses as it refused the overflowing number before.
    """
    return "[" + ",".join(map("{:.9g}".format, array("f", vector))) + "]"


def term_slots(words: str) -> int:
    """How many lexemes a BM25 statement scores: a power of two at least the query's count.

    The client cannot know the count (stemming, stop words, and compound tokens such as
    ``foo-bar``, which yields ``foo-bar``, ``foo`` and ``bar``), but it is never more than the
    runs of word characters plus the space-separated chunks holding anything else; rounding
    up to a power of two keeps the number of statement shapes small.
    """
    chunks = words.split()
    bound = len(_WORD.findall(words)) + sum(1 for c in chunks if _WORD.fullmatch(c) is None)
    slots = 1
    while slots < min(bound, MAX_QUERY_TERMS):
        slots *= 2
    return slots


def split_exclusions(query: str) -> tuple[str, str]:
    """Split websearch exclusions (``-word``, ``-"a phrase"``) from the words to look for.

    Returns:
        The text whose words are searched for, and the excluded terms joined with ``or``
        (empty when there are none), both handed to PostgreSQL as bound parameters.
    """
    negative = [m.group(1) for m in _EXCLUSION.finditer(query)]
    positive = _EXCLUSION.sub(" ", query)
    terms = [n if n.startswith('"') else " ".join(_WORD.findall(n)) for n in negative]
    return positive, " or ".join(t for t in terms if t.strip('" '))
