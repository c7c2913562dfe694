"""Tests of the SWF reader/writer (scheduler.traces.swf); no Django."""

from __future__ import annotations

import gzip
import io
import pickle
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scheduler.traces.swf import (
    FIELD_BOUNDS,
    FIELDS,
    SWFError,
    SWFHeader,
    SWFJob,
    Trace,
    read_swf,
    write_swf,
)
from tests.conftest import SHARED_DATA, require

ROOT = Path(__file__).resolve().parents[2]
REAL_TRACES = SHARED_DATA / "traces"

# job counts (non-comment lines) and MaxProcs header values, from shared/data/traces/README.md
REAL = {
    "CTC-SP2-1996-3.1-cln.swf.gz": (77222, 338),
    "SDSC-SP2-1998-4.2-cln.swf.gz": (59715, 128),
    "KTH-SP2-1996-2.1-cln.swf.gz": (28476, 100),
    "NASA-iPSC-1993-3.1-cln.swf.gz": (18239, 128),
}

GOOD = "1 0 10 100 4 -1 -1 4 200 -1 1 7 1 -1 1 -1 -1 -1"


def job_line(**overrides: object) -> str:
    values = dict(zip(FIELDS, GOOD.split(), strict=True))
    for key, value in overrides.items():
        values[key] = str(value)
    return " ".join(values[f] for f in FIELDS)


def read_bytes(data: bytes, **kwargs: object) -> Trace:
    return read_swf(io.BytesIO(data), **kwargs)  # type: ignore[arg-type]


def errors_of(data: bytes, **kwargs: object) -> list[tuple[int, str]]:
    with pytest.raises(SWFError) as info:
        read_bytes(data, **kwargs)
    return info.value.errors


def real_trace(name: str) -> Path:
    if not REAL_TRACES.is_dir():
        require(False, f"real traces not found at {REAL_TRACES}")
    path = REAL_TRACES / name
    if not path.is_file():
        require(False, f"real trace {name} not found in {REAL_TRACES}")
    return path


# ------------------------------------------------------------------------------------------
# header and fields
# ------------------------------------------------------------------------------------------

HEADER = """\
; Version: 2.2
; Computer: IBM SP2
; Information: http://www.tc.cornell.edu/
;              http://www.cs.huji.ac.il/labs/parallel/workload/
; UnixStartTime: 835823160
; TimeZoneString: US/Eastern
; MaxJobs: 79302
; MaxNodes: 338 (batch partition; 512 total)
; MaxProcs: 338
; Note: first note
;
; Note: second note
"""


def test_header_fields_and_properties() -> None:
    trace = read_bytes((HEADER + GOOD + "\n").encode())
    h = trace.header
    assert h.max_procs == 338
    assert h.max_nodes == 338  # leading integer of "338 (batch partition; 512 total)"
    assert h.unix_start_time == 835823160
    assert h.max_jobs == 79302
    assert h.time_zone_string == "US/Eastern"
    assert h.fields["Computer"] == "IBM SP2"
    assert h.fields["Information"] == "http://www.tc.cornell.edu/"
    assert h.fields["Note"] == "first note"  # first occurrence wins
    assert "http" not in h.fields  # the indented URL continuation is not a field
    assert len(h.comments) == 12  # every ";" line, in order
    assert h.comments[0] == " Version: 2.2"
    assert h.comments[3].strip() == "http://www.cs.huji.ac.il/labs/parallel/workload/"
    assert trace.machine_procs == 338


def test_header_missing_values_are_none_and_machine_falls_back() -> None:
    trace = read_bytes(
        (
            "; Version: 2\n" + job_line(alloc_procs=16) + "\n" + job_line(alloc_procs=3) + "\n"
        ).encode()
    )
    assert trace.header.max_procs is None
    assert trace.header.max_nodes is None
    assert trace.header.unix_start_time is None
    assert trace.header.time_zone_string is None
    assert trace.machine_procs == 16  # largest job
    nodes_only = read_bytes(("; MaxNodes: 64\n" + GOOD + "\n").encode())
    assert nodes_only.machine_procs == 64


def test_fields_parsed_in_order_with_unknowns() -> None:
    line = "5 100 -1 -1 -1 -1 -1 32 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1"
    (job,) = read_bytes((line + "\n").encode()).jobs
    assert job.job_id == 5 and job.submit == 100
    assert job.wait == -1 and job.run == -1 and job.alloc_procs == -1
    assert job.req_procs == 32
    assert job.procs == 32  # alloc unknown -> requested
    assert job.to_fields() == tuple(int(t) for t in line.split())
    assert len(FIELDS) == 18 and FIELDS[4] == "alloc_procs" and FIELDS[17] == "think_time"


def test_decimal_fields_become_floats() -> None:
    line = job_line(avg_cpu="142.00", used_mem="7.5", req_mem="-1.00", run="937")
    (job,) = read_bytes((line + "\n").encode()).jobs
    assert job.avg_cpu == 142.0 and isinstance(job.avg_cpu, float)
    assert job.used_mem == 7.5
    assert job.req_mem == -1
    assert job.run == 937 and isinstance(job.run, int)
    (odd,) = read_bytes((job_line(run="1.5e3") + "\n").encode()).jobs
    assert odd.run == 1500.0


def test_submit_times_out_of_order_are_accepted() -> None:
    lines = [job_line(job_id=1, submit=500), job_line(job_id=2, submit=100)]
    trace = read_bytes(("\n".join(lines) + "\n").encode())
    assert [j.submit for j in trace.jobs] == [500, 100]


def test_blank_lines_crlf_and_no_final_newline() -> None:
    data = ("; MaxProcs: 8\r\n\r\n" + GOOD + "\r\n\n   \n" + job_line(job_id=2)).encode()
    trace = read_bytes(data)
    assert [j.job_id for j in trace.jobs] == [1, 2]
    assert trace.header.max_procs == 8


# ------------------------------------------------------------------------------------------
# gzip and sources
# ------------------------------------------------------------------------------------------


def test_gzip_written_and_read_back(tmp_path: Path) -> None:
    trace = read_bytes((HEADER + GOOD + "\n" + job_line(job_id=2) + "\n").encode())
    path = tmp_path / "t.swf.gz"
    write_swf(trace, path)
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    again = read_swf(path)
    assert again == trace
    # the same bytes again: the gzip timestamp is fixed
    path2 = tmp_path / "t2.swf.gz"
    write_swf(trace, path2)
    assert path2.read_bytes() == path.read_bytes()


def test_gzip_detected_by_magic_not_by_name(tmp_path: Path) -> None:
    path = tmp_path / "plain-name.swf"
    path.write_bytes(gzip.compress((GOOD + "\n").encode()))
    assert len(read_swf(path).jobs) == 1
    assert len(read_swf(io.BytesIO(path.read_bytes())).jobs) == 1


def test_non_seekable_and_text_sources() -> None:
    class Pipe:  # read() only: no seek, no peek
        def __init__(self, data: bytes) -> None:
            self._buf = io.BytesIO(data)

        def read(self, n: int = -1) -> bytes:
            return self._buf.read(min(n, 1) if n and n > 0 else n)  # 1 byte at a time

    data = (HEADER + GOOD + "\n").encode()
    assert len(read_swf(Pipe(gzip.compress(data))).jobs) == 1  # type: ignore[arg-type]
    assert len(read_swf(Pipe(data)).jobs) == 1  # type: ignore[arg-type]
    assert read_swf(io.StringIO(data.decode())).header.max_procs == 338  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="path or a binary file object"):
        read_swf(12345)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------
# malformed input
# ------------------------------------------------------------------------------------------


def test_non_numeric_field_names_field_and_line() -> None:
    data = ("; c\n" + GOOD + "\n" + job_line(run="abc") + "\n").encode()
    assert errors_of(data) == [(3, "field 4 (run) is not a number: 'abc'")]


@pytest.mark.parametrize("count", [17, 19, 1])
def test_wrong_field_count(count: int) -> None:
    tokens = (GOOD.split() * 2)[:count]
    data = (GOOD + "\n" + " ".join(tokens) + "\n").encode()
    noun = "field" if count == 1 else "fields"
    assert errors_of(data) == [(2, f"has {count} {noun}, expected 18")]


def test_negative_processors_and_other_fields() -> None:
    data = "\n".join(
        [
            "; header",
            job_line(alloc_procs=-5),
            job_line(req_procs=-2),
            job_line(run=-7),
            job_line(used_mem=-3.5),
            job_line(run=-1, alloc_procs=-1),  # -1 = unknown: fine
        ]
    ).encode()
    with pytest.raises(SWFError) as info:
        read_bytes(data)
    err = info.value
    assert err.errors == [
        (2, "field 5 (alloc_procs) is -5; processor counts must be >= 0 or -1 (unknown)"),
        (3, "field 8 (req_procs) is -2; processor counts must be >= 0 or -1 (unknown)"),
        (4, "field 4 (run) is -7; values must be >= 0 or -1 (unknown)"),
        (5, "field 7 (used_mem) is -3.5; values must be >= 0 or -1 (unknown)"),
    ]
    text = str(err)
    assert text.splitlines()[0] == (
        "line 2: field 5 (alloc_procs) is -5; processor counts must be >= 0 or -1 (unknown)"
    )
    assert len(text.splitlines()) == 4


def test_several_problems_on_one_line_are_one_error() -> None:
    data = (job_line(run="x", wait="y", alloc_procs=-4) + "\n").encode()
    ((line, reason),) = errors_of(data)
    assert line == 1
    assert reason == "field 3 (wait) is not a number: 'y' (and 2 more problem(s) on this line)"


@pytest.mark.parametrize("token", ["nan", "inf", "1e999", "1_000", "0x10", "--1"])
def test_non_plain_numbers_are_rejected(token: str) -> None:
    assert errors_of((job_line(submit=token) + "\n").encode()) == [
        (1, f"field 2 (submit) is not a number: {token!r}")
    ]


def test_empty_and_comment_only_files() -> None:
    assert errors_of(b"") == [(0, "no job lines (empty trace)")]
    assert errors_of(b"\n\n  \n") == [(0, "no job lines (empty trace)")]
    assert errors_of(HEADER.encode()) == [(0, "no job lines (empty trace)")]
    assert errors_of(gzip.compress(HEADER.encode())) == [(0, "no job lines (empty trace)")]


def test_named_gz_but_not_gzip(tmp_path: Path) -> None:
    path = tmp_path / "fake.swf.gz"
    path.write_bytes((GOOD + "\n").encode())
    expected = [(0, "named .gz but is not gzip-compressed data")]
    with pytest.raises(SWFError) as info:
        read_swf(path)
    assert info.value.errors == expected
    assert errors_of((GOOD + "\n").encode(), name="upload.SWF.GZ") == expected
    # the same bytes under a plain name are fine
    assert len(read_bytes((GOOD + "\n").encode(), name="upload.swf").jobs) == 1


def test_corrupt_and_truncated_gzip() -> None:
    packed = gzip.compress(("\n".join([GOOD] * 2000) + "\n").encode())
    ((line, reason),) = errors_of(packed[: len(packed) // 2])
    assert line == 0 and reason.startswith("corrupt or truncated gzip data")
    ((line, reason),) = errors_of(b"\x1f\x8b" + b"garbage that is not deflate data" * 10)
    assert line == 0 and reason.startswith("corrupt or truncated gzip data")
    broken = bytearray(packed)
    broken[len(broken) // 2] ^= 0xFF  # flip bits in the middle of the deflate stream
    ((line, reason),) = errors_of(bytes(broken))
    assert line == 0 and reason.startswith("corrupt or truncated gzip data")


def test_binary_garbage_names_the_line() -> None:
    data = b"; header\n" + GOOD.encode() + b"\n\x00\x01\x02\xff\xfe binary \x00\n"
    assert errors_of(data) == [
        (3, "contains binary data (NUL or non-ASCII bytes); not a text SWF job line")
    ]
    # a NUL inside a comment line is not accepted either
    assert errors_of(b"; a\x00b\n" + GOOD.encode()) == [(1, "contains NUL bytes (binary data?)")]
    # a long run of bytes without any newline stops at once
    ((line, reason),) = errors_of(b"\x07" * (3 << 20))
    assert line == 1 and "longer than" in reason


def test_max_bytes_plain_and_gzip_bomb() -> None:
    data = ("\n".join([GOOD] * 100) + "\n").encode()
    assert len(read_bytes(data, max_bytes=len(data)).jobs) == 100  # exactly at the limit
    assert errors_of(data, max_bytes=len(data) - 1) == [
        (0, f"larger than {len(data) - 1} bytes (file is too large)")
    ]
    bomb = gzip.compress(b"\n" * (200 << 20))  # 200 MiB of newlines, ~200 KiB compressed
    assert errors_of(bomb, max_bytes=4 << 20) == [
        (0, f"larger than {4 << 20} bytes (decompressed data is too large)")
    ]


def test_line_numbers_count_comments_and_blank_lines() -> None:
    lines = ["; a", "", "; b", GOOD, "", job_line(run="?"), "; c", GOOD, job_line(status=-3)]
    assert errors_of(("\n".join(lines) + "\n").encode()) == [
        (6, "field 4 (run) is not a number: '?'"),
        (9, "field 11 (status) is -3; values must be >= 0 or -1 (unknown)"),
    ]


def test_error_collection_stops_at_max_errors() -> None:
    data = ("\n".join(["bad"] * 50 + [GOOD]) + "\n").encode()
    with pytest.raises(SWFError) as info:
        read_bytes(data, max_errors=5)
    assert [n for n, _ in info.value.errors] == [1, 2, 3, 4, 5]
    assert info.value.truncated
    assert "stopped after 5 errors" in str(info.value)
    with pytest.raises(SWFError) as info:
        read_bytes(data)
    assert len(info.value.errors) == 20  # default max_errors
    with pytest.raises(ValueError, match="max_errors"):
        read_bytes(data, max_errors=0)


def test_never_a_partial_trace() -> None:
    lines = [GOOD] * 1000 + [job_line(alloc_procs=-9)] + [GOOD] * 1000
    with pytest.raises(SWFError) as info:
        read_bytes(("\n".join(lines) + "\n").encode())
    assert info.value.errors == [
        (1001, "field 5 (alloc_procs) is -9; processor counts must be >= 0 or -1 (unknown)")
    ]
    assert not info.value.truncated


def test_swferror_is_a_valueerror_and_pickles() -> None:
    err = SWFError([(0, "x"), (3, "y")], source="t.swf", truncated=True)
    assert isinstance(err, ValueError)
    assert str(err) == "line 0: x\nline 3: y\n(stopped after 2 errors; there may be more)"
    again = pickle.loads(pickle.dumps(err))
    assert (again.errors, again.source, again.truncated) == (err.errors, "t.swf", True)
    assert str(again) == str(err)


# ------------------------------------------------------------------------------------------
# writing and round trips
# ------------------------------------------------------------------------------------------


def test_write_format_and_header_override(tmp_path: Path) -> None:
    trace = read_bytes((HEADER + GOOD + "\n").encode())
    out = io.StringIO()
    write_swf(trace, out, header={"MaxProcs": "430", "Installation": "CTC"}, comments=["hello"])
    text = out.getvalue()
    lines = text.splitlines()
    assert "; MaxProcs: 430" in lines and "; MaxProcs: 338" not in lines
    assert lines[-1].split() == GOOD.split()
    assert "; hello" in lines
    again = read_swf(io.BytesIO(text.encode()))
    assert again.header.max_procs == 430
    assert again.header.fields["Installation"] == "CTC"
    assert again.header.fields["MaxNodes"] == "338 (batch partition; 512 total)"
    assert again.jobs == trace.jobs
    # a list of jobs with a header, to a binary stream
    buf = io.BytesIO()
    write_swf(list(trace.jobs), buf, header={"MaxProcs": "8"})
    assert buf.getvalue().startswith(b"; MaxProcs: 8\n")
    with pytest.raises(ValueError, match="key"):
        write_swf(trace, io.StringIO(), header={"Bad Key": "x"})
    with pytest.raises(ValueError, match="single line"):
        write_swf(trace, io.StringIO(), header={"Note": "two\nlines"})


def test_header_from_fields() -> None:
    h = SWFHeader.from_fields({"MaxProcs": "64", "TimeZoneString": "UTC"}, ["free text"])
    assert h.max_procs == 64 and h.time_zone_string == "UTC"
    assert h.comments == (" MaxProcs: 64", " TimeZoneString: UTC", " free text")


def test_programmatic_header_without_comments_is_written(tmp_path: Path) -> None:
    job = SWFJob(*[int(t) for t in GOOD.split()])
    trace = Trace(header=SWFHeader(fields={"MaxProcs": "4"}), jobs=(job,))
    path = tmp_path / "x.swf"
    write_swf(trace, path)
    again = read_swf(path)
    assert again.header.fields == {"MaxProcs": "4"}
    assert again.jobs == (job,)


def bounded_ints(field: str) -> st.SearchStrategy[int]:
    return st.integers(min_value=-1, max_value=int(FIELD_BOUNDS[field][0]))


def maybe_float(field: str) -> st.SearchStrategy[int | float]:
    top = FIELD_BOUNDS[field][0]
    return st.one_of(
        bounded_ints(field),
        st.just(-1.0),
        st.floats(min_value=0, max_value=top, allow_nan=False, allow_infinity=False),
    )


jobs_strategy = st.lists(
    st.builds(
        SWFJob,
        *[
            maybe_float(f) if f in ("avg_cpu", "used_mem", "req_mem") else bounded_ints(f)
            for f in FIELDS
        ],
    ),
    min_size=1,
    max_size=30,
)
header_strategy = st.dictionaries(
    st.from_regex(r"K[A-Za-z0-9_]{0,12}", fullmatch=True),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30).map(str.strip),
    max_size=6,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(jobs=jobs_strategy, header=header_strategy, gz=st.booleans())
def test_round_trip_property(jobs: list[SWFJob], header: dict[str, str], gz: bool) -> None:
    trace = Trace(header=SWFHeader.from_fields(header), jobs=tuple(jobs))
    buf = io.BytesIO()
    write_swf(trace, buf)
    data = gzip.compress(buf.getvalue()) if gz else buf.getvalue()
    again = read_bytes(data)
    assert again.jobs == trace.jobs
    assert again.header.fields == trace.header.fields
    assert again == trace
    # floats stay floats where written as floats (no silent int conversion of 0.5 etc.)
    for a, b in zip(again.jobs, trace.jobs, strict=True):
        assert a.to_fields() == b.to_fields()


# ------------------------------------------------------------------------------------------
# the real traces
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_trace_job_counts(name: str) -> None:
    path = real_trace(name)
    trace = read_swf(path)
    jobs, max_procs = REAL[name]
    assert len(trace.jobs) == jobs
    assert trace.header.max_procs == max_procs
    assert trace.header.unix_start_time is not None
    assert trace.header.time_zone_string  # all four name their time zone
    assert all(j.job_id > 0 for j in trace.jobs)


def test_real_ctc_header() -> None:
    path = real_trace("CTC-SP2-1996-3.1-cln.swf.gz")
    trace = read_swf(path)
    assert trace.header.max_nodes == 338
    assert trace.header.unix_start_time == 835823160
    assert trace.header.time_zone_string == "US/Eastern"
    assert trace.header.max_jobs == 79302  # the header describes the uncleaned log
    assert all(j.req_procs == -1 for j in trace.jobs)  # CTC has no requested processors
    assert max(j.procs for j in trace.jobs) == 336


def test_real_trace_round_trip(tmp_path: Path) -> None:
    path = real_trace("KTH-SP2-1996-2.1-cln.swf.gz")
    trace = read_swf(path)
    out = tmp_path / "kth.swf.gz"
    write_swf(trace, out)
    again = read_swf(out)
    assert again.jobs == trace.jobs
    assert again.header.fields == trace.header.fields


def test_comment_lines_kept_are_bounded():
    """A file of endless comment lines cannot fill memory: the first 10,000 are kept (the
    header facts come first), the rest skipped; jobs after them still parse."""
    text = (
        "; MaxProcs: 8\n"
        + "; filler\n" * 20_000
        + "1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
    )
    trace = read_swf(io.BytesIO(text.encode()))
    assert len(trace.header.comments) == 10_000
    assert trace.machine_procs == 8 and len(trace.jobs) == 1


# ------------------------------------------------------------- bounds and limits


@pytest.mark.parametrize(
    ("overrides", "field", "words"),
    [
        ({"req_procs": 2**31}, "field 8 (req_procs)", "at most 10^7"),
        ({"alloc_procs": 10**7 + 1}, "field 5 (alloc_procs)", "at most 10^7"),
        ({"submit": "1e308"}, "field 2 (submit)", "100 years"),
        ({"submit": 10**19}, "field 2 (submit)", "100 years"),
        ({"submit": 10**30}, "field 2 (submit)", "100 years"),
        ({"run": "1e308"}, "field 4 (run)", "100 years"),
        ({"used_mem": "1e308"}, "field 7 (used_mem)", "10^15"),
        ({"job_id": 10**20}, "field 1 (job_id)", "64-bit"),
        ({"submit": "9" * 5000}, "field 2 (submit)", "5000 characters"),
        ({"avg_cpu": "inf"}, "field 6 (avg_cpu)", "not a number"),
        ({"req_time": "nan"}, "field 9 (req_time)", "not a number"),
    ],
)
def test_fields_out_of_physical_bounds_are_refused(overrides, field, words) -> None:
    data = f"; MaxProcs: 64\n{GOOD}\n{job_line(**overrides)}\n".encode()
    (err,) = errors_of(data)
    assert err[0] == 3
    assert err[1].startswith(field) and words in err[1], err


def test_fields_at_their_bounds_are_kept() -> None:
    line = job_line(req_procs=10**7, alloc_procs=10**7, submit=3_155_760_000, job_id=2**63 - 1)
    (job,) = read_bytes(f"{line}\n".encode()).jobs
    assert job.req_procs == 10**7 and job.job_id == 2**63 - 1


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ("; MaxProcs: 2147483648", "header MaxProcs is 2147483648"),
        ("; MaxNodes: 12345678901234567890", "header MaxNodes is 12345678901234567890"),
        ("; MaxProcs: -5", "header MaxProcs is -5"),
        ("; MaxProcs: 1e308", "header MaxProcs must be an integer"),
        ("; MaxJobs: " + "9" * 5000, "a 5000-character value"),
        ("; UnixStartTime: 1e30", "header UnixStartTime must be an integer"),
        ("; MaxProcs: lots", "header MaxProcs must be an integer"),
    ],
)
def test_header_values_out_of_bounds_are_refused(header: str, words: str) -> None:
    data = f"; Version: 2.2\n{header}\n{GOOD}\n".encode()
    (err,) = errors_of(data)
    assert err[0] == 2 and words in err[1], err


def test_real_header_values_with_remarks_are_kept() -> None:
    data = f"; MaxNodes: 338 (batch partition; 512 total)\n; MaxProcs: 338\n{GOOD}\n".encode()
    trace = read_bytes(data)
    assert trace.header.max_nodes == 338 and trace.machine_procs == 338


def test_max_jobs_refuses_at_the_next_job_line() -> None:
    lines = [job_line(job_id=i) for i in range(1, 6)]
    data = ("; MaxProcs: 64\n" + "\n".join(lines) + "\n").encode()
    assert len(read_bytes(data, max_jobs=5).jobs) == 5
    assert errors_of(data, max_jobs=3) == [(5, "more than 3 jobs (the limit of this portal)")]


def test_limit_stops_reading_early() -> None:
    lines = [job_line(job_id=i) for i in range(1, 4)]
    # what follows the first two jobs is not read, so its garbage is not reported
    data = ("\n".join(lines[:2]) + "\nnot swf at all\n" + lines[2] + "\n").encode()
    trace = read_bytes(data, limit=2)
    assert [j.job_id for j in trace.jobs] == [1, 2]
    with pytest.raises(SWFError):
        read_bytes(data)


def test_fast_job_construction_equals_the_dataclass() -> None:
    (job,) = read_bytes(f"{GOOD}\n".encode()).jobs
    twin = SWFJob(*(int(t) for t in GOOD.split()))
    assert job == twin and hash(job) == hash(twin) and repr(job) == repr(twin)
    with pytest.raises(AttributeError):
        job.submit = 5  # type: ignore[misc]


def test_a_repeated_header_key_is_checked_every_time() -> None:
    data = f"; UnixStartTime: 0\n; UnixStartTime: 1e308\n{GOOD}\n".encode()
    (err,) = errors_of(data)
    assert err[0] == 2 and "header UnixStartTime must be an integer" in err[1]


def test_scan_checks_like_read_and_summarises_in_constant_memory(tmp_path):
    """``scan_swf`` + ``SummarySink`` (the upload check) gives the same errors and
    the same summary as ``read_swf`` + ``trace_summary``, and its memory does not grow with
    the file (the jobs are not kept), where ``read_swf``'s does."""
    import tracemalloc

    from scheduler.traces.lublin import generate_lublin99
    from scheduler.traces.stats import SummarySink, header_machine, trace_summary
    from scheduler.traces.swf import scan_swf

    def peak(fn) -> int:  # type: ignore[no-untyped-def]
        tracemalloc.start()
        fn()
        _, top = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return top

    small, large = tmp_path / "small.swf", tmp_path / "large.swf"
    write_swf(generate_lublin99(jobs=10_000, procs=128, seed=2), small)
    write_swf(generate_lublin99(jobs=40_000, procs=128, seed=2), large)
    trace = read_swf(large)
    sink = SummarySink()
    header = scan_swf(large, sink)
    assert sink.summary(header_machine(header, sink.widest)) == trace_summary(trace)
    assert len(sink) == len(trace.jobs) and header.fields == trace.header.fields
    scan_small = peak(lambda: scan_swf(small, SummarySink()))
    scan_large = peak(lambda: scan_swf(large, SummarySink()))
    read_small, read_large = peak(lambda: read_swf(small)), peak(lambda: read_swf(large))
    assert scan_large < 1.3 * scan_small + (1 << 20)  # four times the file, same memory
    assert read_large > 2 * read_small  # read_swf keeps every job
    bad = tmp_path / "bad.swf"
    bad.write_text(small.read_text() + "1 2 3\n")
    with pytest.raises(SWFError) as by_scan:
        scan_swf(bad, SummarySink())
    with pytest.raises(SWFError) as by_read:
        read_swf(bad)
    assert by_scan.value.errors == by_read.value.errors


# ------------------------------------------------- the vectorised reader


def _line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Turn the fast path off: every line goes through the per-line validator."""
    from scheduler.traces import swf

    monkeypatch.setattr(swf, "_fast_table", lambda text: None)


def _outcome(data: bytes, **kwargs: object) -> object:
    """What read_swf makes of ``data``: the jobs' values with their types and the header, or the
    errors."""
    try:
        trace = read_bytes(data, **kwargs)
    except SWFError as exc:
        return ("error", exc.errors, exc.truncated)
    return (
        [tuple((type(v).__name__, v) for v in j.to_fields()) for j in trace.jobs],
        trace.header.fields,
        trace.header.comments,
    )


def _random_trace(seed: int, jobs: int = 3000, stray_decimals: bool = True) -> bytes:
    """A trace of several fast-path blocks: ints, -1, decimals, tabs, CRLF, blank lines and
    comment lines among the jobs."""
    import random

    rng = random.Random(seed)
    out = ["; MaxProcs: 128", "; Note: generated"]
    for i in range(1, jobs + 1):
        values = [
            str(rng.choice([-1, 0, rng.randrange(10 ** rng.randrange(1, 8))])) for _ in FIELDS
        ]
        values[0] = str(i)
        for k in (5, 6, 9):  # avg_cpu, used_mem, req_mem often carry decimals
            if rng.random() < 0.5:
                values[k] = f"{rng.randrange(10**6)}.{rng.randrange(100):02d}"
        if stray_decimals and rng.random() < 0.01:
            values[rng.randrange(18)] = "-1.00"
        sep = "\t" if rng.random() < 0.05 else " " * rng.randrange(1, 4)
        line = " " * rng.randrange(3) + sep.join(values)
        if rng.random() < 0.02:
            line += "\r"
        out.append(line)
        if rng.random() < 0.01:
            out.append(rng.choice(["", "   ", "; a comment among the jobs"]))
    return ("\n".join(out) + "\n").encode()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fast_path_reads_what_the_line_by_line_reader_reads(monkeypatch, seed) -> None:
    from scheduler.traces import swf

    data = _random_trace(seed)
    calls: list[bool] = []
    real = swf._fast_table

    def spy(text: bytes):  # type: ignore[no-untyped-def]
        got = real(text)
        calls.append(got is not None)
        return got

    monkeypatch.setattr(swf, "_fast_table", spy)
    fast = _outcome(data)
    assert calls and all(calls)  # the fast path took every run of job lines
    _line_by_line(monkeypatch)
    assert fast == _outcome(data)
    assert fast[0][0][0] == ("int", 1) and any(  # type: ignore[index]
        t == "float"
        for row in fast[0]
        for t, _ in row  # type: ignore[union-attr]
    )


# each replaces field 3 (wait) of one line deep in a large file: accepted or refused exactly as
# by the per-line reader (same values and types, same line numbers and messages)
ODD_TOKENS = [
    "abc", "-5", "1.2.3", "1e3", "--1", "1-2", ".5", "5.", "+5", "0x10", "1_000", "nan", "inf",
    "-0", "-0.0", "007", "-1.0", "-1.5", "12345678901234567890", "9223372036854775807",
    "123456789012345678", "1;2", "\x00", "\xe9", "4000000000", "3155760000", "3155760001",
]  # fmt: skip


@pytest.mark.parametrize("token", ODD_TOKENS)
def test_fast_path_falls_back_to_the_line_by_line_reader(monkeypatch, token) -> None:
    lines = _random_trace(7, jobs=2000).decode().split("\n")
    fields = lines[1500].split()
    fields[2] = token
    lines[1500] = " ".join(fields)
    data = "\n".join(lines).encode("latin-1")
    fast = _outcome(data)
    _line_by_line(monkeypatch)
    assert fast == _outcome(data)


@pytest.mark.parametrize(
    "edit",
    [
        lambda f: f[:-1],  # 17 fields
        lambda f: [*f, "1"],  # 19 fields
        lambda f: f[:9] + ["\n"] + f[9:],  # one job split over two lines
    ],
)
def test_fast_path_field_counts_name_the_line(monkeypatch, edit) -> None:
    lines = _random_trace(8, jobs=2000).decode().split("\n")
    lines[1200] = " ".join(edit(lines[1200].split()))
    data = "\n".join(lines).encode()
    fast = _outcome(data)
    assert fast[0] == "error" and fast[1][0][0] == 1201  # type: ignore[index]
    _line_by_line(monkeypatch)
    assert fast == _outcome(data)


@pytest.mark.parametrize("kwargs", [{"limit": 1234}, {"max_jobs": 1999}, {"max_jobs": 2000}])
def test_fast_path_limit_and_max_jobs(monkeypatch, kwargs) -> None:
    data = _random_trace(9, jobs=2000)
    fast = _outcome(data, **kwargs)
    _line_by_line(monkeypatch)
    assert fast == _outcome(data, **kwargs)


def test_limit_reads_only_the_first_blocks() -> None:
    """``limit``: the stream is read no further than the block holding the last kept job."""
    from scheduler.traces import swf

    data = _random_trace(10, jobs=40_000)  # several MB
    stream = io.BytesIO(data)
    trace = read_swf(stream, limit=1000)  # type: ignore[arg-type]
    assert len(trace.jobs) == 1000
    assert stream.tell() <= 2 * swf._CHUNK < len(data) // 4


def test_read_swf_table_keeps_the_simulation_fields() -> None:
    from scheduler.traces.swf import TABLE_FIELDS, read_swf_table

    data = _random_trace(11, stray_decimals=False)
    trace = read_bytes(data)
    header, table = read_swf_table(io.BytesIO(data))
    assert header == trace.header and table.dtype.name == "int64"
    assert table.tolist() == [[getattr(j, f) for f in TABLE_FIELDS] for j in trace.jobs]
    limited = read_swf_table(io.BytesIO(data), limit=5)[1]
    assert limited.tolist() == table[:5].tolist()
    # a kept field written with a decimal point: no table (the caller reads the records)
    lines = data.decode().split("\n")
    fields = lines[2000].split()
    fields[1] = fields[1] + ".0"  # submit
    lines[2000] = " ".join(fields)
    assert read_swf_table(io.BytesIO("\n".join(lines).encode()))[1] is None
    lines = data.decode().split("\n")
    lines[3] = job_line(run="3.5")  # a short run of lines: read line by line
    assert read_swf_table(io.BytesIO("\n".join(lines).encode()))[1] is None
    with pytest.raises(SWFError) as info:
        read_swf_table(io.BytesIO(data + b"1 2 3\n"))
    assert info.value.errors == errors_of(data + b"1 2 3\n")


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_trace_fast_path_equals_line_by_line(monkeypatch, name) -> None:
    data = gzip.decompress(real_trace(name).read_bytes())
    fast = _outcome(data)
    _line_by_line(monkeypatch)
    assert fast == _outcome(data)
