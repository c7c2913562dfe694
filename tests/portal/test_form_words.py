"""Words for people on the forms and in run messages: bounds without scientific
notation, help in the kind's own words (no unit guessed from a key: "time bins" are a count,
not seconds), and every field an error or a progress message names in words."""

import re

import pytest

from gridportal.web.forms import bound_text, field_help
from gridportal.web.templatetags.portal import readable_error, readable_message
from gridportal.web.views import _message_words
from scheduler.experiments.base import get_kind, kinds
from scheduler.labels import label_of

SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")


@pytest.mark.parametrize("kind", [k.name for k in kinds()])
def test_help_has_no_scientific_notation(kind):
    for p in get_kind(kind).params:
        text = field_help(p)
        assert not SCIENTIFIC.search(text), (p.name, text)


def test_small_bounds_are_written_out_and_help_keeps_the_kinds_words():
    assert bound_text(1e-6) == "0.000001" and bound_text(1_000_000_000) == "1,000,000,000"
    bins = next(p for p in get_kind("cluster-sim").params if p.name == "time_bins")
    assert field_help(bins).startswith(bins.label) and "seconds" not in field_help(bins)


def test_every_field_of_an_error_is_named_in_words():
    # the engine joins one error's fields with "; " (ParamError)
    text = readable_error("start_day: 40 is past the end; first_days: too long\nseed: too big")
    assert text == (
        f"{label_of('start_day')} (start_day): 40 is past the end; "
        f"{label_of('first_days')} (first_days): too long\n"
        f"{label_of('seed')} (seed): too big"
    )


def test_progress_messages_name_strategies_in_words():
    words = _message_words(get_kind("usage-policy"))
    assert readable_message("simulating rm-fairshare", words) == "simulating RM fair-share"
    assert readable_message("simulating none", words) == "simulating no policy"
    # "none" is an ordinary value elsewhere (cluster-sim's load method): left alone
    assert readable_message("simulating none", _message_words(get_kind("cluster-sim"))) == (
        "simulating none"
    )


def test_kind_texts_cite_papers_not_the_projects_own_documents():
    for k in kinds():
        assert "SPEC" not in k.reproduces + k.description, k.name
