"""The Parallel Workloads Archive logs the product knows by name (one table for the engine and the
portal: ``python -m scheduler reproduce`` tells users where a preset's trace comes from, and
``manage.py fetch_trace NAME`` downloads it).

Paths are the cleaned versions the archive recommends (and, by a name of its own, an original
log a seed counted, such as ``CTC-SP2-original``) (Feitelson, Tsafrir and Krakov,
"Experience with using the Parallel Workloads Archive", JPDC 74(10), 2014).
"""

from __future__ import annotations

__all__ = ["ARCHIVE", "ARCHIVE_LOGS", "UNOBTAINABLE", "archive_url"]

#: The archive's workload page; a log's address is ``ARCHIVE/<path>``.
ARCHIVE = "https://www.cs.huji.ac.il/labs/parallel/workload"

#: name -> path under :data:`ARCHIVE`.
ARCHIVE_LOGS = {
    "CTC-SP2": "l_ctc_sp2/CTC-SP2-1996-3.1-cln.swf.gz",
    "SDSC-SP2": "l_sdsc_sp2/SDSC-SP2-1998-4.2-cln.swf.gz",
    "KTH-SP2": "l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz",
    "NASA-iPSC": "l_nasa_ipsc/NASA-iPSC-1993-3.1-cln.swf.gz",
    "SDSC-BLUE": "l_sdsc_blue/SDSC-BLUE-2000-4.2-cln.swf.gz",
    "LANL-CM5": "l_lanl_cm5/LANL-CM5-1994-4.1-cln.swf.gz",
    "HPC2N": "l_hpc2n/HPC2N-2002-2.2-cln.swf.gz",
    # The original CTC log, before the archive removed user 135's flurry (2,080 jobs): the
    # thesis's "79285 jobs" (§3.1) counts this log's jobs with a runtime.  Public beside the
    # cleaned one; reproduction presets use the cleaned log unless they name this.
    "CTC-SP2-original": "l_ctc_sp2/CTC-SP2-1996-3.1.swf.gz",
}


#: The seeds' inputs that cannot be obtained (a claim resting on one alone is "blocked"), with
#: why.  Everything else a seed used is public: the original CTC-SP2 log, for one, is
#: ``CTC-SP2-original`` above (``manage.py fetch_trace CTC-SP2-original``).
UNOBTAINABLE = {
    "NCSA TeraGrid trace, 22 Feb – 3 Mar 2005 (Singh, Kesselman & Deelman 2005, §2)": (
        "collected privately by querying the cluster's scheduler; never published, not in the "
        "Parallel Workloads Archive nor any public repository; the presets replay SDSC-SP2's "
        "days 0–10 widened to 890 processors instead"
    ),
}


def archive_url(name: str, base: str = ARCHIVE) -> str:
    """The download address of archive log ``name`` (the archive's log page when unknown)."""
    path = ARCHIVE_LOGS.get(name)
    return f"{base.rstrip('/')}/{path}" if path else f"{base.rstrip('/')}/logs.html"
