"""gridportal-client: script GridPortal studies from Python (no Django, standard library only).

    from gridportal_client import Client

    gp = Client("http://127.0.0.1:8000")
    gp.login("demo", "demo-grid")                  # or Client(url, token="...")
    trace = gp.upload_trace("ctc.swf.gz", name="CTC")
    run = gp.submit("cluster-sim", traces=[trace["id"]], params={"procs": 430}, seed=1)
    gp.wait(run["id"], progress=print)
    result = gp.result(run["id"])                  # plain data: summary, tables, charts
    frames = gp.result_frames(run["id"])           # pandas DataFrames (pip install
                                                   # gridportal-client[pandas])

Errors from the portal raise :class:`PortalError` with the HTTP status and the field errors the
portal gave (e.g. ``{"file": ["trace.swf: line 12: …"]}``).
"""

from __future__ import annotations

import json
import mimetypes
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

__all__ = ["Client", "PortalError", "__version__"]
__version__ = "0.1.0"

FINISHED = ("succeeded", "failed", "cancelled")


class PortalError(Exception):
    """The portal answered with an error; ``status`` and ``detail`` (its JSON body)."""

    def __init__(self, status: int, detail: Any, url: str) -> None:
        self.status, self.detail, self.url = status, detail, url
        super().__init__(f"HTTP {status} from {url}: {detail}")


class Client:
    """A GridPortal REST client; every method returns plain JSON data."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 60) -> None:
        self.base = base_url.rstrip("/") + "/"
        self.token = token
        self.timeout = timeout

    # --- transport ------------------------------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        *,
        body: bytes | None = None,
        content_type: str | None = None,
        query: dict[str, Any] | None = None,
        raw: bool = False,
    ) -> Any:
        url = urllib.parse.urljoin(self.base, path.lstrip("/"))
        if query:
            url += "?" + urllib.parse.urlencode(query, doseq=True)
        req = urllib.request.Request(url, data=body, method=method)
        req.add_header("Accept", "application/json")
        if content_type:
            req.add_header("Content-Type", content_type)
        if self.token:
            req.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                data = resp.read()
        except urllib.error.HTTPError as exc:
            text = exc.read().decode("utf-8", "replace")
            try:
                detail: Any = json.loads(text)
            except ValueError:
                detail = text[:500]
            raise PortalError(exc.code, detail, url) from None
        if raw:
            return data
        return json.loads(data) if data else None

    def _json(self, method: str, path: str, payload: Any) -> Any:
        return self._request(
            method, path, body=json.dumps(payload).encode(), content_type="application/json"
        )

    def _multipart(self, path: str, fields: dict[str, str], files: dict[str, Path]) -> Any:
        boundary = uuid.uuid4().hex
        parts: list[bytes] = []
        for name, value in fields.items():
            parts.append(
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                f"{value}\r\n".encode()
            )
        for name, file in files.items():
            ctype = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            parts.append(
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                f'filename="{file.name}"\r\nContent-Type: {ctype}\r\n\r\n'.encode()
                + file.read_bytes()
                + b"\r\n"
            )
        parts.append(f"--{boundary}--\r\n".encode())
        return self._request(
            "POST",
            path,
            body=b"".join(parts),
            content_type=f"multipart/form-data; boundary={boundary}",
        )

    # --- account --------------------------------------------------------------------------

    def login(self, username: str, password: str) -> str:
        """Get an API token (``POST /api/auth/token/``); later calls send it."""
        body = urllib.parse.urlencode({"username": username, "password": password}).encode()
        answer = self._request(
            "POST", "api/auth/token/", body=body,
            content_type="application/x-www-form-urlencoded",
        )  # fmt: skip
        self.token = answer["token"]
        return self.token

    # --- inputs ---------------------------------------------------------------------------

    def upload_trace(
        self, path: str | Path, name: str = "", *, lenient: bool = False,
        sacct_format: str | None = None, procs: int | None = None,
    ) -> dict:  # fmt: skip
        """Upload an SWF trace or Slurm accounting (``sacct -P``, any columns, with or without
        its header line), plain or .gz; the portal decides which, as ``python -m scheduler
        convert sacct`` does.  For sacct: ``lenient`` skips the rows that cannot be read
        instead of refusing the file, ``sacct_format`` names the columns of a file without a
        header line (``"jobid,jobidraw,…"``; default Open XDMoD's order), ``procs`` is the
        cluster's CPUs.  The conversion report is the answer's ``summary["conversion"]``.  A
        sacct file larger than the portal's GRIDPORTAL_SACCT_BACKGROUND_BYTES (2 MiB) is
        converted by a worker: the answer is then its import (``status`` ``converting``),
        followed at ``api/traces/imports/``, and the trace is listed when it is ready."""
        fields = {"name": name}
        if lenient:
            fields["lenient"] = "true"
        if sacct_format:
            fields["sacct_format"] = sacct_format
        if procs is not None:
            fields["procs"] = str(procs)
        return self._multipart("api/traces/", fields, {"file": Path(path)})

    def upload_workflow(self, path: str | Path, name: str = "") -> dict:
        """Upload a Pegasus DAX, Pegasus 5 YAML, WfFormat or native JSON workflow."""
        return self._multipart("api/workflows/", {"name": name}, {"file": Path(path)})

    def upload_policy(self, path: str | Path, class_name: str, name: str = "") -> dict:
        """Upload a scheduling policy (a scheduler.policies subclass named ``class_name``),
        checked in the portal's sandbox; name it in runs by the answer's ``ref``."""
        fields = {"name": name, "class_name": class_name}
        return self._multipart("api/policy-files/", fields, {"file": Path(path)})

    def policies(self) -> list[dict]:
        """Your uploaded scheduling policies."""
        return self._paged("api/policy-files/")

    def traces(self) -> list[dict]:
        return self._paged("api/traces/")

    def kinds(self) -> list[dict]:
        return self._request("GET", "api/kinds/")

    # --- runs and sweeps ------------------------------------------------------------------

    def submit(
        self,
        kind: str,
        *,
        params: dict | None = None,
        traces: Iterable[int] = (),
        workflows: Iterable[int] = (),
        seed: int = 0,
        name: str = "",
    ) -> dict:
        """Queue a run; returns the run (``id``, ``status`` …)."""
        return self._json(
            "POST",
            "api/experiments/",
            {"kind": kind, "params": params or {}, "traces": list(traces),
             "workflows": list(workflows), "seed": seed, "name": name},
        )  # fmt: skip

    def sweep(
        self,
        kind: str,
        vary: list[dict],
        *,
        params: dict | None = None,
        traces: Iterable[int] = (),
        workflows: Iterable[int] = (),
        seed: int = 0,
        repetitions: int = 1,
        name: str = "",
        executor: str = "workers",
    ) -> dict:
        """Queue a sweep: ``vary=[{"param": "procs", "values": [64, 128]}]`` (or ``range``)."""
        return self._json(
            "POST",
            "api/sweeps/",
            {"kind": kind, "vary": vary, "params": params or {}, "traces": list(traces),
             "workflows": list(workflows), "seed": seed, "repetitions": repetitions,
             "name": name, "executor": executor},
        )  # fmt: skip

    def run(self, run_id: int) -> dict:
        return self._request("GET", f"api/experiments/{int(run_id)}/")

    def cancel(self, run_id: int) -> dict:
        """Cancel a queued or running run (a running one's work stops within seconds);
        returns the run. A run already finished raises PortalError (409)."""
        return self._request("POST", f"api/experiments/{int(run_id)}/cancel/")

    def cancel_sweep(self, sweep_id: int) -> dict:
        """Cancel every queued or running run of a sweep; returns the sweep."""
        return self._request("POST", f"api/sweeps/{int(sweep_id)}/cancel/")

    def delete(self, run_id: int) -> None:
        """Delete a run and its result (a running one is stopped first)."""
        self._request("DELETE", f"api/experiments/{int(run_id)}/")

    def quota(self) -> dict:
        """Your runs in flight and queued and your stored bytes, against your limits."""
        return self._request("GET", "api/quota/")

    def wait(
        self,
        run_id: int,
        *,
        timeout: float = 3600,
        interval: float = 1.0,
        progress: Callable[[float, str], Any] | None = None,
        sweep: bool = False,
    ) -> dict:
        """Poll until the run (or, ``sweep=True``, the sweep) finishes; returns it."""
        deadline = time.monotonic() + timeout
        last = None
        while True:
            if sweep:
                body = self._request("GET", f"api/sweeps/{int(run_id)}/")
                state = body["state"]
                status, done, message = state["status"], state["progress"], state["status"]
                finished = status not in ("queued", "running")
            else:
                body = self.run(run_id)
                status, done, message = body["status"], body["progress"], body.get("message", "")
                finished = status in FINISHED
            if progress and (done, message) != last:
                progress(done, message)
                last = (done, message)
            if finished:
                return body
            if time.monotonic() > deadline:
                raise TimeoutError(f"run {run_id} still {status} after {timeout} s")
            time.sleep(interval)

    def result(self, run_id: int) -> dict:
        """The Result: ``summary``, ``summary_labels``, ``tables``, ``charts``."""
        return self._request("GET", f"api/experiments/{int(run_id)}/result/")

    def sweep_result(self, sweep_id: int) -> dict:
        """The sweep's aggregate (mean, std, n per point) as a Result."""
        return self._request("GET", f"api/sweeps/{int(sweep_id)}/result/")

    def bundle(self, run_id: int, dest: str | Path) -> Path:
        """Save the run's RO-Crate bundle (zip) to ``dest``."""
        data = self._request("GET", f"api/experiments/{int(run_id)}/bundle/", raw=True)
        out = Path(dest)
        out.write_bytes(data)
        return out

    def import_bundle(self, path: str | Path) -> dict:
        """Import a bundle: ``{"original": run, "rerun": run, "compare": url}``."""
        return self._multipart("api/experiments/import-bundle/", {}, {"file": Path(path)})

    # --- data frames ----------------------------------------------------------------------

    def result_frames(self, run_id: int, *, sweep: bool = False) -> dict[str, Any]:
        """The result as pandas DataFrames: ``summary`` (metric, value, label), one frame per
        table (``table:<id>``) and per chart (``chart:<id>``: series, x, y[, error]).
        Needs ``pip install gridportal-client[pandas]``."""
        return frames(self.sweep_result(run_id) if sweep else self.result(run_id))

    def _paged(self, path: str) -> list[dict]:
        out: list[dict] = []
        page: Any = self._request("GET", path)
        while True:
            if isinstance(page, list):
                return out + page
            out += page.get("results", [])
            nxt = page.get("next")
            if not nxt:
                return out
            page = self._request("GET", nxt.split(self.base, 1)[-1] if self.base in nxt else nxt)


def frames(result: dict) -> dict[str, Any]:
    """A Result (plain data) as pandas DataFrames (see :meth:`Client.result_frames`)."""
    try:
        import pandas as pd
    except ImportError as exc:  # pragma: no cover - depends on the extra
        raise ImportError("install the extra: pip install gridportal-client[pandas]") from exc
    labels = result.get("summary_labels", {})
    out: dict[str, Any] = {
        "summary": pd.DataFrame(
            [(k, v, labels.get(k, k)) for k, v in result.get("summary", {}).items()],
            columns=["metric", "value", "label"],
        )
    }
    for tab in result.get("tables", []):
        out[f"table:{tab['id']}"] = pd.DataFrame(tab["rows"], columns=tab["columns"])
    for spec in result.get("charts", []):
        rows = []
        for s in spec.get("series", []):
            errors = s.get("errors") or []
            for i, point in enumerate(s.get("points", [])):
                rows.append([s.get("name"), *point[:2], errors[i] if i < len(errors) else None])
        out[f"chart:{spec['id']}"] = pd.DataFrame(rows, columns=["series", "x", "y", "error"])
    return out
