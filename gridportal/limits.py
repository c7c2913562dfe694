"""Hard limits on work: run a function in a forked child under a memory and a time limit.

``run_limited(fn, *args, timeout=..., memory_mb=...)`` forks; the child sets
``RLIMIT_AS`` (its address space may grow by at most ``memory_mb`` beyond what it inherited)
and ``RLIMIT_CPU``, runs ``fn`` and sends its result (or its exception) back through a pipe;
the parent waits at most ``timeout`` seconds of wall time and kills the child's whole process
group when it runs out, or when the child's resident memory passes the limit (a second guard
for memory the address-space limit does not see). The caller gets the result, the child's
exception re-raised, or :class:`LimitExceeded` naming the limit that fired. The calling
process never grows and never waits longer than the limit: a runaway request or run cannot
take the web or worker process (nor the machine) down with it.

Database connections: a forked child must not talk on its parent's sockets while the parent
uses them. Outside a transaction the child drops (without closing) the connections it
inherited and opens its own. Inside a transaction (a test's, say) it works in that
transaction on the inherited connection while the parent thread waits for it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import resource
import select
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from django.db import connections

MIB = 2**20
_PR_SET_PDEATHSIG = 1
_ABANDONED: list[Any] = []  # inherited DB connections the child must neither use nor close


class LimitExceeded(Exception):
    """The work was stopped by a limit; ``limit`` is "memory" or "time"."""

    def __init__(self, limit: str, message: str):
        super().__init__(message)
        self.limit, self.message = limit, message


class Stopped(Exception):
    """The work was stopped because ``should_stop`` said so (a cancelled or deleted run)."""


class KilledFromOutside(Exception):
    """The child died of a signal that no limit of ours sent (the kernel's out-of-memory
    killer, an administrator's ``kill -9``): said as such, never as a limit."""

    def __init__(self, sig: int, what: str = "this work"):
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        self.signal, self.message = (
            sig,
            (
                f"{what}'s process was killed by signal {sig} ({name}) from outside the portal "
                "(out-of-memory killer or an administrator?)"
            ),
        )
        super().__init__(self.message)


def describe_memory(memory_mb: int) -> str:
    return f"{memory_mb / 1024:g} GiB" if memory_mb % 1024 == 0 else f"{memory_mb} MiB"


def memory_message(memory_mb: int, what: str = "this work") -> str:
    return f"{what} exceeded the memory limit of {describe_memory(memory_mb)}"


def time_message(timeout: float, what: str = "this work") -> str:
    return f"{what} exceeded the time limit of {timeout:g} s"


def _vm_size() -> int:
    """This process's address space in bytes (VmSize), 0 when unknown."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class _ChildError(Exception):
    """An exception of the child that could not be sent as itself."""


def _child_connections() -> None:
    for conn in connections.all(initialized_only=True):
        if conn.in_atomic_block:
            continue  # the parent waits inside this transaction: work in it
        if conn.connection is not None:
            _ABANDONED.append(conn.connection)  # never closed here: it is the parent's
            conn.connection = None


_REPORT_FD: int | None = None  # in a limited child: where child_report() writes


def _write_frame(fd: int, data: bytes) -> None:
    view = memoryview(len(data).to_bytes(8, "big") + data)
    while view:
        view = view[os.write(fd, view[: 1 << 20]) :]


def child_report(obj: Any) -> None:
    """In a limited child, send ``obj`` to the parent's ``on_report`` (progress, say); a
    no-op elsewhere. The parent may stop the child in answer (it kills it)."""
    if _REPORT_FD is not None:
        _write_frame(_REPORT_FD, pickle.dumps(("report", obj), protocol=pickle.HIGHEST_PROTOCOL))


def _rebuild_exception(cls: type, args: tuple, state: dict) -> BaseException:
    """An exception as it was, without calling its ``__init__`` (whose signature may not
    take its ``args``: ``ParamError(errors)`` keeps a joined message in ``args``)."""
    exc = cls.__new__(cls)
    exc.args = args
    exc.__dict__.update(state)
    return exc


def _exception_payload(exc: BaseException) -> tuple:
    try:
        pickle.loads(pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL))
        return ("raise", exc)
    except Exception:  # noqa: BLE001, S110 (rebuilt below)
        pass
    try:
        parts = (type(exc), exc.args, dict(getattr(exc, "__dict__", {})))
        _rebuild_exception(*pickle.loads(pickle.dumps(parts)))
        return ("rebuild", parts)
    except Exception:  # noqa: BLE001
        return ("raise", _ChildError(f"{type(exc).__name__}: {exc}"))


def _child(fn: Callable, args: tuple, kwargs: dict, memory_bytes: int, cpu_s: int, wfd: int):
    global _REPORT_FD
    code = 0
    _REPORT_FD = wfd
    try:
        os.setpgid(0, 0)  # one group: the parent kills whatever this starts, too
        try:
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except OSError:
            pass
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGQUIT):
            signal.signal(sig, signal.SIG_DFL)
        _child_connections()
        if cpu_s > 0:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))
        if memory_bytes > 0:
            limit = _vm_size() + memory_bytes
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            payload = ("ok", fn(*args, **kwargs))
        except MemoryError:
            payload = ("memory", None)
        except BaseException as exc:  # noqa: BLE001 (sent to the parent, which re-raises)
            payload = _exception_payload(exc)
        try:
            data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        except MemoryError:
            data = pickle.dumps(("memory", None))
        except Exception as exc:  # noqa: BLE001 (an unpicklable result or exception)
            what = payload[1]
            text = f"{type(what).__name__}: {what}" if payload[0] == "raise" else repr(exc)
            data = pickle.dumps(("raise", _ChildError(text)))
        _write_frame(wfd, data)
        for conn in connections.all(initialized_only=True):
            if not conn.in_atomic_block:
                try:
                    conn.close()  # only the child's own connections are left here
                except Exception:  # noqa: BLE001, S110
                    pass
    except MemoryError:
        code = 3
    except BaseException:  # noqa: BLE001
        code = 4
    finally:
        os._exit(code)


def run_limited(
    fn: Callable,
    *args: Any,
    timeout: float,
    memory_mb: int,
    what: str = "this work",
    on_report: Callable[[Any], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    poll_s: float = 1.0,
    cpu_s: int | None = None,
    **kwargs: Any,
) -> Any:
    """``fn(*args, **kwargs)`` in a forked child under the limits; see the module docstring.

    ``timeout`` <= 0 or ``memory_mb`` <= 0 turns that limit off. Raises LimitExceeded.
    What the child sends with :func:`child_report` is given to ``on_report`` here, in the
    parent; if ``on_report`` raises, the child is killed and the exception propagates.
    ``should_stop`` is asked every ``poll_s`` seconds while the child works, whether or not it
    reports: when it answers true the child's process group is killed and :class:`Stopped`
    is raised (if it raises, the child is killed and the exception propagates). A child that
    dies of a signal no limit sent raises :class:`KilledFromOutside`.
    ``cpu_s`` is the child's CPU-time limit in whole seconds (default: ``timeout`` rounded
    down, plus one, so the wall-time limit fires first); given, a child it stops raises
    LimitExceeded("time") naming it as CPU time.
    """
    memory_bytes = max(0, int(memory_mb)) * MIB
    cpu_message = time_message(timeout, what)
    if cpu_s is None:
        cpu_s = int(timeout) + 1 if timeout > 0 else 0
    elif cpu_s > 0:
        cpu_message = f"{what} exceeded the CPU-time limit of {cpu_s} s"
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(rfd)
        _child(fn, args, kwargs, memory_bytes, cpu_s, wfd)
    os.close(wfd)
    deadline = time.monotonic() + timeout if timeout > 0 else None
    rss_cap = _rss(os.getpid()) + memory_bytes if memory_bytes else 0
    buffer = bytearray()
    answer: tuple | None = None
    fired: str | None = None
    finished = False
    next_poll = time.monotonic() + poll_s
    try:
        while True:
            wait = 0.25 if deadline is None else min(0.25, deadline - time.monotonic())
            if wait <= 0:
                fired = "time"
                break
            if should_stop is not None and time.monotonic() >= next_poll:
                if should_stop():
                    fired = "stop"
                    break
                next_poll = time.monotonic() + poll_s
            ready, _, _ = select.select([rfd], [], [], wait)
            if ready:
                chunk = os.read(rfd, 1 << 20)
                if not chunk:
                    finished = True  # the child closed its end: it is done
                    break
                buffer += chunk
                while len(buffer) >= 8:
                    size = int.from_bytes(buffer[:8], "big")
                    if len(buffer) < 8 + size:
                        break
                    frame = bytes(buffer[8 : 8 + size])
                    del buffer[: 8 + size]
                    try:
                        payload = pickle.loads(frame)
                    except Exception:  # noqa: BLE001 (an exception that cannot be rebuilt)
                        payload = ("raise", _ChildError("the work failed (unreadable error)"))
                    if payload[0] != "report":
                        answer = payload
                    elif on_report is not None:
                        on_report(payload[1])  # if it raises, the child goes (below)
            if rss_cap and _rss(pid) > rss_cap:
                fired = "memory"
                break
    finally:
        os.close(rfd)
        if not finished:  # a limit fired, on_report raised, or the caller was interrupted
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status, usage = os.wait4(pid, 0)
    if fired:
        if fired == "stop":
            raise Stopped(f"{what} was stopped")
        if fired == "time":
            raise LimitExceeded("time", time_message(timeout, what))
        raise LimitExceeded("memory", memory_message(memory_mb, what))
    kind, value = answer if answer is not None else ("died", None)
    if kind == "ok":
        return value
    if kind == "raise":
        raise value
    if kind == "rebuild":
        raise _rebuild_exception(*value)
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    if kind == "memory" or os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3:
        raise LimitExceeded("memory", memory_message(memory_mb, what))
    cpu_used = usage.ru_utime + usage.ru_stime
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_s and cpu_used >= cpu_s):
        # RLIMIT_CPU: SIGXCPU at the soft limit, the kernel's SIGKILL at the hard one
        raise LimitExceeded("time", cpu_message)
    if sig in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS) and memory_bytes:
        # RLIMIT_AS: an allocation failed where Python could not raise MemoryError (in C
        # code, which then crashed or aborted). SIGKILL is never ours here: the parent sends
        # it only when a limit fired (handled above), so it came from outside.
        raise LimitExceeded("memory", memory_message(memory_mb, what) + f" (signal {sig})")
    if sig in (signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS, signal.SIGFPE, signal.SIGILL):
        raise _ChildError(f"the process doing {what} crashed ({signal.Signals(sig).name})")
    if sig:
        raise KilledFromOutside(sig, what)
    raise _ChildError(f"the process doing {what} stopped unexpectedly (status {status})")


_HEAVY_LOCK = threading.Lock()
_HEAVY: dict[int, threading.BoundedSemaphore] = {}


@contextlib.contextmanager
def heavy_slot(field: str = "request"):
    """At most GRIDPORTAL_WEB_HEAVY_CONCURRENCY limited children per web process at once: the
    other threads stay free for ordinary requests. A request that finds no slot within
    GRIDPORTAL_WEB_HEAVY_WAIT seconds is refused (a 400 saying to try again)."""
    from django.conf import settings
    from django.core.exceptions import ValidationError

    size = max(1, int(settings.GRIDPORTAL_WEB_HEAVY_CONCURRENCY))
    with _HEAVY_LOCK:
        gate = _HEAVY.setdefault(size, threading.BoundedSemaphore(size))
    if not gate.acquire(timeout=float(settings.GRIDPORTAL_WEB_HEAVY_WAIT)):
        raise ValidationError(
            {
                field: [
                    f"the portal is busy with {size} heavy requests in this process "
                    "(plans, quotes, generated workflows, upload checks); try again shortly"
                ]
            }
        )
    try:
        yield
    finally:
        gate.release()


def web_limited(
    fn: Callable,
    *args: Any,
    field: str = "request",
    what: str = "this request",
    budget: str = "WEB",
    advice: str = "ask for less",
):
    """``fn(*args)`` for a web request in a limited child, under the limits of the budget
    GRIDPORTAL_{budget}_TIME_LIMIT / _MEMORY_MB (``WEB`` for plans, quotes and generated
    inputs; ``UPLOAD`` for checking an uploaded file), in one of the process's heavy slots
    (:func:`heavy_slot`). A limit that fires becomes a ValidationError on ``field`` (a 400
    naming the limit, then ``advice``), never a stuck or swollen web worker."""
    from django.conf import settings
    from django.core.exceptions import ValidationError

    try:
        with heavy_slot(field):
            return run_limited(
                fn,
                *args,
                timeout=getattr(settings, f"GRIDPORTAL_{budget}_TIME_LIMIT"),
                memory_mb=getattr(settings, f"GRIDPORTAL_{budget}_MEMORY_MB"),
                what=what,
            )
    except LimitExceeded as exc:
        raise ValidationError({field: [f"{exc.message}; {advice}"]}) from None
