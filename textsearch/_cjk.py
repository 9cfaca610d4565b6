"""Chinese, Japanese and Korean text as keyword indexes see it: character bigrams and characters.

CJK text is written without spaces between words, so a tokenizer that splits on spaces and
punctuation sees a whole clause as one token, and a natural question (``如何停止任务``) finds
nothing unless a passage holds it verbatim. The keyword paths of this package (the local
index on both engines, PostgreSQL's managed table, Qdrant's sparse vectors) therefore turn
each run of CJK characters into its overlapping character bigrams and its characters
(``如何 何停 停止 止任 任务`` and ``如 何 停 止 任 务``), at indexing and at query time alike.
Other text is left as it is, so Latin-script behaviour (stemming, folded accents) does not
change.

Chosen by measurement (docs/performance.md, XQuAD-R Chinese): bigrams and characters ranked
better than bigrams alone, jieba's dictionary words, or words and bigrams together; they need
no dictionary, work the same for Japanese and Korean, and cost no segmenter at indexing.
"""

from __future__ import annotations

import array
import functools
import operator
import re
import sys

__all__ = [
    "CJK_RANGES",
    "TANTIVY_TEXT_VERSIONS",
    "TEXT_VERSION",
    "bigrams",
    "cjk_only_run",
    "cjk_run",
    "has_cjk",
    "index_text",
    "index_tokens",
    "is_cjk",
    "query_terms",
    "query_text",
    "question_text",
    "question_words",
    "split_runs",
]

#: Version of how CJK text is cut into index tokens; stored with an index, and an index
#: written with another version is read again once (2: overlapping bigrams; 3: the tantivy
#: engine keeps CJK tokens in a field of their own, `split_runs`; 4: the SQLite engine indexes
#: bigrams and run ends, `index_tokens`).
TEXT_VERSION = "4"
#: The versions whose tantivy index is still current (4 changed only the SQLite engine).
TANTIVY_TEXT_VERSIONS = frozenset({"3", TEXT_VERSION})

CJK_RANGES = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u312f"  # Bopomofo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\uff66-\uff9f"  # halfwidth Katakana
    "\U00020000-\U0003134f"  # CJK Extensions B-G
)


# The patterns are compiled on first use: a character class this wide takes milliseconds to
# compile, and text that is all ASCII (most queries, most documents) never needs them.
@functools.cache
def cjk_run() -> re.Pattern[str]:
    """Runs of CJK characters and runs of other characters."""
    return re.compile(f"[{CJK_RANGES}]+|[^{CJK_RANGES}]+")


@functools.cache
def is_cjk() -> re.Pattern[str]:
    """One CJK character (use ``.match``)."""
    return re.compile(f"[{CJK_RANGES}]")


@functools.cache
def cjk_only_run() -> re.Pattern[str]:
    """Runs of CJK characters only."""
    return re.compile(f"[{CJK_RANGES}]+")


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a CJK character (``str.isascii`` first: a C loop)."""
    return not text.isascii() and cjk_only_run().search(text) is not None


def bigrams(run: str) -> list[str]:
    """The index tokens of a CJK run: its overlapping bigrams, then its characters.

    A lone character is itself. Bigrams hold most of a run's meaning (two characters are
    the commonest word length); the characters let a one-character word match inside a run.
    """
    if len(run) < 2:
        return [run]
    return [*map(operator.add, run[:-1], run[1:]), *run]


# Characters that carry the grammar of a question, not its topic (the CJK counterpart of an
# English stop-word list): a query term made only of them is left out (never out of the
# index), so ``什么是黑豹队`` ranks by its names, not by ``什么`` and ``是``.
_QUERY_STOP = frozenset("的了是吗呢谁什么哪些个几多少为怎如何")
# Question words: never in the sentence that answers, so a bigram holding one matches
# nothing useful (``是什``, ``叫什``) and only costs the engine a look-up.
_QUESTION = frozenset("什么哪谁吗呢怎")


def query_terms(run: str) -> list[str]:
    """The query terms of a CJK run: its bigrams and characters (`bigrams`), less the
    grammar of a question.

    A term made only of question-grammar characters (``什么``, ``的``, ``是``) and a bigram
    holding a question word (``是什``) are left out, as English stop words are (a run made
    only of them gives none; a query of nothing else searches for them after all). Chosen by
    measurement on XQuAD-R Chinese (docs/performance.md): better ranking on both engines,
    and fewer, rarer terms to look up.
    """
    return [
        t
        for t in bigrams(run)
        if not _QUERY_STOP.issuperset(t) and not (len(t) == 2 and not _QUESTION.isdisjoint(t))
    ]


def index_text(text: str, separator: str = " ") -> str:
    """``text`` with every CJK run replaced by its tokens (`bigrams`), each fenced.

    ``separator`` must be a character the index's own tokenizer splits on (a space, or a
    zero-width space for SQLite FTS5 and tantivy, which keeps a snippet free of spaces).
    Text without CJK characters comes back unchanged.
    """
    if not text or text.isascii():
        return text

    def fence(match: re.Match[str]) -> str:
        return separator + separator.join(bigrams(match.group())) + separator

    return cjk_only_run().sub(fence, text)


def index_tokens(text: str, separator: str) -> str:
    """``text`` with each CJK run replaced by ``separator``, then every run's bigrams and the
    character that ends each run, all fenced.

    For the SQLite engine, whose CJK query terms are single tokens (never phrases): it looks
    a query's character up as a prefix (``"停"*``), which every bigram starting with it and
    every run it ends match, so its frequency in a passage is the count of the character,
    as if each character were indexed too, with half the tokens (the characters were half of
    FTS5's indexing time for Chinese text: docs/languages.md). A run is cut at a character
    that is no letter (``・``: the tokenizer would cut it apart). ``separator`` is one
    character the tokenizer splits on.
    """
    if not text or text.isascii():
        return text
    parts = _cjk_pieces().split(text)  # other text, a run, other text, ...
    if len(parts) == 1:
        return text
    runs = parts[1::2]
    if not "".join(runs).isalnum():
        runs = [piece for run in runs for piece in _NOT_LETTER.split(run) if piece]
    # The tokens are the pairs (first[k], second[k]): each character with the one after it
    # in its run, or with ``separator`` when it ends the run (that token is the character
    # alone); the gap between runs pairs two separators (no token). The pairs are written
    # by interleaving the three strings' code points (UTF-32), C loops over the whole text.
    first = _code_points(separator.join(runs))
    second = _code_points((separator + separator).join([run[1:] for run in runs]) + separator)
    interleaved = array.array(_UINT32, bytes(12 * len(first)))
    interleaved[0::3] = first
    interleaved[1::3] = second
    interleaved[2::3] = array.array(_UINT32, [ord(separator)]) * len(first)
    rest = separator.join(parts[0::2])
    return rest + separator + interleaved.tobytes().decode("utf-32-le" if _LITTLE else "utf-32-be")


_UINT32 = "I" if array.array("I").itemsize == 4 else "L"
_LITTLE = sys.byteorder == "little"


def _code_points(text: str) -> array.array[int]:
    points = array.array(_UINT32)
    points.frombytes(text.encode("utf-32-le" if _LITTLE else "utf-32-be"))
    return points


@functools.cache
def _cjk_pieces() -> re.Pattern[str]:
    return re.compile(f"([{CJK_RANGES}]+)")


_NOT_LETTER = re.compile(r"[\W_]+")


def split_runs(text: str, separator: str = " ") -> tuple[str, list[str]]:
    """``text`` with each CJK run replaced by ``separator``, and the runs.

    For an engine that cuts the runs itself: the tantivy engine indexes each run as one
    value of its CJK field, whose n-gram tokenizer gives the run's characters and bigrams
    (the tokens of `bigrams`) in Rust, with no Python step per token. Text without CJK
    characters comes back unchanged, with no runs.
    """
    if not text or text.isascii():
        return text or "", []
    runs = cjk_only_run().findall(text)
    if not runs:
        return text, []
    return cjk_only_run().sub(separator, text), runs


def query_text(text: str) -> str:
    """A query as the index's analyzer should read it: CJK runs as space-separated bigrams."""
    return index_text(text, " ")


def question_text(text: str) -> str:
    """A question as a keyword index of bigrams (`index_text`) should read it: each CJK run
    as its space-separated `query_terms`, the question's grammar left out.

    The local index plans its queries from `query_terms` too; PostgreSQL's managed table
    and Qdrant's sparse vectors read a question through this function. A question that
    keeps no word at all (``是什么``) is cut as `query_text` cuts it: it searches for its
    grammar after all, as a query made only of stop words does.
    """
    if not text or text.isascii():
        return text
    kept = cjk_only_run().sub(lambda m: " " + " ".join(query_terms(m.group())) + " ", text)
    # Full-width punctuation (``？``, ``，``) is no word, but PostgreSQL's parser makes a
    # lexeme of it, which every passage with a question mark would match.
    kept = _WIDE_PUNCTUATION.sub(" ", kept)
    return kept if _WORDLIKE.search(kept) else query_text(text)


@functools.cache
def _grammar_run() -> re.Pattern[str]:
    stop = "".join(sorted(_QUERY_STOP))
    question = "".join(sorted(_QUESTION))
    return re.compile(f"[{stop}]*[{question}][{stop}]*|[{stop}]{{2,}}")


def question_words(text: str) -> str:
    """A question for an index of dictionary words (Milvus' jieba analyzer): each stretch
    of question grammar that holds a question word or two grammar characters (``什么是``,
    ``为什么``, ``谁``, ``如何``) left out.

    The server cuts the rest into words as it cut the passages. The grammar is the same as
    `query_terms` leaves out; a grammar character inside a word of the topic (``因为``,
    ``例如``) stays, since only stretches holding a question word go. A question made only
    of grammar comes back unchanged; full-width punctuation goes (as in `question_text`).
    """
    if not text or text.isascii():
        return text
    kept = _WIDE_PUNCTUATION.sub(" ", _grammar_run().sub(" ", text))
    return kept if _WORDLIKE.search(kept) else text


_WORDLIKE = re.compile(r"\w")
_WIDE_PUNCTUATION = re.compile(r"[^\w\x00-\x7f]")
