"""Template helpers: human labels and numbers (issue 20)."""

import re

from django import template

from gridportal.web.account import signup_enabled as _signup_enabled
from scheduler.labels import format_value, label_of

register = template.Library()


@register.simple_tag
def signup_enabled() -> bool:
    return _signup_enabled()


@register.filter
def label(key) -> str:
    """``{{ key|label }}``: the registry's human label of a metric/parameter key."""
    return label_of(str(key))


@register.filter
def human(value, key="") -> str:
    """``{{ value|human:key }}``: thousands separators, significant digits, durations."""
    return format_value(value, key=str(key) if key else "")


_KEY_AT_LINE_START = re.compile(r"(?m)^([a-z][a-z0-9_]*_[a-z0-9_]*|[a-z]+): ")


@register.filter
def readable_error(text) -> str:
    """'start_day: 40 is past …' -> 'window start (start_day): 40 is past …'."""
    return _KEY_AT_LINE_START.sub(lambda m: f"{label_of(m.group(1))} ({m.group(1)}): ", str(text))
