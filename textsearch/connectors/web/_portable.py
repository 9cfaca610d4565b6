"""The portable web filter vocabulary shared by every web connector (DESIGN §10.3).

A developer (or a model, through a plugin parameter) writes one filter for any web provider:

=============== ============================================ =================================
field           value                                        meaning
=============== ============================================ =================================
``site``        ``"a.com"`` or ``"a.com|b.com"``             only these domains (subdomains in)
``exclude_site`` same                                        none of these domains
``freshness``   ``day|week|month|year`` or ``A..B`` (dates)  published within
``language``    ISO 639-1 (``en``)                           content language
``country``     ISO 3166-1 alpha-2 (``DE``)                  results for that country
``safe_search`` ``off|moderate|strict``                      adult-content filtering
=============== ============================================ =================================

Each connector translates the validated `PortableFilter` into its own wire form. A
field it cannot honour raises `UnsupportedFilterError` before any
request: a filter is never dropped or loosened. Clauses are AND-ed, so two ``site`` clauses
keep only the domains both allow, and two different values of a single-valued field cannot
both hold (an `InvalidRequestError`).

Everything here is I/O-free.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from textsearch._ranges import datetime_of
from textsearch._types import (
    AnyOf,
    AnyTagEqualTo,
    EqualTo,
    FilterClause,
    NotEqualTo,
    Range,
    TextSearchFilter,
)
from textsearch.errors import InvalidRequestError, UnsupportedFilterError

__all__ = [
    "FRESHNESS_WORDS",
    "PORTABLE_FIELDS",
    "SAFE_SEARCH_LEVELS",
    "Freshness",
    "PortableFilter",
    "country_code",
    "fold_ranges",
    "intersect_domains",
    "language_code",
    "parse_domains",
    "parse_freshness",
    "safe_search_level",
    "site_operators",
    "split_filter",
    "unsupported_field",
    "url_allowed",
]

SITE: Final = "site"
EXCLUDE_SITE: Final = "exclude_site"
FRESHNESS: Final = "freshness"
LANGUAGE: Final = "language"
COUNTRY: Final = "country"
SAFE_SEARCH: Final = "safe_search"
#: The portable field names, in the order of DESIGN §10.3.
PORTABLE_FIELDS: Final = (SITE, EXCLUDE_SITE, FRESHNESS, LANGUAGE, COUNTRY, SAFE_SEARCH)
FRESHNESS_WORDS: Final = ("day", "week", "month", "year")
SAFE_SEARCH_LEVELS: Final = ("off", "moderate", "strict")
#: How far back each relative freshness word reaches, for providers that only take dates.
FRESHNESS_DAYS: Final = {"day": 1, "week": 7, "month": 31, "year": 365}

_DATE: Final = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_LABEL: Final = r"[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?"
_DOMAIN: Final = re.compile(rf"^{_LABEL}(?:\.{_LABEL})*$")
_TWO_LETTERS: Final = re.compile(r"[A-Za-z]{2}")  # ASCII only, case already folded

Word = Literal["day", "week", "month", "year"]


@dataclass(frozen=True)
class Freshness:
    """A validated ``freshness``: a relative word, or an inclusive date range."""

    word: Word | None = None
    """``day``, ``week``, ``month`` or ``year``; ``None`` for a date range."""
    start: date | None = None
    """First day of the range (with ``word``: today minus its span, for date-only APIs)."""
    end: date | None = None
    """Last day of the range (inclusive)."""

    def dates(self, today: date | None = None) -> tuple[date, date]:
        """The range as dates; a relative word counts back from ``today``."""
        if self.word is None:
            assert self.start is not None and self.end is not None
            return self.start, self.end
        today = today or date.today()
        return today - timedelta(days=FRESHNESS_DAYS[self.word]), today


@dataclass(frozen=True)
class PortableFilter:
    """The portable clauses of a filter, validated and combined (clauses AND-ed)."""

    site: tuple[str, ...] | None = None
    """Only these domains (``None``: no restriction)."""
    exclude_site: tuple[str, ...] = ()
    """None of these domains."""
    freshness: Freshness | None = None
    language: str | None = None
    """ISO 639-1 code, lower case."""
    country: str | None = None
    """ISO 3166-1 alpha-2 code, upper case."""
    safe_search: str | None = None
    """``off``, ``moderate`` or ``strict``."""
    used: frozenset[str] = field(default=frozenset())
    """The portable field names present in the filter."""


def unsupported_field(
    owner: str, name: str, supported: Iterable[str], how: str = ""
) -> UnsupportedFilterError:
    """The error for a clause on ``name`` that ``owner`` cannot honour (``how``: with what
    clause, e.g. ``"with any_tag_equal_to "``), listing the ``supported`` field names."""
    names = sorted(supported)
    return UnsupportedFilterError(
        f"{owner} cannot filter {how}on {name!r}; supported filter fields (equal_to): "
        + (", ".join(names) or "none"),
        field_name=name,
        supported_fields=names,
    )


def _plain_letters(domain: str) -> bool:
    """Non-ASCII characters of a domain are letters, marks or digits only.

    Look-alike separators (a full-width bar or ampersand, zero-width or no-break spaces)
    would otherwise pass as part of one "domain" and reach a search engine that may read
    them as an OR, widening a preset ``site``.
    """
    return all(ch.isascii() or unicodedata.category(ch)[0] in ("L", "M", "N") for ch in domain)


def parse_domains(name: str, value: object, owner: str = "filter") -> tuple[str, ...]:
    """``"a.com"`` or ``"a.com|b.com"`` as lower-case domains (a scheme or path is refused).

    Raises:
        InvalidRequestError: Not a string of domain names.
    """
    if not isinstance(value, str) or not value.strip():
        raise InvalidRequestError(f"{owner}: filter {name!r} needs a domain such as 'a.com'")
    result: list[str] = []
    for part in value.split("|"):
        domain = part.strip().lower().rstrip(".")
        if domain.startswith(("http://", "https://")):
            domain = domain.split("://", 1)[1].rstrip("/")
        if not domain:
            continue
        if (
            not _DOMAIN.fullmatch(domain)
            or ("." not in domain and not domain.isalnum())
            or not _plain_letters(domain)
        ):
            raise InvalidRequestError(
                f"{owner}: filter {name!r}: {part.strip()!r} is not a domain name "
                "(write 'a.com' or 'a.com|b.com')"
            )
        if domain not in result:
            result.append(domain)
    if not result:
        raise InvalidRequestError(f"{owner}: filter {name!r} needs a domain such as 'a.com'")
    return tuple(result)


def _within(domain: str, parent: str) -> bool:
    return domain == parent or domain.endswith("." + parent)


def intersect_domains(first: Iterable[str], second: Iterable[str]) -> tuple[str, ...]:
    """Domains allowed by both lists (a subdomain of an allowed domain is allowed)."""
    result: list[str] = []
    others = tuple(second)
    for a in first:
        for b in others:
            narrower = a if _within(a, b) else b if _within(b, a) else None
            if narrower is not None and narrower not in result:
                result.append(narrower)
    return tuple(result)


def parse_freshness(value: object, owner: str = "filter") -> Freshness:
    """``day|week|month|year`` or ``YYYY-MM-DD..YYYY-MM-DD`` (start <= end).

    Raises:
        InvalidRequestError: Anything else.
    """
    text = value.strip() if isinstance(value, str) else ""
    word = text.lower()
    if word in FRESHNESS_WORDS:
        return Freshness(word=word)  # type: ignore[arg-type]
    parts = text.split("..")
    if len(parts) == 2 and all(_DATE.match(p) for p in parts):
        try:
            start, end = date.fromisoformat(parts[0]), date.fromisoformat(parts[1])
        except ValueError:
            pass
        else:
            if start <= end:
                return Freshness(start=start, end=end)
    raise InvalidRequestError(
        f"{owner}: filter 'freshness' must be day, week, month, year or "
        f"YYYY-MM-DD..YYYY-MM-DD (start <= end), not {value!r}"
    )


def is_date_range(text: str) -> bool:
    """Whether ``text`` is ``YYYY-MM-DD`` or ``YYYY-MM-DD..YYYY-MM-DD`` with start <= end."""
    parts = text.split("..")
    if not 1 <= len(parts) <= 2 or not all(_DATE.fullmatch(p) for p in parts):
        return False
    try:
        days = [date.fromisoformat(p) for p in parts]
    except ValueError:
        return False
    return days[0] <= days[-1]


def _two_letters(value: object, owner: str, field: str, standard: str, example: str) -> str:
    """A two-letter code in the case of ``example``, or an `InvalidRequestError`."""
    text = value.strip() if isinstance(value, str) else ""
    text = text.upper() if example.isupper() else text.lower()
    if not _TWO_LETTERS.fullmatch(text):
        raise InvalidRequestError(
            f"{owner}: filter '{field}' must be a two-letter {standard} code such as "
            f"'{example}', not {value!r}"
        )
    return text


def language_code(value: object, owner: str) -> str:
    return _two_letters(value, owner, "language", "ISO 639-1", "en")


def country_code(value: object, owner: str) -> str:
    return _two_letters(value, owner, "country", "ISO 3166-1", "DE")


def safe_search_level(value: object, owner: str) -> str:
    text = value.strip().lower() if isinstance(value, str) else ""
    if text not in SAFE_SEARCH_LEVELS:
        raise InvalidRequestError(
            f"{owner}: filter 'safe_search' must be off, moderate or strict, not {value!r}"
        )
    return text


#: The portable part of no filter (frozen: one for all).
_NO_PORTABLE: Final = PortableFilter()


#: The first day of an open-ended date range (no page on the web is older).
EARLIEST_DAY: Final = date(1970, 1, 1)


def fold_ranges(search_filter: TextSearchFilter | None, owner: str) -> TextSearchFilter | None:
    """The filter in the equality vocabulary web providers take natively.

    * date bounds on ``freshness`` (``greater_than_or_equal("freshness", "2024-01-01")``...)
      become one ``freshness`` date range ``A..B`` (whole days, UTC: ``greater_than`` a day
      starts the next day, ``less_than`` ends the day before; an open end is today, an open
      start 1970-01-01); several bounds, and a ``freshness`` date range beside them,
      intersect (a freshness word beside a bound is two values: refused);
    * ``any_of("site", [a, b])`` becomes ``site`` ``a|b``, ``not_equal_to("site", a)``
      becomes ``exclude_site`` ``a`` (its subdomains too, the complement of ``site``).

    Raises:
        UnsupportedFilterError: Any other range, ``any_of`` or ``not_equal_to``; a bound with
            a time of day (providers filter by whole days).
        InvalidRequestError: Bounds that no day satisfies.
    """
    if not search_filter or all(
        isinstance(c, (EqualTo, AnyTagEqualTo)) for c in search_filter.clauses
    ):
        return search_filter
    kept: list[FilterClause] = []
    start: date | None = None
    end: date | None = None
    bounded = any(isinstance(c, Range) for c in search_filter.clauses)
    for clause in search_filter.clauses:
        name = clause.field_name
        value = clause.value if isinstance(clause, EqualTo) else None
        if bounded and name == FRESHNESS and isinstance(value, str) and is_date_range(value):
            # a freshness date range beside date bounds: one range, the intersection
            days = [date.fromisoformat(p) for p in value.split("..")]
            start = days[0] if start is None else max(start, days[0])
            end = days[-1] if end is None else min(end, days[-1])
        elif isinstance(clause, Range):
            day = _whole_day(clause, owner)
            if clause.kind.startswith("greater"):
                first = day + timedelta(days=1) if clause.kind == "greater_than" else day
                start = first if start is None else max(start, first)
            else:
                last = day - timedelta(days=1) if clause.kind == "less_than" else day
                end = last if end is None else min(end, last)
        elif isinstance(clause, AnyOf) and name == SITE:
            if not all(isinstance(v, str) for v in clause.values):
                raise InvalidRequestError(f"{owner}: any_of('site', ...) takes domain names")
            kept.append(EqualTo(field_name=SITE, value="|".join(map(str, clause.values))))
        elif isinstance(clause, NotEqualTo) and name == SITE:
            kept.append(EqualTo(field_name=EXCLUDE_SITE, value=clause.value))
        elif isinstance(clause, (AnyOf, NotEqualTo)):
            raise UnsupportedFilterError(
                f"{owner} cannot filter on {name!r} with {clause.kind}: a web provider takes "
                "any_of and not_equal_to only on 'site' (as site a|b and exclude_site)",
                field_name=name,
                supported_fields=[SITE],
            )
        else:
            kept.append(clause)
    if start is not None or end is not None:
        first, last = start or EARLIEST_DAY, end or date.today()
        if first > last:
            raise InvalidRequestError(
                f"{owner}: the date bounds on 'freshness' leave no day ({first} > {last}); "
                "clauses are AND-ed, so no page could match"
            )
        kept.append(EqualTo(field_name=FRESHNESS, value=f"{first}..{last}"))
    return TextSearchFilter(kept)


def _whole_day(clause: Range, owner: str) -> date:
    moment = datetime_of(clause.value) if isinstance(clause.value, str) else None
    if clause.field_name != FRESHNESS or moment is None:
        raise UnsupportedFilterError(
            f"{owner} cannot filter on {clause.field_name!r} with {clause.kind}: a web provider "
            "compares only dates, on 'freshness' (greater_than_or_equal('freshness', "
            "'2024-01-01'))",
            field_name=clause.field_name,
            supported_fields=[FRESHNESS],
        )
    if (moment.hour, moment.minute, moment.second, moment.microsecond) != (0, 0, 0, 0):
        raise UnsupportedFilterError(
            f"{owner} filters 'freshness' by whole days (UTC): {clause.value!r} has a time "
            "of day; give a date (YYYY-MM-DD)",
            field_name=FRESHNESS,
            supported_fields=[FRESHNESS],
        )
    return moment.date()


def split_filter(
    search_filter: TextSearchFilter | None,
    owner: str,
    portable: Collection[str],
    native: Collection[str] = (),
) -> tuple[PortableFilter, list[FilterClause]]:
    """Validate the portable clauses and return them with the connector's native ones.

    Args:
        search_filter: The filter of the search (``None`` or empty: nothing to do).
        owner: The connector's class name, for messages.
        portable: The portable fields this connector can honour.
        native: Its own field names (checked by the connector itself, case as written).

    Raises:
        UnsupportedFilterError: A field outside ``portable`` and ``native``, or
            ``any_tag_equal_to`` on any field.
        InvalidRequestError: A bad value, two different values of a single-valued field,
            or ``site`` clauses with no domain in common.
    """
    search_filter = fold_ranges(search_filter, owner)
    if not search_filter:
        return _NO_PORTABLE, []
    supported = set(portable) | set(native)
    site: tuple[str, ...] | None = None
    exclude: list[str] = []
    single: dict[str, object] = {}
    used: set[str] = set()
    rest: list[FilterClause] = []
    for clause in search_filter.clauses:
        name = clause.field_name
        if isinstance(clause, AnyTagEqualTo):
            raise unsupported_field(owner, name, supported, "with any_tag_equal_to ")
        if name not in portable:
            if name in native:
                rest.append(clause)
                continue
            raise unsupported_field(owner, name, supported)
        used.add(name)
        assert isinstance(clause, EqualTo)  # fold_ranges leaves equalities only
        value = clause.value
        if name == SITE:
            domains = parse_domains(name, value, owner)
            site = domains if site is None else intersect_domains(site, domains)
            if not site:
                raise InvalidRequestError(
                    f"{owner}: the 'site' filters have no domain in common; clauses are AND-ed, "
                    "so no page could match"
                )
            continue
        if name == EXCLUDE_SITE:
            exclude.extend(d for d in parse_domains(name, value, owner) if d not in exclude)
            continue
        parsed: object
        if name == FRESHNESS:
            parsed = parse_freshness(value, owner)
        elif name == LANGUAGE:
            parsed = language_code(value, owner)
        elif name == COUNTRY:
            parsed = country_code(value, owner)
        else:
            parsed = safe_search_level(value, owner)
        previous = single.get(name)
        if previous is not None and previous != parsed:
            raise InvalidRequestError(
                f"{owner}: filter {name!r} is given twice with different values; clauses are "
                "AND-ed, so both cannot hold"
            )
        single[name] = parsed
    if site is not None:
        blocked = [d for d in site if any(_within(d, x) for x in exclude)]
        if len(blocked) == len(site):
            raise InvalidRequestError(
                f"{owner}: every domain of 'site' is also in 'exclude_site', so no page could match"
            )
    freshness = single.get(FRESHNESS)
    return (
        PortableFilter(
            site=site,
            exclude_site=tuple(exclude),
            freshness=freshness if isinstance(freshness, Freshness) else None,
            language=_as_str(single.get(LANGUAGE)),
            country=_as_str(single.get(COUNTRY)),
            safe_search=_as_str(single.get(SAFE_SEARCH)),
            used=frozenset(used),
        ),
        rest,
    )


def _as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def site_operators(site: tuple[str, ...] | None, exclude: tuple[str, ...]) -> str:
    """The ``site:``/``-site:`` terms for engines that read operators from the query.

    Several allowed domains are OR-ed in parentheses, so that ``site:a.com site:b.com``
    cannot be read as an AND (which nothing matches).
    """
    terms: list[str] = []
    if site:
        if len(site) == 1:
            terms.append(f"site:{site[0]}")
        else:
            terms.append("(" + " OR ".join(f"site:{d}" for d in site) + ")")
    terms.extend(f"-site:{d}" for d in exclude)
    return " ".join(terms)


def url_allowed(url: str | None, site: tuple[str, ...] | None, exclude: tuple[str, ...]) -> bool:
    """Whether a result's URL satisfies ``site``/``exclude_site`` (subdomains included).

    For engines that read ``site:`` from the query and may ignore it (a metasearch engine
    forwards it to engines that do not all understand it): checking each URL keeps the
    filter from being loosened. A URL whose host cannot be read passes neither restriction.
    """
    if not site and not exclude:
        return True
    try:
        host = urlsplit(url or "").hostname
    except ValueError:
        host = None
    if not host:
        return False
    host = _ascii_host(host.rstrip("."))
    if site and not any(_within(host, _ascii_host(d)) for d in site):
        return False
    return not any(_within(host, _ascii_host(d)) for d in exclude)


def _ascii_host(name: str) -> str:
    # A filter may name 'bücher.de' while result URLs carry 'xn--bcher-kva.de': compare both
    # in their ASCII (IDNA) form.
    if name.isascii():
        return name
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError:
        return name


def domain_lists(portable: PortableFilter, include: str, exclude: str) -> dict[str, Any]:
    """``site`` and ``exclude_site`` as two lists of domains under the provider's names."""
    body: dict[str, Any] = {}
    if portable.site:
        body[include] = list(portable.site)
    if portable.exclude_site:
        body[exclude] = list(portable.exclude_site)
    return body
