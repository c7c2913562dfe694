# ruff: noqa: E501  (sacct rows are kept whole, one per line, as sacct prints them)
"""Slurm accounting import: sacct --parsable2 / fixed-width → SWF with a report.

The fixture ``data/slurm-sacct-parsable2.txt`` is written for these tests after the shapes of
the Slurm documentation's sacct examples (job + ``.batch``/``.extern``/``.0`` steps, array tasks
``_N`` and a pending range ``_[3-5]``, ``CANCELLED by <uid>``, ``Unknown`` ends, ``Mc``/``Mn``/``G``
ReqMem, ``D-HH:MM:SS``/``MM:SS``/``MM``/``D-HH``/``UNLIMITED`` time limits) and a job name that
holds a ``|``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from scheduler.traces.sacct import (
    SacctError,
    _duration,
    convert_sacct,
    looks_like_sacct,
    sacct_to_swf,
)
from scheduler.traces.swf import read_swf

DATA = (Path(__file__).parent / "data" / "slurm-sacct-parsable2.txt").read_bytes()
HEAD = "JobID|User|Group|Partition|QOS|State|Submit|Start|End|Timelimit|AllocCPUS|ReqMem|JobName"


def _one(row: str, **kw):
    return convert_sacct(f"{HEAD}\n{row}\n", **kw)


def test_fixture_converts_with_the_expected_report():
    header, jobs, report = convert_sacct(DATA)
    r = report.as_json()
    assert r["rows"] == 13 and r["jobs_kept"] == 7 and r["steps_folded"] == 3
    assert r["array_tasks"] == 2
    assert r["dropped"] == {
        "array range never started (pending)": 1,
        "cancelled before start": 1,
        "state RUNNING": 1,
    }
    assert r["repaired_count"] == 1 and "line 6" in r["repaired"][0]
    assert set(r["missing_fields"]) == {"JobIDRaw", "Eligible", "Elapsed"}
    assert r["mappings"]["user"] == {"alice": 1, "bob": 2, "carol": 3, "erin": 4}
    assert r["mappings"]["qos"] == {"normal": 1, "long": 2}
    # statuses in submit order: COMPLETED, FAILED, TIMEOUT, CANCELLED, OOM, NODE_FAIL, PREEMPTED
    assert [j.status for j in jobs] == [1, 0, 0, 5, 0, 0, 0]
    first = jobs[0]
    assert (first.submit, first.wait, first.run, first.alloc_procs) == (0, 5, 3600, 16)
    assert first.req_time == 7200 and first.req_mem == 2800 * 1024  # Mc: KB per CPU
    assert first.used_mem == 2048000 // 16  # largest step MaxRSS / processors
    cancelled = jobs[3]
    assert cancelled.req_mem == 500000 * 1024 * 2 // 8  # Mn: per node × 2 nodes / 8 CPUs
    assert [j.req_time for j in jobs][4:] == [45 * 60, -1, 2 * 86400]
    assert header.max_procs == report.max_procs == 69  # peak CPUs in use at once


def test_swf_text_reads_back_and_is_deterministic():
    text, report = sacct_to_swf(DATA, max_procs=128)
    assert sacct_to_swf(DATA, max_procs=128)[0] == text
    trace = read_swf(io.BytesIO(text.encode()))
    assert len(trace.jobs) == report.jobs_kept and trace.machine_procs == 128
    assert report.max_procs_source == "given"


@pytest.mark.parametrize(
    "text, seconds",
    [("UNLIMITED", -1), ("1-02:03:04", 93784), ("02:03:04", 7384), ("03:04", 184), ("45", 2700),
     ("2-00", 172800), ("1-01:30", 91800)],
)  # fmt: skip
def test_time_limits(text, seconds):
    assert _duration(text) == seconds


def test_time_zones_are_honoured_and_mixing_is_refused():
    zoned = "1|u|g|p|q|COMPLETED|2025-01-06T08:00:00+02:00|2025-01-06T06:30:00Z|2025-01-06T07:00:00Z|10|1|1G|x"
    _, jobs, report = _one(zoned)
    assert jobs[0].wait == 30 * 60 and jobs[0].run == 30 * 60
    assert not report.notes  # zoned: nothing assumed
    mixed = (
        zoned
        + "\n2|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|10|1|1G|y"
    )
    with pytest.raises(SacctError, match="mixes times"):
        _one(mixed)


def test_cut_off_line_is_refused_with_its_line_number():
    good = (
        "1|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|10|1|1G|x"
    )
    with pytest.raises(SacctError) as err:
        _one(good + "\n2|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01")
    assert err.value.errors[0][0] == 3 and "fields" in err.value.errors[0][1]


def test_pipe_in_job_name_never_shifts_columns_when_the_name_is_not_last():
    head = "JobID|JobName|State|Submit|Start|End|AllocCPUS"
    row = "7|a|b|c|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:10|2025-01-06T08:01:00|3"
    _, jobs, report = convert_sacct(f"{head}\n{row}\n")
    assert jobs[0].alloc_procs == 3 and jobs[0].run == 50 and report.repaired


@pytest.mark.parametrize(
    "row, reason",
    [
        ("1|u|g|p|q|COMPLETED|yesterday|2025-01-06T08:00:00|2025-01-06T09:00:00|10|1|1G|x", "ISO 8601"),
        ("1|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|10|99999999999|1G|x", "unreadable"),
        ("1|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|10|1|lots|x", "memory"),
        ("1|u|g|p|q|COMPLETED|2025-01-06T09:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|10|1|1G|x", "out of order"),
        ("abc|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|10|1|1G|x", "not a Slurm job id"),
        ("1|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|1e308|1|1G|x", "unreadable"),
    ],
)  # fmt: skip
def test_bad_rows_name_line_and_field(row, reason):
    with pytest.raises(SacctError) as err:
        _one(row)
    assert err.value.errors[0][0] == 2 and reason in err.value.errors[0][1]


def test_only_unfinished_jobs_is_an_error_that_says_what_was_dropped():
    with pytest.raises(SacctError, match="state PENDING"):
        _one("1|u|g|p|q|PENDING|2025-01-06T08:00:00|Unknown|Unknown|10|0|1G|x")


def test_missing_needed_column_is_refused():
    with pytest.raises(SacctError, match="Submit"):
        convert_sacct(
            "JobID|State|Start|End\n1|COMPLETED|2025-01-06T08:00:00|2025-01-06T09:00:00\n"
        )


def test_fixed_width_form():
    text = (
        "       JobID      State              Submit               Start                 End  AllocCPUS \n"
        "------------ ---------- ------------------- ------------------- ------------------- ---------- \n"
        "        4711  COMPLETED 2025-01-06T08:00:00 2025-01-06T08:00:30 2025-01-06T08:10:30          8 \n"
        "  4711.batch  COMPLETED 2025-01-06T08:00:30 2025-01-06T08:00:30 2025-01-06T08:10:30          8 \n"
        "        4712 CANCELLED+ 2025-01-06T08:05:00 2025-01-06T08:06:00 2025-01-06T08:07:00          2 \n"
    )
    assert looks_like_sacct(text.encode())
    with pytest.raises(SacctError, match="truncated"):
        convert_sacct(text)
    _, jobs, report = convert_sacct(text.replace("CANCELLED+", " CANCELLED"))
    assert report.form == "fixed-width" and report.steps_folded == 1
    assert [(j.wait, j.run, j.alloc_procs, j.status) for j in jobs] == [
        (30, 600, 8, 1),
        (60, 60, 2, 5),
    ]


def test_detection():
    assert looks_like_sacct(DATA)
    assert not looks_like_sacct(b"; Version: 2.2\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n")


def test_parsable_with_trailing_pipe_and_gn_memory():
    """``sacct --parsable`` (a trailing ``|``), ReqMem ``1Gn`` and MaxRSS in K on the steps — the
    shapes seen in reportseff's test fixtures (github.com/troycomi/reportseff)."""
    text = (
        "JobID|State|NCPUS|ReqMem|Submit|Start|End|MaxRSS|NNodes|\n"
        "2441|COMPLETED|2|1Gn|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:27:42||1|\n"
        "2441.batch|COMPLETED|2|1Gn|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:27:42|499092K|1|\n"
        "2441.extern|COMPLETED|2|1Gn|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:27:42|1376K|1|\n"
    )
    _, jobs, report = convert_sacct(text)
    assert report.steps_folded == 2 and len(jobs) == 1
    assert jobs[0].req_mem == 1024 * 1024 // 2 and jobs[0].used_mem == 499092 // 2
    assert jobs[0].run == 5262


def test_command_line_converts_and_refuses_naming_the_line(tmp_path):
    from tests.conftest import scheduler_cli

    out, report = tmp_path / "out.swf", tmp_path / "report.json"
    done = scheduler_cli(
        "convert", "sacct", str(Path(__file__).parent / "data" / "slurm-sacct-parsable2.txt"),
        "-o", str(out), "--procs", "128", "--report", str(report),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert read_swf(out).machine_procs == 128 and len(read_swf(out).jobs) == 7
    assert json.loads(report.read_text())["steps_folded"] == 3
    bad = tmp_path / "bad.sacct"
    bad.write_bytes(DATA + b"9|u|g|p|q|COMPLETED|2025-01")
    done = scheduler_cli("convert", "sacct", str(bad), "-o", str(tmp_path / "x.swf"))
    assert done.returncode == 2 and "line 15" in done.stderr
    assert not (tmp_path / "x.swf").exists()


# Hostile files: bounded columns, lines, ids and names; no control characters -------

GOOD_ROW = (
    "1|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|10|1|1G|x"
)
FIXED_HEAD = "".join(f"{name:<20} " for name in ("JobID", "State", "Submit", "Start", "End")) + "\n"


def test_a_rule_line_with_too_many_spans_is_refused_naming_line_2():
    from scheduler.traces.sacct import MAX_COLUMNS

    rule = "- " * (MAX_COLUMNS + 1)
    with pytest.raises(SacctError) as err:
        convert_sacct(FIXED_HEAD + rule + "\n" + "x\n" * 10)
    assert err.value.errors == [(2, err.value.errors[0][1])]
    assert f"more than {MAX_COLUMNS} column spans" in err.value.errors[0][1]
    # the cap itself still reads (the needed columns come first)
    ok = FIXED_HEAD + ("-" * 20 + " ") * 5 + "- " * (MAX_COLUMNS - 5) + "\n"
    with pytest.raises(SacctError, match="no finished job"):
        convert_sacct(ok + "1                    COMPLETED\n")


def test_a_header_with_too_many_fields_is_refused_naming_line_1():
    with pytest.raises(SacctError) as err:
        convert_sacct(HEAD + "|x" * 300 + "\n")
    assert err.value.errors[0][0] == 1 and "fields" in err.value.errors[0][1]


def test_a_huge_job_id_is_refused_naming_the_line_and_field():
    row = "9" * 5000 + GOOD_ROW[1:]
    with pytest.raises(SacctError) as err:
        _one(row)
    assert err.value.errors[0][0] == 2 and err.value.errors[0][1].startswith("JobID: longer than")


@pytest.mark.parametrize("field", ["User", "Group", "Partition", "QOS"])
def test_a_huge_name_is_refused_naming_the_field(field):
    values = dict(zip(HEAD.split("|"), GOOD_ROW.split("|"), strict=True))
    values[field] = "n" * 300
    with pytest.raises(SacctError) as err:
        _one("|".join(values.values()))
    assert err.value.errors[0][0] == 2 and err.value.errors[0][1].startswith(f"{field}: longer")


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x1b", "\x7f", "\x0b"])
def test_control_characters_are_refused_naming_line_and_field(char):
    row = f"1|u{char}x|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|10|1|1G|x"
    with pytest.raises(SacctError) as err:
        _one(row)
    assert err.value.errors[0][0] == 2
    assert err.value.errors[0][1] == f"User: holds the control character U+{ord(char):04X}"


def test_a_line_past_the_cap_is_refused_naming_it():
    from scheduler.traces.sacct import MAX_LINE_CHARS

    row = "1|u|g|p|q|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|10|1|1G|"
    with pytest.raises(SacctError) as err:
        convert_sacct(f"{HEAD}\n{row}ok\n{row}{'x' * MAX_LINE_CHARS}\n")
    assert err.value.errors[0][0] == 3 and "longer than" in err.value.errors[0][1]


def test_a_stream_is_read_line_by_line_with_the_same_result():
    from scheduler.traces.sacct import sacct_to_swf_file

    text, report = sacct_to_swf(DATA)
    out = io.StringIO()
    streamed = sacct_to_swf_file(io.BytesIO(DATA), out)
    assert out.getvalue() == text and streamed.as_json() == report.as_json()


def test_many_one_character_rows_under_a_wide_rule_stay_small():
    """The probe's shape (a rule of many spans, many tiny rows) within the caps: the rows are
    read one at a time, so memory does not grow with rows × spans."""
    import tracemalloc

    rule = "- " * 250
    text = (FIXED_HEAD + rule + "\n" + "x\n" * 20_000).encode()
    tracemalloc.start()
    with pytest.raises(SacctError):
        convert_sacct(text)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8 * 2**20, peak


# As Slurm writes it: any column order, no header, rows over lines, '|' in free text ----------

XDMOD_ROW = (
    "41|41|c1|debug|normal|acct|grp|100|ann|1000|2025-01-06T08:00:00|2025-01-06T08:00:00|"
    "2025-01-06T08:00:10|2025-01-06T08:10:10|00:10:00|0:0|COMPLETED|1|8|8|8000M|"
    "billing=8,cpu=8,mem=8000M,node=1|billing=8,cpu=8,node=1|01:00:00|n1|a|b"
)


def test_any_column_order_gives_the_same_jobs():
    from scheduler.traces.sacct import XDMOD_COLUMNS

    names = list(XDMOD_COLUMNS)
    values = dict(zip(names, XDMOD_ROW.split("|", len(names) - 1), strict=True))
    swfs = set()
    for order in (names, names[::-1], sorted(names)):
        text = "|".join(order) + "\n" + "|".join(values[c] for c in order) + "\n"
        swf, report = sacct_to_swf(text)
        assert report.columns_from == "header line" and report.jobs_kept == 1
        swfs.add(swf)
    headerless, report = sacct_to_swf(XDMOD_ROW + "\n")  # XDMoD's order, JobName last
    assert report.columns_from == "XDMoD's column order"
    assert report.repaired == ["line 1: a '|' inside JobName (fields re-split)"]
    given, _ = sacct_to_swf(
        "|".join(values[c] for c in names[::-1]) + "\n",
        columns=",".join(c.lower() + "%12" for c in names[::-1]),
    )
    assert swfs == {headerless, given}
    job = read_swf(io.BytesIO(headerless.encode())).jobs[0]
    assert (job.wait, job.run, job.alloc_procs, job.req_time, job.status) == (10, 600, 8, 3600, 1)


def test_a_headerless_file_with_other_columns_is_refused_at_line_1_saying_what_to_give():
    with pytest.raises(SacctError) as err:
        convert_sacct("7|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00\n")
    (line, why), *_ = err.value.errors
    assert line == 1 and "5 fields where XDMoD's column order has 26" in why
    assert "give the --format list" in why
    _, jobs, report = convert_sacct(
        "7|COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T09:00:00|2\n",
        columns="JobID,State,Submit,Start,End,NCPUS",
    )
    assert jobs[0].run == 3600 and report.columns_from == "given --format"


ALL_HEAD = "JobID|JobName|Layout|State|Submit|Start|End|NCPUS|SubmitLine|Timelimit|WorkDir"


def test_format_all_shapes_line_breaks_rejoined_and_pipes_resplit():
    """The shapes of ``--format=ALL`` as Slurm 22.05 writes them (see tests/slurm): a ``|`` in
    the job name shows in JobName and in SubmitLine; a ``--wrap`` with a newline runs over two
    lines; the typed columns between them tell where each ``|`` belongs."""
    text = "\n".join([
        ALL_HEAD,
        "1|a|b||COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T08:00:05|2|"
        "sbatch --job-name=a|b --wrap=sleep 1|00:05:00|/tmp",
        "1.batch|batch||COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T08:00:05|2|||",
        "2|wrap||COMPLETED|2025-01-06T08:00:01|2025-01-06T08:00:01|2025-01-06T08:00:03|1|"
        "sbatch --wrap=sleep 1",
        "sleep 1|00:02:00|/tmp",
        "3|wrap||CANCELLED by 0|2025-01-06T08:00:02|None|2025-01-06T08:00:04|1|sbatch|01:00|/tmp",
    ]) + "\n"  # fmt: skip
    _, jobs, report = convert_sacct(text)
    assert [(j.alloc_procs, j.req_time, j.run) for j in jobs] == [(2, 300, 5), (1, 120, 2)]
    assert report.repaired == [
        "line 2: a '|' inside JobName, SubmitLine (fields re-split)",
        "lines 4-5: line breaks inside SubmitLine (lines re-joined)",
    ]
    assert report.dropped == {"cancelled before start": 1}


def test_a_pipe_that_could_belong_to_two_columns_is_refused_not_guessed():
    head = "JobID|Comment|Constraints|State|Submit|Start|End|NCPUS"
    row = "5|x|y||COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T08:00:05|1"
    with pytest.raises(SacctError) as err:
        convert_sacct(f"{head}\n{row}\n")
    assert err.value.errors[0][0] == 2 and "more than one reading" in err.value.errors[0][1]
    _, _, report = convert_sacct(f"{head}\n{row}\n{GOOD_SHORT}\n", lenient=True)
    assert report.skipped_count == 1 and report.skipped[0].startswith("line 2: ")


GOOD_SHORT = "6|||COMPLETED|2025-01-06T08:00:00|2025-01-06T08:00:00|2025-01-06T08:00:05|1"


@pytest.mark.parametrize("ending", ["", "\n"])
def test_a_cut_off_last_row_strict_names_it_lenient_skips_it(ending):
    text = HEAD + "\n" + GOOD_ROW + "\n" + GOOD_ROW.replace("1|", "2|", 1)[:40] + ending
    with pytest.raises(SacctError) as err:
        convert_sacct(text)
    assert err.value.errors == [(3, "cut off: 8 fields where the header has 13 (the file ends)")]
    _, jobs, report = convert_sacct(text, lenient=True)
    assert len(jobs) == 1 and report.mode == "lenient"
    assert report.skipped == ["line 3: cut off: 8 fields where the header has 13 (the file ends)"]


def test_a_cut_off_row_in_the_middle_is_named_and_the_next_row_read():
    text = "\n".join([HEAD, GOOD_ROW[:30], GOOD_ROW.replace("1|", "2|", 1)]) + "\n"
    with pytest.raises(SacctError, match="next line starts a row") as err:
        convert_sacct(text)
    assert err.value.errors[0][0] == 2
    _, jobs, report = convert_sacct(text, lenient=True)
    assert len(jobs) == 1 and report.skipped_count == 1


def test_detection_is_one_function_for_every_entry():
    from scheduler.traces.sacct import XDMOD_COLUMNS, detect_sacct

    swf = b"; Version: 2.2\n; MaxProcs: 8\n1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n"
    assert detect_sacct(swf) is None and detect_sacct(gzip_bytes(swf)) is None
    assert detect_sacct(b"1 0 5 100 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n") is None
    layout = detect_sacct(b"State|jobid|Submit|Start|End\n")
    assert layout.header and layout.columns == ("State", "JobID", "Submit", "Start", "End")
    assert detect_sacct(gzip_bytes(DATA)).columns[0] == "JobID"
    headerless = detect_sacct(XDMOD_ROW.encode())
    assert not headerless.header and headerless.columns == XDMOD_COLUMNS
    assert detect_sacct(b"7|x|y\n", columns="jobid,state,end").columns == ("JobID", "State", "End")
    assert detect_sacct(b"JobID State Submit\n----- ----- ------\n").form == "fixed-width"


def gzip_bytes(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data, mtime=0)


def test_gzipped_sacct_converts_the_same():
    assert sacct_to_swf(gzip_bytes(DATA))[0] == sacct_to_swf(DATA)[0]
    with pytest.raises(SacctError, match="gzip"):
        convert_sacct(gzip_bytes(DATA)[:200])


def test_a_job_wider_than_the_machine_given_is_kept_and_named():
    _, jobs, report = convert_sacct(DATA, max_procs=16)
    assert len(jobs) == 7 and report.wider_than_machine_count == 1  # 1005 (32) never ended
    assert report.wider_than_machine == [{"job": "1007", "line": 13, "cpus": 64}]
    assert "Slurm job 1007 (line 13) needs 64" in report.notes[-1]
    assert max(j.req_procs for j in jobs) == 64  # kept, as SWF keeps it
    with pytest.raises(SacctError, match="--procs"):
        convert_sacct(DATA, max_procs=0)


def test_command_line_lenient_format_and_procs(tmp_path):
    from tests.conftest import scheduler_cli

    src = tmp_path / "headerless.sacct.gz"
    src.write_bytes(gzip_bytes((XDMOD_ROW + "\n" + XDMOD_ROW[:50] + "\n").encode()))
    out = tmp_path / "o.swf"
    done = scheduler_cli("convert", "sacct", str(src), "-o", str(out))
    assert done.returncode == 2 and "line 2: cut off" in done.stderr and not out.exists()
    done = scheduler_cli(
        "convert", "sacct", str(src), "-o", str(out), "--lenient", "--procs", "4"
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["skipped"][0].startswith("line 2: cut off") and report["mode"] == "lenient"
    assert "skipped:" in done.stderr and "Slurm job 41 (line 1) needs 8" in done.stderr
    done = scheduler_cli("convert", "sacct", str(src), "-o", str(out), "--format", "JobID,Sta te")
    assert done.returncode == 2 and "not a sacct field name" in done.stderr


def test_the_report_lists_the_first_names_and_counts_the_rest():
    """A site's dump names thousands of users: the report lists the first 50 of each kind (by
    number) and counts the others; the SWF still numbers every one of them."""
    rows = "\n".join(
        f"{k}|user{k}|grp{k % 60}|p|q|COMPLETED|2025-01-06T08:00:{k % 60:02d}|"
        f"2025-01-06T08:01:00|2025-01-06T09:00:00|10|1|1G|x"
        for k in range(1, 121)
    )
    header, jobs, report = convert_sacct(f"{HEAD}\n{rows}\n")
    r = report.as_json()
    assert len(r["mappings"]["user"]) == 50 and r["mappings_more"] == {"user": 70, "group": 10}
    assert list(r["mappings"]["user"].values()) == list(range(1, 51))
    assert r["mappings"]["qos"] == {"q": 1} and "qos" not in r["mappings_more"]
    assert header.fields["MaxUsers"] == "120" and max(j.user for j in jobs) == 120
    assert len(json.dumps(r)) < 10_000
