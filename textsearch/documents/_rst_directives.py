"""The directives docutils does not know, as the reStructuredText reader reads them: code
kept exactly (``code-block``, ``sourcecode``...), directives a page shows nothing of, and a
generic one for every other Sphinx directive (its argument, the options a page shows, its
body, under the label a page shows). `directive_for` picks one by name."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from textsearch.documents._blocks import directive_label, only_shows, shown_code, shown_options
from textsearch.documents._rst_sniff import _ARGUMENT_NOT_TEXT, _directive_kind

__all__ = ["ANCHOR", "LABEL", "directive_classes", "directive_for"]

#: Where a generic directive's node keeps its `Label` and the label's words parsed.
LABEL = "textsearch-label"
#: Where a section a directive makes keeps the anchor its page gives it.
ANCHOR = "textsearch-anchor"


@lru_cache(maxsize=1)
def directive_classes() -> tuple[type[Any], type[Any], type[Any]]:
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class AnyOption(dict[str, Any]):
        # Sphinx directives take options docutils does not know (:caption:, :linenos:):
        # every option is accepted, as text.
        def __getitem__(self, key: str) -> Any:
            return directives.unchanged

        def __contains__(self, key: object) -> bool:
            return True

    any_option = AnyOption(any=directives.unchanged)

    class Lenient(Directive):
        # One argument (any text), any option, a body: what a Sphinx directive may have.
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = any_option

    class Code(Lenient):
        def run(self) -> list[Any]:
            lines = list(self.content)
            first = self.content_offset + 1
            marker = self.block_text.split("\n", 1)[0]
            if self.arguments and not self.options and not marker.partition("::")[2].strip():
                # Code right under the directive, no blank line between (".. click:run::"
                # then "    invoke(cli)"): docutils read its first lines as the argument,
                # but nothing was on the directive's line, so they are code.
                head = self.arguments[0].split("\n")
                gap = first - (self.lineno + 1) - len(head)
                lines = head + [""] * gap + lines if lines else head
                first = self.lineno + 1
            language = marker.partition("::")[2]
            node = nodes.literal_block("", shown_code(language, "\n".join(lines)))
            node.line = first
            return [node]

    class Dropped(Lenient):
        def run(self) -> list[Any]:
            return []

    class Generic(Lenient):
        def run(self) -> list[Any]:
            container: nodes.Element = nodes.container()
            container.line = self.lineno
            short = self.name.rpartition(":")[2]
            argument = self.arguments[0] if self.arguments else ""
            if short == "only" and not only_shows(argument):
                return []  # not on the HTML pages (``.. only:: latex``)
            label = directive_label(short, argument)
            if label is not None:  # seealso, versionadded...: the walker shows the label
                words, _ = self.state.inline_text(label.text, self.lineno)  # ``netstat``
                container[LABEL] = (label, nodes.paragraph("", "", *words))
                argument = label.rest
            given = [(key, str(value)) for key, value in self.options.items()]
            marker = self.block_text.split("\n", 1)[0]
            lines = argument.split("\n")
            if not given and not marker.partition("::")[2].strip() and len(lines) > 0:
                if all(_INDENTED_OPTION.match(line.strip()) for line in lines):
                    given, argument = [_option(line) for line in lines], ""
            version = dict(given).get("version", "").strip() if short == "changelog" else ""
            if version:  # the changelog extension: a section of the page per release
                container = nodes.section()
                container[ANCHOR] = f"change-{version}"
                title = nodes.title(version, version)
                title.line = self.lineno
                container += title
                given = [(key, value) for key, value in given if key != "version"]
            options = shown_options(given, short)
            for text in (argument if short not in _ARGUMENT_NOT_TEXT else "", options):
                if text:
                    inline, _ = self.state.inline_text(text, self.lineno)
                    paragraph = nodes.paragraph("", "", *inline)
                    paragraph.line = self.lineno
                    container += paragraph
            if self.content:
                self.state.nested_parse(self.content, self.content_offset, container)
            return [container]

    return Code, Dropped, Generic


# A directive's options written deeper than its content: docutils takes them for the
# directive's argument, as its own options must start at the content's margin; Sphinx's
# extensions (SQLAlchemy's ``.. change::`` with ``:tags:`` and ``:tickets:``) read them as
# options.
_INDENTED_OPTION = re.compile(r":([\w-]+):(?: |$)")


def _option(line: str) -> tuple[str, str]:
    name, _, value = line.strip()[1:].partition(":")
    return name.lower(), value


def directive_for(name: str) -> type[Any] | None:
    kind = _directive_kind(name)
    if kind is None:
        return None
    code, dropped, generic = directive_classes()
    return code if kind == "code" else dropped if kind == "dropped" else generic
