"""The SQL templates of keyword search in PostgresTextSearch (filled by ``_sql.Builder``).

Identifiers and fragments are formatted in with ``psycopg.sql``; the user's text only ever
travels as a bound parameter.
"""

from __future__ import annotations

__all__ = [
    "BM25_QUERY_CTE",
    "KEYWORD_CTES",
    "PARTIAL",
    "QUERY_CTE",
    "RANKED_ALL",
    "RANKED_BEST",
    "SEARCH_TEMPLATE",
    "TOP_ALL",
    "TOP_BEST",
    "WHOLE",
]

QUERY_CTE = r"""terms AS (
  SELECT '''' || replace(replace(l, '\', '\\'), '''', '''''') || '''' AS term,
         l = ANY(string_to_array(%(common_words)s, ' ')) AS common
  FROM unnest(tsvector_to_array(to_tsvector({cfg}, %(words)s))) AS l
  LIMIT {max_terms}
),
kept AS (
  SELECT term FROM terms
  WHERE NOT common OR NOT EXISTS (SELECT 1 FROM terms WHERE NOT common)
),
q0 AS (
  SELECT websearch_to_tsquery({cfg}, %(query)s) AS q_all,
         (SELECT string_agg(term, ' | ')::tsquery FROM kept) AS q_any,
         (SELECT count(*) FROM terms) AS n_terms
),
q AS (SELECT q_all, q_any, q_any && !!q_all AS q_partial, n_terms FROM q0)"""


# The same for BM25: each lexeme's passages from the statistics table; '' holds the number of
# passages and their summed length. The inverse document frequency is Lucene's,
# ln(1 + (N - n + 0.5) / (n + 0.5)): always positive, so a word in half the passages of a small
# table still counts (FTS5's ln((N - n + 0.5) / (n + 0.5)) floors it at 1e-6; both measured the
# same on SciFact and Cranfield).
BM25_QUERY_CTE = r"""lexemes AS (
  SELECT l FROM unnest(tsvector_to_array(to_tsvector({cfg}, %(words)s))) AS l
  LIMIT {max_terms}
),
totals AS (
  SELECT greatest(coalesce(max(passages), 0), 1)::float8 AS n,
         greatest(coalesce(max(length)::float8 / greatest(max(passages), 1), 1), 1) AS avgdl
  FROM {stats} WHERE term = ''
),
terms AS (
  SELECT x.l,
         '''' || replace(replace(x.l, '\', '\\'), '''', '''''') || '''' AS term,
         coalesce(s.passages, 0) > {share} * t.n AS common,
         coalesce(s.passages, 0) > 0 AS found,
         ln(1 + (t.n - coalesce(s.passages, 0) + 0.5) / (coalesce(s.passages, 0) + 0.5)) AS idf
  FROM lexemes AS x CROSS JOIN totals AS t LEFT JOIN {stats} AS s ON s.term = x.l
),
kept AS (
  SELECT term FROM terms
  WHERE NOT common OR NOT EXISTS (SELECT 1 FROM terms WHERE found AND NOT common)
),
q0 AS (
  SELECT websearch_to_tsquery({cfg}, %(query)s) AS q_all,
         (SELECT string_agg(term, ' | ')::tsquery FROM kept) AS q_any,
         (SELECT count(*) FROM terms) AS n_terms,
         (SELECT array_agg(term::tsquery ORDER BY l) FROM terms) AS tqs,
         (SELECT array_agg(idf ORDER BY l) FROM terms) AS idfs,
         (SELECT avgdl FROM totals) AS avgdl
),
q AS (
  SELECT q_all, q_any, q_any && !!q_all AS q_partial, n_terms, tqs, idfs, avgdl{slot_columns}
  FROM q0
)"""


# Candidates: documents matching the whole websearch query (up to the cap), then documents with
# only some of the words (up to the cap). The second tier is skipped when the first fills the
# page (whole-query matches rank first, so no partial match could show) and for a one-word
# query (the tiers are the same): scanning for partial matches of common words is what costs.
# Each candidate is ranked where it is read, and each tier keeps only its best `need` rows
# (top + skip; with one_per_document, the best passage of its best `need` documents): only
# those are stored and merged, not every ranked candidate. Only the page's rows are read in
# full.
KEYWORD_CTES = """
WITH {query_cte},
whole AS ({top_whole}),
partial AS ({top_partial}),
ranked AS ({ranked})"""
SEARCH_TEMPLATE = (
    KEYWORD_CTES
    + """
SELECT {id}, {name}, {value}, {link}, {meta}, r.score, {passage_columns}
FROM ranked AS r JOIN {table} AS d ON {key} = r.row_id
ORDER BY r.score DESC, r.row_id
"""
)
# The capped candidates of one tier, ranked: rank is computed once per row in the inner
# query (its LIMIT keeps it from being merged into the outer one).
WHOLE = """
    SELECT {key} AS row_id, {doc} AS doc, {rank} AS rank FROM {table} AS d, q
    WHERE {vec} @@ q.q_all{where} LIMIT %(cap)s
"""
# "Some words but not the whole query" is one tsquery (q_partial = q_any && !!q_all), so the GIN
# index answers it exactly and whole-query matches never reach the heap; as a filter on each
# candidate, `NOT (vector @@ q_all)` was ~8% of the server's time in a typical query.
PARTIAL = """
    SELECT {key} AS row_id, {doc} AS doc, {rank} AS rank FROM {table} AS d, q
    WHERE q.n_terms > 1 AND (SELECT count(*) FROM whole) < %(need)s
      AND {vec} @@ q.q_partial{where} LIMIT %(cap)s
"""
# Scores: whole-query matches in [1, 2), partial ones in [0, 1).
TOP_ALL = """
  SELECT row_id, doc, {score} AS score FROM ({candidates}) AS c
  ORDER BY score DESC, row_id LIMIT %(need)s
"""
# One result per document: its best passage (DISTINCT ON keeps the first row of each document
# in score order), then the best `need` of those.
TOP_BEST = """
  SELECT row_id, doc, score FROM (
    SELECT DISTINCT ON (doc) row_id, doc, {score} AS score
    FROM ({candidates}) AS c ORDER BY doc, score DESC, row_id
  ) AS b ORDER BY score DESC, row_id LIMIT %(need)s
"""
RANKED_ALL = """
  SELECT row_id, doc, score FROM whole UNION ALL SELECT row_id, doc, score FROM partial
  ORDER BY score DESC, row_id
  LIMIT %(top)s OFFSET %(skip)s
"""
# A document can have a whole-query passage and a partial one: its best counts. Each tier's
# best `need` documents are enough: the documents of the page are among them.
RANKED_BEST = """
  SELECT row_id, doc, score FROM (
    SELECT DISTINCT ON (doc) row_id, doc, score FROM (
      SELECT row_id, doc, score FROM whole UNION ALL SELECT row_id, doc, score FROM partial
    ) AS c ORDER BY doc, score DESC, row_id
  ) AS best
  ORDER BY score DESC, row_id
  LIMIT %(top)s OFFSET %(skip)s
"""
