import django_filters

from gridportal.ids import IdFilter

from ..models import Trace


class TraceFilter(django_filters.FilterSet):
    machine_procs = IdFilter(min_value=0, max_value=2**31 - 1)

    class Meta:
        model = Trace
        fields = ["machine_procs"]
