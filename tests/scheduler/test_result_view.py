"""The tolerant reader of stored Results (scheduler/result_view.py): any JSON in, the
documented shape out, what is left out listed; linear in the size of the input."""

from __future__ import annotations

import json
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from scheduler.experiments.reproduce_report import svg_chart
from scheduler.result_view import read_result

LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**450), max_value=10**450),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
    st.sampled_from(["line", "bar", "gantt", "histogram", "scatter", "log", "category", "id"]),
)  # fmt: skip
KEYS = st.sampled_from(["id", "type", "title", "x", "y", "series", "points", "name", "errors",
                        "rows", "columns", "label", "scale", "summary", "charts", "tables",
                        "summary_labels", "key", "column_labels", "y2", "priority"])  # fmt: skip
JSON = st.recursive(LEAF, lambda kids: st.lists(kids, max_size=4)
                    | st.dictionaries(KEYS, kids, max_size=5), max_leaves=40)  # fmt: skip


def _check_shape(view: dict) -> None:
    json.dumps(view, allow_nan=False)  # finite, serialisable (no 4,300-digit integers)
    assert isinstance(view["summary"], dict) and isinstance(view["unshown"], list)
    for tab in view["tables"]:
        assert all(isinstance(c, str) for c in tab["columns"])
        assert all(len(r) == len(tab["columns"]) for r in tab["rows"])
    ids = [c["id"] for c in view["charts"]]
    assert len(ids) == len(set(ids))
    for spec in view["charts"]:
        for s in spec["series"]:
            width = 3 if spec["type"] == "gantt" else 2
            assert all(isinstance(p, list) and len(p) == width for p in s["points"])
            if "errors" in s:
                assert len(s["errors"]) == len(s["points"])
        svg_chart(spec)  # the SVG drawer takes every chart the reader gives


@settings(max_examples=400, deadline=None, derandomize=True)
@given(JSON)
def test_any_json_reads_to_the_documented_shape(doc):
    _check_shape(read_result(doc))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.dictionaries(st.sampled_from(["summary", "tables", "charts", "key"]), JSON))
def test_any_parts_read_to_the_documented_shape(doc):
    _check_shape(read_result({"kind": "k", **doc}))


def test_a_400_digit_integer_is_shown_truncated_and_listed():
    view = read_result({"summary": {"n": 10**400, "ok": 3}})
    assert view["summary"] == {"n": "10000000000000000000… (401 digits)", "ok": 3}
    assert view["unshown"] == ["summary.n: an integer too long to show in full"]
    assert view["tables"][-1]["rows"] == [["summary.n: an integer too long to show in full"]]


def test_ragged_rows_are_padded_and_said_so():
    view = read_result({"tables": [{"id": "t", "columns": ["a", "b"], "rows": [[1], [1, 2, 3]]}]})
    assert view["tables"][0]["rows"] == [[1, None], [1, 2]]
    assert "2 rows padded or cut to the columns" in view["unshown"][0]


def test_reading_is_linear():
    """Ten times the points take about ten times as long (not a hundred): per-point time of
    10^5 against 10^4 points stays within a factor 6: quadratic reading gives 10, and a loaded
    machine (the suite's four workers on two cores) gave 4.2 for linear reading."""

    def per_point(n: int) -> float:
        doc = {"charts": [{"id": "b", "type": "bar", "series": [
            {"name": "s", "points": [[f"c{i}", i] for i in range(n)]}]}]}  # fmt: skip
        t0 = time.perf_counter()
        view = read_result(doc)
        svg_chart(view["charts"][0])
        return (time.perf_counter() - t0) / n

    per_point(1000)  # warm
    small, big = min(per_point(10_000) for _ in range(3)), min(per_point(100_000) for _ in range(3))
    assert big < 6 * small, (small, big)
