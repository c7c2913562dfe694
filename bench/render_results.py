"""Rendering stored Results of growing size: time and peak memory of each renderer, another
checkout (``--main``, e.g. the commit before a change) vs this tree.

    .venv/bin/python bench/render_results.py --main ../other-checkout [--timeout 60] [--quick]

Each (tree, renderer, size) runs in its own process (``python bench/render_results.py --one``
with that tree first on ``sys.path``), so the trees' code never mixes and the peak RSS is the
renderer's own: the input is built as the JSON text PostgreSQL would give, then parsed and
rendered; "RSS +MiB" is the peak resident memory past the text. Renderers:

- ``svg``: ``svg_chart`` of every chart (scheduler/experiments/reproduce_report.py);
- ``csv``: the CSV of every part (gridportal/experiments/export.py);
- ``bundle``: the result's files in a run bundle and the zip (bundles.py ``add_result``);
- ``page``: the result page's JSON (main: ``labelled(result)``; here: the tolerant reader);
- ``limited`` (this tree only): the bundle files rendered by a ``run_limited`` child, as the
  portal does for a stored Result over 1 MiB: the web process's peak RSS and the child's.

Results: a bar chart of 1k/10k/40k/200k categories, a line chart of 10^6 points, a table of
10^5 rows. It prints a table with the ratios main/here and the time per item at each size
(flat when growth is linear); a case past ``--timeout`` seconds is shown as "> T s".
Never asserts wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SIZES = {
    "bar": [1_000, 10_000, 40_000, 200_000],
    "line": [100_000, 1_000_000],
    "table": [10_000, 100_000],
}
RENDERERS = ("svg", "csv", "bundle", "page")


def build(shape: str, n: int) -> dict:
    summary = {"jobs": n, "mean_wait": 12.5}
    base = {"kind": "trace-stats", "params": {}, "seed": 0, "summary": summary,
            "summary_labels": {}, "tables": [], "charts": []}  # fmt: skip
    if shape == "bar":
        base["charts"] = [{"id": "bars", "type": "bar", "title": "bars",
                           "x": {"label": "category", "scale": "category"},
                           "y": {"label": "count", "scale": "linear"},
                           "series": [{"name": "s", "points": [[f"c{i}", i % 97]
                                                               for i in range(n)]}]}]  # fmt: skip
    elif shape == "line":
        base["charts"] = [{"id": "line", "type": "line", "title": "line",
                           "x": {"label": "t", "scale": "linear"},
                           "y": {"label": "v", "scale": "linear"},
                           "series": [{"name": "s", "points": [[i, (i * 7919) % 1000 / 10]
                                                               for i in range(n)]}]}]  # fmt: skip
    else:
        base["tables"] = [{"id": "rows", "title": "rows", "columns": ["i", "name", "v", "w"],
                           "rows": [[i, f"job {i}", i * 0.5, None] for i in range(n)]}]  # fmt: skip
    return base


def build_text(shape: str, n: int) -> str:
    """``json.dumps(build(shape, n))`` without holding the Result as Python objects (whose
    peak would hide the renderer's in ru_maxrss)."""
    doc = build(shape, 0)
    if shape == "table":
        rows = (json.dumps([i, f"job {i}", i * 0.5, None]) for i in range(n))
        slot = ("tables", 0, "rows")
    else:
        fmt = (lambda i: json.dumps([f"c{i}", i % 97])) if shape == "bar" else (
            lambda i: json.dumps([i, (i * 7919) % 1000 / 10]))  # fmt: skip
        rows = (fmt(i) for i in range(n))
        slot = ("charts", 0, "series", 0, "points")
    node = doc
    for step in slot[:-1]:
        node = node[step]
    node[slot[-1]] = "@@ROWS@@"
    doc["summary"]["jobs"] = n
    head, tail = json.dumps(doc).split('"@@ROWS@@"')
    return head + "[" + ",".join(rows) + "]" + tail


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one(tree: str, renderer: str, shape: str, n: int) -> dict:
    """In a child process whose sys.path starts with ``tree``."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridportal.settings")
    os.environ.pop("DATABASE_URL", None)  # nothing here touches a database
    import django

    django.setup()
    from gridportal.experiments import bundles, export  # noqa: F401 (imported before the clock)
    from scheduler import engine

    engine.svg_chart  # noqa: B018 (its lazy import, which loads the catalogue, is not timed)
    text = build_text(shape, n)
    base = _peak_mib()  # (the text is built piece by piece: the peak so far is about its size)
    here = hasattr(engine, "read_result")
    t0 = time.perf_counter()
    child_peak = None
    result = json.loads(text)
    if renderer == "svg":
        view = engine.read_result(result) if here else result
        out = sum(len(engine.svg_chart(spec)) for spec in view["charts"])
    elif renderer == "csv":
        view = engine.read_result(result) if here else result
        out = sum(len(export.result_csv(view, p)) for p in export.result_parts(view))
    elif renderer == "bundle":
        from gridportal.experiments.bundles import _Crate

        crate = _Crate("bench", "bench")
        crate.add_result("result", result)
        out = len(crate.zip([]))
    elif renderer == "page":
        if here:
            from gridportal.experiments.results import view_of

            out = len(json.dumps(view_of(result)))
        else:
            out = len(json.dumps(engine.labelled(result)))
    elif renderer == "limited":
        del result
        from gridportal.experiments.results import result_files
        from gridportal.limits import run_limited

        def render(doc_text: str):
            files = result_files(json.loads(doc_text), "result")
            return sum(len(b) for _, b, _, _ in files), _peak_mib()

        base = _peak_mib()
        out, child_peak = run_limited(render, text, timeout=600, memory_mb=4096, what="bench")
    else:
        raise SystemExit(f"unknown renderer {renderer}")
    took = time.perf_counter() - t0
    return {"s": took, "bytes": out, "rss": max(0.0, _peak_mib() - base),
            "child_peak": child_peak, "json_mb": len(text) / 2**20}  # fmt: skip


def run_case(tree: Path, renderer: str, shape: str, n: int, timeout: float) -> dict | None:
    code = (f"import sys; sys.path.insert(0, {str(tree)!r}); sys.path.insert(1, {str(HERE)!r});"
            "import json, importlib.util as u;"
            f"s = u.spec_from_file_location('rb', {str(HERE / 'bench/render_results.py')!r});"
            "m = u.module_from_spec(s); s.loader.exec_module(m);"
            f"print(json.dumps(m.one({str(tree)!r}, {renderer!r}, {shape!r}, {n})))")  # fmt: skip
    try:
        proc = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True,
                              text=True, timeout=timeout)  # fmt: skip
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode:
        return {"error": proc.stderr.strip().splitlines()[-1][:120]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--main", required=True, help="the other checkout to compare with")
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--quick", action="store_true", help="the smaller sizes only")
    args = ap.parse_args()
    trees = {"main": Path(args.main), "here": HERE}
    print(f"{'result':>16} {'renderer':>8} {'main s':>9} {'here s':>8} {'ratio':>7} "
          f"{'here µs/item':>12} {'main RSS+':>9} {'here RSS+':>9}")  # fmt: skip
    for shape, sizes in SIZES.items():
        for n in sizes[:2] if args.quick else sizes:
            for renderer in (*RENDERERS, "limited"):
                got = {}
                for name, tree in trees.items():
                    if renderer == "limited" and name == "main":
                        got[name] = None
                        continue
                    got[name] = run_case(tree, renderer, shape, n, args.timeout)
                m, h = got["main"], got["here"]

                def t(r, renderer=renderer):
                    if r is None:
                        return f"> {args.timeout:g}" if renderer != "limited" else "–"
                    return "error" if "error" in r else f"{r['s']:.3f}"

                ratio = (f"{m['s'] / h['s']:.1f}×" if m and h and "s" in m and "s" in h
                         else "–")  # fmt: skip
                per = f"{h['s'] / n * 1e6:.2f}" if h and "s" in h else "–"
                rss_m = f"{m['rss']:.0f} MiB" if m and "rss" in m else "–"
                rss_h = f"{h['rss']:.0f} MiB" if h and "rss" in h else "–"
                if renderer == "limited" and h and "rss" in h:
                    rss_m = f"child {h['child_peak']:.0f}"
                label = f"{shape} {n:,}"
                print(f"{label:>16} {renderer:>8} {t(m):>9} {t(h):>8} {ratio:>7} {per:>12} "
                      f"{rss_m:>9} {rss_h:>9}", flush=True)  # fmt: skip
                for r in (m, h):
                    if r and "error" in r:
                        print(f"{'':>16} error: {r['error']}")
        mb = len(build_text(shape, sizes[-1])) / 2**20
        print(f"{'':>16} ({shape} {sizes[-1]:,}: {mb:.1f} MB of JSON)")


if __name__ == "__main__":
    main()
