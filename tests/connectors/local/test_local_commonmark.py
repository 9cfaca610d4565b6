"""The Markdown reader against the CommonMark specification's examples.

For each of the spec's examples (read from the shared folder, never copied into the project;
the test skips when it is absent), the passages made of its Markdown must carry every word of
the reference HTML's text, and no markup character more often than that text shows it
literally: the words stay, the syntax goes. The reader's extensions (GFM tables and
strikethrough, MyST) are on while it runs.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from textsearch.documents._markdown import markdown_sections
from textsearch.documents._split import split_document

pytest.importorskip("markdown_it")
pytest.importorskip("mdit_py_plugins")


def _spec_path() -> Path:
    configured = os.environ.get("TEXTSEARCH_COMMONMARK_SPEC")
    if configured:
        return Path(configured)
    # ../shared beside the repository (a worktree may sit one folder deeper)
    for folder in Path(__file__).resolve().parents[4:6]:
        found = folder / "shared" / "text" / "commonmark_spec_examples.json"
        if found.is_file():
            return found
    return Path("shared/text/commonmark_spec_examples.json")


SPEC = _spec_path()
# Characters that are Markdown syntax. "-", "." and digits are not checked: lists are shown
# as "- item" and "1. item", as a reader expects them.
SYNTAX = "*_`[]<>#~|\\!{}"
WORD = re.compile(r"\w+")


def _examples() -> list[dict[str, object]]:
    if not SPEC.is_file():
        return []
    return list(json.loads(SPEC.read_text(encoding="utf-8")))


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":  # an image is shown by its alt text
            self.parts.append(dict(attrs).get("alt") or "")


def reference_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    # Joined as the HTML shows them: "`hi`lo`" is <code>hi</code>lo`, read as "hilo`".
    return "".join(parser.parts)


def our_text(markdown: str) -> str:
    """The passages' text, and the names of all sections (one with no text has no passage)."""
    _, passages = split_document(markdown, ".md")
    _, sections = markdown_sections(markdown)
    return "\n".join([p.text for p in passages] + [s[0] or "" for s in sections])


EXAMPLES = _examples()
# Examples whose reading differs on purpose or in the checker, each with why.
EXEMPT = {
    # The reader takes a document opening with "---" lines as YAML front matter (the title
    # is read from it), as static-site generators and MyST do.
    96: "front matter",
    # Python's html.parser, which reads the reference HTML here, takes "<!--->" as opening a
    # comment; the spec (and the reader) close the comment there.
    628: "checker",
    # Strong emphasis written ``__word__`` keeps its underscores: in Python docs it is a name
    # (``__init__``), which CommonMark would show as a bold "init".
    **dict.fromkeys((391, 401, 404, 408, 427, 428, 458, 460, 464, 467, 470), "dunder"),
}


@pytest.mark.skipif(not EXAMPLES, reason=f"CommonMark examples not found at {SPEC}")
def test_every_commonmark_example_keeps_its_words_and_drops_its_syntax() -> None:
    assert len(EXAMPLES) == 655
    failures: list[str] = []
    checked = 0
    for example in EXAMPLES:
        markdown = str(example["markdown"])
        if example["example"] in EXEMPT:
            continue
        checked += 1
        expected = reference_text(str(example["html"]))
        got = our_text(markdown)
        missing = Counter(WORD.findall(expected)) - Counter(WORD.findall(got))
        extra_syntax = {
            c: got.count(c) - expected.count(c) for c in SYNTAX if got.count(c) > expected.count(c)
        }
        if missing or extra_syntax:
            failures.append(
                f"example {example['example']} ({example['section']}): "
                f"missing words {dict(missing)}, syntax left {extra_syntax}"
            )
    assert checked == len(EXAMPLES) - len(EXEMPT)
    assert not failures, "\n".join(failures)
