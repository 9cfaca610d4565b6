"""Anthropic ``search_result`` content blocks: results that Claude cites natively.

A ``tool_result`` whose content holds ``search_result`` blocks (``source``, ``title``, a
``content`` list of text blocks, ``citations: {"enabled": true}``) lets Claude answer with
``search_result_location`` citations pointing at them, instead of quoting links from text.
"""

from __future__ import annotations

import json
from typing import Any

from textsearch.plugins._tool_types import (
    AnthropicSearchResultBlock,
    AnthropicTextBlock,
    AnthropicToolResultContent,
)

__all__ = ["search_result_blocks"]


def _text(text: str) -> AnthropicTextBlock:
    return {"type": "text", "text": text}


def _block(source: str, title: str, text: str) -> AnthropicSearchResultBlock:
    return {
        "type": "search_result",
        "source": source,
        "title": title,
        "content": [_text(text or title)],
        "citations": {"enabled": True},
    }


def _entry_block(tool: str, entry: dict[str, Any]) -> AnthropicSearchResultBlock:
    number = entry.get("citation")
    link = entry.get("link")
    source = link if isinstance(link, str) and link else f"{tool} result {number}"
    title = entry.get("name") or entry.get("title") or source
    text = entry.get("value") if "value" in entry else entry.get("text")
    if not isinstance(text, str) or not text:
        # A native result: its own fields (without the numbering) are the text to cite.
        rest = {k: v for k, v in entry.items() if k not in ("citation", "link")}
        text = json.dumps(rest, ensure_ascii=False, default=str) if rest else str(title)
    return _block(source, str(title), text)


def search_result_blocks(
    tool: str, text: str, is_error: bool, structured: dict[str, Any] | None
) -> list[AnthropicToolResultContent]:
    """The content of a ``tool_result`` for one call of tool ``tool``.

    Results become one ``search_result`` block each (the numbering of the text answer is
    their order); a read tool's answer one block; an error or "no results" one text block
    with the same sentence the text answer has. Notes (an adjusted ``top``) come first, as
    a text block.
    """
    if is_error or structured is None:
        return [_text(text)]
    blocks: list[AnthropicToolResultContent] = []
    notes = structured.get("notes")
    if isinstance(notes, list) and notes:
        blocks.append(_text("\n".join(f"Note: {n}" for n in notes)))
    if "results" in structured:
        results = structured["results"]
        if not results:
            blocks.append(_text(str(structured.get("message") or text)))
            return blocks
        blocks += [_entry_block(tool, entry) for entry in results]
        return blocks
    # read_document / fetch_page: one document or page.
    source = structured.get("final_url") or structured.get("link") or structured.get("url")
    title = structured.get("title")
    section = structured.get("section")
    if title and section and section != title:
        title = f"{title} › {section}"
    source_text = str(source or tool)
    blocks.append(_block(source_text, str(title or source_text), str(structured.get("text") or "")))
    if "next_start" in structured:
        blocks.append(
            _text(f"The text continues: call {tool} again with start={structured['next_start']}.")
        )
    elif structured.get("truncated"):
        blocks.append(_text("The page was cut at this tool's size limit."))
    return blocks
