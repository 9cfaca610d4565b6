"""Crafted reStructuredText costs time linear in its size (#33 items 2, 11, 13): a substitution
bomb (also inside a MyST ``{eval-rst}`` block), a wide table, lines over docutils' bound."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from textsearch.documents._split import split_document

ROOT = Path(__file__).resolve().parents[2]


def _bomb(lines: int) -> str:
    defs = [".. |s0| replace:: ha"]
    defs += [f".. |s{n}| replace:: |s{n - 1}| |s{n - 1}|" for n in range(1, lines)]
    return "Bomb\n====\n\n" + "\n".join(defs) + f"\n\nIt says |s{lines - 1}|.\n"


def _text(raw: str, suffix: str) -> str:
    return "\n".join(p.text for p in split_document(raw, suffix)[1])


def test_a_substitution_bomb_is_read_in_bounded_time_and_size() -> None:
    # 30 lines double the text 30 times (gigabytes): the old reading never finished.
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from tests.documents.test_rst_limits import _bomb, _text
        rst = _text(_bomb(30), ".rst")
        myst = _text("# Bomb\\n\\n```{{eval-rst}}\\n" + _bomb(30) + "```\\n", ".md")
        print(len(rst), len(myst), "It says" in rst, "It says" in myst)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,  # a quiet run takes about a second
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    rst_chars, myst_chars, rst_kept, myst_kept = done.stdout.split()
    assert rst_kept == myst_kept == "True"
    assert int(rst_chars) < 200_000 and int(myst_chars) < 200_000


def test_substitutions_still_read_as_their_text() -> None:
    rst = "T\n=\n\n.. |a| replace:: alpha\n.. |b| replace:: |a| and beta\n\nSay |b| now.\n"
    assert _text(rst, ".rst") == "Say alpha and beta now."


def _cost(raw: str) -> float:
    started = time.process_time()
    split_document(raw, ".rst")
    return time.process_time() - started


def test_a_wide_table_costs_what_plain_text_of_its_size_costs() -> None:
    # A table 3,000 columns wide, three rows: quadratic in docutils' table parser (~100x
    # the plain text of its size on the old code). Compared with a same-size file of words
    # in the same run, with a margin far above the quiet ratio (about 1).
    columns = 3_000
    grid = "+" + "---+" * columns
    row = "|" + " ab|" * columns
    wide = "T\n=\n\n" + "\n".join([grid, row, grid, row, grid]) + "\n"
    simple_rule = " ".join(["==="] * columns)
    simple = "T\n=\n\n" + "\n".join([simple_rule, " ".join(["ab "] * columns), simple_rule])
    plain = "T\n=\n\n" + "\n\n".join(" ".join(["word"] * 200) for _ in range(len(wide) // 1000))
    base = min(_cost(plain) for _ in range(2))
    assert _cost(wide) < 15 * base + 0.05
    assert _cost(simple + "\n") < 15 * base + 0.05
    text = _text(wide, ".rst")
    assert text.split() == (["ab;"] * (columns - 1) + ["ab."]) * 2


def test_a_narrow_table_is_still_a_table() -> None:
    rst = "T\n=\n\n+---+---+\n| a | b |\n+---+---+\n| c | d |\n+---+---+\n"
    assert _text(rst, ".rst") == "a; b.\nc; d."


def test_a_line_over_ten_thousand_characters_is_kept_in_rst_as_in_markdown() -> None:
    long = " ".join(f"w{n}" for n in range(3_000))
    rst = _text("T\n=\n\nBefore :ref:`x <y>`.\n\n" + long + "\n\nAfter.\n", ".rst")
    assert rst.split() == ["Before", "x.", *long.split(), "After."]
    code = _text("T\n=\n\n::\n\n    short\n    " + long + "\n\nAfter.\n", ".rst")
    # kept exactly, cut only where a passage ends
    assert code.replace("\n", "") == "short" + long + "After."
    assert _text("# T\n\n" + long + "\n", ".md").split() == long.split()


def test_nesting_past_the_indent_bound_keeps_every_item() -> None:
    # Lists nested 300 deep (600 columns): past 100 columns the items are read as siblings
    # at the last level, none lost, and the text reads as the file's words.
    from textsearch.documents._split import split_document

    text = "".join("  " * n + f"- item{n}\n\n" for n in range(300))
    passages = split_document(text, ".rst")[1]
    words = " ".join(p.text for p in passages).split()
    assert [w for w in words if w.startswith("item")] == [f"item{n}" for n in range(300)]
