"""Screenshots and page heights of the main pages at 1366 px and 390 px (issue 20).

    GRIDPORTAL_VAR_DIR=/tmp/var-shots .venv/bin/python -m tests.browser.screenshots build
    GRIDPORTAL_VAR_DIR=/tmp/var-shots .venv/bin/python -m tests.browser.screenshots shoot \
        --url http://127.0.0.1:8765 --label after

``build`` migrates a fresh database under GRIDPORTAL_VAR_DIR and stores one finished run of each
kind plus a sweep (tests/browser/ui_fixtures.py); ``shoot`` logs in as the fixture user against
a running portal, saves docs/screenshots/<page>-<width>-<label>.png and prints each page's
height (and width: more than the viewport means horizontal overflow).
"""

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gridportal.settings")
USER, PASSWORD = "shots", "shots-Secret-123"
OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PAGES = ("provisioning", "pricing", "usage-policy", "sweep", "reproductions")


def build() -> None:
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from tests.browser.ui_fixtures import all_fixtures

    call_command("migrate", verbosity=0)
    user, _ = get_user_model().objects.get_or_create(username=USER)
    user.set_password(PASSWORD)
    user.save()
    made = all_fixtures(user, verbose=True)
    ids = {k: e.pk for k, e in made["runs"].items()} | {"sweep": made["sweep"].pk}
    path = Path(os.environ["GRIDPORTAL_VAR_DIR"]) / "fixture-ids.json"
    path.write_text(json.dumps(ids))
    print(path, ids)


def shoot(url: str, label: str, ids: dict, chromium: str) -> dict:
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import FLAGS

    paths = {
        "provisioning": f"/experiments/{ids['provisioning']}/",
        "pricing": f"/experiments/{ids['pricing']}/",
        "usage-policy": f"/experiments/{ids['usage-policy']}/",
        "sweep": f"/sweeps/{ids['sweep']}/",
        "reproductions": "/reproductions/",
    }
    heights: dict = {}
    OUT.mkdir(parents=True, exist_ok=True)
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
                try:
                    page.wait_for_selector("body[data-result-drawn=true]", timeout=15_000)
                except Exception:
                    page.wait_for_timeout(1500)
                page.wait_for_timeout(500)
                size = page.evaluate(
                    "() => [document.documentElement.scrollWidth,"
                    " document.documentElement.scrollHeight]"
                )
                heights[f"{name}@{width}"] = {"width": size[0], "height": size[1]}
                page.screenshot(path=str(OUT / f"{name}-{width}-{label}.png"), full_page=True)
                print(f"{label} {name} @{width}px: {size[1]} px tall, {size[0]} px wide")
            ctx.close()
        b.close()
    return heights


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=("build", "shoot"))
    ap.add_argument("--url", default="http://127.0.0.1:8765")
    ap.add_argument("--label", default="after")
    ap.add_argument("--chromium", default=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
    a = ap.parse_args()
    if a.what == "build":
        build()
        return
    ids = json.loads((Path(os.environ["GRIDPORTAL_VAR_DIR"]) / "fixture-ids.json").read_text())
    heights = shoot(a.url, a.label, ids, a.chromium)
    (OUT / f"heights-{a.label}.json").write_text(json.dumps(heights, indent=1))


if __name__ == "__main__":
    sys.exit(main())
