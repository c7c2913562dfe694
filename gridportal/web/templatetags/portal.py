"""Template helpers: human labels and numbers."""

import re

from django import template

from gridportal.web.account import signup_enabled as _signup_enabled
from scheduler import engine
from scheduler.engine import format_value, label_of

register = template.Library()


@register.simple_tag
def signup_enabled() -> bool:
    return _signup_enabled()


@register.filter
def names_listed(conversion, kind) -> str:
    """``{{ conversion|names_listed:kind }}``: a sacct report's numbering of one kind of name
    ("1 = alice, 2 = bob and 130 more"): the first few only, however many the file named."""
    table = (conversion.get("mappings") or {}).get(kind) or {}
    shown = list(table.items())[: engine.SACCT_NAMES_LISTED]
    more = len(table) - len(shown) + (conversion.get("mappings_more") or {}).get(kind, 0)
    text = ", ".join(f"{number} = {name}" for name, number in shown)
    return f"{text} and {more:,} more" if more else text


@register.filter
def label(key) -> str:
    """``{{ key|label }}``: the registry's human label of a metric/parameter key."""
    return label_of(str(key))


@register.filter
def kind_title(name) -> str:
    """``{{ exp.kind|kind_title }}``: the kind's title in words, never its raw name."""
    from gridportal.experiments.models import kind_title as title

    return title(str(name))


_NAME_LIST = re.compile(r"[A-Za-z0-9_=.\-]+(\s*,\s*[A-Za-z0-9_=.\-]+)*")


@register.filter
def param_value(value, key="") -> str:
    """``{{ v|param_value:k }}``: a parameter's value for people — a list of policy or strategy
    names in words ("fcfs, easy" -> "FCFS, EASY"; "spep,rm-fairshare" -> "S-PEP, RM fair-share"),
    anything else as ``human`` writes it."""
    if not isinstance(value, str) or not _NAME_LIST.fullmatch(value):
        return human(value, key)

    def word(name: str) -> str:
        text = engine.scheduling_policy_label(name)
        return engine.name_label(name) if text == name else text

    parts = [p.strip() for p in value.split(",")]
    if parts == ["none"]:  # "none" alone is an ordinary choice (no load scaling), not a policy
        return human(value, key)
    named = [word(p) for p in parts]
    return ", ".join(named) if named != parts else human(value, key)


@register.filter
def hours(value) -> str:
    """``{{ 1.2345|hours }}``: a time in hours written for people ("74.1 min", "18 d 3 h")."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return format_value(value)
    return format_value(value * 3600, unit="s")


@register.filter
def human(value, key="") -> str:
    """``{{ value|human:key }}``: thousands separators, significant digits, durations."""
    return format_value(value, key=str(key) if key else "")


#: A field named at the start of a line or after "; " (ParamError joins its fields that way):
#: "start_day: 40 is past …; seed: too big".
_KEY_AT_LINE_START = re.compile(r"(?m)(^|; )([a-z][a-z0-9_]*_[a-z0-9_]*|[a-z]+): ")


@register.filter
def readable_error(text) -> str:
    """'start_day: 40 is past …' -> 'window start (start_day): 40 is past …'."""
    return _KEY_AT_LINE_START.sub(
        lambda m: f"{m.group(1)}{label_of(m.group(2))} ({m.group(2)}): ", str(text)
    )


_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_=-]*")


@register.filter
def readable_message(text, words) -> str:
    """A run's progress message with the kind's names in words ("simulating rm-fairshare" ->
    "simulating RM fair-share"), as experiment.js writes it live; ``words`` from the view."""
    words = words or {}
    return _TOKEN.sub(lambda m: words.get(m.group(0), m.group(0)), str(text or ""))


@register.filter
def repro_anchor(key) -> str:
    """``"pricing/thesis-fig27"|repro_anchor`` -> ``repro-pricing-thesis-fig27``: the id of the
    preset's row on the Reproductions page."""
    return "repro-" + str(key).replace("/", "-")


@register.filter
def than_in_words(text, than) -> str:
    """``{{ c.published_text|than_in_words:c.than }}``: the compared metric in words."""
    from gridportal.web.reproductions import than_in_words as words

    return words(str(text), than)
