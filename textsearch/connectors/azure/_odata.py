"""Pure OData ``$filter`` helpers for Azure AI Search: literals, field names, filter building.

Nothing here performs I/O or imports the Azure SDK, so every function is unit-testable on its
own. The guarantees that the connector relies on:

* `odata_literal` turns a plain value into a literal that the OData parser reads as one
  token: strings are single-quoted with every ``'`` doubled, so no value can end its literal
  early (``x') or (1 eq 1`` stays text).
* `check_field_name` accepts only identifiers (``[A-Za-z_][A-Za-z0-9_]*``, with ``/``
  between the parts of a complex-field path), never an OData keyword.
* `check_balanced` proves that an expression written by a developer (a security filter)
  closes every parenthesis and string literal it opens, so wrapping it as ``(<expr>)`` really
  makes it one operand that nothing AND-ed after it can reopen.
* `combine_filters` always produces ``(<security>) and (<query>)``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from textsearch import _types
from textsearch._ranges import number_fault, range_bound, utc_text
from textsearch._types import FilterClause, FilterValue, TextSearchFilter
from textsearch.errors import ConfigurationError, InvalidRequestError, UnsupportedFilterError

__all__ = [
    "FIELD_NAME_PATTERN",
    "build_filter",
    "check_balanced",
    "check_field_name",
    "clause_to_odata",
    "combine_filters",
    "odata_literal",
    "search_in",
]

#: One field or a ``/``-separated path into a complex field; at most 128 characters a part.
FIELD_NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}(/[A-Za-z_][A-Za-z0-9_]{0,127})*$")

# Words the OData parser reads as operators or literals; a field may not be spelt like one.
_RESERVED = frozenset(
    {
        "and",
        "or",
        "not",
        "eq",
        "ne",
        "gt",
        "ge",
        "lt",
        "le",
        "any",
        "all",
        "true",
        "false",
        "null",
        "inf",
        "nan",
    }
)

#: Lambda variable used for ``any_tag_equal_to``: ``field/any(t: t eq '...')``.
_LAMBDA_VAR = "t"
#: OData's comparison operators, by the range clause's operator.
_RANGE_OPERATORS = {">": "gt", ">=": "ge", "<": "lt", "<=": "le"}


def odata_literal(value: FilterValue) -> str:
    """Render a plain value as an OData literal.

    ``str`` becomes a single-quoted string with each ``'`` doubled; ``bool`` becomes
    ``true``/``false``; ``None`` becomes ``null``; ``int`` and finite ``float`` become numbers.

    Raises:
        InvalidRequestError: The value is not str, int, float, bool or None, is an int
            outside the 64-bit range, or is a non-finite float (NaN or infinity cannot be
            compared meaningfully).
    """
    if value is None:
        return "null"
    if isinstance(value, bool):  # before int: bool is an int subclass
        return "true" if value else "false"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, (int, float)):
        fault = number_fault(value)
        if fault is not None:
            shown = repr(value) if isinstance(value, float) else f"{len(str(abs(value)))} digits"
            raise InvalidRequestError(
                "an OData filter number must be finite and 64-bit (Edm.Double, Edm.Int64); "
                f"{shown} {fault}"
            )
        return str(value) if isinstance(value, int) else repr(value)
    raise InvalidRequestError(
        f"OData filter values must be str, int, float, bool or None, not {type(value).__name__}"
    )


def check_field_name(name: object, filterable_fields: Collection[str] | None = None) -> str:
    """Return ``name`` if it is a safe OData field name (and a declared filterable field).

    Args:
        name: The field name, or a ``/``-separated path into a complex field.
        filterable_fields: When given, the only names accepted.

    Raises:
        UnsupportedFilterError: The name is not an identifier, is an OData keyword, or is
            not among ``filterable_fields``.
    """
    supported = sorted(filterable_fields) if filterable_fields is not None else []
    if not isinstance(name, str) or not FIELD_NAME_PATTERN.fullmatch(name):
        raise UnsupportedFilterError(
            f"{name!r} is not a valid Azure AI Search field name (letters, digits and "
            "underscores, starting with a letter or underscore; '/' separates sub-fields)",
            field_name=name if isinstance(name, str) else None,
            supported_fields=supported,
        )
    if any(part.lower() in _RESERVED for part in name.split("/")):
        raise UnsupportedFilterError(
            f"{name!r} is an OData keyword and cannot be used as a filter field",
            field_name=name,
            supported_fields=supported,
        )
    if filterable_fields is not None and name not in filterable_fields:
        raise UnsupportedFilterError(
            f"cannot filter on {name!r}; filterable fields: " + (", ".join(supported) or "none"),
            field_name=name,
            supported_fields=supported,
        )
    return name


def clause_to_odata(clause: FilterClause, filterable_fields: Collection[str] | None = None) -> str:
    """Translate one filter clause to OData.

    ``equal_to(f, v)`` becomes ``f eq <literal>``; ``any_tag_equal_to(f, v)`` becomes
    ``f/any(t: t eq <literal>)``; ``not_equal_to(f, v)`` becomes ``f ne <literal>`` (true for
    a document whose field is null, as ``not_equal_to`` says); ``any_of(f, [a, b])`` becomes
    ``(f eq a or f eq b)``; a range becomes ``f gt <literal>`` (``ge``, ``lt``, ``le``), a date
    bound written as an ``Edm.DateTimeOffset`` literal in UTC (``2024-05-01T00:00:00.000000Z``,
    unquoted), which Azure compares with ``Edm.DateTimeOffset`` fields.

    Raises:
        UnsupportedFilterError: The field name is not acceptable.
        InvalidRequestError: The value cannot be written as an OData literal.
    """
    name = check_field_name(clause.field_name, filterable_fields)
    if isinstance(clause, _types.Range):
        kind, bound = range_bound(clause.value)
        literal = utc_text(int(bound)) if kind == "date" else odata_literal(bound)
        return f"{name} {_RANGE_OPERATORS[clause.operator]} {literal}"
    if isinstance(clause, _types.AnyOf):
        return "(" + " or ".join(f"{name} eq {odata_literal(v)}" for v in clause.values) + ")"
    literal = odata_literal(clause.value)
    if isinstance(clause, _types.AnyTagEqualTo):
        return f"{name}/any({_LAMBDA_VAR}: {_LAMBDA_VAR} eq {literal})"
    if isinstance(clause, _types.NotEqualTo):
        return f"{name} ne {literal}"
    assert isinstance(clause, _types.EqualTo)
    return f"{name} eq {literal}"


def build_filter(
    search_filter: TextSearchFilter | None, filterable_fields: Collection[str] | None = None
) -> str | None:
    """Translate a `TextSearchFilter` to an OData expression (clauses AND-ed).

    Returns:
        The expression, or ``None`` for no filter (``None`` or no clauses).

    Raises:
        UnsupportedFilterError: A field name is not acceptable.
        InvalidRequestError: A value cannot be written as an OData literal.
    """
    if not search_filter:
        return None
    return " and ".join(clause_to_odata(c, filterable_fields) for c in search_filter.clauses)


def check_balanced(expression: str) -> str:
    """Return ``expression`` if its parentheses and string literals are balanced.

    String literals are skipped (``''`` inside one is an escaped quote), so a parenthesis
    inside a literal does not count.

    Raises:
        ConfigurationError: A literal is left open, a ``)`` closes nothing, or a ``(`` is
            never closed; such an expression could swallow whatever is AND-ed after it.
    """
    depth = 0
    in_string = False
    i = 0
    n = len(expression)
    while i < n:
        ch = expression[i]
        if in_string:
            if ch == "'":
                if i + 1 < n and expression[i + 1] == "'":
                    i += 1  # escaped quote
                else:
                    in_string = False
        elif ch == "'":
            in_string = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ConfigurationError(
                    f"security filter has a ')' without a matching '(' at position {i}"
                )
        i += 1
    if in_string:
        raise ConfigurationError("security filter leaves a string literal open")
    if depth:
        raise ConfigurationError("security filter leaves a '(' unclosed")
    return expression


def combine_filters(security: str | None, query: str | None) -> str | None:
    """AND a security filter with a query filter, each in its own parentheses.

    Returns ``(<security>) and (<query>)``, ``(<security>)``, ``<query>`` or ``None``.
    The security expression must already have passed `check_balanced`.
    """
    if security is not None and query:
        return f"({security}) and ({query})"
    if security is not None:
        return f"({security})"
    return query or None


def search_in(field: str, values: Iterable[str], *, delimiter: str = ",") -> str:
    """Build ``field/any(a: search.in(a, 'v1,v2', ','))`` for an ACL-style collection field.

    Handy in a ``security_filter`` callable: the values (user and group ids) are escaped and
    checked, so an id can neither close the literal nor smuggle in extra ids.

    Args:
        field: The collection field holding the allowed principals (e.g. ``acl``).
        values: The principals of the current user; at least one.
        delimiter: One character that no value contains.

    Raises:
        ConfigurationError: The field name is not an identifier, there are no values, the
            delimiter is not one safe character, or a value is empty or contains the
            delimiter or whitespace (``search.in`` would split it into several ids).
    """
    try:
        check_field_name(field)
    except UnsupportedFilterError as exc:
        raise ConfigurationError(str(exc)) from None
    if len(delimiter) != 1 or delimiter in "'() " or delimiter.isalnum():
        raise ConfigurationError(
            f"search_in delimiter must be one punctuation character, got {delimiter!r}"
        )
    items = list(values)
    if not items:
        raise ConfigurationError("search_in needs at least one value")
    for item in items:
        if (
            not isinstance(item, str)
            or not item
            or delimiter in item
            or any(c.isspace() for c in item)
        ):
            raise ConfigurationError(
                f"search_in values must be non-empty strings without whitespace or {delimiter!r}"
            )
    joined = odata_literal(delimiter.join(items))
    return f"{field}/any(a: search.in(a, {joined}, {odata_literal(delimiter)}))"
