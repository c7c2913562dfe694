"""Page forms. Experiment parameter forms are generated from the kind's schema."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from gridportal.sites.services import policy_document
from scheduler.engine import MAX_PROCS, format_value, label_of, unit_of

if TYPE_CHECKING:  # the catalogue loads on first use (start-up)
    from scheduler.engine import ExperimentKind, InputSpec, Param


class WorkflowUploadForm(forms.Form):
    name = forms.CharField(
        max_length=200, required=False, help_text="Defaults to the workflow's own name."
    )
    file = forms.FileField(
        allow_empty_file=True,
        help_text="Pegasus DAX (XML), Pegasus 5 YAML or JSON, WfCommons WfFormat JSON or "
        "gridportal-workflow JSON.",
    )


class WorkflowGenerateForm(forms.Form):
    """The workflow generators (thesis §4.7–4.8; Singh, Kesselman & Deelman 2005, §4.1) with
    their main parameters."""

    model = forms.ChoiceField(
        choices=[
            ("layered", "random layered (thesis §4.7)"),
            ("cybershake", "CyberShake (thesis §4.8)"),
            ("montage", "Montage-like (Singh, Kesselman & Deelman 2005)"),
        ]
    )
    name = forms.CharField(max_length=200, required=False)
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=1)
    tasks = forms.IntegerField(
        min_value=1, max_value=100_000, initial=100, help_text="layered: number of tasks"
    )
    levels = forms.IntegerField(
        min_value=1, max_value=100_000, initial=10, help_text="layered: depth"
    )
    mean_runtime = forms.FloatField(min_value=1, initial=1000, help_text="layered: seconds")
    mean_processors = forms.FloatField(min_value=1, initial=22, help_text="layered")
    pairs = forms.IntegerField(
        min_value=1,
        max_value=49_000,
        initial=4017,
        help_text="CyberShake: synthSGT/peakValCal pairs",
    )
    images = forms.IntegerField(
        min_value=2, max_value=20_000, initial=166, help_text="Montage: input images"
    )

    MODEL_PARAMS = {
        "layered": ("tasks", "levels", "mean_runtime", "mean_processors", "seed"),
        "cybershake": ("pairs", "seed"),
        "montage": ("images", "seed"),
    }

    def generator_params(self) -> dict:
        data = self.cleaned_data
        return {k: data[k] for k in self.MODEL_PARAMS[data["model"]]}


class TraceUploadForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, help_text="Defaults to the file name.")
    file = forms.FileField(
        allow_empty_file=True,
        help_text="SWF trace, or Slurm accounting (sacct -P, with or without its header line); "
        "plain or gzipped.",
    )
    # Slurm accounting only (ignored for SWF): scheduler.traces.sacct
    lenient = forms.BooleanField(
        required=False,
        label="Skip unreadable rows",
        help_text="Skip sacct rows that cannot be read (cut off, …) and list them, instead of "
        "refusing the file.",
    )
    sacct_format = forms.CharField(
        required=False,
        max_length=4000,
        label="Columns of a file without a header",
        help_text="The sacct --format list it was dumped with (default: Open XDMoD's order).",
    )
    procs = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_PROCS,
        label="Cluster CPUs",
        help_text="The machine size for a sacct file (default: the most CPUs in use at once).",
    )

    def sacct_options(self):
        from gridportal.inputs.services import SacctOptions

        data = self.cleaned_data
        return SacctOptions(
            lenient=bool(data.get("lenient")),
            columns=data.get("sacct_format") or "",
            procs=data.get("procs"),
        )


class SlurmSiteForm(forms.Form):
    """A Slurm site for what-ifs: its accounting dump and its configuration files."""

    name = forms.CharField(max_length=200, required=False, help_text="Defaults to the file name.")
    dump = forms.FileField(
        allow_empty_file=True,
        label="sacct dump",
        help_text="sacct --allusers --duplicates -P --format=JobID,User,Account,Partition,QOS,"
        "State,Submit,Eligible,Start,End,Timelimit,NCPUS,AllocCPUS,ReqCPUS,Priority; plain or "
        "gzipped.",
    )
    slurm_conf = forms.FileField(
        allow_empty_file=True, label="slurm.conf", help_text="The site's slurm.conf."
    )
    assoc = forms.FileField(
        required=False, allow_empty_file=True, label="associations (optional)",
        help_text="sacctmgr -P show assoc: accounts, users, shares and limits.",
    )  # fmt: skip
    qos = forms.FileField(
        required=False, allow_empty_file=True, label="QOS (optional)",
        help_text="sacctmgr -P show qos: priorities and limits.",
    )  # fmt: skip
    sshare = forms.FileField(
        required=False, allow_empty_file=True, label="usage before the dump (optional)",
        help_text="sshare -a -P taken when the dump starts: each user's RawUsage.",
    )  # fmt: skip


SEED_TERMS = re.compile(r"[α-ωΑ-Ω_^]|eq\.|§|query|SPEC|\(\d+\)|Figure")


def human_bounds(field: forms.Field) -> forms.Field:
    """Bound errors in numbers for people: "at least 1 s", not "greater than or equal to
    0.0002777777777777778" (hours fields are read in seconds/minutes/hours)."""
    hours = "hour" in str(field.label or "")
    for v in field.validators:
        if isinstance(v, (MinValueValidator, MaxValueValidator)):
            limit = v.limit_value
            text = (
                format_value(limit * 3600, unit="s")
                if hours and isinstance(limit, (int, float))
                else bound_text(limit)
            )
            word = "at least" if isinstance(v, MinValueValidator) else "at most"
            v.message = f"Must be {word} {text}.".replace("%", "%%")
    return field


def field_label(param: Param) -> str:
    """Plain words first, the seed's term in parentheses ("price weight (α)")."""
    plain = label_of(param.name)
    given = param.label or ""
    if not given:
        return plain
    if SEED_TERMS.search(given) and plain.lower() not in given.lower():
        return f"{plain} ({given})"
    return given


def bound_text(value) -> str:
    """A bound for people: thousands separators, and a small one written out ("0.000001",
    not "1.0e-06")."""
    if isinstance(value, float) and value and abs(value) < 1e-4:
        return f"{value:.12f}".rstrip("0")
    return format_value(value)


def field_help(param: Param) -> str:
    if param.help:
        return param.help
    if param.label:  # the kind's own words, which say the unit where there is one
        bits = [param.label]
    else:
        unit = unit_of(param.name)
        bits = [f"{label_of(param.name)}"]
        if unit and unit not in ("s",):
            bits.append(f"in {unit}")
        elif unit == "s":
            bits.append("in seconds")
    if param.min is not None and param.max is not None:
        bits.append(f"from {bound_text(param.min)} to {bound_text(param.max)}")
    return " ".join(bits) + f" (parameter {param.name})."


def field_for(param: Param, user_policies: list[tuple[str, str]] = ()) -> forms.Field:
    """One Django form field for one schema parameter (type, bounds, choices, help);
    ``user_policies``: ``(ref, label)`` of the user's uploaded policies, offered after the
    built-in ones where the parameter takes them (``Param.user_policy``)."""
    common = {
        "label": field_label(param),
        "help_text": field_help(param),
        "initial": param.default,
    }
    if param.type == "int":
        return human_bounds(forms.IntegerField(min_value=param.min, max_value=param.max, **common))
    if param.type == "float":
        return human_bounds(forms.FloatField(min_value=param.min, max_value=param.max, **common))
    if param.type == "bool":
        return forms.BooleanField(required=False, **common)
    if param.type == "choice":
        choices = [(c, c) for c in param.choices]
        if param.user_policy and user_policies:
            choices = [("Built-in", choices), ("Your policies (sandboxed)", list(user_policies))]
        return forms.ChoiceField(choices=choices, **common)
    return forms.CharField(
        required=False, validators=[parsed_by(param)], max_length=param.max_length,
        **common,
    )  # fmt: skip


def parsed_by(param: Param):
    """A form validator running the engine's own parser of a string parameter."""

    def check(value: str) -> None:
        try:
            param.clean(value)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None

    return check


def input_field(spec: InputSpec, querysets: dict) -> forms.Field:
    """The form field of one declared input: pick stored traces/workflows, or use the
    configuration staff set up (policy documents are copied into the run)."""
    required = spec.min > 0
    if spec.kind == "policies":
        return forms.BooleanField(
            required=required,
            initial=required,
            label="use the configured sites and policies",
            help_text=spec.help or "copied into the run now, so later edits never change it",
        )
    if spec.kind == "topology":
        from gridportal.sites.models import Topology

        return forms.ModelChoiceField(
            queryset=Topology.objects.all(), required=required, label="topology",
            help_text=(spec.help or "") + " — a configured topology, copied into the run now",
        )  # fmt: skip
    queryset = querysets[spec.kind]
    label = {"slurm-site": "Slurm site"}.get(spec.kind, spec.kind)
    label = label if spec.max == 1 else f"{label}s"
    if spec.max == 1:
        return forms.ModelChoiceField(
            queryset=queryset, required=required, label=label, help_text=spec.help
        )
    return forms.ModelMultipleChoiceField(
        queryset=queryset, required=required, label=label, help_text=spec.help
    )


def experiment_form_class(kind: ExperimentKind, querysets: dict) -> type[forms.Form]:
    """A form with name, seed, the kind's declared inputs, one field per parameter and the
    optional sweep. ``querysets`` maps "trace"/"workflow" to what the user may pick."""
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
        fields[spec.name] = input_field(spec, querysets)
    mine = [(p.ref, f"{p.title or p.name} ({p.ref})") for p in querysets.get("policyfile", ())]
    for param in kind.params:
        fields[f"p_{param.name}"] = field_for(param, mine)
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


def inputs_from_form(kind: ExperimentKind, cleaned: dict) -> dict[str, list]:
    """``traces``, ``workflows`` and ``policies`` keyword arguments for the services."""
    out: dict[str, list] = {"traces": [], "workflows": [], "policies": [], "topologies": [],
                            "slurm_sites": []}  # fmt: skip
    for spec in kind.inputs:
        value = cleaned.get(spec.name)
        if not value:
            continue
        if spec.kind == "policies":
            out["policies"].append(policy_document())
        elif spec.kind == "topology":
            out["topologies"].append(value.document)
        else:
            key = {"slurm-site": "slurm_sites"}.get(spec.kind, f"{spec.kind}s")
            out[key].extend(value if spec.max != 1 else [value])
    return out


class QuoteForm(forms.Form):
    """A reservation to price on a site (thesis §5.2, queries 18 and 19)."""

    n = forms.IntegerField(label="processors", min_value=1, initial=16)
    hours = forms.FloatField(label="duration (hours)", min_value=1 / 3600, max_value=1e5,
                             initial=1.0)  # fmt: skip
    at = forms.FloatField(
        label="now (hours into the site's trace)",
        min_value=0,
        max_value=1e7,
        initial=24.0,
        help_text="The instant of the site's simulated schedule the quote is made at.",
    )
    s_min = forms.FloatField(
        label="not before (hours from now)",
        min_value=0,
        max_value=1e7,
        required=False,
        help_text="Empty: every start from now on (query 18); else from then on (query 19).",
    )
    estimates = forms.ChoiceField(
        choices=[("", "auto"), ("requested", "requested"), ("accurate", "accurate")],
        required=False,
        label="runtime estimates of the queue",
    )

    def __init__(self, *args, site=None, **kwargs):
        super().__init__(*args, **kwargs)
        if site is not None:
            self.fields["n"].max_value = site.processors
            self.fields["n"].validators.append(MaxValueValidator(site.processors))
            self.fields["n"].widget.attrs["max"] = site.processors
        for field in self.fields.values():
            human_bounds(field)


class PredictForm(forms.Form):
    """A job whose start to predict on a site (thesis ch. 6, QBETS-like); prefixed "p"."""

    n = forms.IntegerField(label="processors", min_value=1, initial=16)
    hours = forms.FloatField(label="requested time (hours)", min_value=1 / 3600, max_value=1e5,
                             initial=1.0)  # fmt: skip
    at = forms.FloatField(
        label="submitted (hours into the site's trace)", min_value=0, max_value=1e7, initial=24.0
    )

    def __init__(self, *args, site=None, **kwargs):
        super().__init__(*args, prefix="p", **kwargs)
        if site is not None:
            self.fields["n"].validators.append(MaxValueValidator(site.processors))
            self.fields["n"].widget.attrs["max"] = site.processors
        for field in self.fields.values():
            human_bounds(field)


class PlanForm(forms.Form):
    """A co-allocation request to plan against a topology (Takefusa et al. 2010)."""

    request = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 7, "cols": 70, "spellcheck": "false"}),
        label="request (JSON)",
        help_text='Sites with CPUs, paths with bandwidth (Gbps), and a frame: exact {"start", '
        '"end"} or a range {"earliest_start", "latest_start", "duration"} (seconds).',
    )
    option = forms.ChoiceField(label="rank plans by", initial="earliest")
    admin = forms.ChoiceField(label="administrator option", initial="none")
    priority = forms.ChoiceField(
        choices=[("normal", "normal"), ("low", "low (sees half the resources)")],
        initial="normal",
    )
    frames = forms.IntegerField(label="time frames N", min_value=1, max_value=100, initial=10)

    def __init__(self, *args, topology=None, **kwargs):
        from scheduler.engine import COALLOCATION_ADMIN_OPTIONS, COALLOCATION_USER_OPTIONS

        super().__init__(*args, **kwargs)
        self.fields["option"].choices = [(o, o) for o in COALLOCATION_USER_OPTIONS]
        self.fields["admin"].choices = [(o, o) for o in COALLOCATION_ADMIN_OPTIONS]
        if topology is not None and not self.is_bound:
            self.initial["request"] = example_request(topology)

    def clean_request(self):
        import json

        from scheduler.engine import json_loads

        text = self.cleaned_data["request"]
        try:  # depth and integer digits bounded before parsing
            return json_loads(text)
        except ValueError as exc:
            cause = exc.__context__
            if isinstance(cause, json.JSONDecodeError):
                raise forms.ValidationError(
                    f"not JSON: {cause.msg} at line {cause.lineno} column {cause.colno}"
                ) from None
            raise forms.ValidationError(str(exc)) from None


def example_request(topology) -> str:
    """A request of 2 sites × 4 CPUs and 1 Gbps between them, within the next 3 hours."""
    import json

    doc = {
        "sites": [{"name": "A", "cpus": 4}, {"name": "B", "cpus": 4}],
        "paths": [{"between": ["A", "B"], "bandwidth": 1}],
        "frame": {"earliest_start": 0, "latest_start": 7200, "duration": 3600},
    }
    return json.dumps(doc, indent=1)
