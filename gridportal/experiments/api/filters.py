import django_filters

from gridportal.ids import IdFilter, UTCDateTimeFilter

from ..models import Experiment, Sweep


class ExperimentFilter(django_filters.FilterSet):
    trace = IdFilter(field_name="traces", label="input trace id")
    created_after = UTCDateTimeFilter(field_name="created", lookup_expr="gte")
    created_before = UTCDateTimeFilter(field_name="created", lookup_expr="lte")
    sweep = IdFilter(field_name="sweeps", label="sweep id")

    class Meta:
        model = Experiment
        fields = ["kind", "status", "trace", "sweep", "created_after", "created_before"]


class SweepFilter(django_filters.FilterSet):
    trace = IdFilter(field_name="traces", label="input trace id")

    class Meta:
        model = Sweep
        fields = ["kind", "trace"]
