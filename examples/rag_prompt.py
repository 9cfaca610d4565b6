"""Ground a question on the local index of this repository's docs/ folder (offline, no key).

Run from anywhere: ``python examples/rag_prompt.py ["your question"]``. It prints the prompt a
model would get (results fenced as untrusted data, numbered for citation) and the reference list,
then shows how a model's answer is checked against the sources.
"""

from __future__ import annotations

import sys
from pathlib import Path

from textsearch import LocalTextSearch
from textsearch.grounding import ANSWER_WITH_CITATIONS_AND_DATES, Budget, ground_sync

DOCS = Path(__file__).resolve().parent.parent / "docs"


def main() -> None:
    question = sys.argv[1] if len(sys.argv) > 1 else "How are untrusted search results fenced?"
    # In memory (nothing is written to disk); results are passages (sections of the docs).
    with LocalTextSearch() as search:
        search.index_path(DOCS)
        grounded = ground_sync(
            search,
            question,
            top=3,
            template=ANSWER_WITH_CITATIONS_AND_DATES,
            budget=Budget(max_result_chars=600, max_chars=6000),
        )
    print(grounded.prompt)
    print()
    print("References:")
    print(grounded.references or "(none)")

    # What an application does with the model's answer (here a made-up one):
    answer = "Results are fenced between delimiter lines [1]; see also [7]."
    print()
    print("An answer citing [1] and a non-existent [7]:")
    print("  cited sources:", grounded.citations.used_in(answer))
    print("  unknown markers:", grounded.citations.unknown_in(answer))


if __name__ == "__main__":
    main()
