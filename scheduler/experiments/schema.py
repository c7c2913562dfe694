"""Typed parameter schemas for experiment kinds (the experiment catalogue,
:mod:`scheduler.experiments`).

A kind declares its parameters as a tuple of :class:`Param`. The same declaration drives
validation here, the portal's forms and REST serializers, and the command line, so a new kind
needs no portal code.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..bounds import MAX_ITEMS, MAX_TEXT, BoundError, check_text
from ..cluster.registry import is_user_policy_name

__all__ = [
    "USER_POLICY_HELP",
    "Param",
    "ParamError",
    "alpha_list",
    "number_list",
    "split_list",
    "validate_params",
    "schema_as_json",
]

TYPES = ("int", "float", "bool", "choice", "str")

#: the help of a site policy that also takes a user's policy (``Param.user_policy``): the
#: quote kernels accelerate the built-in policies only (docs/architecture.md, Accelerations)
USER_POLICY_HELP = (
    "Or one of your uploaded policies (user:<sha256 prefix>): it runs in the portal's sandbox "
    "on the reference event loop, and each price re-plays the queue under it (Figure 22 "
    "literally, no compiled quote kernel), so such a run is much slower."
)


class ParamError(ValueError):
    """Invalid parameters; ``errors`` maps each offending field to a message."""

    def __init__(self, errors: dict[str, str]):
        self.errors = dict(errors)
        super().__init__("; ".join(f"{k}: {v}" for k, v in self.errors.items()))


@dataclass(frozen=True)
class Param:
    """One typed parameter with its default, bounds or choices, and help text."""

    name: str
    type: str
    default: Any
    help: str = ""
    label: str = ""
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] = field(default_factory=tuple)
    #: For a ``str`` parameter: the parser the engine reads it with at run time (text → value,
    #: raising ``ValueError``/:class:`ParamError` naming the problem).  :meth:`clean` calls it,
    #: so the portal refuses at submit exactly what the run would refuse (one schema, two uses).
    parse: Callable[[str], Any] | None = field(default=None, compare=False, repr=False)
    max_length: int = MAX_TEXT
    #: For a ``choice`` of scheduling policy: a policy uploaded to the portal
    #: (``user:<12 hex digits>``) is taken beside the choices; the portal checks its owner and
    #: runs it only in its sandbox (docs/policies.md).
    user_policy: bool = False

    def __post_init__(self) -> None:
        if self.type not in TYPES:
            raise ValueError(f"parameter {self.name}: unknown type {self.type!r}")
        if self.type == "choice" and not self.choices:
            raise ValueError(f"parameter {self.name}: a choice needs choices")

    def clean(self, value: Any) -> Any:
        """Return ``value`` converted to this parameter's type, or raise ValueError."""
        if self.type == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in ("true", "1", "yes", "on"):
                return True
            if isinstance(value, str) and value.lower() in ("false", "0", "no", "off", ""):
                return False
            if isinstance(value, int) and value in (0, 1):
                return bool(value)
            raise ValueError(f"must be true or false, not {value!r}")
        if self.type == "choice":
            if self.user_policy and isinstance(value, str) and is_user_policy_name(value):
                return value.strip()
            if value not in self.choices:
                raise ValueError(f"must be one of {', '.join(self.choices)}; got {value!r}")
            return value
        if self.type == "str":
            if not isinstance(value, str):
                raise ValueError(f"must be a string, not {type(value).__name__}")
            try:
                check_text(value, self.name, max_length=self.max_length)
            except BoundError as exc:
                raise ValueError(exc.message) from None
            if self.parse is not None:
                try:
                    self.parse(value)
                except ParamError as exc:
                    raise ValueError(exc.errors.get(self.name) or str(exc)) from None
                except (ValueError, TypeError, OverflowError) as exc:
                    raise ValueError(str(exc) or f"cannot read {value[:40]!r}") from None
            return value
        if isinstance(value, bool):
            raise ValueError(f"must be a number, not {value!r}")
        try:
            if self.type == "int":
                if isinstance(value, float) and not value.is_integer():
                    raise ValueError
                number: float = int(value)
            else:
                number = float(value)
        except (TypeError, ValueError):
            kind = "an integer" if self.type == "int" else "a number"
            raise ValueError(f"must be {kind}, not {value!r}") from None
        if number != number or number in (float("inf"), float("-inf")):
            raise ValueError("must be a finite number")
        if self.min is not None and number < self.min:
            raise ValueError(f"must be >= {_fmt(self.min)}; got {_fmt(number)}")
        if self.max is not None and number > self.max:
            raise ValueError(f"must be <= {_fmt(self.max)}; got {_fmt(number)}")
        return number

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "label": self.label or self.name.replace("_", " "),
            "help": self.help,
        }
        if self.min is not None:
            out["min"] = self.min
        if self.max is not None:
            out["max"] = self.max
        if self.choices:
            out["choices"] = list(self.choices)
        if self.user_policy:
            out["user_policy"] = True
        return out


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def validate_params(schema: tuple[Param, ...], given: dict[str, Any] | None) -> dict[str, Any]:
    """Merge ``given`` over the defaults and validate every field.

    Unknown names are errors (a typo must not silently fall back to a default).
    Raises :class:`ParamError` with one message per offending field.
    """
    given = dict(given or {})
    if not isinstance(given, dict):
        raise ParamError({"params": "must be a JSON object"})
    errors: dict[str, str] = {}
    known = {p.name for p in schema}
    for name in sorted(set(given) - known):
        errors[name] = f"unknown parameter (known: {', '.join(sorted(known)) or 'none'})"
    out: dict[str, Any] = {}
    for p in schema:
        value = given.get(p.name, p.default)
        try:
            out[p.name] = p.clean(value)
        except ValueError as exc:
            errors[p.name] = str(exc)
    if errors:
        raise ParamError(errors)
    return out


def schema_as_json(schema: tuple[Param, ...]) -> list[dict[str, Any]]:
    return [p.as_json() for p in schema]


def split_list(text: str, field: str, *, max_items: int = MAX_ITEMS) -> list[str]:
    """The stripped items of a comma-separated string parameter (empty items dropped); at
    most ``max_items`` of them, else :class:`ParamError` on ``field``."""
    if len(text) > MAX_TEXT:
        raise ParamError({field: f"at most {MAX_TEXT} characters; got {len(text)}"})
    items = [v.strip() for v in text.split(",") if v.strip()]
    if len(items) > max_items:
        raise ParamError({field: f"at most {max_items} values; got {len(items)}"})
    long = next((v for v in items if len(v) > 200), None)
    if long is not None:
        raise ParamError({field: f"a value of {len(long)} characters ({long[:20]!r}...)"})
    return items


def number_list(
    text: str,
    field: str,
    *,
    lo: float,
    hi: float,
    integer: bool = False,
    max_items: int = MAX_ITEMS,
    allow_empty: bool = False,
) -> list[Any]:
    """Comma-separated finite numbers in ``[lo, hi]`` (integers if ``integer``), in the order
    given; :class:`ParamError` on ``field`` naming the first bad value."""
    out: list[Any] = []
    for item in split_list(text, field, max_items=max_items):
        try:
            value = float(item) if len(item) <= 40 else math.nan
        except ValueError:
            raise ParamError({field: f"{item[:40]!r} is not a number"}) from None
        if not math.isfinite(value):
            raise ParamError({field: f"{item[:40]!r} is not a finite number"})
        if not lo <= value <= hi:
            raise ParamError({field: f"values must be between {_fmt(lo)} and {_fmt(hi)}; got "
                                     f"{item[:40]}"})  # fmt: skip
        if integer:
            if not value.is_integer():
                raise ParamError({field: f"values must be whole numbers; got {item[:40]}"})
            value = int(value)
        out.append(value)
    if not out and not allow_empty:
        raise ParamError({field: "give at least one value"})
    return out


def alpha_list(text: str, field: str = "alphas") -> list[float]:
    """Comma-separated trade-off factors in [0, 1] (a string parameter), sorted and distinct;
    ParamError on ``field`` otherwise."""
    try:
        values = [float(v) for v in split_list(text, field)]
    except ValueError:
        values = []
    if not values or any(not (0 <= v <= 1) for v in values):
        raise ParamError({field: f"give comma-separated numbers in [0, 1], not {text[:40]!r}"})
    return sorted(set(values))
