"""Model-facing parameters: one description, from which validation and every schema derive.

A list of `SearchParameter` is compiled once, at function creation, into a
`ParameterSpec`: a pydantic model (the single source of the JSON schemas and of argument
validation) plus the rules that turn validated arguments into fresh search options.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model
from pydantic_core import PydanticUndefined

from textsearch._types import MAX_SKIP, SearchOptions, TextSearchFilter
from textsearch.errors import ConfigurationError, InvalidRequestError

__all__ = [
    "OutOfBounds",
    "ParameterSpec",
    "SearchParameter",
    "default_parameters",
    "web_filter_parameters",
]

#: What happens to a ``top``/``skip`` outside its bounds: brought within them (and the
#: model told so in the result), or refused with a message.
OutOfBounds = Literal["clamp", "reject"]

#: Names of parameters that drive the search itself rather than a filter clause.
QUERY, TOP, SKIP = "query", "top", "skip"
_RESERVED = (QUERY, TOP, SKIP)

# A parameter name becomes a JSON property name; identifiers work with every provider.
_PARAMETER_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
_FIELD_NAME = re.compile(r"^[^\x00-\x1f]{1,256}$")
_JSON_TYPES: dict[type[Any], str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
}

#: The clauses a parameter's value may make (the TextSearchFilter builder of that name).
_OPERATORS = (
    "equal_to",
    "not_equal_to",
    "greater_than",
    "greater_than_or_equal",
    "less_than",
    "less_than_or_equal",
)

_QUERY_DESCRIPTION = "What to search for: keywords or a short question."
_TOP_DESCRIPTION = "How many results to return."
_SKIP_DESCRIPTION = "How many results to skip first, to page through results."


def _type_name(value: object) -> str:
    return type(value).__name__


def _is_instance_of(value: object, kind: type[Any]) -> bool:
    """Like isinstance, but bool is not a number and an int is an acceptable float."""
    if kind is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


@dataclass(frozen=True)
class SearchParameter:
    """Metadata of one model-facing parameter of a search function.

    The parameters ``query``, ``top`` and ``skip`` drive the search; any other parameter
    must name a ``filter_field``: the model's value becomes an
    ``equal_to(filter_field, value)`` clause (or the clause ``operator`` names, such as
    ``greater_than_or_equal`` for a "from" date or a minimum), AND-ed with the developer's
    preset filter (so it can only narrow the search, never widen it: a preset range stays,
    and the model's bound on the same field is one more condition).

    Args:
        name: Property name shown to the model: a letter, then letters, digits or ``_``
            (at most 64 characters).
        description: What the model should put there.
        type: ``str``, ``int``, ``float`` or ``bool``.
        required: The model must always send a value. ``query`` is always required.
        default: Value used when the model sends none (shown in the schema). Not allowed
            together with ``required``. The default of ``top`` is the ``top=`` argument of
            `create_search_function`.
        filter_field: Filter field the value is compared with (``equal_to``).
        operator: The clause the value makes: ``equal_to`` (the default),
            ``not_equal_to``, ``greater_than``, ``greater_than_or_equal``, ``less_than`` or
            ``less_than_or_equal``. A range takes an ``int``/``float`` parameter, or a
            ``str`` one for ISO-8601 dates (a value that is no date is refused).
        choices: The only values the model may send (an ``enum`` in the schema).
        ge: Smallest accepted value (numbers only).
        le: Largest accepted value (numbers only).

    Raises:
        ConfigurationError: The metadata is inconsistent (bad name, unsupported type,
            default outside the choices or bounds, bounds on a string...).
    """

    name: str
    description: str
    type: type[Any] = str
    required: bool = False
    default: Any = None
    filter_field: str | None = None
    choices: Sequence[Any] | None = None
    ge: float | None = None
    le: float | None = None
    operator: str = "equal_to"

    def __post_init__(self) -> None:
        name = self.name
        if not isinstance(name, str) or not _PARAMETER_NAME.fullmatch(name):
            raise ConfigurationError(
                f"parameter name {name!r} is not valid: use a letter followed by letters, digits "
                "or '_' (at most 64 characters)"
            )
        if not isinstance(self.description, str) or not self.description.strip():
            raise ConfigurationError(f"parameter {name!r} needs a non-empty description")
        if self.type not in _JSON_TYPES:
            raise ConfigurationError(
                f"parameter {name!r}: type must be str, int, float or bool, not {self.type!r}"
            )
        if self.required and self.default is not None:
            raise ConfigurationError(
                f"parameter {name!r} cannot be both required and have a default"
            )
        if self.default is not None and not _is_instance_of(self.default, self.type):
            raise ConfigurationError(
                f"parameter {name!r}: default {self.default!r} is not a {self.type.__name__}"
            )
        if self.filter_field is not None and (
            not isinstance(self.filter_field, str) or not _FIELD_NAME.fullmatch(self.filter_field)
        ):
            raise ConfigurationError(
                f"parameter {name!r}: filter_field must be a non-empty field name, "
                f"got {self.filter_field!r}"
            )
        if self.operator not in _OPERATORS:
            raise ConfigurationError(
                f"parameter {name!r}: operator must be one of {', '.join(_OPERATORS)}, "
                f"not {self.operator!r}"
            )
        if self.operator != "equal_to" and self.filter_field is None:
            raise ConfigurationError(f"parameter {name!r}: operator needs a filter_field")
        if self.operator not in ("equal_to", "not_equal_to") and self.type is bool:
            raise ConfigurationError(
                f"parameter {name!r}: {self.operator} compares numbers or ISO-8601 dates; "
                "make the parameter an int, float or str"
            )
        self._check_choices()
        self._check_bounds()

    def _check_choices(self) -> None:
        if self.choices is None:
            return
        if isinstance(self.choices, (str, bytes)) or not isinstance(self.choices, Sequence):
            raise ConfigurationError(
                f"parameter {self.name!r}: choices must be a list of values, not "
                f"{_type_name(self.choices)}"
            )
        choices = tuple(self.choices)
        if not choices:
            raise ConfigurationError(f"parameter {self.name!r}: choices must not be empty")
        for choice in choices:
            if not _is_instance_of(choice, self.type):
                raise ConfigurationError(
                    f"parameter {self.name!r}: choice {choice!r} is not a {self.type.__name__}"
                )
        if len(set(choices)) != len(choices):
            raise ConfigurationError(f"parameter {self.name!r}: choices must be distinct")
        if self.default is not None and self.default not in choices:
            raise ConfigurationError(
                f"parameter {self.name!r}: default {self.default!r} is not one of the choices"
            )
        object.__setattr__(self, "choices", choices)

    def _check_bounds(self) -> None:
        if self.ge is None and self.le is None:
            return
        if self.type not in (int, float):
            raise ConfigurationError(
                f"parameter {self.name!r}: ge/le apply to int and float parameters only"
            )
        for bound in (self.ge, self.le):
            if bound is not None and (
                not _is_instance_of(bound, float) or not math.isfinite(bound)
            ):
                raise ConfigurationError(
                    f"parameter {self.name!r}: bounds must be finite numbers, got {bound!r}"
                )
        if self.ge is not None and self.le is not None and self.ge > self.le:
            raise ConfigurationError(f"parameter {self.name!r}: ge={self.ge} is above le={self.le}")
        if self.default is not None:
            if self.ge is not None and self.default < self.ge:
                raise ConfigurationError(
                    f"parameter {self.name!r}: default {self.default} is below ge={self.ge}"
                )
            if self.le is not None and self.default > self.le:
                raise ConfigurationError(
                    f"parameter {self.name!r}: default {self.default} is above le={self.le}"
                )


def default_parameters() -> list[SearchParameter]:
    """The default model-facing parameters: ``query``, ``top`` and ``skip``.

    Their defaults and bounds are filled in by the function they belong to (``top`` from
    its ``top=``/``max_top=`` arguments), so they are written in one place only.
    """
    return [
        SearchParameter(QUERY, _QUERY_DESCRIPTION, required=True),
        SearchParameter(TOP, _TOP_DESCRIPTION, type=int),
        SearchParameter(SKIP, _SKIP_DESCRIPTION, type=int),
    ]


#: What the model is told about each portable web filter field (DESIGN 10.3).
_WEB_FILTER_DESCRIPTIONS: dict[str, str] = {
    "site": "Only results from this domain, e.g. 'python.org'; several as 'a.com|b.com'.",
    "exclude_site": "No results from this domain, e.g. 'pinterest.com'; several as 'a.com|b.com'.",
    "freshness": (
        "Only pages published within: day, week, month or year, or a date range "
        "YYYY-MM-DD..YYYY-MM-DD."
    ),
    "language": "Language of the pages as a two-letter ISO 639-1 code, e.g. 'en'.",
    "country": "Country the results are for, as a two-letter ISO 3166-1 code, e.g. 'DE'.",
    "safe_search": "Adult-content filtering.",
}
_WEB_FILTER_CHOICES: dict[str, tuple[str, ...]] = {"safe_search": ("off", "moderate", "strict")}


def web_filter_parameters(
    text_search: object, fields: Sequence[str] | None = None
) -> list[SearchParameter]:
    """The portable web filter fields a connector honours, as optional model parameters.

    Only fields the connector lists in its ``supported_filter_fields`` are returned, so a
    model is never offered a filter the connector would refuse; a connector that lists none
    (the local index, Azure AI Search) gets an empty list. Each value the model sends is
    AND-ed after any preset filter, so it can only narrow the search::

        parameters = [*default_parameters(), *web_filter_parameters(brave)]
        function = create_search_function(brave, parameters=parameters)

    Args:
        text_search: The connector the parameters are for.
        fields: Keep only these portable fields (default: every supported one).

    Raises:
        ConfigurationError: ``fields`` names something that is not a portable field.
    """
    from textsearch.registry import PORTABLE_FILTER_FIELDS as PORTABLE_FIELDS

    if fields is not None:
        if isinstance(fields, str) or not isinstance(fields, Sequence):
            raise ConfigurationError("fields must be a list of portable filter field names")
        unknown = [f for f in fields if f not in PORTABLE_FIELDS]
        if unknown:
            raise ConfigurationError(
                f"not portable filter fields: {', '.join(map(repr, unknown))}; choose from "
                + ", ".join(PORTABLE_FIELDS)
            )
    supported = getattr(text_search, "supported_filter_fields", None)
    if not isinstance(supported, (set, frozenset)):
        return []
    return [
        SearchParameter(
            name,
            _WEB_FILTER_DESCRIPTIONS[name],
            filter_field=name,
            choices=_WEB_FILTER_CHOICES.get(name),
        )
        for name in PORTABLE_FIELDS
        if name in supported and (fields is None or name in fields)
    ]


@dataclass(frozen=True)
class ParsedArguments:
    """Validated arguments of one call, turned into what the search needs."""

    query: str
    options: SearchOptions
    ignored: tuple[str, ...] = field(default=())
    notes: tuple[str, ...] = field(default=())


def _complete_reserved(param: SearchParameter, *, top: int, max_top: int) -> SearchParameter:
    """Check a query/top/skip parameter and fill in its defaults and bounds."""
    if param.filter_field is not None:
        raise ConfigurationError(
            f"parameter {param.name!r} drives the search and cannot have a filter_field; "
            "give the filter parameter another name"
        )
    if param.choices is not None:
        raise ConfigurationError(f"parameter {param.name!r} cannot have choices")
    if param.name == QUERY:
        if param.type is not str or param.default is not None:
            raise ConfigurationError(
                "parameter 'query' must be a str without a default (it is always required)"
            )
        return SearchParameter(QUERY, param.description, required=True)
    if param.type is not int:
        raise ConfigurationError(f"parameter {param.name!r} must have type=int")
    if param.name == TOP:
        if param.required:
            raise ConfigurationError(
                "parameter 'top' cannot be required: its default is the top= argument"
            )
        if param.default is not None and param.default != top:
            raise ConfigurationError(
                f"conflicting defaults for 'top': the parameter says {param.default}, "
                f"top={top}; set the default with top= only"
            )
        ge = 1 if param.ge is None else param.ge
        le = max_top if param.le is None else param.le
        if ge < 1 or le > max_top:
            raise ConfigurationError(
                f"parameter 'top' must stay within 1..max_top ({max_top}), got ge={ge}, le={le}"
            )
        if not ge <= top <= le:
            raise ConfigurationError(f"top={top} is outside the parameter's bounds {ge}..{le}")
        return SearchParameter(
            TOP, param.description, type=int, default=top, ge=int(ge), le=int(le)
        )
    # skip
    if param.required:
        raise ConfigurationError("parameter 'skip' cannot be required")
    ge = 0 if param.ge is None else param.ge
    if ge < 0:
        raise ConfigurationError("parameter 'skip' cannot go below 0")
    default = param.default if param.default is not None else int(ge)
    skip_le = MAX_SKIP if param.le is None else int(param.le)
    if skip_le > MAX_SKIP or skip_le < ge:
        raise ConfigurationError(
            f"parameter 'skip' must stay within 0..{MAX_SKIP} (SearchOptions.MAX_SKIP), "
            f"got ge={ge}, le={skip_le}"
        )
    if not ge <= default <= skip_le:
        raise ConfigurationError(f"skip default {default} is outside its bounds {ge}..{skip_le}")
    return SearchParameter(
        SKIP, param.description, type=int, default=default, ge=int(ge), le=skip_le
    )


class ParameterSpec:
    """The compiled parameters of one search function.

    Args:
        parameters: The model-facing parameters (must include ``query``).
        top: Default ``top`` (and the fixed ``top`` when no ``top`` parameter is listed).
        max_top: Largest ``top`` the model may ask for.

    Raises:
        ConfigurationError: Duplicate or missing parameters, a parameter that shadows
            ``query``/``top``/``skip``, a parameter that does nothing, bad bounds.
    """

    def __init__(
        self,
        parameters: Sequence[SearchParameter],
        *,
        top: int,
        max_top: int,
        out_of_bounds: OutOfBounds = "clamp",
    ) -> None:
        if out_of_bounds not in ("clamp", "reject"):
            raise ConfigurationError(
                f"out_of_bounds must be 'clamp' or 'reject', got {out_of_bounds!r}"
            )
        self.out_of_bounds: OutOfBounds = out_of_bounds
        if isinstance(parameters, (str, bytes, Mapping)) or not isinstance(parameters, Sequence):
            raise ConfigurationError("parameters must be a list of SearchParameter")
        completed: list[SearchParameter] = []
        seen: set[str] = set()
        for param in parameters:
            if not isinstance(param, SearchParameter):
                raise ConfigurationError(
                    f"parameters must be SearchParameter objects, not {_type_name(param)}"
                )
            if param.name in seen:
                raise ConfigurationError(f"parameter {param.name!r} is listed twice")
            seen.add(param.name)
            if param.name in _RESERVED:
                completed.append(_complete_reserved(param, top=top, max_top=max_top))
            elif param.filter_field is None:
                raise ConfigurationError(
                    f"parameter {param.name!r} has no filter_field, so the model's value would "
                    "be ignored; set filter_field or remove the parameter"
                )
            else:
                completed.append(param)
        if QUERY not in seen:
            raise ConfigurationError("parameters must include 'query'")
        self.parameters: tuple[SearchParameter, ...] = tuple(completed)
        self.fixed_top = top
        self._by_name = {p.name: p for p in self.parameters}
        self.model = self._build_model()
        self._schema = self._build_schema()

    # -- the one model ----------------------------------------------------------------

    def _build_model(self) -> type[BaseModel]:
        fields: dict[str, Any] = {}
        for index, param in enumerate(self.parameters):
            annotation: Any = param.type
            if param.choices is not None:
                annotation = Literal.__getitem__(tuple(param.choices))
            constraints: dict[str, Any] = {}
            if param.ge is not None:
                constraints["ge"] = param.ge
            if param.le is not None:
                constraints["le"] = param.le
            default = PydanticUndefined if param.required else param.default
            # Internal field names (the parameter name is the alias) so that no parameter
            # name can clash with a pydantic attribute such as "json" or "schema".
            fields[f"p{index}"] = (
                annotation,
                Field(default, alias=param.name, description=param.description, **constraints),
            )
        model: type[BaseModel] = create_model(
            "SearchArguments",
            __config__=ConfigDict(extra="ignore", validate_by_name=False, allow_inf_nan=False),
            **fields,
        )
        return model

    def _build_schema(self) -> dict[str, Any]:
        raw = self.model.model_json_schema(by_alias=True)
        properties: dict[str, Any] = {}
        for name, prop in raw.get("properties", {}).items():
            clean = {k: v for k, v in prop.items() if k != "title"}
            if clean.get("default", 0) is None:
                # "no value" is expressed by leaving the property out, not by a null default
                del clean["default"]
            properties[name] = clean
        return {
            "type": "object",
            "properties": properties,
            "required": list(raw.get("required", [])),
            "additionalProperties": False,
        }

    def json_schema(self) -> dict[str, Any]:
        """The parameters as a JSON schema (``anyOf``-free; optional ones are left out)."""
        return copy.deepcopy(self._schema)

    def strict_json_schema(self) -> dict[str, Any]:
        """The schema in OpenAI strict form: every property required, optional ones nullable."""
        schema = self.json_schema()
        required = set(schema["required"])
        for name, prop in schema["properties"].items():
            if name in required:
                continue
            prop["type"] = [prop["type"], "null"]
            if "enum" in prop:
                prop["enum"] = [*prop["enum"], None]
            default = prop.pop("default", None)
            hint = (
                f"null means the default, {json.dumps(default)}."
                if default is not None
                else "null means none."
            )
            prop["description"] = f"{prop['description'].rstrip()} ({hint})"
        schema["required"] = list(schema["properties"])
        return schema

    # -- one call -----------------------------------------------------------------------

    def _known(self, arguments: Mapping[str, Any] | str | bytes | None) -> dict[str, Any]:
        """The arguments as an object whose every name is a parameter.

        Raises:
            InvalidRequestError: Not a JSON object, or a name that is not a parameter.
        """
        data = _as_object(arguments)
        unknown = [k for k in data if k not in self._by_name]
        if unknown:
            # An argument the schema does not have (a typo, a guessed "filter") would
            # otherwise change nothing while the model believes it did.
            raise InvalidRequestError(
                f"unknown argument{'s' if len(unknown) > 1 else ''} "
                f"{_names(unknown)}; the parameters are {', '.join(self._by_name)}"
            )
        return data

    def _validated(self, prepared: dict[str, Any]) -> dict[str, Any]:
        """The arguments through the parameters' model, by their wire names.

        Raises:
            InvalidRequestError: A missing or ill-typed value (the model's words, shortened).
        """
        try:
            validated = self.model.model_validate(prepared)
        except ValidationError as exc:
            raise InvalidRequestError(_describe(exc)) from None
        return validated.model_dump(by_alias=True)

    def parse(
        self, arguments: Mapping[str, Any] | str | bytes | None, preset: TextSearchFilter | None
    ) -> ParsedArguments:
        """Validate one call's arguments and build fresh options for it.

        The preset filter is copied and the model's filter clauses are AND-ed after it;
        nothing of one call is kept for the next.

        ``top`` and ``skip`` outside their bounds are clamped, with a note saying so in
        `ParsedArguments.notes`, or rejected (``out_of_bounds="reject"``).

        Raises:
            InvalidRequestError: The arguments are not a JSON object, an argument is not a
                parameter, a required one is missing, or a value has the wrong type or is
                outside its choices/bounds.
        """
        data = self._known(arguments)
        prepared: dict[str, Any] = {}
        notes: list[str] = []
        for name, value in data.items():
            param = self._by_name[name]
            if value is None and not param.required:
                continue  # null means "use the default"
            if param.type in (int, float) and isinstance(value, bool):
                raise InvalidRequestError(f"{name}: must be a number, not true/false")
            if name in (TOP, SKIP) and self.out_of_bounds == "clamp":
                clamped = _clamp(value, param)
                if clamped != value and not (
                    isinstance(value, (int, float, str)) and _same_number(value, clamped)
                ):
                    bound = "maximum" if param.le is not None and clamped == param.le else "minimum"
                    notes.append(
                        f"{name}={_shown(value)} is outside the {bound} of {clamped}; "
                        f"used {name}={clamped}."
                    )
                value = clamped
            prepared[name] = value
        values = self._validated(prepared)
        query = values[QUERY]
        if not query.strip():
            raise InvalidRequestError("query: must not be empty")
        top = values.get(TOP, self.fixed_top)
        skip = values.get(SKIP, 0)
        model_filter = TextSearchFilter()
        for param in self.parameters:
            value = values.get(param.name)
            if param.filter_field is not None and value is not None:
                try:
                    getattr(model_filter, param.operator)(param.filter_field, value)
                except InvalidRequestError as exc:  # a "from" date that is no date...
                    raise InvalidRequestError(f"{param.name}: {exc}") from None
        if preset is not None:
            combined: TextSearchFilter | None = preset.and_(model_filter)
        else:
            combined = model_filter or None
        return ParsedArguments(
            query, SearchOptions(top=top, skip=skip, filter=combined), notes=tuple(notes)
        )


def _as_object(arguments: Mapping[str, Any] | str | bytes | None) -> dict[str, Any]:
    if arguments is None:
        return {}
    if isinstance(arguments, (bytes, bytearray)):
        try:
            arguments = bytes(arguments).decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidRequestError("arguments are not valid UTF-8 JSON") from None
    if isinstance(arguments, str):
        if not arguments.strip():
            return {}
        try:
            decoded = json.loads(arguments)
        except RecursionError:  # json's decoder recurses once per level of nesting
            raise InvalidRequestError(_TOO_DEEP) from None
        except ValueError:
            raise InvalidRequestError("arguments are not valid JSON") from None
        if decoded is None:
            return {}
        arguments = decoded
    if not isinstance(arguments, Mapping):
        raise InvalidRequestError(f"arguments must be a JSON object, not {_type_name(arguments)}")
    _check_depth(arguments)
    return {str(k): v for k, v in arguments.items()}


#: Deepest nesting of arguments accepted (a tool's arguments are flat; a filter list is 2).
MAX_ARGUMENT_DEPTH = 32
_TOO_DEEP = f"arguments are nested more than {MAX_ARGUMENT_DEPTH} levels deep"


def _check_depth(arguments: Mapping[str, Any]) -> None:
    """Refuse deeply nested arguments before anything recursive (validation, JSON) sees them."""
    pending: list[tuple[Any, int]] = [(arguments, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_ARGUMENT_DEPTH:
            raise InvalidRequestError(_TOO_DEEP)
        if isinstance(value, Mapping):
            pending.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, (list, tuple)):
            pending.extend((v, depth + 1) for v in value)


def _names(names: Sequence[str], limit: int = 5) -> str:
    # Names come from the model: show a bounded number, each bounded in length.
    shown = [repr(n if len(n) <= 40 else n[:39] + "…") for n in names[:limit]]
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(shown) + more


def _shown(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value.strip()
    return text if len(text) <= 20 else text[:19] + "…"


def _same_number(value: int | float | str, clamped: Any) -> bool:
    try:
        return float(value) == float(clamped)
    except (TypeError, ValueError, OverflowError):
        # OverflowError: a model may send a whole number with hundreds of digits.
        return False


def _clamp(value: Any, param: SearchParameter) -> Any:
    """Bring a whole number into the parameter's bounds; leave anything else to validation."""
    number: int | None = None
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d{1,9}\s*", value):
        number = int(value)
    if number is None:
        return value
    if param.ge is not None and number < param.ge:
        number = int(param.ge)
    if param.le is not None and number > param.le:
        number = int(param.le)
    return number


def _describe(exc: ValidationError) -> str:
    parts: list[str] = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "arguments"
        if err["type"] == "missing":
            parts.append(f"{loc}: is required")
        else:
            parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)
