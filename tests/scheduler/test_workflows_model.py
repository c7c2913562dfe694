"""The workflow DAG model, its metrics and HEFT ranks, on small DAGs worked by hand."""

from __future__ import annotations

import pytest

from scheduler.workflows import (
    Edge,
    NetworkModel,
    Task,
    Workflow,
    WorkflowError,
    average_parallelism,
    critical_path,
    critical_path_tasks,
    heft_rank,
    level_count,
    summarize,
    task_levels,
    tasks_per_level,
    total_runtime,
    upward_ranks,
    with_virtual_endpoints,
)

# The diamond used throughout, worked by hand:
#
#        A (10 s)
#      /100 B   \200 B
#   B (20 s)   C (30 s)
#      \50 B    /0 B
#        D (5 s)
#
# levels: A 1, B 2, C 2, D 3 → 3 levels; critical path A-C-D = 45 s; total 65 s;
# average parallelism 65 / 45.


def diamond(bd_data: int = 50, b_runtimes: dict[str, float] | None = None) -> Workflow:
    return Workflow(
        (
            Task("A", 10),
            Task("B", 20, runtimes=b_runtimes or {}),
            Task("C", 30, 4),
            Task("D", 5),
        ),
        (Edge("A", "B", 100), Edge("A", "C", 200), Edge("B", "D", bd_data), Edge("C", "D", 0)),
        "diamond",
    )


def errors_of(fn, *args, **kwargs) -> list[tuple[str, str]]:
    with pytest.raises(WorkflowError) as info:
        fn(*args, **kwargs)
    return info.value.errors


# ------------------------------------------------------------------------------------------
# model and validation
# ------------------------------------------------------------------------------------------


def test_indexes_and_topological_order():
    w = diamond()
    assert w.parents("D") == ("B", "C") and w.children("A") == ("B", "C")
    assert w.roots == ("A",) and w.sinks == ("D",)
    assert w.topological_order == ("A", "B", "C", "D")
    assert w.edge("A", "C").data == 200
    assert w.task("C").processors == 4 and w.task("C").name == "C"
    assert "B" in w and "Z" not in w and len(w) == 4


def test_topological_order_is_deterministic_and_respects_edges():
    # Kahn's algorithm taking the ready task listed first: c (ready), b, then d (now ready,
    # listed before a), a, e
    tasks = tuple(Task(t, 1) for t in "edcba")
    w = Workflow(tasks, (Edge("a", "e"), Edge("b", "d")))
    assert w.topological_order == ("c", "b", "d", "a", "e")


def test_cycle_names_a_task_on_it():
    tasks = (Task("x", 1), Task("a", 1), Task("b", 1), Task("c", 1))
    edges = (Edge("x", "a"), Edge("a", "b"), Edge("b", "c"), Edge("c", "a"))
    [(where, reason)] = errors_of(Workflow, tasks, edges)
    assert "cycle" in reason
    assert "'a' -> 'b' -> 'c' -> 'a'" in reason
    assert where == "task 'a'"


def test_cycle_location_uses_locate():
    tasks = (Task("a", 1), Task("b", 1))
    edges = (Edge("a", "b"), Edge("b", "a"))
    [(where, _)] = errors_of(Workflow, tasks, edges, locate=lambda t: f"line 7 ({t})")
    assert where == "line 7 (a)"


def test_unknown_ids_duplicates_self_loops_and_empty():
    errors = errors_of(
        Workflow,
        (Task("a", 1), Task("a", 2), Task("b", 1)),
        (Edge("a", "zz"), Edge("b", "b"), Edge("a", "b"), Edge("a", "b")),
    )
    text = "\n".join(f"{w}: {r}" for w, r in errors)
    assert "task 'a': duplicate task id 'a'" in text
    assert "edge 'a' -> 'zz': unknown task id 'zz'" in text
    assert "edge 'b' -> 'b': a task cannot depend on itself" in text
    assert "edge 'a' -> 'b': duplicate edge" in text
    assert errors_of(Workflow, (), ()) == [("workflow", "the workflow has no tasks")]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"runtime": -1}, "runtime must be >= 0"),
        ({"runtime": "ten"}, "runtime must be a number"),
        ({"runtime": float("inf")}, "must be finite"),
        ({"runtime": True}, "runtime must be a number"),
        ({"runtime": 1, "processors": 0}, "processors must be >= 1"),
        ({"runtime": 1, "processors": 2.5}, "processors must be an integer"),
        ({"runtime": 1, "runtimes": {"ctc": -3}}, "runtime on site 'ctc' must be >= 0"),
    ],
)
def test_task_validation(kwargs, message):
    [(where, reason)] = errors_of(Task, "t1", **kwargs)
    assert where == "task 't1'" and message in reason


def test_edge_data_validation():
    [(where, reason)] = errors_of(Edge, "a", "b", -5)
    assert where == "edge 'a' -> 'b'" and "data size must be >= 0" in reason
    assert Edge("a", "b", 10.6).data == 11


def test_per_site_runtimes():
    t = Task("t", 100, runtimes={"sdsc": 300, "ctc": 100})
    assert t.runtimes == (("ctc", 100.0), ("sdsc", 300.0))
    assert t.runtime_on("sdsc") == 300 and t.runtime_on("elsewhere") == 100
    assert t.mean_runtime == 200
    assert hash(t) == hash(Task("t", 100, runtimes={"ctc": 100, "sdsc": 300}))


def test_virtual_endpoints_only_when_needed():
    w = diamond()
    assert with_virtual_endpoints(w) is w
    forced = with_virtual_endpoints(w, always=True)
    assert forced.roots == ("__entry__",) and forced.sinks == ("__exit__",)
    wide = Workflow((Task("a", 1), Task("b", 2), Task("__entry__", 3)), (Edge("a", "b"),))
    added = with_virtual_endpoints(wide)
    entry = added.roots[0]
    assert entry == "__entry__2" and added.task(entry).virtual
    assert set(added.children(entry)) == {"a", "__entry__"}
    assert added.sinks == ("__exit__",)
    assert set(added.parents("__exit__")) == {"b", "__entry__"}
    # the virtual tasks change no metric
    for fn in (critical_path, level_count, total_runtime):
        assert fn(added) == fn(wide)
    assert summarize(added)["tasks"] == 3 and summarize(added)["edges"] == 1


# ------------------------------------------------------------------------------------------
# metrics (hand-worked on the diamond)
# ------------------------------------------------------------------------------------------


def test_levels_critical_path_parallelism_by_hand():
    w = diamond()
    assert task_levels(w) == {"A": 1, "B": 2, "C": 2, "D": 3}
    assert level_count(w) == 3 and tasks_per_level(w) == [1, 2, 1]
    assert critical_path(w) == 45
    assert critical_path_tasks(w) == ["A", "C", "D"]
    assert total_runtime(w) == 65
    assert average_parallelism(w) == pytest.approx(65 / 45)
    s = summarize(w)
    assert list(s)[:5] == ["tasks", "edges", "levels", "critical_path", "average_parallelism"]
    assert (s["tasks"], s["edges"], s["levels"], s["critical_path"]) == (4, 4, 3, 45)
    assert s["max_parallelism"] == 2 and s["total_data"] == 350 and s["max_processors"] == 4


def test_levels_count_tasks_not_runtime():
    # a long single task beside a chain of three short ones: 3 levels, critical path 100 s
    w = Workflow(
        (Task("long", 100), Task("s1", 1), Task("s2", 1), Task("s3", 1)),
        (Edge("s1", "s2"), Edge("s2", "s3")),
    )
    assert level_count(w) == 3 and critical_path(w) == 100
    assert tasks_per_level(w) == [2, 1, 1]


def test_zero_runtime_parallelism_is_none():
    w = Workflow((Task("a", 0), Task("b", 0)), (Edge("a", "b"),))
    assert average_parallelism(w) is None and summarize(w)["average_parallelism"] is None


# ------------------------------------------------------------------------------------------
# HEFT upward rank (thesis eq. 7), hand-worked
# ------------------------------------------------------------------------------------------


def test_heft_without_network():
    # rank D = 5; B = 20 + 5 = 25; C = 30 + 5 = 35; A = 10 + max(25, 35) = 45
    r = heft_rank(diamond())
    assert r.ranks == {"A": 45, "B": 25, "C": 35, "D": 5}
    assert r.order == ("A", "C", "B", "D")


def test_heft_with_network_changes_the_order():
    # 10 bytes/s, latency 1 s: c = 1 + bytes / 10
    # c_AB = 11, c_AC = 21, c_BD = 1 + 200/10 = 21, c_CD = 1
    # D = 5; B = 20 + 21 + 5 = 46; C = 30 + 1 + 5 = 36; A = 10 + max(11 + 46, 21 + 36) = 67
    net = NetworkModel(bandwidth=10, latency=1)
    r = heft_rank(diamond(bd_data=200), network=net)
    assert r.ranks == {"A": 67, "B": 46, "C": 36, "D": 5}
    assert r.order == ("A", "B", "C", "D")
    assert upward_ranks(diamond(bd_data=200), network=net) == r.ranks


def test_heft_mean_runtime_over_sites():
    # B takes 10 s on x and 30 s on y: w_B = 20 (same ranks as without sites)
    w = diamond(b_runtimes={"x": 10, "y": 30})
    assert heft_rank(w).ranks["B"] == 25
    # over sites x and y: A, C, D run their runtime everywhere
    assert upward_ranks(w, sites=["x", "y"])["B"] == 25
    # over site x alone: w_B = 10 → rank B = 15
    assert upward_ranks(w, sites=["x"])["B"] == 15


def test_heft_ties_by_id_and_parents_first():
    w = Workflow((Task("b", 7), Task("a", 7), Task("c", 7)), ())
    assert heft_rank(w).order == ("a", "b", "c")
    # zero runtimes: parent "z" and child "a" have equal ranks; the parent still comes first
    w = Workflow((Task("z", 0), Task("a", 0), Task("m", 0)), (Edge("z", "a"),))
    order = heft_rank(w).order
    assert order == ("m", "z", "a")


def test_network_model_validation():
    assert NetworkModel(1.25e9, 150).transfer_time(125e9) == pytest.approx(250)
    with pytest.raises(ValueError, match="bandwidth"):
        NetworkModel(0)
    with pytest.raises(ValueError, match="latency"):
        NetworkModel(1, -1)
