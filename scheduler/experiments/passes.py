"""Independent passes of one experiment, run one after the other or in worker processes.

Some kinds run the same simulation several times with one parameter changed (``pricing``: one
replay of the whole trace per trade-off factor α, plus a baseline).  The passes share nothing,
so on a machine with free cores they can run side by side: ``python -m scheduler run/reproduce
--jobs N`` sets :func:`set_workers`, and :func:`map_passes` then hands the passes to ``N``
processes.  The results are the same object for object as in one process (each pass is a pure
function of its arguments; the tests compare them), only sooner: thesis-fig25-26-sdsc-plus40
spends ~90 % of its time in the α = 0.25, 0.5 and 0.75 passes.

Web runs keep one process per run (a Celery worker child may not fork children of its own, and
the worker pool is already the portal's parallelism), so the default is 1.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_WORKERS = 64
_workers = 1


def set_workers(n: int) -> None:
    """Run later passes in ``n`` processes (1: in this process)."""
    global _workers
    if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_WORKERS:
        raise ValueError(f"--jobs must be a whole number from 1 to {MAX_WORKERS}; got {n!r}")
    _workers = n


def workers() -> int:
    return _workers


def _start_method() -> str:
    """``fork`` when this process runs one thread: the children inherit the loaded modules
    (and compiled kernels) instead of importing them again, and nothing they return depends
    on the parent's state.  With other threads running (a web server's, a test runner's), a
    forked child can inherit a lock another thread held at the fork and wait for it forever:
    then ``forkserver`` (a clean single-threaded process forks the children)."""
    if os.name != "posix":
        return "spawn"
    return "fork" if threading.active_count() == 1 else "forkserver"


def map_passes(
    fn: Callable[..., R],
    items: Sequence[T],
    *,
    progress: Callable[[int, T], Callable[[float, str], None] | None] | None = None,
    done: Callable[[int, int, T], None] | None = None,
    first: Callable[[T], float] | None = None,
) -> list[R]:
    """``[fn(item, progress=...) for item in items]``, in the items' order; in :func:`workers`
    processes when more than one is set and there is more than one item.  ``fn`` must be a
    module-level function (it is pickled).  In one process, ``progress(i, item)`` gives the
    callback for pass ``i`` (worker processes get ``None``: their passes report when they end);
    ``done(k, n, item)`` is called as each pass ends (k of n ended).  ``first``: a key ordering
    the passes handed to the workers (the longest first keeps the last worker from starting a
    long pass late); it never changes the results or their order."""
    n = len(items)
    procs = min(_workers, n)
    if procs <= 1:
        out: list[R] = []
        for i, item in enumerate(items):
            out.append(fn(item, progress=progress(i, item) if progress is not None else None))
            if done is not None:
                done(i + 1, n, item)
        return out
    ctx = multiprocessing.get_context(_start_method())
    order = sorted(range(n), key=(lambda i: first(items[i])) if first is not None else None)
    results: list[Any] = [None] * n
    with ProcessPoolExecutor(max_workers=procs, mp_context=ctx) as pool:
        futures = {pool.submit(fn, items[i], progress=None): i for i in order}
        try:
            for ended, fut in enumerate(as_completed(futures), 1):
                i = futures[fut]
                results[i] = fut.result()  # a pass's error is raised here, as in one process
                if done is not None:
                    done(ended, n, items[i])
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return results
