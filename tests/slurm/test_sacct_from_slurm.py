"""What a real Slurm (22.05, :mod:`tests.slurm.cluster`) writes, read by the sacct conversion:
the same dumps give the same SWF in the command line and the portal's upload, whatever the
column order, with or without a header, ``--format=ALL`` with a ``|`` in a job name and a
``--wrap`` over two lines; a cut-off last row is refused (strict) or skipped (lenient) naming
its line; a job wider than ``--procs`` is named."""

from __future__ import annotations

import gzip
import json
import time
from datetime import UTC, datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from gridportal.inputs.models import Trace
from scheduler.traces.sacct import XDMOD_COLUMNS, SacctError, convert_sacct
from scheduler.traces.swf import read_swf
from tests.conftest import scheduler_cli

#: a fixed shuffle of XDMoD's columns (JobName in the middle), and the order reversed
SHUFFLED = (
    "State", "Submit", "JobName", "NCPUS", "End", "User", "Timelimit", "JobID", "Start",
    "Partition", "QOS", "Account", "ReqCPUS", "Group", "GID", "UID", "Cluster", "JobIDRaw",
    "Eligible", "Elapsed", "ExitCode", "NNodes", "ReqMem", "ReqTRES", "AllocTRES", "NodeList",
)  # fmt: skip
assert sorted(SHUFFLED) == sorted(XDMOD_COLUMNS)


@pytest.fixture(scope="module")
def workload(slurm_cluster):
    """A small workload on the test cluster, run to the end: the job ids by what they show."""
    c = slurm_cluster
    jobs = {
        "four_cpus": c.sbatch("--cpus-per-task=4", "--time=5", wrap="sleep 2"),
        "pipe_name": c.sbatch("--ntasks=2", "--job-name=a|b", "--time=1-00:00:00", wrap="sleep 1"),
        "eight_cpus": c.sbatch("--cpus-per-task=8", "--time=10:00", wrap="sleep 1"),
        "two_lines": c.sbatch("--time=2", wrap="sleep 1\nsleep 1"),
        "array": c.sbatch("--array=1-3", "--cpus-per-task=2", "--time=3", wrap="sleep 1"),
        "cancelled": c.sbatch("--time=60", wrap="sleep 300"),
        "never_started": c.sbatch("--begin=now+1hour", wrap="sleep 1"),
    }
    c.wait_running(jobs["cancelled"])
    c.scancel(jobs["cancelled"], jobs["never_started"])
    c.wait_idle(jobs=len(jobs) + 2)  # the array is three allocations
    # every allocation listed by its own id (an array's tasks reach accounting one by one)
    wanted = {str(j) for k, j in jobs.items() if k != "array"}
    wanted |= {f"{jobs['array']}_{task}" for task in (1, 2, 3)}
    deadline = time.monotonic() + 30
    while True:
        listed = c.run(
            "sacct", "-a", "-X", "-n", "-P", "--starttime=1970-01-01", "--endtime=now+1days",
            "-o", "JobID",
        ).stdout.split()  # fmt: skip
        if wanted <= set(listed) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert wanted <= set(listed), f"accounting lists {sorted(listed)}, not {sorted(wanted)}"
    return jobs


def _dumps(c) -> dict[str, tuple[str, str | None]]:
    """Dumps of the same jobs: name → (text, the --format list a headerless one needs)."""
    xdmod = ",".join(XDMOD_COLUMNS)
    shuffled = ",".join(SHUFFLED)
    reverse = ",".join(reversed(XDMOD_COLUMNS))
    return {
        "xdmod-order": (c.sacct_dump(xdmod), None),
        "shuffled": (c.sacct_dump(shuffled), None),
        "reversed-parsable": (c.sacct_dump(reverse, parsable="--parsable"), None),
        "noheader-xdmod": (c.sacct_dump(xdmod, header=False), None),
        "noheader-shuffled": (c.sacct_dump(shuffled, header=False), shuffled.lower()),
        "all": (c.sacct_dump("ALL"), None),
    }


@pytest.fixture(scope="module")
def dumps(slurm_cluster, workload, tmp_path_factory):
    folder = tmp_path_factory.mktemp("dumps")
    out = {}
    for name, (text, columns) in _dumps(slurm_cluster).items():
        path = folder / f"{name}.sacct"
        path.write_text(text)
        out[name] = (path, columns)
    gz = folder / "all.sacct.gz"
    gz.write_bytes(gzip.compress(out["all"][0].read_bytes(), mtime=0))
    out["all-gz"] = (gz, None)
    return out


def _cli(path, *options) -> tuple[str, dict]:
    out = path.with_suffix(".cli.swf")
    done = scheduler_cli("convert", "sacct", str(path), "-o", str(out), *options)
    assert done.returncode == 0, done.stderr
    return out.read_text(), json.loads(done.stdout)


def _upload(user, path, **fields):
    api = APIClient()
    api.force_authenticate(user)
    body = {"name": path.name, "file": SimpleUploadedFile(path.name, path.read_bytes())}
    return api.post("/api/traces/", {**body, **fields})


def test_the_dumps_are_what_slurm_writes(dumps):
    """The shapes the conversion must cope with are really there (else the test proves
    nothing): a '|' in a row of every dump, ALL's 109 columns and a row over two lines."""
    text = dumps["all"][0].read_text()
    header = text.splitlines()[0].split("|")
    assert len(header) == 109 and "SubmitLine" in header
    widths = [ln.count("|") + 1 for ln in text.splitlines()[1:]]
    assert any(w > 109 for w in widths) and any(w < 109 for w in widths)
    assert "|a|b|" in dumps["noheader-xdmod"][0].read_text() or "a|b\n" in (
        dumps["noheader-xdmod"][0].read_text()
    )


@pytest.mark.django_db
def test_every_dump_gives_the_same_swf_in_the_cli_and_the_portal(dumps, alice, media_root):
    swfs = {}
    for name, (path, columns) in dumps.items():
        options = ("--format", columns) if columns else ()
        cli_swf, cli_report = _cli(path, *options)
        resp = _upload(alice, path, **({"sacct_format": columns} if columns else {}))
        assert resp.status_code == 201, (name, resp.content)
        stored = Trace.objects.get(pk=resp.json()["id"])
        portal_swf = stored.file.read().decode()
        assert portal_swf == cli_swf, name
        conversion = resp.json()["summary"]["conversion"]
        assert conversion == cli_report, name  # the same report
        swfs[name] = cli_swf
    assert len(set(swfs.values())) == 1, {k: v[:300] for k, v in swfs.items()}
    report = _cli(dumps["all"][0])[1]
    assert report["repaired_count"] == 2 and report["columns"] == 109
    assert any("'|' inside JobName, SubmitLine" in r for r in report["repaired"])
    assert any("line breaks inside SubmitLine" in r for r in report["repaired"])
    assert report["dropped"] == {"cancelled before start": 1}
    assert _cli(dumps["noheader-xdmod"][0])[1]["columns_from"] == "XDMoD's column order"


def _seconds(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp())


def _limit(text: str) -> int:
    days, _, clock = text.rpartition("-")
    h, m, s = (int(p) for p in clock.split(":"))
    return ((int(days or 0) * 24 + h) * 60 + m) * 60 + s


def test_per_job_fields_match_the_dump(dumps, workload):
    """Each job of the dump (read here by hand: JobName is last in XDMoD's order, so a '|'
    in it cannot shift the others) is one SWF job with its times, CPUs, limit and status."""
    text = dumps["xdmod-order"][0].read_text().splitlines()
    names = text[0].split("|")
    rows = [dict(zip(names, ln.split("|", len(names) - 1), strict=True)) for ln in text[1:]]
    jobs = [r for r in rows if "." not in r["JobID"] and r["NodeList"] != "None assigned"]
    status = {"COMPLETED": 1, "CANCELLED": 5}
    t0 = min(_seconds(r["Submit"]) for r in jobs)
    expected = sorted(
        (
            _seconds(r["Submit"]) - t0,
            int(r["JobID"].split("_")[0]),
            int(r["JobID"].split("_")[1]) if "_" in r["JobID"] else -1,
            _seconds(r["Start"]) - _seconds(r["Submit"]),
            _seconds(r["End"]) - _seconds(r["Start"]),
            int(r["NCPUS"]),
            _limit(r["Timelimit"]),
            status[r["State"].split()[0]],
            r["JobID"],
        )
        for r in jobs
    )
    _, swf_jobs, _ = convert_sacct(dumps["xdmod-order"][0].read_bytes())
    got = [(j.submit, j.wait, j.run, j.alloc_procs, j.req_time, j.status) for j in swf_jobs]
    assert got == [(e[0], *e[3:8]) for e in expected]
    by_id = {e[8]: e[5:8] for e in expected}  # (CPUs, limit, status)
    assert by_id[str(workload["four_cpus"])] == (4, 300, 1)
    assert by_id[str(workload["eight_cpus"])] == (8, 600, 1)
    assert by_id[str(workload["pipe_name"])] == (2, 86400, 1)
    assert by_id[str(workload["cancelled"])] == (1, 3600, 5)
    assert {f"{workload['array']}_{k}" for k in (1, 2, 3)} <= set(by_id)
    assert str(workload["never_started"]) not in by_id  # cancelled before it started
    assert str(workload["two_lines"]) in by_id


@pytest.mark.django_db
def test_a_cut_off_last_row_strict_refuses_lenient_skips_naming_the_line(
    dumps, alice, media_root, tmp_path
):
    text = dumps["all"][0].read_text()
    lines = text.splitlines()
    last = len(lines)  # the last row's line number
    cut = tmp_path / "cut.sacct"
    cut.write_text("\n".join(lines[:-1] + [lines[-1][: len(lines[-1]) // 2]]))
    with pytest.raises(SacctError) as err:
        convert_sacct(cut.read_bytes())
    why = err.value.errors[0][1]
    assert err.value.errors[0][0] == last and why.startswith("cut off:") and "file ends" in why
    done = scheduler_cli("convert", "sacct", str(cut), "-o", str(tmp_path / "x.swf"))
    assert done.returncode == 2 and f"line {last}: cut off:" in done.stderr
    assert not (tmp_path / "x.swf").exists()
    resp = _upload(alice, cut)
    assert resp.status_code == 400 and f"cut.sacct: line {last}: cut off:" in str(resp.json())
    assert Trace.objects.count() == 0

    swf, report = _cli(cut, "--lenient")
    assert report["mode"] == "lenient" and report["skipped_count"] == 1
    assert report["skipped"][0] == f"line {last}: {why}"
    resp = _upload(alice, cut, lenient="true")
    assert resp.status_code == 201, resp.content
    assert resp.json()["summary"]["conversion"] == report
    # skipping the cut-off row is reading the file without it (whether that row was a job, a
    # step or a row dropped anyway depends on what sacct lists last)
    trimmed = tmp_path / "trimmed.sacct"
    trimmed.write_text("\n".join(lines[:-1]) + "\n")
    swf_trimmed, without = _cli(trimmed)
    assert (report["jobs_kept"], report["steps_folded"], report["dropped"]) == (
        without["jobs_kept"], without["steps_folded"], without["dropped"]
    )  # fmt: skip
    jobs_of = lambda text: [x for x in text.splitlines() if not x.startswith(";")]  # noqa: E731
    assert jobs_of(swf) == jobs_of(swf_trimmed)


@pytest.mark.django_db
def test_a_job_wider_than_procs_is_named(dumps, workload, alice, media_root):
    path = dumps["xdmod-order"][0]
    swf, report = _cli(path, "--procs", "4")
    assert report["wider_than_machine_count"] == 1
    assert report["wider_than_machine"][0]["job"] == str(workload["eight_cpus"])
    assert report["wider_than_machine"][0]["cpus"] == 8
    assert f"Slurm job {workload['eight_cpus']} (line " in " ".join(report["notes"])
    assert read_swf(path.with_suffix(".cli.swf")).machine_procs == 4
    resp = _upload(alice, path, procs=4)
    assert resp.status_code == 201 and resp.json()["summary"]["conversion"] == report
