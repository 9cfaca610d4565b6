"""Split documents into passages, and cut a bounded window of a passage around the hits.

A passage is a section of a document (by headings in Markdown, reStructuredText and HTML,
by paragraphs in plain text), never longer than a size bound. It is what the local index
ranks and what a model sees, so that the value of a result is a readable, self-contained
piece of text rather than a few words around a hit.

Everything here is linear in the size of its input, so a many-megabyte log file costs
milliseconds, not seconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "DEFAULT_PASSAGE_CHARS",
    "Passage",
    "best_window",
    "hit_pattern",
]

#: Size bound of one passage, in characters (about 250-350 English words).
DEFAULT_PASSAGE_CHARS = 1500


@dataclass(frozen=True, slots=True)
class Passage:
    """One passage: the heading of its section, the anchor of that heading, and its text."""

    heading: str | None
    anchor: str | None
    line: int
    text: str


# The lookbehind starts a match only at the start of a run (a long run is not rescanned).
_TRAILING = re.compile(r"(?<![ \t\f\v\r])[ \t\f\v\r]+\n")
_BLANKS_AT_LINE_END = (" \n", "\t\n", "\f\n", "\v\n", "\r\n")
# C0 control characters but the line feed and the tab: never text a model should read
# (docutils marks escapes with NUL; a file may hold anything).
CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f]")


def without_controls(text: str) -> str:
    """``text`` without C0 control characters other than ``\\n`` and ``\\t``."""
    return CONTROLS.sub("", text) if CONTROLS.search(text) else text


_BLANK_LINES = re.compile(r"\n(?:[ \t]*\n)+")
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")
# An indented list item: a bullet, or a number or letter ("2.", "b)", "iv.", "1.3.", "(a)").
INDENTED_ITEM = re.compile(
    r"[ \t]+(?:[-*+\u2022\u2023\u25e6]|\(?(?:\d{1,9}|[A-Za-z]{1,8})(?:\.\d{1,9})*[.)])(?:[ \t]|$)",
    re.MULTILINE,
)


def _tidy(text: str) -> str:
    # Indentation is kept (code blocks, lists); trailing blanks and blank-line runs are not.
    # Blanks before the first line go, but for an indented list item: a list that starts at
    # a deeper level (a Word list's first item at level 2) keeps its item's depth.
    # Each pass only where its characters are: a substring test is a scan in C, a regex
    # tried at every position is not (on a PDF's pages, most of the packing's cost).
    if any(blank in text for blank in _BLANKS_AT_LINE_END):
        text = _TRAILING.sub("\n", text)
    if "\n\n" in text:  # no blanks at line ends now: a run of blank lines is newlines only
        text = _BLANK_LINES.sub("\n\n", text)
    if text[:1].isspace():
        lead = _LEADING_BLANK_LINES.sub("", text)
        if INDENTED_ITEM.match(lead):
            return lead.rstrip()
        return _dedented(lead)
    return text.strip()


def _dedented(text: str) -> str:
    # An indented block (code in a text file or on a PDF page): the indentation all its
    # lines share goes, so its lines keep theirs relative to each other (stripping the first
    # line alone left ``# comment\n    x = 1``). A first line indented alone is a paragraph's
    # typographic indent: it goes too.
    from textwrap import dedent

    block = dedent(text).rstrip()
    first, newline, rest = block.partition("\n")
    if first[:1].isspace() and not any(line[:1].isspace() for line in rest.split("\n")):
        return first.lstrip() + newline + rest
    return block


def _trimmed(text: str) -> str:
    # Blank lines off both ends, every other line as it is: the passage's code keeps its
    # blank lines and the indentation of its first line.
    return _LEADING_BLANK_LINES.sub("", text).rstrip()


# -- windows and highlights ----------------------------------------------------------------

_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s")
_MAX_HITS = 2000  # hits looked at per passage: bounds the cost on huge texts


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


_WORD_REST = re.compile(r"\w*")


class HitFinder:
    """Finds the query's words in text: word stems in any case, CJK and other words as-is.

    Made by `hit_pattern`. Text is lower-cased once and each word is looked for with
    ``str.find`` (a scan in C per word); only where one is found does Python check that a stem
    starts a word and extend it to the word's end. A single ``IGNORECASE`` alternation with
    ``\\b`` tried every alternative at most positions: on SciFact's passages with full questions
    (8-9 words) it was most of the cost of a 100-result search (docs/performance.md).
    """

    __slots__ = ("_others", "_stems")

    def __init__(self, stems: list[str], others: list[str]) -> None:
        self._stems = stems
        self._others = others

    def hits(self, text: str, limit: int) -> list[tuple[int, int, str]]:
        """``(start, end, lower-cased hit)`` in text order, at most ``limit`` of them."""
        lowered = text.lower()
        if len(lowered) != len(text):
            # A few characters grow when lower-cased (e.g. "İ"): fold each one alone so that
            # positions in ``lowered`` stay positions in ``text``.
            lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
        found: dict[int, tuple[int, int, str]] = {}
        rest = _WORD_REST.match
        for stem in self._stems:
            count = 0
            position = lowered.find(stem)
            while position != -1 and count < limit:
                before = lowered[position - 1] if position else " "
                if before.isalnum() or before == "_":  # inside a word: the stem must start one
                    position = lowered.find(stem, position + 1)
                    continue
                end = rest(lowered, position + len(stem)).end()  # type: ignore[union-attr]
                found[position] = (position, end, lowered[position:end])
                count += 1
                position = lowered.find(stem, end)
        for word in self._others:
            count = 0
            position = lowered.find(word)
            while position != -1 and count < limit:
                end = position + len(word)
                found.setdefault(position, (position, end, word))
                count += 1
                position = lowered.find(word, end)
        hits = sorted(found.values()) if len(found) > 1 else list(found.values())
        if self._others and len(hits) > 1:
            hits = _merged(hits, lowered)
        del hits[limit:]
        return hits


def _merged(hits: list[tuple[int, int, str]], lowered: str) -> list[tuple[int, int, str]]:
    """Overlapping hits as one: a CJK word found as bigrams (数据, 据库) is one hit (数据库)."""
    out = [hits[0]]
    for start, end, key in hits[1:]:
        first, last, _ = out[-1]
        if start < last:
            if end > last:
                out[-1] = (first, end, lowered[first:end])
        else:
            out.append((start, end, key))
    return out


def hit_pattern(words: list[str]) -> HitFinder | None:
    """A finder of the query's words in text (word stems, any case; CJK bigrams as-is, found
    side by side as one hit).

    FTS5 and tantivy stem with their own stemmers; this approximation only decides where a
    window sits and what gets highlighted, never what matches.
    """
    stems: set[str] = set()
    others: set[str] = set()
    for word in words:
        if not word:
            continue
        if word[0].isascii() and word[0].isalnum():
            stems.add(_stem(word.lower()))
        else:
            others.add(word.lower())
    if any(len(word) > 1 for word in others):
        # A CJK run's characters are index tokens (a one-character word matches inside a
        # run) but highlighted only through its bigrams, never as every 的 in the text.
        others = {word for word in others if len(word) > 1}
    if not stems and not others:
        return None
    # Longest first: where two stems start the same word, the longer one names the hit.
    return HitFinder(sorted(stems, key=len, reverse=True), sorted(others, key=len, reverse=True))


def best_window(
    text: str,
    pattern: HitFinder | None,
    size: int,
    highlight: tuple[str, str] | None,
) -> str:
    """The ``size``-character piece of ``text`` holding the most distinct hits.

    Linear: one bounded regex scan and one two-pointer pass over at most ``_MAX_HITS`` hits.
    """
    if len(text) <= size and (pattern is None or highlight is None):
        return _trimmed(text)
    hits = pattern.hits(text, _MAX_HITS) if pattern is not None else []
    start = 0
    if len(text) > size and hits:
        best, best_count, left = 0, 0, 0
        counts_typed: dict[str, int] = {}
        for right, (_, end, key) in enumerate(hits):
            counts_typed[key] = counts_typed.get(key, 0) + 1
            while end - hits[left][0] > size:
                old = hits[left][2]
                counts_typed[old] -= 1
                if not counts_typed[old]:
                    del counts_typed[old]
                left += 1
            score = len(counts_typed) * 1000 + (right - left + 1)
            if score > best_count:
                best, best_count = left, score
        # Start a little before the first hit of the best window, at a word boundary.
        start = max(0, hits[best][0] - size // 8)
        if start:
            space = text.find(" ", start, start + 40)
            start = space + 1 if space != -1 else start
    end = min(len(text), start + size)
    if end < len(text):
        space = text.rfind(" ", end - 40, end)
        end = space if space > start else end
    piece = text[start:end]
    if highlight is not None and hits:
        open_mark, close_mark = highlight
        out: list[str] = []
        position = start
        for hit_start, hit_end, _ in hits:
            if hit_start < position or hit_end > end:
                continue
            out.append(text[position:hit_start])
            out.append(open_mark + text[hit_start:hit_end] + close_mark)
            position = hit_end
        out.append(text[position:end])
        piece = "".join(out)
    piece = _trimmed(piece)
    return ("…" if start > 0 else "") + piece + ("…" if end < len(text) else "")


def embedding_input(title: str | None, section: str | None, text: str) -> str:
    """What is embedded for a passage: its document title and section name give it context."""
    head = "\n".join(part for part in (title, section) if part)
    return f"{head}\n{text}" if head else text
