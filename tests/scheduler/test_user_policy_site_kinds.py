"""A user's policy as a site's policy (pricing, virtual reservations): no quote kernel runs
it, so each price re-plays the queue under the policy itself on the reference event loop
(Figure 22 literally).  A user policy that is EASY backfilling written as a priority (first
come first served, one reservation) must then quote exactly what EASY's kernel quotes."""

from __future__ import annotations

import pytest

from scheduler.cluster import Simulator, prepare_jobs, registry
from scheduler.experiments import ParamError, get_kind, run_experiment
from scheduler.pricing.plan import plannable
from scheduler.pricing.price import SiteQuote
from scheduler.traces.lublin import generate_lublin99

REF = "user:0123456789ab"

FIRST_COME = '''from scheduler.policies import PriorityPolicy


class FirstCome(PriorityPolicy):
    """First come first served, EASY backfilling."""

    reservations = 1

    def priority(self, job, now):
        return -job.index
'''


@pytest.fixture
def first_come(tmp_path, monkeypatch):
    """The policy runnable in this process, as the sandboxed child makes it (only there)."""
    path = tmp_path / "first_come.py"
    path.write_text(FIRST_COME)
    monkeypatch.setitem(registry._USER_POLICIES, REF, f"{path}:FirstCome")
    return REF


def test_outside_the_sandbox_a_user_policy_is_not_plannable():
    assert not plannable(REF)  # the web process never runs it, not even to quote


def test_its_quotes_are_easys_kernel_quotes(first_come):
    trace = generate_lublin99(jobs=300, procs=64, seed=3)
    jobs, _ = prepare_jobs(trace.jobs, 64, "requested")
    sim = Simulator(jobs, 64, "easy", origin=jobs[0].submit)
    compared = 0
    for t in range(jobs[0].submit + 3600, jobs[-1].submit, 7 * 3600):
        sim.run(until=t)
        kernel = SiteQuote.of(sim, t)
        mine = SiteQuote(kernel.base, kernel.shapes, t, first_come)
        assert mine.starts == kernel.starts
        for n, d in ((8, 3600), (32, 7200)):
            got = [(o.start, o.delay) for o in mine.options(n, d)]
            assert got == [(o.start, o.delay) for o in kernel.options(n, d)], (t, n, d)
            compared += sum(delay > 0 for _, delay in got)
    assert compared > 10  # slots that do move queued jobs, not only free holes


def test_virtual_reservations_under_it_are_easys(first_come):
    trace = generate_lublin99(jobs=400, procs=64, seed=3)
    params = {"procs": 64, "days": 2, "warmup_days": 0}
    runs = [
        run_experiment(
            "virtual-reservations",
            {**params, "policy": p},
            {"traces": [trace]},
            seed=0,
            progress=lambda f, m: None,
        )
        for p in (first_come, "easy")
    ]
    assert runs[0]["summary"] == runs[1]["summary"]
    assert runs[0]["summary"]["cases"] == 24


def test_a_pricing_run_takes_it(first_come):
    trace = generate_lublin99(jobs=200, procs=64, seed=3)
    params = {"procs": 64, "policy": first_come, "alphas": "0.5"}
    result = run_experiment("pricing", params, {"traces": [trace]}, seed=0)
    assert result["params"]["policy"] == first_come
    assert result["summary"]["reservations"] == 20


@pytest.mark.parametrize("kind", ["pricing", "virtual-reservations"])
def test_the_site_policy_takes_a_user_name_and_refuses_others(kind):
    spec = get_kind(kind)
    assert spec.validate({"policy": REF})["policy"] == REF  # its owner: the portal's check
    for bad in ("user:0123", "user:0123456789AB", "mine.py:SJF", "fairshare"):
        with pytest.raises(ParamError) as err:
            spec.validate({"policy": bad})
        assert "policy" in err.value.errors
    param = next(p for p in spec.params if p.name == "policy")
    assert param.as_json()["user_policy"] is True
    assert "reference event loop" in param.help and "no compiled quote kernel" in param.help


#: FIFO: strict order by submit time (ties: queue order); a job the kind submits into the
#: running site (a workflow task, a pilot job) has an ``index`` after every trace job's, even
#: those submitted later, so an order by ``index`` would not be FIFO there
STRICT = FIRST_COME.replace("reservations = 1", "backfill = False").replace(
    "-job.index", "-job.submit"
)


def test_provisioning_impact_under_fifo_written_as_a_priority_is_fifo(tmp_path, monkeypatch):
    """Singh, Kesselman & Deelman 2005's FIFO site, as the seed's policy and as a user's:
    every completion time, request and utilization the same; only the policy's name differs."""
    path = tmp_path / "strict.py"
    path.write_text(STRICT)
    monkeypatch.setitem(registry._USER_POLICIES, REF, f"{path}:FirstCome")
    trace = generate_lublin99(jobs=400, procs=64, seed=3)
    params = {
        "procs": 64, "scale_jobs": False, "days": 11, "submit_hour": 100, "montage_images": 12,
        "runtime_scale": 20.0, "clusters_per_level": "1,4", "tasks_per_cluster": "2,8",
        "n_max": 16, "xs": "0,2", "policies": f"fcfs, {REF}",
    }  # fmt: skip
    result = run_experiment("provisioning-impact", params, {"traces": [trace]}, seed=3)
    rows = next(t for t in result["tables"] if t["id"] == "completion")["rows"]
    fifo = [r[1:] for r in rows if r[0] == "FIFO"]
    mine = [r[1:] for r in rows if r[0] == f"FirstCome ({REF})"]
    assert fifo == mine and len(fifo) == 5
    summary = result["summary"]
    assert summary["user_0123456789ab_dp_min"] == summary["fcfs_dp_min"]
    assert {"figure7-user-0123456789ab", "figure8-user-0123456789ab"} <= {
        c["id"] for c in result["charts"]
    }
