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
    fields.update(sweep_fields(kind))
    return type(f"{kind.name.title().replace('-', '')}Form", (forms.Form,), fields)


SWEEP_HELP = (
    "Comma-separated values (64, 128, 256) or a range start:stop:step (0:1:0.2, stop included)."
)


def sweep_fields(kind: ExperimentKind) -> dict[str, forms.Field]:
    """Optional sweep settings: up to two varied parameters and a number of repetitions."""
    choices = [("", "— no sweep —")] + [
        (p.name, p.label or p.name)
        for p in kind.params
        if p.type in ("int", "float", "choice", "bool")
    ]
    return {
        "vary1_param": forms.ChoiceField(choices=choices, required=False, label="vary"),
        "vary1_values": forms.CharField(required=False, label="values", help_text=SWEEP_HELP),
        "vary2_param": forms.ChoiceField(
            choices=choices, required=False, label="and vary (optional)"
        ),
        "vary2_values": forms.CharField(required=False, label="values"),
        "repetitions": forms.IntegerField(
            min_value=1,
            max_value=100,
            initial=1,
            required=False,
            help_text="Runs per point, with seeds seed, seed+1, …",
        ),
    }


def parse_vary(cleaned: dict) -> tuple[list[dict], dict[str, str]]:
    """The form's sweep fields as the service's ``vary`` list, or errors per field."""
    vary, errors = [], {}
    for i in (1, 2):
        param, text = cleaned.get(f"vary{i}_param"), (cleaned.get(f"vary{i}_values") or "").strip()
        if not param:
            if text:
                errors[f"vary{i}_param"] = "choose the parameter these values are for"
            continue
        if not text:
            errors[f"vary{i}_values"] = "give the values to try"
            continue
        if ":" in text and "," not in text:
            parts = text.split(":")
            if len(parts) != 3:
                errors[f"vary{i}_values"] = "a range is start:stop:step"
                continue
            vary.append(
                {"param": param, "range": dict(zip(("start", "stop", "step"), parts, strict=True))}
            )
        else:
            vary.append(
                {"param": param, "values": [v.strip() for v in text.split(",") if v.strip()]}
            )
    return vary, errors


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
