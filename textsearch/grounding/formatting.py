"""Turning search results into text for a model."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from textsearch._types import SearchResults
from textsearch.errors import InvalidRequestError
from textsearch.grounding._fields import ResultFields
from textsearch.grounding.budget import Budget, fit_prefix
from textsearch.grounding.fencing import Fencing, neutralize

__all__ = ["LABELS", "BudgetReport", "format_results"]

Style = Literal["numbered", "citations", "markdown", "labelled", "labeled"]
STYLES = ("numbered", "citations", "markdown", "labelled")

#: Field labels of the ``"labelled"`` style, per locale. ``missing`` fills absent fields.
LABELS: dict[str, dict[str, str]] = {
    "zh": {
        "index": "引用",
        "title": "标题",
        "url": "URL",
        "snippet": "摘要",
        "site_name": "网站名称",
        "site_icon": "网站图标",
        "date": "发布时间",
        "missing": "N/A",
    },
    "en": {
        "index": "Citation",
        "title": "Title",
        "url": "URL",
        "snippet": "Snippet",
        "site_name": "Site name",
        "site_icon": "Site icon",
        "date": "Published",
        "missing": "N/A",
    },
}


@dataclass
class BudgetReport:
    """What a budget did to the results.

    Attributes:
        truncated: 1-based positions (among the kept results) whose text was cut.
        dropped: How many lowest-ranked results were left out to respect the total.
    """

    truncated: list[int] = field(default_factory=list)
    dropped: int = 0


#: Chinese and Japanese script, their punctuation and full-width forms: text written without
#: spaces, where a line break inside a paragraph joins the lines with nothing between them.
_UNSPACED = (
    "\u3000-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
)
_UNSPACED_BREAK = re.compile(f"(?<=[{_UNSPACED}])[ \t]*\n\\s*(?=[{_UNSPACED}])")


def one_line(text: str) -> str:
    """``text`` on one line, as a model or a terminal reads a snippet.

    Runs of white space become one space; a line break between two Chinese or Japanese
    characters becomes nothing, as those scripts put no space between words.
    """
    if "\n" in text and not text.isascii():
        text = _UNSPACED_BREAK.sub("", text)
    return " ".join(text.split())


#: A line that starts a list item or a doctest line: the break before it carries meaning.
_ITEM_START = re.compile(r"(?:[-*+\u2022]|\d{1,3}[.)]|[a-z][.)]|>>>|\.\.\.)(?:\s|$)")
#: A line that is one record of a table (``name: widget; price: 3.50``, as CSV and XLSX rows
#: and Word tables are read): records on separate lines stay separate.
_RECORD = re.compile(r"[^:;\n]{1,80}: [^\n]*; [^:;\n]{1,80}:(?:\s|$)|[^;\n]{1,80}; [^;\n]{1,80}")


def _shaped(text: str) -> bool:
    # Whether the line breaks of ``text`` carry meaning: paragraphs, indented lines (code,
    # nested lists), list items, doctest lines, the rows of a table. A snippet that is only
    # soft-wrapped prose reads better as one line.
    if "\n" not in text.strip():
        return False
    if "\n\n" in text.strip() or "\n\t" in text:
        return True
    lines = text.strip().splitlines()
    if any(line.startswith("  ") or _ITEM_START.match(line) for line in lines[1:]):
        return True
    return all(_RECORD.match(line) for line in lines)


def _indented(text: str, indent: str) -> str:
    # ``text`` under a result's heading, its first line where the caller puts it. Text whose
    # line breaks carry meaning keeps every line exactly (code keeps its indentation, blank
    # lines and characters), each line after the first indented; an indented first line
    # starts on the next line, so that it keeps its indentation too. Soft-wrapped prose
    # becomes one line.
    if not _shaped(text):
        return one_line(text)
    lines = _exact_lines(text)
    if not lines:
        return ""
    rest = [indent + line if line.strip() else "" for line in lines[1:]]
    if lines[0][:1].isspace():
        return "\n".join(["", indent + lines[0], *rest])
    return "\n".join([lines[0], *rest])


def _exact_lines(text: str) -> list[str]:
    """The lines of ``text`` as they are, less blank lines at either end."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _header(count: int, query: str | None) -> str:
    noun = "result" if count == 1 else "results"
    if query is None:
        return f"Found {count} {noun}:"
    return f'Found {count} {noun} for "{one_line(query)}":'


def _numbered_block(item: ResultFields, number: int) -> str:
    prefix = f"{number}. "
    indent = " " * len(prefix)
    lines: list[str] = []
    first = item.name or item.value or item.link or ""
    lines.append(prefix + one_line(first))
    if item.name and item.value:
        text = _indented(item.value, indent)
        lines.append(text[1:] if text.startswith("\n") else indent + text)
    if item.link:
        lines.append(f"{indent}URL: {one_line(item.link)}")
    source = item.source
    if source:
        lines.append(f"{indent}Source: {one_line(source)}")
    return "\n".join(lines)


def _citation_line(item: ResultFields, number: int) -> str:
    # One line a result. Text holding code (a paragraph with an indented or ``>>>`` line)
    # follows under that line, every line exactly as it is (indented by four spaces).
    title = one_line(item.name or "")
    value = item.value or ""
    paragraphs = _paragraphs(value) if _shaped(value) else []
    coded = any(len(paragraph) > 1 and _is_code(paragraph) for paragraph in paragraphs)
    text = "" if coded else one_line(value)
    link = one_line(item.link or "")
    body = " — ".join(p for p in (title, text) if p)
    if link:
        body = f"{body} ({link})" if body else link
    line = f"[{number}] {body}".rstrip()
    if not coded:
        return line
    lines = ["    " + ln if ln.strip() else "" for ln in _exact_lines(value)]
    return "\n".join([line, *lines])


def _paragraphs(text: str) -> list[list[str]]:
    """The paragraphs of ``text`` (split at blank lines), each as its lines."""
    found: list[list[str]] = [[]]
    for line in _exact_lines(text):
        if line.strip():
            found[-1].append(line)
        elif found[-1]:
            found.append([])
    return [paragraph for paragraph in found if paragraph]


# A line that reads as code rather than wrapped prose: a prompt, a decorator, a comment, a
# statement's keyword, or a line ending in code's punctuation.
_CODE_LINE = re.compile(
    r"^(?:\s|>>>|\.\.\.|@|\$ |#|//)|^(?:def|class|import|from|return|if|for|while|with)\b"
    r"|[{}()\[\];=\\]\s*$"
)


def _is_code(paragraph: list[str]) -> bool:
    # Kept line by line when it may be code: squashing code breaks it, keeping the breaks
    # of prose that only looks like code costs nothing.
    return any(_CODE_LINE.search(line) for line in paragraph)


def _md_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in "\\[]*_`<>":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def _md_url(url: str) -> str:
    # Whitespace (newlines included) cannot end the link and start a forged entry.
    return "%20".join(url.split()).replace("(", "%28").replace(")", "%29")


def _markdown_block(item: ResultFields, number: int) -> str:
    prefix = f"{number}. "
    indent = " " * len(prefix)
    title = one_line(item.name or "")
    text = _indented(item.value or "", indent)
    link = (item.link or "").strip()
    lines: list[str] = []
    if title and link:
        lines.append(f"{prefix}**[{_md_escape(title)}]({_md_url(link)})**")
    elif title:
        lines.append(f"{prefix}**{_md_escape(title)}**")
    elif link:
        lines.append(f"{prefix}<{_md_url(link)}>")
    if text:
        lead = indent if lines else prefix
        lines.append(lead.rstrip() + text if text.startswith("\n") else lead + text)
    meta = [p for p in (item.site_name or item.source, item.date) if p]
    if meta:
        lines.append(f"{indent}_{_md_escape(' · '.join(one_line(m) for m in meta))}_")
    if not lines:
        lines.append(prefix.rstrip())
    return "\n".join(lines)


_HAN = "[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"  # compiled only for non-ASCII queries


def query_locale(query: str | None) -> str:
    """The label locale a query is written in: ``"zh"`` for Chinese, else ``"en"``."""
    if not query or query.isascii():
        return "en"
    return "zh" if re.search(_HAN, query) else "en"


def resolve_labels(
    locale: str | None, labels: Mapping[str, str] | None, query: str | None = None
) -> dict[str, str]:
    """Labels of the labelled style for a locale (else the query's language), with overrides.

    Raises:
        InvalidRequestError: Unknown locale or label key.
    """
    key = (locale or query_locale(query)).lower().replace("_", "-").split("-")[0]
    base = LABELS.get(key)
    if base is None:
        raise InvalidRequestError(
            f"unknown locale {locale!r} for labelled results (known: {', '.join(LABELS)}); "
            "pass labels= to name the fields yourself"
        )
    merged = dict(base)
    if labels:
        unknown = set(labels) - set(base)
        if unknown:
            raise InvalidRequestError(
                f"unknown label key(s) {', '.join(sorted(unknown))} (known: {', '.join(base)})"
            )
        merged.update(labels)
    return merged


def _labelled_block(item: ResultFields, number: int, labels: Mapping[str, str]) -> str:
    missing = labels["missing"]

    def val(text: str | None) -> str:
        return one_line(text) if text and text.strip() else missing

    def snippet(text: str | None) -> str:
        if not text or not text.strip():
            return missing
        return _indented(text, "  ")

    rows = [
        ("index", str(number)),
        ("title", val(item.name)),
        ("url", val(item.link)),
        ("snippet", snippet(item.value)),
        ("site_name", val(item.site_name)),
        ("site_icon", val(item.site_icon)),
        ("date", val(item.date)),
    ]
    return "\n".join(
        f"{labels[key]}:{value}" if value.startswith("\n") else f"{labels[key]}: {value}"
        for key, value in rows
    )


def renderer(
    style: str,
    *,
    query: str | None,
    locale: str | None = None,
    labels: Mapping[str, str] | None = None,
    numbers: list[int] | None = None,
) -> Callable[[list[ResultFields]], str]:
    """A function that renders a list of (non-empty) results in ``style``.

    Raises:
        InvalidRequestError: Unknown style, locale or label.
    """
    if style == "labeled":
        style = "labelled"
    if style not in STYLES:
        raise InvalidRequestError(f"unknown format style {style!r} (known: {', '.join(STYLES)})")
    label_map = resolve_labels(locale, labels, query) if style == "labelled" else {}

    def number(i: int) -> int:
        return numbers[i] if numbers is not None else i + 1

    def render(items: list[ResultFields]) -> str:
        if style == "numbered":
            blocks = [_numbered_block(it, number(i)) for i, it in enumerate(items)]
            return _header(len(items), query) + "\n\n" + "\n\n".join(blocks)
        if style == "citations":
            return "\n".join(_citation_line(it, number(i)) for i, it in enumerate(items))
        if style == "markdown":
            title = f'## Results for "{one_line(query)}"' if query is not None else "## Results"
            blocks = [_markdown_block(it, number(i)) for i, it in enumerate(items)]
            return title + "\n\n" + "\n\n".join(blocks)
        return "\n\n".join(_labelled_block(it, number(i), label_map) for i, it in enumerate(items))

    return render


def empty_message(query: str | None) -> str:
    """The text for no results."""
    return f"No results found for query: {query}" if query is not None else "No results found."


def fit_to_budget(
    items: list[ResultFields],
    budget: Budget | None,
    assemble: Callable[[list[ResultFields]], str],
) -> tuple[list[ResultFields], BudgetReport]:
    """Apply ``budget`` to results whose full text is ``assemble(items)``.

    Per-result limits cut each result's text. Then, while the assembled text is over a
    total, the lowest-ranked result is dropped; only when the first result alone is over,
    its text is cut to fit.

    Raises:
        InvalidRequestError: Not even the first result's title and link fit the total.
    """
    report = BudgetReport()
    if budget is None or budget.unlimited:
        return items, report
    fitted: list[ResultFields] = []
    for i, item in enumerate(items, start=1):
        if item.value:
            text, cut = budget.fit_result(item.value)
            if cut:
                report.truncated.append(i)
                item = item.replace(value=text)
        fitted.append(item)
    if budget.max_chars is None and budget.max_tokens is None:
        return fitted, report
    keep = len(fitted)
    while keep > 0 and not budget.fits_total(assemble(fitted[:keep])):
        keep -= 1
    if keep > 0:
        report.dropped = len(fitted) - keep
        report.truncated = [n for n in report.truncated if n <= keep]
        return fitted[:keep], report
    if not fitted:  # pragma: no cover - assemble([]) is never called with nothing to show
        return fitted, report
    first = fitted[0]
    value = first.value or ""

    def fits(text: str) -> bool:
        return budget.fits_total(assemble([first.replace(value=text)]))

    text = fit_prefix(value, fits, marker=budget.marker) if value else ""
    if not fits(text):
        raise InvalidRequestError(
            "the grounding budget is too small for even one result's title and link; "
            "raise Budget.max_chars / Budget.max_tokens"
        )
    report.dropped = len(fitted) - 1
    report.truncated = [1]
    return [first.replace(value=text)], report


def prepare(
    results: Iterable[Any],
) -> list[ResultFields]:
    """The fields of every result, numbered as `Citations` numbers them.

    Results for the same page (or the same text without a link) are one source there, so
    they are one entry here: position ``i`` is citation ``i + 1``, and ``[n]`` in a model's
    answer names the ``n.`` the model saw.
    """
    from textsearch.grounding.citations import Citations

    return [source.fields for source in Citations(results)]


def fence_fields(item: ResultFields) -> ResultFields:
    """Neutralize delimiter look-alikes in every untrusted field."""
    return ResultFields(
        name=neutralize(item.name) if item.name else item.name,
        value=neutralize(item.value) if item.value else item.value,
        link=neutralize(item.link) if item.link else item.link,
        display_url=neutralize(item.display_url) if item.display_url else item.display_url,
        site_name=neutralize(item.site_name) if item.site_name else item.site_name,
        site_icon=neutralize(item.site_icon) if item.site_icon else item.site_icon,
        date=neutralize(item.date) if item.date else item.date,
    )


def format_results(
    results: SearchResults[Any] | Iterable[Any],
    *,
    query: str | None = None,
    style: Style = "numbered",
    locale: str | None = None,
    labels: Mapping[str, str] | None = None,
    budget: Budget | None = None,
    fence: bool | Fencing = False,
) -> str:
    """Format results as text for a model.

    Accepts `SearchResults` or a list of strings,
    `TextSearchResult`, native result models or mappings (title,
    snippet/summary, URL, display URL, site name, site icon and date are read from them
    when present). Styles:

    ``"numbered"`` (default)::

        Found 2 results for "query":

        1. Title
           Snippet
           URL: https://...
           Source: display url or host

    ``"citations"``: one line per result, ``[1] Title — snippet (https://...)``.

    ``"markdown"``: a ``## Results for "query"`` heading and a numbered list of
    ``**[Title](link)**``, the snippet, and an italic line with site and date.

    ``"labelled"`` (or ``"labeled"``): blocks of ``label: value`` lines (``Citation``,
    ``Title``, ``URL``, ``Snippet``, ``Site name``, ``Site icon``, ``Published``) with
    ``N/A`` for what is missing. The labels follow ``locale`` (``"en"``, or ``"zh"`` for
    ``引用``, ``标题``, ``摘要``...); without one, the query's language (Chinese labels for
    a Chinese query), else English. ``labels={...}`` renames any of them (keys as in
    `LABELS`).

    Results are numbered as `Citations` numbers them: two results for the same
    page (by normalized link) are one entry, so ``[n]`` always names the ``n.`` shown.

    Every style says ``No results found for query: <query>`` when there is nothing.

    Args:
        results: The results.
        query: The query, shown in headers and in the empty message.
        style: One of the styles above.
        locale: Labels of the labelled style (``"en"``, ``"zh"``); default: the
            query's language, else English.
        labels: Label overrides for the labelled style.
        budget: Per-result and total limits (the total bounds the whole returned text).
        fence: Fence the text as untrusted data (see `Fencing`); off by default here,
            on by default in prompt templates. The query is treated as untrusted too.

    Raises:
        InvalidRequestError: Unknown style, locale or label key, or a budget too small for
            even one result.
    """
    fencing: Fencing | None = Fencing() if fence is True else (fence or None)
    # The query is untrusted like the results (it may come from a user or a page), and it
    # is shown inside the fence: neutralized there like them.
    shown_query = neutralize(query) if fencing is not None and query is not None else query
    render = renderer(style, query=shown_query, locale=locale, labels=labels)
    items = prepare(results)
    if not items:
        return empty_message(query)
    if fencing is None:
        kept, _ = fit_to_budget(items, budget, render)
        return render(kept)
    fence_id = fencing.fence_id(
        [
            query or "",
            *(str(v) for it in items for v in (it.name, it.value, it.link) if v is not None),
        ]
    )
    safe = [fence_fields(it) for it in items]

    def fenced(chosen: list[ResultFields]) -> str:
        return fencing.wrap(render(chosen), fence_id)

    kept, _ = fit_to_budget(safe, budget, fenced)
    return fenced(kept)
