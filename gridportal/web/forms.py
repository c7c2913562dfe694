"""Page forms. Experiment parameter forms are generated from the kind's schema."""

from __future__ import annotations

from django import forms

from gridportal.inputs.models import Trace
from scheduler.experiments import ExperimentKind, Param


class TraceUploadForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, help_text="Defaults to the file name.")
    file = forms.FileField(
        allow_empty_file=True, help_text="SWF trace, plain or gzipped (.swf, .swf.gz)."
    )


def field_for(param: Param) -> forms.Field:
    """One Django form field for one schema parameter (type, bounds, choices, help)."""
    common = {
        "label": param.label or param.name.replace("_", " "),
        "help_text": param.help,
        "initial": param.default,
    }
    if param.type == "int":
        return forms.IntegerField(min_value=param.min, max_value=param.max, **common)
    if param.type == "float":
        return forms.FloatField(min_value=param.min, max_value=param.max, **common)
    if param.type == "bool":
        return forms.BooleanField(required=False, **common)
    if param.type == "choice":
        return forms.ChoiceField(choices=[(c, c) for c in param.choices], **common)
    return forms.CharField(required=False, **common)


def experiment_form_class(kind: ExperimentKind, traces_queryset) -> type[forms.Form]:
    """A form with name, seed, the kind's declared inputs and one field per parameter."""
    fields: dict[str, forms.Field] = {
        "name": forms.CharField(max_length=200, required=False),
        "seed": forms.IntegerField(
            min_value=0,
            max_value=2**31 - 1,
            initial=0,
            help_text="Same inputs and seed give the same result.",
        ),
    }
    for spec in kind.inputs:
        if spec.kind == "trace":
            if spec.max == 1:
                fields[spec.name] = forms.ModelChoiceField(
                    queryset=traces_queryset, label="trace", help_text=spec.help
                )
            else:
                fields[spec.name] = forms.ModelMultipleChoiceField(
                    queryset=traces_queryset, help_text=spec.help
                )
    for param in kind.params:
        fields[f"p_{param.name}"] = field_for(param)
    return type(f"{kind.name.title().replace('-', '')}Form", (forms.Form,), fields)


def params_from_form(kind: ExperimentKind, cleaned: dict) -> dict:
    return {p.name: cleaned[f"p_{p.name}"] for p in kind.params}


def inputs_from_form(kind: ExperimentKind, cleaned: dict) -> list[Trace]:
    traces: list[Trace] = []
    for spec in kind.inputs:
        value = cleaned.get(spec.name)
        if value is None:
            continue
        traces.extend(value if spec.max != 1 else [value])
    return traces
