"""One finished run of every experiment kind (and a finished sweep), run in-process through the
real services on small inputs: the fixtures of the layout tests and of the screenshot script;
and the browser tests' page helpers (log in, wait until a result is drawn, overflow, one URL per
page).

Each kind runs with small parameters so that the whole set takes well under a minute.
"""

from __future__ import annotations

import time

import pytest
from django.core.files.base import ContentFile

from gridportal.experiments.models import Experiment
from gridportal.experiments.services import RunInputs, experiment_execute, experiment_new
from gridportal.experiments.sweeps import sweep_create
from gridportal.inputs.services import trace_create, workflow_generate
from tests.conftest import make_swf_bytes

#: kind -> (params, which inputs: "trace", "workflow", "slurm-site")
SMALL: dict[str, tuple[dict, tuple[str, ...]]] = {
    "trace-stats": ({}, ("trace",)),
    "cluster-sim": ({"procs": 64}, ("trace",)),
    "pricing": ({"procs": 64}, ("trace",)),
    "virtual-reservations": ({}, ("trace",)),
    "slot-advertisement": ({}, ("trace",)),
    "provisioning": ({"submissions": 3}, ("trace", "workflow")),
    "greedy-provisioning": ({"submissions": 3}, ("trace", "workflow")),
    "provisioning-impact": (
        {"montage_images": 40, "policies": "fcfs,fairshare", "days": 2.0, "submit_hour": 24.0},
        ("trace",),
    ),
    "malleability": ({"jobs": 40}, ()),
    "usage-policy": ({}, ()),
    "coallocation": ({}, ()),
    "slurm-whatif": ({"overrides": "PriorityWeightFairshare=0 Fairshare:biology=70"},
                     ("slurm-site",)),
}  # fmt: skip


def fixture_slurm_site(owner):
    """The Slurm site of the what-if fixtures (tests/slurm/sites.py), stored once per owner."""
    from gridportal.inputs.models import SlurmSite
    from tests.portal.factories import stored_slurm_site

    return SlurmSite.objects.filter(owner=owner).first() or stored_slurm_site(owner)


def fixture_inputs(owner):
    trace = trace_create(
        owner=owner,
        name="fixture trace (600 jobs, 64 processors)",
        upload=ContentFile(make_swf_bytes(600, 64, 5), name="fixture.swf"),
    )
    workflow = workflow_generate(
        owner=owner,
        model="layered",
        name="fixture workflow (30 tasks)",
        params={"tasks": 30, "levels": 5, "seed": 1},
    )
    return trace, workflow


def run_kind(owner, kind: str, trace, workflow, params=None, verbose=False) -> Experiment:
    base, needs = SMALL[kind]
    inputs = RunInputs.of(
        traces=[trace] if "trace" in needs else [],
        workflows=[workflow] if "workflow" in needs else [],
        slurm_sites=[fixture_slurm_site(owner)] if "slurm-site" in needs else [],
    )
    exp = experiment_new(
        owner=owner, kind=kind, params=params or base, inputs=inputs, name=f"fixture {kind}"
    )
    t0 = time.time()
    experiment_execute(experiment_id=exp.pk)
    exp.refresh_from_db()
    assert exp.status == Experiment.Status.SUCCEEDED, f"fixture {kind}: {exp.error}"
    if verbose:
        print(f"{kind}: {exp.status} in {time.time() - t0:.1f} s {exp.error[:200]}")
    return exp


def finish_sweep(sweep):
    """Run a sweep's runs in-process (no worker)."""
    for point in sweep.points.select_related("experiment"):
        if not point.experiment.is_finished:
            experiment_execute(experiment_id=point.experiment.pk)
    return sweep


def policy_sweep(owner, trace):
    """A cluster-sim sweep over the machine size (3 points, 6 series per run: 18 lines on the
    compare page of its runs) — the shape of the sweep and compare pages users found hard to
    read: many metrics, series that coincide (EASY and conservative), waits that span orders
    of magnitude."""
    return finish_sweep(
        sweep_create(
            owner=owner,
            kind="cluster-sim",
            params={"policies": "fcfs, easy, conservative"},
            traces=[trace],
            vary=[{"param": "procs", "values": [48, 64, 96]}],
            repetitions=1,
            name="fixture policy sweep",
        )
    )


def all_fixtures(owner, verbose=False) -> dict:
    """{"trace", "workflow", "runs": {kind: Experiment}, "sweep": Sweep}"""
    trace, workflow = fixture_inputs(owner)
    runs = {k: run_kind(owner, k, trace, workflow, verbose=verbose) for k in SMALL}
    sweep = sweep_create(
        owner=owner,
        kind="trace-stats",
        params={},
        traces=[trace],
        vary=[{"param": "procs", "values": [32, 64, 128]}],
        repetitions=2,
        name="fixture sweep",
    )
    finish_sweep(sweep)
    return {
        "trace": trace, "workflow": workflow, "runs": runs, "sweep": sweep,
        "slurm_site": fixture_slurm_site(owner),
    }  # fmt: skip


#: URL names that are not pages a person reads (downloads, POST-only actions, the admin and
#: the API, which have their own layouts).
NOT_PAGES = {
    "trace-download",
    "workflow-download",
    "experiment-cancel",
    "experiment-delete",
    "sweep-cancel",
    "sweep-delete",
    "logout",
    "reproduction-run",
    "sacct-import-dismiss",
    "policyfile-delete",
}


def login(page, url, username="alice"):
    page.goto(f"{url}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-Secret-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/")


def overflow(page) -> int:
    """How many px the page is wider than the window (0: no horizontal scrolling)."""
    return page.evaluate(
        "() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)"
        " - window.innerWidth"
    )


def wait_drawn(page):
    if page.locator("#run-status, #sweep-status, #compare-data").count():
        page.wait_for_selector("body[data-result-drawn=true]", timeout=30_000)


def page_urls(made) -> list[str]:
    """One URL per web URL pattern (every kind for the run page and the form)."""
    runs = made["runs"]
    first = runs["trace-stats"]
    second, third = list(made["sweep"].runs.order_by("id"))[:2]
    ids = {
        "trace-detail": made["trace"].pk,
        "workflow-detail": made["workflow"].pk,
        "sweep-detail": made["sweep"].pk,
        "site-detail": made["site"].pk,
        "topology-detail": made["topology"].pk,
        "policyfile-detail": made["policy"].pk,
        "slurm-site-detail": made["slurm_site"].pk,
    }
    urls = []
    from gridportal.web.urls import urlpatterns

    names = [p.name for p in urlpatterns if p.name and p.name not in NOT_PAGES]
    for name in sorted(set(names)):
        if name == "experiment-detail":
            urls += [f"/experiments/{e.pk}/" for e in runs.values()]
        elif name == "experiment-new":
            urls += [f"/experiments/new/?kind={k}" for k in runs]
        elif name == "experiment-compare":
            urls.append(f"/experiments/compare/?ids={second.pk}&ids={third.pk}")
        elif name in ids:
            from django.urls import reverse

            urls.append(reverse(name, args=[ids[name]]))
        else:
            from django.urls import NoReverseMatch, reverse

            args = []
            if name.startswith("experiment-"):
                args = [first.pk]
            elif name.startswith("sweep-"):
                args = [made["sweep"].pk]
            for attempt in ([], args):
                try:
                    urls.append(reverse(name, args=attempt))
                    break
                except NoReverseMatch:
                    continue
            else:
                pytest.fail(f"test_layout does not know how to open URL {name!r}: add it")
    return urls
