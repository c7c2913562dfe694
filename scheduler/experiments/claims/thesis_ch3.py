"""Singh 2008 (thesis), ch. 3 and §4.7: the traces, the simulated clusters and slot
advertisement."""

from __future__ import annotations

from ._base import claim as _c

TRACE_VERSION = (
    "trace version: the thesis used the logs as they were in 2007; the archive's cleaned logs "
    "(CTC-SP2-1996-3.1-cln, SDSC-SP2-1998-4.2-cln) drop flagged jobs, so counts and loads differ"
)
EXACT_COUNT = "an exact count printed in the text; 1 % allows for the archive's log version"
UTIL_TOL = "a percentage printed in the text, rounded to 1 %; ± 5 points for the trace version"

CTC_UTIL_QUOTE = (
    "Just simulating the first trace gave a resource utilization of 63% for the CTC cluster"
)
_CTC_UTIL = _c(
    where="thesis §4.7",
    metric="conservative_accurate_utilization",
    quote=CTC_UTIL_QUOTE,
    value=0.63,
    tolerance=0.05,
    tolerance_why=UTIL_TOL,
    cause=TRACE_VERSION,
)
SDSC_LOAD = (
    "unknown in the seed: §4.7 does not say over which span it simulated; the thesis prints two "
    "pairs for the same two clusters, 63 % / 70 % (§4.7) and 64 % / 74 % (§4.7, Figure 13). "
    "Over the whole cleaned log SDSC's jobs offer 83 % of 128 processors; over its first 70 "
    "days 70 % (CTC then 63 %), over its first 130–150 days 74 % (CTC 64–65 %)"
)
#: The span is the one unstated choice of §4.7's utilizations: run over 60, 70 and 80 days.
SPAN = "the first 70 days (spread over 60, 70 and 80 days: the span §4.7 does not state)"
_SDSC_UTIL = _c(
    where="thesis §4.7",
    metric="conservative_accurate_utilization",
    quote="and 70% for the SDSC cluster",
    value=0.70,
    tolerance=0.05,
    tolerance_why=UTIL_TOL,
    cause=SDSC_LOAD,
)
JOBS = "containing 79285 and 54036 jobs respectively"
CTC_CLEANED = (
    "trace version: the archive's cleaned CTC log drops 2,080 jobs of user 135 (its header: "
    "'user=135 and (job>=47421 and job<=50307) (2080 jobs removed)'); the uncleaned log has "
    "79,302 records (header MaxJobs); the cleaned log has 17 records without a positive "
    "runtime (77,222 records, 77,205 jobs simulated) and 79,302 - 17 = 79,285, the thesis's "
    "count exactly, so the thesis most likely counted the uncleaned log's jobs with a runtime "
    "(if none of the 2,080 removed jobs lacks one).  That original log is public in the "
    "Parallel Workloads Archive (`manage.py fetch_trace CTC-SP2-original`) but is not in this "
    "project's test data, so the claim is not checked on it here: not blocked, not yet run"
)
_CTC_JOBS = dict(where="thesis §3.1", quote=JOBS, value=79285, tolerance=0.01,
                 relative=True, tolerance_why=EXACT_COUNT, cause=CTC_CLEANED)  # fmt: skip
_SDSC_JOBS = dict(where="thesis §3.1", quote=JOBS, value=54036, tolerance=0.01,
                  relative=True, tolerance_why=EXACT_COUNT, cause=TRACE_VERSION)  # fmt: skip

SLOTS_TOL = "a mean printed in the text; ± 20 % for the trace version and advertisement instants"
SLOT_CAUSE = (
    'the thesis does not say at which instants it advertised ("periodically"); we advertise '
    "every hour of simulated time (interval_hours) from the first to the last submission"
)
CTC_SLOT_CAUSE = (
    "the plan, not the slot cut: we advertise every hour of simulated time over the whole log; "
    "at an advertisement the CTC plan's free processors rise at 36.7 distinct instants of "
    "[now, H) on average, and no set of disjoint slots covers the free area with fewer slots "
    "(a slot must start at each rise). Our level-band cut gives 37.4; the thesis's own Figure 3 "
    "left-overs give 58.7 on the same jobs. 27 needs another plan — trace version (the thesis's "
    "log had 79,285 jobs, the cleaned one 77,222) — or an average the text does not describe: "
    "the count is 33.7–37.4 over the first 30–340 days, and dropping the 16 % of advertisements "
    "past Figure 4's last bin (58) gives 29.3"
)

# One claim per published number, checked by one preset: the utilizations by the simulation
# §4.7 describes ("Just simulating the first trace"), the job counts by the trace's statistics.
CLAIMS = {
    "cluster-sim/ctc-thesis-70-days": (_CTC_UTIL,),
    "cluster-sim/sdsc-thesis-70-days": (_SDSC_UTIL,),
    "trace-stats/ctc-thesis": (_c(metric="valid_jobs", **_CTC_JOBS),),
    "trace-stats/sdsc-thesis": (_c(metric="valid_jobs", **_SDSC_JOBS),),
    "slot-advertisement/thesis-fig4-7": (
        _c(where="thesis §3.1, Figure 4", metric="s1_mean_slots",
           quote="the average number of advertised slots for the CTC cluster was 27",
           value=27, tolerance=0.2, relative=True, tolerance_why=SLOTS_TOL,
           cause=CTC_SLOT_CAUSE),
        _c(where="thesis §3.1, Figure 4", metric="s2_mean_slots",
           quote="whereas for the SDSC cluster it was 14", value=14, tolerance=0.2,
           relative=True, tolerance_why=SLOTS_TOL, cause=SLOT_CAUSE),
        _c(where="thesis §3.1, Figure 5", metric="s1_corr_slots_jobs",
           quote="the number of advertised slots seem to be positively correlated with the "
           "number of tasks in the system", shape=">", than=0.0, cause=SLOT_CAUSE),
        _c(where="thesis §3.1, Figure 5", metric="s2_corr_slots_jobs",
           quote="the number of advertised slots seem to be positively correlated with the "
           "number of tasks in the system", shape=">", than=0.0, cause=SLOT_CAUSE),
    ),
    "slot-advertisement/ctc-thesis": (
        _c(where="thesis §3.1, Figure 4", metric="s1_mean_slots",
           quote="the average number of advertised slots for the CTC cluster was 27",
           value=27, tolerance=0.2, relative=True, tolerance_why=SLOTS_TOL,
           cause=CTC_SLOT_CAUSE),
    ),
    "slot-advertisement/sdsc-thesis": (
        _c(where="thesis §3.1, Figure 4", metric="s1_mean_slots",
           quote="whereas for the SDSC cluster it was 14", value=14, tolerance=0.2,
           relative=True, tolerance_why=SLOTS_TOL, cause=SLOT_CAUSE),
    ),
}  # fmt: skip
