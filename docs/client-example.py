"""GridPortal from Python: upload a trace, run an experiment and a sweep, read the results.

    pip install ./clients/python[pandas]
    GRIDPORTAL_URL=http://127.0.0.1:8000 GRIDPORTAL_USER=demo GRIDPORTAL_PASSWORD=demo-grid \\
        python docs/client-example.py TRACE.swf[.gz]

``demo``/``demo-grid`` is the demo account that ``make run`` creates (``manage.py seed_demo``).
The test suite runs the command above as written (the address and the trace aside) against a
live portal with a real worker (tests/integration/test_client.py).
"""

from __future__ import annotations

import os
import sys

from gridportal_client import Client


def main(trace_path: str) -> None:
    gp = Client(os.environ.get("GRIDPORTAL_URL", "http://127.0.0.1:8000"))
    gp.login(
        os.environ.get("GRIDPORTAL_USER", "demo"),
        os.environ.get("GRIDPORTAL_PASSWORD", "demo-grid"),
    )

    trace = gp.upload_trace(trace_path, name="client example")
    print(f"uploaded trace {trace['id']}: {trace['job_count']} jobs")

    run = gp.submit("trace-stats", traces=[trace["id"]], params={"procs": 128}, seed=1)
    done = gp.wait(run["id"], progress=lambda p, m: print(f"  run {run['id']}: {p:4.0%} {m}"))
    print(f"run {run['id']} {done['status']}")
    summary = gp.result(run["id"])["summary"]
    print(f"offered load on 128 processors: {summary['offered_load']}")

    sweep = gp.sweep(
        "trace-stats",
        [{"param": "procs", "values": [64, 128, 256]}],
        traces=[trace["id"]],
        repetitions=2,
    )
    state = gp.wait(sweep["id"], sweep=True)["state"]
    print(f"sweep {sweep['id']} {state['status']}: {state['counts']['succeeded']} runs")
    try:
        frames = gp.result_frames(sweep["id"], sweep=True)
    except ImportError:
        print("(pandas not installed: plain data only)")
        return
    table = frames["table:points"]
    print(table[["procs", "offered_load mean", "offered_load n"]].to_string(index=False))


if __name__ == "__main__":
    main(sys.argv[1])
