"""Screenshots and page heights of the main pages at 1366 px and 390 px.

    GRIDPORTAL_VAR_DIR=/tmp/var-shots .venv/bin/python -m tests.browser.screenshots build
    GRIDPORTAL_VAR_DIR=/tmp/var-shots .venv/bin/python -m tests.browser.screenshots shoot \
        --url http://127.0.0.1:8765 --label after

    GRIDPORTAL_VAR_DIR=/tmp/var-shots .venv/bin/python -m tests.browser.screenshots measure \
        --url http://127.0.0.1:8765 --label after

``build`` migrates a fresh database under GRIDPORTAL_VAR_DIR and stores one finished run of each
kind plus a sweep (tests/browser/ui_fixtures.py); ``shoot`` logs in as the fixture user against
a running portal, saves docs/screenshots/<page>-<width>-<label>.png and prints each page's
height (and width: more than the viewport means horizontal overflow); ``measure`` opens every
run's page, the sweeps and the compare page at both widths and prints the readability figures
of tests/browser/readability.py (legend entries visible / total, repeating colours, axes below
0, the widest table against its card) into docs/screenshots/figures-<label>.json.
"""

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridportal.settings")
USER, PASSWORD = "shots", "shots-Secret-123"
OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PAGES = (
    "provisioning", "pricing", "usage-policy", "sweep", "policy-sweep", "compare", "reproductions",
)  # fmt: skip


def build() -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from tests.browser.ui_fixtures import all_fixtures, policy_sweep

    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username=USER)
    user.set_password(PASSWORD)
    user.save()
    made = all_fixtures(user, verbose=True)
    ids = {k: e.pk for k, e in made["runs"].items()} | {"sweep": made["sweep"].pk}
    sweep = policy_sweep(user, made["trace"])
    ids["policy-sweep"] = sweep.pk
    ids["compare"] = list(sweep.runs.order_by("id").values_list("id", flat=True))
    path = Path(os.environ["GRIDPORTAL_VAR_DIR"]) / "fixture-ids.json"
    path.write_text(json.dumps(ids))
    print(path, ids)


def _pages(url: str, chromium: str, paths: dict[str, str]):
    """Each page of ``paths`` at 1366 px and 390 px, logged in as the fixture user:
    yields ``(name, width, page)`` with the page loaded."""
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import FLAGS

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium, args=FLAGS, headless=True)
        for width in (1366, 390):
            ctx = b.new_context(viewport={"width": width, "height": 900})
            page = ctx.new_page()
            page.goto(f"{url}/login/")
            page.fill("#id_username", USER)
            page.fill("#id_password", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_load_state()
            for name, path in paths.items():
                page.goto(url + path)
                yield name, width, page
            ctx.close()
        b.close()


def _result_paths(ids: dict) -> dict[str, str]:
    """The two sweeps' pages and the compare page of the fixture's ids."""
    return {
        "sweep": f"/sweeps/{ids['sweep']}/",
        "policy-sweep": f"/sweeps/{ids['policy-sweep']}/",
        "compare": "/experiments/compare/?" + "&".join(f"ids={i}" for i in ids["compare"]),
    }


def shoot(url: str, label: str, ids: dict, chromium: str, only=()) -> dict:
    paths = {
        "provisioning": f"/experiments/{ids['provisioning']}/",
        "pricing": f"/experiments/{ids['pricing']}/",
        "usage-policy": f"/experiments/{ids['usage-policy']}/",
        **_result_paths(ids),
        "reproductions": "/reproductions/",
    }
    paths = {k: v for k, v in paths.items() if not only or k in only}
    heights: dict = {}
    OUT.mkdir(parents=True, exist_ok=True)
    for name, width, page in _pages(url, chromium, paths):
        try:
            page.wait_for_selector("body[data-result-drawn=true]", timeout=15_000)
        except Exception:
            page.wait_for_timeout(1500)
        page.wait_for_timeout(500)
        size = page.evaluate(
            "() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
        )
        heights[f"{name}@{width}"] = {"width": size[0], "height": size[1]}
        page.screenshot(path=str(OUT / f"{name}-{width}-{label}.png"), full_page=True)
        print(f"{label} {name} @{width}px: {size[1]} px tall, {size[0]} px wide")
    return heights


def measure_pages(url: str, label: str, ids: dict, chromium: str) -> dict:
    from tests.browser.readability import measure, open_everything, summary

    paths = {k: f"/experiments/{v}/" for k, v in ids.items() if isinstance(v, int)}
    paths |= _result_paths(ids)
    out: dict = {}
    for name, width, page in _pages(url, chromium, paths):
        page.wait_for_selector("body[data-result-drawn=true]", timeout=30_000)
        open_everything(page)
        figures = summary(measure(page))
        out[f"{name}@{width}"] = figures
        print(f"{label} {name} @{width}px: {json.dumps(figures)}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("build", "shoot", "measure"))
    ap.add_argument("--url", default="http://127.0.0.1:8765")
    ap.add_argument("--label", default="after")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    ap.add_argument("--pages", default="", help="comma-separated names of PAGES (all if empty)")
    a = ap.parse_args()
    if a.what == "build":
        build()
        return
    ids = json.loads((Path(os.environ["GRIDPORTAL_VAR_DIR"]) / "fixture-ids.json").read_text())
    if a.what == "measure":
        figures = measure_pages(a.url, a.label, ids, a.chromium)
        (OUT / f"figures-{a.label}.json").write_text(json.dumps(figures, indent=1))
        return
    only = [p for p in a.pages.split(",") if p]
    heights = shoot(a.url, a.label, ids, a.chromium, only)
    name = f"heights-{a.label}.json" if not only else f"heights-{'-'.join(only)}-{a.label}.json"
    (OUT / name).write_text(json.dumps(heights, indent=1))


if __name__ == "__main__":
    sys.exit(main())
