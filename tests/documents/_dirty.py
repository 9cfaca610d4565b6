"""What makes a passage dirty: markup a reader should have removed, or code it damaged.

Used by test_real_docs.py on released projects' docs (and runnable alone to count, for the
notes: ``python -m tests.documents._dirty FOLDER...``). Prose is checked for markup; code is
checked for being kept: every line of every code block the parser itself finds is in a
passage with its indentation.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

ROLE = re.compile(r"(?<![\w`]):[A-Za-z][\w.+-]*(?::[\w.+-]+)*:`|\{[\w:.+-]+\}`")
DIRECTIVE = re.compile(r"^\s*\.\. [\w:.+-]+::|^\s*(?:```|:::)\{", re.MULTILINE)
TARGET = re.compile(r"^\s*\([^()\s]{1,200}\)=\s*$|^\s*\.\. _[^:\n]+:\s*$", re.MULTILINE)
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# A role or reference with a title in the source: `text <target>` (its target must not show).
TITLED = re.compile(r"(?<!`)`[^`<\n]+ <([^`<>\n]{1,300})>`(?!`)")
DUNDER = re.compile(r"(?<![\w`])__[A-Za-z][A-Za-z0-9_]*__(?![\w`])")

KINDS = ("role", "directive", "target", "control", "left <target>", "heading backticks",
         "code line lost", "dunder lost")  # fmt: skip


def doc_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*")):
        if path.suffix in (".md", ".rst", ".txt") and path.is_file():
            yield path


def _code_blocks(raw: str, kind: str) -> list[str]:
    """The code blocks of a file as its parser finds them."""
    if kind == "markdown":
        from markdown_it import MarkdownIt

        found = []
        for token in MarkdownIt("commonmark").parse(raw):
            if token.type == "code_block" or (
                token.type == "fence" and not token.info.startswith("{")
            ):
                found.append(token.content.rstrip("\n"))
        return found
    from textsearch.documents._rst import _parse

    document = _parse(raw)
    return [
        n.astext()
        for n in document.findall(lambda n: getattr(n, "tagname", "") == "literal_block")
        if n.parent is None or getattr(n.parent, "tagname", "") != "system_message"  # quoted
    ]


def _inline_literals(raw: str) -> list[str]:
    from textsearch.documents._rst import _parse

    found = _parse(raw).findall(lambda n: getattr(n, "tagname", "") == "literal")
    return sorted({node.astext() for node in found}, key=len, reverse=True)


def _without(block: str, literals: list[str]) -> str:
    for literal in literals:
        if literal in block:
            block = block.replace(literal, " ")
    return block


def _prose_dunders(raw: str) -> set[str]:
    from markdown_it import MarkdownIt

    words: set[str] = set()
    for token in MarkdownIt("commonmark").parse(raw):
        if token.type == "inline":
            words.update(DUNDER.findall(token.content))
    return words


def file_problems(path: Path) -> tuple[int, Counter[str], list[tuple[str, str]]]:
    """``(passages, problem counts, (kind, passage excerpt) examples)`` of one file."""
    from textsearch.documents import _split

    raw = path.read_text(encoding="utf-8", errors="replace")
    kind = _split.format_of(path.suffix, raw)
    if kind == "text":
        return 0, Counter(), []
    title, passages = _split.split_document(raw, path.suffix)
    reader = _split._markdown if kind == "markdown" else _split._rst
    _, sections = reader(raw)
    dirty: dict[int, set[str]] = {}
    examples: list[tuple[str, str]] = []
    prose = [b.text for _, _, _, blocks in sections for b in blocks if not b.code]
    if kind == "rst":  # markup quoted in ``literals`` is text (Django's docs about its docs)
        literals = _inline_literals(raw)
        prose = [_without(block, literals) for block in prose]
    headings = [h for h, _, _, _ in sections if h]
    for index, passage in enumerate(passages):
        text = passage.text
        found = dirty.setdefault(index, set())
        if CONTROL.search(text):
            found.add("control")
        if passage.heading and "`" in passage.heading:
            found.add("heading backticks")
    # Prose checks are made on the prose blocks, then charged to the passage holding them.
    for block in prose:
        problems = set()
        if ROLE.search(block):
            problems.add("role")
        if DIRECTIVE.search(block):
            problems.add("directive")
        if TARGET.search(block):
            problems.add("target")
        if problems:
            probe = block.strip().split("\n")[0][:60]
            owner = next((i for i, p in enumerate(passages) if probe in p.text), 0)
            dirty.setdefault(owner, set()).update(problems)
            for problem, pattern in (("role", ROLE), ("directive", DIRECTIVE),
                                     ("target", TARGET)):  # fmt: skip
                found_at = pattern.search(block) if problem in problems else None
                if found_at is not None:
                    at = found_at.start()
                    examples.append((problem, block[max(0, at - 60) : at + 80]))
    prose_text = "\n".join(prose)
    for target in {found.group(1) for found in TITLED.finditer(raw)}:
        if f"<{target}>" in prose_text:
            owner = next((i for i, p in enumerate(passages) if f"<{target}>" in p.text), 0)
            dirty.setdefault(owner, set()).add("left <target>")
            examples.append(("left <target>", target))
    for heading in headings:
        if "`" in heading:
            examples.append(("heading backticks", heading))
    lines = {line for p in passages for line in p.text.split("\n")}
    lines |= {line.expandtabs(8).rstrip() for line in lines}
    for code in _code_blocks(raw, kind):
        missing = [ln for ln in code.split("\n") if ln.strip() and ln.rstrip() not in lines]
        if missing:
            owner = next((i for i, p in enumerate(passages) if missing[0].strip() in p.text), 0)
            dirty.setdefault(owner, set()).add("code line lost")
            examples.append(("code line lost", missing[0][:200]))
    if kind == "markdown":
        joined = "\n".join(p.text for p in passages) + "\n".join(h or "" for h in headings)
        for word in _prose_dunders(raw):
            if word not in joined:
                dirty.setdefault(0, set()).add("dunder lost")
                examples.append(("dunder lost", word))
    counts: Counter[str] = Counter()
    for problems in dirty.values():
        counts.update(problems)
        if problems:
            counts["dirty passages"] += 1
    return len(passages), counts, examples


def count(root: Path) -> tuple[int, Counter[str], list[tuple[str, str, str]]]:
    total = 0
    counts: Counter[str] = Counter()
    examples: list[tuple[str, str, str]] = []
    for path in doc_files(root):
        passages, found, seen = file_problems(path)
        total += passages
        counts.update(found)
        examples += [(str(path.relative_to(root)), k, e) for k, e in seen]
    return total, counts, examples


if __name__ == "__main__":
    for folder in sys.argv[1:]:
        total, counts, examples = count(Path(folder))
        print(folder, "passages", total, dict(counts))
        for example in examples[:12]:
            print("   ", example)
