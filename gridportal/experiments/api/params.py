"""REST serializers generated from an experiment kind's parameter schema, so the API reports
invalid parameters field by field, exactly like the page form (both come from the schema)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from rest_framework import serializers

from scheduler import engine

if TYPE_CHECKING:  # the catalogue loads on first use (start-up)
    from scheduler.engine import ExperimentKind, Param


def drf_field_for(param: Param) -> serializers.Field:
    common = {
        "required": False,
        "default": param.default,
        "help_text": param.help,
        "label": param.label or param.name,
    }
    if param.type == "int":
        return serializers.IntegerField(min_value=param.min, max_value=param.max, **common)
    if param.type == "float":
        return serializers.FloatField(min_value=param.min, max_value=param.max, **common)
    if param.type == "bool":
        return serializers.BooleanField(**common)
    if param.type == "choice" and param.user_policy:
        return PolicyChoiceField(param, choices=list(param.choices), **common)
    if param.type == "choice":
        return serializers.ChoiceField(choices=list(param.choices), **common)

    def parsed(value: str) -> None:  # the engine's own parser (Param.parse), at submit
        try:
            param.clean(value)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from None

    return serializers.CharField(allow_blank=True, validators=[parsed], **common)


class PolicyChoiceField(serializers.ChoiceField):
    """A choice of built-in policy that also takes an uploaded one (``user:<sha prefix>``,
    ``Param.user_policy``); whose upload it is, the submit checks next."""

    def __init__(self, param: Param, **kwargs):
        self.param = param
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str) and data not in self.choices:
            try:
                return self.param.clean(data)
            except ValueError:
                pass  # refused in the choice's own words
        return super().to_internal_value(data)


@cache
def params_serializer_class(kind: ExperimentKind) -> type[serializers.Serializer]:
    fields = {p.name: drf_field_for(p) for p in kind.params}
    name = "".join(part.title() for part in kind.name.split("-")) + "Params"
    return type(name, (serializers.Serializer,), fields)


def validate_kind_params(kind: ExperimentKind, params: dict) -> dict:
    """Field-by-field errors for ``params`` (unknown names included), or the cleaned dict.
    Parameters of an older version of the kind are first read in today's names
    (:meth:`ExperimentKind.upgrade`)."""
    try:
        params = kind.upgrade(dict(params))
    except engine.ParamError as exc:
        raise serializers.ValidationError({k: [v] for k, v in exc.errors.items()}) from None
    known = {p.name for p in kind.params}
    unknown = {k: ["unknown parameter"] for k in params if k not in known}
    ser = params_serializer_class(kind)(data=params)
    if not ser.is_valid() or unknown:
        raise serializers.ValidationError({**(ser.errors if not ser.is_valid() else {}), **unknown})
    return dict(ser.validated_data)
