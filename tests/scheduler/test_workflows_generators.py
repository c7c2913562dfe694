"""Workflow generators (layered, CyberShake, Montage) and seed 003's clusterings."""

from __future__ import annotations

import pytest

from scheduler.workflows import (
    CYBERSHAKE_MODULES,
    Edge,
    Task,
    Workflow,
    cluster_fixed_clusters,
    cluster_fixed_size,
    critical_path,
    dumps_native,
    generate_cybershake,
    generate_layered,
    generate_montage,
    summarize,
    task_levels,
    tasks_per_level,
    total_runtime,
    with_virtual_endpoints,
)

# ------------------------------------------------------------------------------------------
# layered (thesis §4.7)
# ------------------------------------------------------------------------------------------


def test_layered_defaults_are_the_thesis_setup():
    w = generate_layered(seed=11)
    s = summarize(w)
    assert s["tasks"] == 100 and s["levels"] == 10
    assert all(n >= 1 for n in s["tasks_per_level"])
    # means: runtime U[500, 1500], processors U{1..43}: loose bounds over 100 draws
    assert 850 <= s["total_runtime"] / 100 <= 1150
    procs = [t.processors for t in w.tasks]
    assert 17 <= sum(procs) / 100 <= 27 and max(procs) <= 43 and min(procs) >= 1
    assert all(500 <= t.runtime <= 1500 and t.runtime == int(t.runtime) for t in w.tasks)


@pytest.mark.parametrize(("tasks", "levels"), [(100, 10), (400, 20), (7, 7), (5, 1), (50, 3)])
def test_layered_has_the_requested_levels(tasks, levels):
    for seed in range(3):
        w = generate_layered(tasks, levels, seed=seed)
        assert summarize(w)["tasks"] == tasks
        assert len(tasks_per_level(w)) == levels
        # every edge goes from one level to the next
        lv = task_levels(w)
        assert all(lv[e.child] == lv[e.parent] + 1 for e in w.edges)


def test_layered_is_deterministic_and_seeded():
    a = generate_layered(120, 8, mean_data=5e6, seed=4)
    b = generate_layered(120, 8, mean_data=5e6, seed=4)
    assert a == b and dumps_native(a) == dumps_native(b)
    assert generate_layered(120, 8, seed=5) != generate_layered(120, 8, seed=4)


def test_layered_parents_processors_and_data():
    w = generate_layered(300, 6, parents_per_task=1, max_processors=8, mean_data=1000, seed=2)
    lv = task_levels(w)
    assert all(len(w.parents(t.id)) == 1 for t in w.tasks if lv[t.id] > 1)
    assert max(t.processors for t in w.tasks) <= 8
    assert all(0 <= e.data <= 2000 for e in w.edges) and any(e.data for e in w.edges)
    assert not any(e.data for e in generate_layered(50, 5, seed=2).edges)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"tasks": 0},
        {"tasks": 5, "levels": 6},
        {"mean_runtime": 0},
        {"mean_processors": 0.5},
        {"parents_per_task": 0},
        {"mean_data": -1},
        {"max_processors": 0},
    ],
)
def test_layered_rejects_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        generate_layered(**kwargs)


# ------------------------------------------------------------------------------------------
# CyberShake (thesis §4.8)
# ------------------------------------------------------------------------------------------


def test_cybershake_defaults():
    w = generate_cybershake()
    s = summarize(w)
    assert s["tasks"] == 8039 and s["levels"] == 5
    assert s["tasks_per_level"] == [1, 2, 2, 4017, 4017]
    per_module: dict[str, list[Task]] = {}
    for t in w.tasks:
        per_module.setdefault(t.module, []).append(t)
    for module, (runtime, procs) in CYBERSHAKE_MODULES.items():
        group = per_module[module]
        assert len(group) == (4017 if module in ("synthSGT", "peakValCal") else 1)
        assert all(t.runtime == runtime and t.processors == procs for t in group)
    # critical path fd_grid_xyz → fd_grid_cvm → pmvl_chk → synthSGT → peakValCal
    assert critical_path(w) == 1 + 2100 + 86400 + 519 + 1
    assert w.parents("synthSGT_0001") == ("pmvl_chk1", "pmvl_chk2")
    assert w.children("synthSGT_4017") == ("peakValCal_4017",)
    assert s["edges"] == 6 + 3 * 4017


def test_cybershake_pairs_and_jitter():
    w = generate_cybershake(10)
    assert summarize(w)["tasks"] == 25 and summarize(w)["levels"] == 5
    a = generate_cybershake(10, runtime_jitter=0.2, seed=1, edge_data=99)
    assert a == generate_cybershake(10, runtime_jitter=0.2, seed=1, edge_data=99)
    assert a != generate_cybershake(10, runtime_jitter=0.2, seed=2, edge_data=99)
    synth = [t.runtime for t in a.tasks if t.module == "synthSGT"]
    assert all(519 * 0.8 <= r <= 519 * 1.2 for r in synth) and len(set(synth)) > 1
    assert {e.data for e in a.edges} == {99}
    with pytest.raises(ValueError):
        generate_cybershake(0)


# ------------------------------------------------------------------------------------------
# Montage-like (seed 003 §4.1)
# ------------------------------------------------------------------------------------------


def test_montage_levels_and_structure():
    w = generate_montage(16)
    s = summarize(w)
    assert s["levels"] == 7
    # 4×4 grid: 12 horizontal + 12 vertical + 18 diagonal overlaps = 42 mDiffFit
    assert s["tasks_per_level"] == [16, 42, 1, 1, 16, 1, 1]
    assert s["roots"] == 16 and s["sinks"] == 1
    assert all(len(w.parents(t.id)) == 2 for t in w.tasks if t.module == "mDiffFit")
    assert set(w.parents("mBackground_05")) == {"mBgModel", "mProjectPP_05"}
    assert w.edge("mProjectPP_00", "mDiffFit_00").data == 8_326_281
    nine = generate_montage(16, jpeg=True)
    assert summarize(nine)["levels"] == 9 and nine.sinks == ("mJPEG",)


def test_montage_deterministic_and_jitter():
    assert generate_montage(30, runtime_jitter=0.1, seed=3) == generate_montage(
        30, runtime_jitter=0.1, seed=3
    )
    assert generate_montage(30, runtime_jitter=0.1, seed=3) != generate_montage(
        30, runtime_jitter=0.1, seed=4
    )
    plain = generate_montage(30)
    assert {t.runtime for t in plain.tasks if t.module == "mProjectPP"} == {13.58}


# ------------------------------------------------------------------------------------------
# clustering (seed 003 §4.2, §4.3)
# ------------------------------------------------------------------------------------------


def check_clustering(original: Workflow, clustered: Workflow) -> None:
    """Invariants: total runtime kept, acyclic (construction), same levels, data conserved."""
    assert total_runtime(clustered) == pytest.approx(total_runtime(original))
    assert summarize(clustered)["levels"] == summarize(original)["levels"]
    assert sum(e.data for e in clustered.edges) == sum(e.data for e in original.edges)
    assert critical_path(clustered) >= critical_path(original) - 1e-9


@pytest.mark.parametrize("k", [1, 2, 4, 8, 64, 512])
def test_fixed_clusters_per_level(k):
    w = generate_montage(40)
    c = cluster_fixed_clusters(w, k)
    check_clustering(w, c)
    per_level = tasks_per_level(w)
    assert tasks_per_level(c) == [min(n, k) for n in per_level]
    # the clustering parameter is the maximum parallelism (seed 003 §4.2)
    assert summarize(c)["max_parallelism"] == min(k, max(per_level))


@pytest.mark.parametrize("m", [1, 2, 3, 16, 4096])
def test_fixed_tasks_per_cluster(m):
    w = generate_layered(150, 5, mean_data=100, seed=9)
    c = cluster_fixed_size(w, m)
    check_clustering(w, c)
    assert tasks_per_level(c) == [-(-n // m) for n in tasks_per_level(w)]
    if m == 1:
        assert c == w


def test_clustering_by_hand():
    # level 1: a (1 s), b (2 s), c (4 s); level 2: d (8 s) with parents a, b, c
    w = Workflow(
        (Task("a", 1), Task("b", 2, 3), Task("c", 4), Task("d", 8)),
        (Edge("a", "d", 10), Edge("b", "d", 20), Edge("c", "d", 40)),
    )
    c = cluster_fixed_size(w, 2)  # level 1 → {a, b}, {c}
    assert [t.id for t in c.tasks] == ["L1_c0", "c", "d"]
    merged = c.task("L1_c0")
    assert (merged.runtime, merged.processors) == (3, 3)
    assert c.edges == (Edge("L1_c0", "d", 30), Edge("c", "d", 40))
    c2 = cluster_fixed_clusters(w, 2)  # level 1 → {a, b}, {c} as well (3 over 2: 2 + 1)
    assert c2 == c
    one = cluster_fixed_clusters(w, 1)
    assert [t.runtime for t in one.tasks] == [7, 8] and one.edges == (Edge("L1_c0", "d", 70),)


def test_clustering_keeps_virtual_tasks_and_site_runtimes():
    w = Workflow(
        (Task("a", 1, runtimes={"x": 2}), Task("b", 3), Task("z", 1)),
        (Edge("a", "z"), Edge("b", "z")),
    )
    v = with_virtual_endpoints(w, always=True)
    c = cluster_fixed_clusters(v, 1)
    assert [t.id for t in c.tasks] == ["__entry__", "L1_c0", "z", "__exit__"]
    assert c.task("L1_c0").runtime_on("x") == 2 + 3 and c.task("L1_c0").runtime == 4


def test_clustering_rejects_bad_parameters():
    w = generate_layered(10, 2, seed=0)
    with pytest.raises(ValueError):
        cluster_fixed_clusters(w, 0)
    with pytest.raises(ValueError):
        cluster_fixed_size(w, 0)


# Seed 003's own Montage (§4.1, Tables 1–2)

SEED003_TABLE1_TASKS = {1: 7, 2: 12, 4: 22, 8: 42, 16: 82, 32: 162, 48: 242, 56: 282, 64: 322,
                        128: 606, 256: 990, 512: 1758}  # fmt: skip
SEED003_TABLE2_TASKS = {2: 8518, 4: 4261, 8: 2132, 16: 1068, 32: 537, 64: 270, 128: 137,
                        256: 72, 512: 38, 1024: 22, 2048: 13, 4096: 9}  # fmt: skip
SEED003_TABLE1_AP = {2: 1.97, 8: 7.42, 32: 23.69, 128: 54.23, 512: 77.34}
SEED003_TABLE2_AP = {2: 79.2, 8: 54.5, 32: 26.3, 128: 9.69, 512: 5.47, 4096: 1.25}


@pytest.fixture(scope="module")
def m16():
    from scheduler.workflows.gen_montage import generate_montage_seed003

    return generate_montage_seed003()


def test_seed003_montage_structure(m16):
    # "17034 tasks … average runtime is 3.1 seconds. The average parallelism is 89 and the
    # ratio of maximum to average parallelism is 113"; "All the graphs … have 7 levels".
    s = summarize(m16)
    assert s["tasks"] == 17034
    assert s["levels"] == 7
    assert s["average_parallelism"] == pytest.approx(89, rel=0.006)
    assert s["max_parallelism"] / s["average_parallelism"] == pytest.approx(113, rel=0.006)
    assert s["total_runtime"] / s["tasks"] == pytest.approx(3.1, abs=0.05)
    assert s["max_processors"] == 1


def test_seed003_montage_clusterings_match_tables_1_and_2(m16):
    # Task counts of every clustering are exact; average parallelism within 8 % (the per-level
    # runtimes are a fit: the seed does not give them).
    for k, n in SEED003_TABLE1_TASKS.items():
        assert summarize(cluster_fixed_clusters(m16, k))["tasks"] == n, k
    for m, n in SEED003_TABLE2_TASKS.items():
        assert summarize(cluster_fixed_size(m16, m))["tasks"] == n, m
    for k, ap in SEED003_TABLE1_AP.items():
        got = summarize(cluster_fixed_clusters(m16, k))["average_parallelism"]
        assert got == pytest.approx(ap, rel=0.02), k
    for m, ap in SEED003_TABLE2_AP.items():
        got = summarize(cluster_fixed_size(m16, m))["average_parallelism"]
        assert got == pytest.approx(ap, rel=0.08), m


def test_seed003_montage_is_deterministic_and_jitter_is_seeded():
    from scheduler.workflows.gen_montage import generate_montage_seed003

    a = generate_montage_seed003(runtime_jitter=0.2, seed=1)
    assert a == generate_montage_seed003(runtime_jitter=0.2, seed=1)
    assert a != generate_montage_seed003(runtime_jitter=0.2, seed=2)
    with pytest.raises(ValueError, match="runtime_jitter"):
        generate_montage_seed003(runtime_jitter=1.5)
