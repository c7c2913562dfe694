"""Where the test suite's CPU goes: the costliest tests and files of the last run.

    .venv/bin/python bench/suite_cpu.py [var/pytest-last.xml] [--most 30]

Reads the ``cpu_s`` property tests/conftest.py records for every test (this process's and its
reaped children's CPU from set-up to teardown; processes a session-wide fixture keeps running
are counted where they are reaped) beside the test's wall time. On a machine the suite
saturates, the suite's wall time is about its CPU divided by the cores, so the CPU is what
to cut.
"""

from __future__ import annotations

import argparse
import collections
import xml.etree.ElementTree as ET  # noqa: S405  (our own pytest's report)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("report", nargs="?", default="var/pytest-last.xml")
    ap.add_argument("--most", type=int, default=30)
    args = ap.parse_args()
    tests: list[tuple[float, float, str]] = []
    files: collections.Counter[str] = collections.Counter()
    for case in ET.parse(args.report).iter("testcase"):  # noqa: S314
        cpu = next(
            (float(p.get("value")) for p in case.iter("property") if p.get("name") == "cpu_s"),
            0.0,
        )
        name = f"{case.get('classname')}::{case.get('name')}"
        tests.append((cpu, float(case.get("time") or 0), name))
        files[case.get("classname") or "?"] += cpu
    total = sum(t[0] for t in tests)
    print(f"{len(tests)} tests, {total:.0f} s of CPU, {sum(t[1] for t in tests):.0f} s of wall")
    print(f"\nthe {args.most} costliest tests (CPU s, wall s):")
    for cpu, wall, name in sorted(tests, reverse=True)[: args.most]:
        print(f"{cpu:8.1f} {wall:8.1f}  {name}")
    print(f"\nthe {args.most} costliest files (CPU s, share):")
    for name, cpu in files.most_common(args.most):
        print(f"{cpu:8.1f} {cpu / (total or 1):6.1%}  {name}")


if __name__ == "__main__":
    main()
