"""Prompt templates: a small built-in syntax, or Jinja2 (the ``jinja`` extra).

Built-in syntax
---------------

``{name}``
    A variable: ``{query}``, ``{count}`` (number of results shown), ``{today}`` (ISO date,
    unless you pass your own), any keyword you give `render_prompt`, and inside the
    results loop the fields of one result: ``{index}`` (its citation number), ``{name}``
    (title), ``{value}`` (text), ``{link}``, ``{date}``, ``{site_name}``, ``{site_icon}``,
    ``{display_url}`` and ``{source}`` (display URL or host). A missing field is empty.
``{#results}...{/results}``
    The loop: its body is rendered once per result. With fencing on (the default) the
    whole loop output is fenced as untrusted data (see `Fencing`).
``{#x}...{/x}`` / ``{^x}...{/x}``
    A section shown only when ``x`` is non-empty / empty; ``{^results}...{/results}`` is
    shown when there are no results.
``{{`` and ``}}``
    Literal braces. Any other brace (JSON in a template, say) is kept as it is.

A section tag alone on its line takes the whole line with it, so loops add no blank lines.
Templates are parsed by this module and never evaluated: result text is inserted as data,
and a ``{...}`` inside result text is not a placeholder.

Jinja2
------

``PromptTemplate(text, syntax="jinja")`` (or ``render_prompt(..., syntax="jinja")``) renders
with a sandboxed Jinja2 environment (``ImmutableSandboxedEnvironment``, strict undefined
variables, no autoescaping since the output is text, ``trim_blocks``/``lstrip_blocks``).
Its context holds ``query``, ``count``, ``today``, ``results`` (a list of dicts with the
fields above), ``fence_begin``, ``fence_end`` and ``fence_instruction`` (empty when
fencing is off; result fields are neutralized when it is on), and your variables.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from textsearch.errors import InvalidRequestError
from textsearch.grounding._fields import ResultFields
from textsearch.grounding.budget import Budget
from textsearch.grounding.citations import Citations
from textsearch.grounding.fencing import Fencing, neutralize
from textsearch.grounding.formatting import (
    BudgetReport,
    fence_fields,
    fit_to_budget,
    prepare,
)

__all__ = [
    "ANSWER_WITH_CITATIONS",
    "ANSWER_WITH_CITATIONS_AND_DATES",
    "TEMPLATES",
    "PromptTemplate",
    "render_prompt",
]

Syntax = Literal["builtin", "jinja"]
_RESULT_FIELDS = (
    "index",
    "name",
    "value",
    "link",
    "date",
    "site_name",
    "site_icon",
    "display_url",
    "source",
)


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt template and its syntax.

    Attributes:
        text: The template text.
        syntax: ``"builtin"`` (see the module docs) or ``"jinja"``.
        name: A short name, for messages.
    """

    text: str
    syntax: Syntax = "builtin"
    name: str = "template"


def _answer_template(name: str, instructions: str, date_line: str = "") -> PromptTemplate:
    # Every ready template lists the results and ends with the question the same way; only
    # the instructions and the line with a result's date differ.
    return PromptTemplate(
        name=name,
        text=(
            f"{instructions}\n\n"
            "{#results}\n"
            "[{index}]{#name} {name}{/name}\n"
            "{#link}\nURL: {link}\n{/link}\n"
            f"{date_line}"
            "{value}\n\n"
            "{/results}\n"
            "{^results}\n(The search returned no results.)\n{/results}\n\n"
            "Question: {query}\nAnswer:"
        ),
    )


ANSWER_WITH_CITATIONS = _answer_template(
    "answer",
    "Answer the question using only the numbered search results below. After each claim, "
    "cite the results it comes from by their numbers in square brackets, like [1] or [1][3]. "
    "If the results do not contain the answer, say so; do not make anything up.",
)

ANSWER_WITH_CITATIONS_AND_DATES = _answer_template(
    "answer-dates",
    "Today's date is {today}. Answer the question using only the numbered search results "
    "below. After each claim, cite the results it comes from by their numbers in square "
    "brackets, like [1] or [1][3]. Prefer the most recent information when results disagree, "
    "and say how recent a fact is when it matters. If the results do not contain the answer, "
    "say so; do not make anything up.",
    date_line="Published: {#date}{date}{/date}{^date}unknown{/date}\n",
)

#: Ready templates by name (also the choices of ``textsearch ground --template``).
TEMPLATES: dict[str, PromptTemplate] = {
    ANSWER_WITH_CITATIONS.name: ANSWER_WITH_CITATIONS,
    ANSWER_WITH_CITATIONS_AND_DATES.name: ANSWER_WITH_CITATIONS_AND_DATES,
}

# A template given by name: a lone word (letters, digits, "-", "_", ".") with no placeholder.
_NAME_LIKE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,99}")

# -- built-in syntax --------------------------------------------------------------------

_TOKEN = re.compile(r"\{\{|\}\}|\{([#^/]?)([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class _Var:
    name: str


@dataclass(frozen=True)
class _Section:
    name: str
    inverted: bool
    body: tuple[_Node, ...]


_Node = str | _Var | _Section


def _standalone(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The span of the whole line when the tag at ``start:end`` is alone on it."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    after = len(text) if line_end == -1 else line_end + 1
    if (
        text[line_start:start].strip()
        or text[end : (len(text) if line_end == -1 else line_end)].strip()
    ):
        return None
    return line_start, after


def _parse(text: str) -> tuple[_Node, ...]:
    stack: list[tuple[str, bool, list[_Node]]] = [("", False, [])]
    pos = 0
    for match in _TOKEN.finditer(text):
        if match.start() < pos:
            continue  # inside a line already consumed by a standalone tag
        kind, name = match.group(1), match.group(2)
        start, end = match.span()
        if name is not None and kind:
            span = _standalone(text, start, end)
            if span is not None:
                start, end = max(span[0], pos), span[1]
        literal = text[pos:start]
        if literal:
            stack[-1][2].append(literal)
        pos = end
        token = match.group(0)
        if token == "{{":
            stack[-1][2].append("{")
        elif token == "}}":
            stack[-1][2].append("}")
        elif not kind:
            stack[-1][2].append(_Var(name))
        elif kind in "#^":
            stack.append((name, kind == "^", []))
        else:
            opened, inverted, body = stack.pop() if len(stack) > 1 else ("", False, [])
            if opened != name:
                raise InvalidRequestError(
                    f"template: {{/{name}}} closes " + (f"{{#{opened}}}" if opened else "nothing")
                )
            stack[-1][2].append(_Section(name, inverted, tuple(body)))
    if text[pos:]:
        stack[-1][2].append(text[pos:])
    if len(stack) > 1:
        raise InvalidRequestError(f"template: {{#{stack[-1][0]}}} is never closed")
    return tuple(stack[0][2])


def _line(text: str | None) -> str:
    # Single-line fields stay on one line, so a title or link cannot start a forged entry.
    return " ".join(text.split()) if text else ""


def _result_vars(item: ResultFields, number: int) -> dict[str, str]:
    return {
        "index": str(number),
        "name": _line(item.name),
        "value": item.value or "",
        "link": _line(item.link),
        "date": _line(item.date),
        "site_name": _line(item.site_name),
        "site_icon": _line(item.site_icon),
        "display_url": _line(item.display_url),
        "source": _line(item.source),
    }


class _Builtin:
    def __init__(
        self,
        nodes: tuple[_Node, ...],
        variables: Mapping[str, str],
        fencing: Fencing | None,
        fence_id: str,
    ) -> None:
        self.nodes = nodes
        self.variables = variables
        self.fencing = fencing
        self.fence_id = fence_id

    def render(self, items: list[tuple[ResultFields, int]]) -> str:
        scope = dict(self.variables)
        scope["count"] = str(len(items))
        return self._nodes(self.nodes, scope, items, in_loop=False)

    def _nodes(
        self,
        nodes: Iterable[_Node],
        scope: Mapping[str, str],
        items: list[tuple[ResultFields, int]],
        *,
        in_loop: bool,
    ) -> str:
        out: list[str] = []
        for node in nodes:
            if isinstance(node, str):
                out.append(node)
            elif isinstance(node, _Var):
                if node.name not in scope:
                    known = sorted(k for k in scope if not k.startswith("_"))
                    where = "inside" if in_loop else "outside"
                    raise InvalidRequestError(
                        f"template: unknown placeholder {{{node.name}}} {where} the results "
                        f"loop (known: {', '.join(known)})"
                    )
                out.append(scope[node.name])
            elif node.name == "results" and not in_loop:
                if node.inverted:
                    if not items:
                        out.append(self._nodes(node.body, scope, items, in_loop=False))
                    continue
                body = "".join(
                    self._nodes(node.body, {**scope, **_result_vars(it, n)}, items, in_loop=True)
                    for it, n in items
                )
                if self.fencing is not None and items:
                    tail = "\n" if body.endswith("\n") else ""
                    body = self.fencing.wrap(body.rstrip("\n"), self.fence_id) + tail
                out.append(body)
            else:
                if node.name not in scope:
                    raise InvalidRequestError(f"template: unknown section {{#{node.name}}}")
                if bool(scope[node.name].strip()) != node.inverted:
                    out.append(self._nodes(node.body, scope, items, in_loop=in_loop))
        return "".join(out)


# -- Jinja2 -----------------------------------------------------------------------------


def _jinja_render(
    source: str,
    context: dict[str, Any],
    items: list[tuple[ResultFields, int]],
) -> str:
    try:
        from jinja2 import StrictUndefined, TemplateError
        from jinja2.sandbox import ImmutableSandboxedEnvironment
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            'Jinja2 prompt templates need the jinja extra: pip install "textsearch-sdk[jinja]"'
        ) from exc
    env = ImmutableSandboxedEnvironment(
        autoescape=False,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    data = dict(context)
    data["results"] = [_result_vars(it, n) for it, n in items]
    data["count"] = len(items)
    try:
        return env.from_string(source).render(data)
    except TemplateError as exc:
        raise InvalidRequestError(f"Jinja2 template error: {exc}") from None


# -- rendering --------------------------------------------------------------------------


def _numbered_items(results: Any) -> list[tuple[ResultFields, int]]:
    if isinstance(results, Citations):
        return [(src.fields, src.number) for src in results]
    return [(f, i) for i, f in enumerate(prepare(results), start=1)]


def _template_source(template: object, syntax: Syntax | None) -> tuple[str, Syntax]:
    """The text and syntax of a template given by name, text or ``PromptTemplate``."""
    if isinstance(template, str) and template.strip() in TEMPLATES:
        template = TEMPLATES[template.strip()]
    if isinstance(template, PromptTemplate):
        text, chosen = template.text, syntax or template.syntax
    elif isinstance(template, str):
        text, chosen = template, syntax or "builtin"
    else:
        raise InvalidRequestError(
            f"template must be a str or PromptTemplate, not {type(template).__name__}"
        )
    if chosen not in ("builtin", "jinja"):
        raise InvalidRequestError(f"unknown template syntax {chosen!r} (builtin or jinja)")
    if not isinstance(template, PromptTemplate) and _NAME_LIKE.fullmatch(text.strip()):
        # A lone word is a misspelt template name, not a prompt: rendering it would send
        # the model one word and no results.
        raise InvalidRequestError(
            f"unknown template name {text.strip()[:60]!r} (ready templates: "
            f"{', '.join(TEMPLATES)}); a template text uses placeholders such as "
            "{query} and {#results}...{/results}"
        )
    return text, chosen


def _render(
    text: str,
    syntax: Syntax,
    *,
    query: str,
    results: Any,
    fence: bool | Fencing,
    budget: Budget | None,
    variables: Mapping[str, Any],
) -> tuple[str, list[tuple[ResultFields, int]], BudgetReport]:
    """The prompt, the numbered results it kept and what the budget did."""
    fencing: Fencing | None = Fencing() if fence is True else (fence or None)
    items = _numbered_items(results)
    fence_id = ""
    if fencing is not None:
        fence_id = fencing.fence_id(
            [query, *(v for it, _ in items for v in (it.name, it.value, it.link) if v is not None)]
        )
        items = [(fence_fields(it), n) for it, n in items]
    scope: dict[str, Any] = {"today": _dt.date.today().isoformat()}
    scope.update(variables)
    # The query is untrusted too, and a template may show it inside the fenced loop.
    scope["query"] = neutralize(query) if fencing is not None else query

    def numbered(chosen_items: list[ResultFields]) -> list[tuple[ResultFields, int]]:
        # Budgets keep results in order and drop only from the end, so position i of the
        # chosen results is position i of ``items``: it keeps its citation number.
        return [(it, items[i][1]) for i, it in enumerate(chosen_items)]

    if syntax == "jinja":
        scope["fence_begin"] = fencing.begin(fence_id) if fencing else ""
        scope["fence_end"] = fencing.end(fence_id) if fencing else ""
        scope["fence_instruction"] = fencing.instruction if fencing else ""

        def assemble(chosen_items: list[ResultFields]) -> str:
            return _jinja_render(text, scope, numbered(chosen_items))
    else:
        engine = _Builtin(_parse(text), {k: str(v) for k, v in scope.items()}, fencing, fence_id)

        def assemble(chosen_items: list[ResultFields]) -> str:
            return engine.render(numbered(chosen_items))

    kept, report = fit_to_budget([it for it, _ in items], budget, assemble)
    return assemble(kept), numbered(kept), report


def render_prompt(
    template: str | PromptTemplate,
    *,
    query: str,
    results: Any,
    syntax: Syntax | None = None,
    fence: bool | Fencing = True,
    budget: Budget | None = None,
    **variables: Any,
) -> str:
    """Render a prompt template with search results.

    Args:
        template: Template text in the built-in syntax (see the module docs), a
            `PromptTemplate` (for example `ANSWER_WITH_CITATIONS`), or the
            name of a ready one (``"answer"``, ``"answer-dates"``: see `TEMPLATES`).
        query: The question; ``{query}`` in the template.
        results: Results of any shape `format_results` accepts, or a
            `Citations` (its numbers become ``{index}``).
        syntax: Override the template's syntax (``"builtin"`` or ``"jinja"``).
        fence: Fence the results as untrusted data (default on); ``False`` to turn off, or a
            `Fencing` to change the instruction.
        budget: Per-result limits on each result's text, and total limits on the whole
            rendered prompt (results are dropped from the end before any is cut).
        **variables: More template variables (``query``, ``results``, ``syntax``, ``fence``
            and ``budget`` are reserved).

    Raises:
        InvalidRequestError: A template error (unknown placeholder, unclosed section, Jinja2
            syntax or sandbox violation, an unknown template name) or a budget too small
            for one result.
        ImportError: A Jinja2 template without the ``jinja`` extra installed.
    """
    text, chosen = _template_source(template, syntax)
    prompt, _, _ = _render(
        text, chosen, query=query, results=results, fence=fence, budget=budget, variables=variables
    )
    return prompt
