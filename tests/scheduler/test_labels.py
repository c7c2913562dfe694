"""The label registry: no raw key reaches a reader, numbers are written for people."""

from scheduler.labels import column_label, format_value, label_of, labelled, unit_of


def test_composed_keys_get_words():
    assert label_of("normal_UserA_at_100") == "normal: co-allocation success of UserA at 100 % load"
    assert label_of("easy_accurate_mean_wait") == "EASY, accurate estimates: mean wait"
    assert unit_of("easy_accurate_mean_wait") == "s"
    assert label_of("malleable_fraction") == "share of malleable jobs"
    assert label_of("service_levels_utilization") == "service levels: site utilisation"
    assert "_" not in label_of("spep.group_EUPV")


def test_numbers_for_people():
    assert format_value(54040, key="jobs") == "54,040"  # not 5.404e+04
    assert format_value(15.262161) == "15.26"
    assert format_value(1416456652, key="size_bytes") == "1.42 GB"
    assert format_value(6660.0, key="mean_wait") == "111 min"
    assert format_value(2 * 3600 + 1800, key="makespan") == "2.5 h"
    assert format_value(12345.678) == "12,346"
    assert format_value(1234.5) == "1,234" or format_value(1234.5) == "1,235"
    assert format_value(None) == "–"


def test_labelled_result_labels_every_key_and_keeps_the_kinds_own():
    result = {
        "summary": {"jobs": 3, "normal_UserB_at_100": 0.5},
        "summary_labels": {"jobs": "job lines"},
        "tables": [{"id": "t", "title": "T", "columns": ["procs", "mean_wait_mean"], "rows": []}],
    }
    out = labelled(result)
    assert out["summary_labels"]["jobs"] == "job lines"
    assert out["summary_labels"]["normal_UserB_at_100"].startswith("normal: ")
    assert out["tables"][0]["column_labels"] == ["processors", "mean wait (mean)"]
    assert (
        "summary_units" in out and out is not result and "column_labels" not in result["tables"][0]
    )
    assert column_label("Already Words") == "Already Words"


def test_a_key_that_names_its_unit_is_not_read_as_seconds():
    """``span_days`` holds days: read as a duration in seconds, 332 days would print as
    "5.5 min" (found by the worker test's comparison of units)."""
    assert unit_of("span_days") == "days" and format_value(332.5, key="span_days") == "332.5 days"
    assert unit_of("planning_ms") == "ms" and unit_of("delay_min") == "min"
    assert unit_of("makespan") == "s"


def test_counts_and_sweep_aggregates_read_as_words():
    """Seen by the portal walk: a count of bins has no unit, a per-job maximum says
    what it is, a sweep aggregate's column ('first_submit mean') is labelled like the rest, and
    every usage-policy strategy (seed 004's batch systems too) has a name."""
    from scheduler.experiments import get_kind
    from scheduler.labels import column_label, label_of, unit_of

    assert unit_of("time_bins") == ""
    assert label_of("procs_max") == "largest job" and unit_of("procs_max") == "processors"
    assert column_label("first_submit mean") == f"{label_of('first_submit')} (mean)"
    assert column_label("mean_wait std") == f"{label_of('mean_wait')} (std. dev.)"
    assert column_label("a mean") == "a mean"  # not a key: left as written
    from scheduler.usage import STRATEGIES

    assert get_kind("usage-policy")  # the catalogue registers the batch-system rows
    for name in STRATEGIES:
        assert "_" not in label_of(name) and label_of(name) != name, name


def test_durations_in_days_and_hours_directions_and_column_units():
    """A duration of days reads "17 d 23 h" (not 1,552,128 s, nor "17.96 days"); a sweep's
    best point is the lowest wait and the highest utilisation, and a metric without a better
    direction has none; a table's duration columns are rewritten for people."""
    from scheduler.labels import better_of, column_unit, format_value

    assert format_value(1_552_128, unit="s") == "17 d 23 h"
    assert format_value(3 * 86400, unit="s") == "3 d" and format_value(7000, unit="s") == "117 min"
    assert better_of("easy_accurate_mean_wait") == "lower"
    assert better_of("fcfs_requested_utilization") == "higher"
    assert better_of("spep.EUPV") == "lower" and better_of("AJC") == "higher"
    assert better_of("offered_load") is None and better_of("cost_ratio") is None
    assert column_unit("mean_wait mean") == "s" and column_unit("be_makespan_h") == "h"
    assert column_unit("mean wait (s)") == "" and column_unit("utilization") == ""
