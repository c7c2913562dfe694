"""Application speed-up models FT and GADGET2 (Buisson et al. 2007, §6.1 and Figure 6).

Figure 6 of Buisson et al. 2007 plots the execution time of the two malleable applications against
the number of machines on the Delft cluster.  The text fixes four anchor points: GADGET2 takes
nearly 10 minutes on 2 processors and 4 minutes at best; FT almost 2 minutes on 2 and
1 minute at best.  We model both with the classic three-term curve

    T(p) = serial + work / p + comm * p          (seconds)

(a sequential part, perfectly parallel work, and a per-processor communication cost that makes
the curve turn up past its optimum ``p* = sqrt(work / comm)``), with the parameters solved from
the anchors:

=========  =======  =======  ======  ======  ========  =========
app        serial   work     comm    T(2)    p*        T(p*)
=========  =======  =======  ======  ======  ========  =========
GADGET2    184.9    826.5    0.918   600 s   30        240 s
FT          40.4    156.7    0.612   120 s   16         60 s
=========  =======  =======  ======  ======  ========  =========

FT only runs on a power of 2 processors (§6.1): offered ``k`` it settles on the highest power
of 2 not above ``k`` (and its maximum) and hands the rest back; GADGET2 runs on any number.
The scheduler itself ignores such constraints (§6.1); they live in :meth:`AppModel.settle`.

Example
-------
>>> round(GADGET2.time(2)), round(GADGET2.time(30)), round(FT.time(2)), round(FT.time(16))
(600, 240, 120, 60)
>>> FT.settle(2, 13, 2, 32), GADGET2.settle(2, 13, 2, 46)
(8, 13)
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import ModelError

__all__ = ["AppModel", "FT", "GADGET2", "APPS", "get_app", "pow2_floor", "pow2_ceil"]


def pow2_floor(n: int) -> int:
    """Highest power of 2 <= n (n >= 1)."""
    return 1 << (n.bit_length() - 1)


def pow2_ceil(n: int) -> int:
    """Lowest power of 2 >= n (n >= 1)."""
    return 1 << (n - 1).bit_length()


@dataclass(frozen=True, slots=True)
class AppModel:
    """An application's execution-time curve and its size constraint."""

    name: str
    serial: float
    work: float
    comm: float
    pow2: bool  # runs only on a power-of-2 number of processors

    def time(self, p: int) -> float:
        """Execution time (s) of the whole job on ``p`` processors."""
        return self.serial + self.work / p + self.comm * p

    def valid(self, p: int) -> bool:
        return p >= 1 and (not self.pow2 or p & (p - 1) == 0)

    def settle(self, current: int, target: int, lo: int, hi: int) -> int:
        """The size the job settles on when the scheduler asks for ``target`` processors.

        Clamped to ``[lo, hi]``; FT rounds down to a power of 2 (§6.1), never below ``lo``
        (which is itself a power of 2 for FT jobs, see :func:`scheduler.malleability.workload`).
        A job that cannot reach any acceptable size keeps ``current``.
        """
        size = max(lo, min(hi, target))
        if self.pow2:
            size = pow2_floor(size)
            if size < lo:
                return current
        return size


GADGET2 = AppModel("gadget2", serial=184.9, work=826.5, comm=0.918, pow2=False)
FT = AppModel("ft", serial=40.4, work=156.7, comm=0.612, pow2=True)
APPS: dict[str, AppModel] = {"gadget2": GADGET2, "ft": FT}


def get_app(name: str) -> AppModel:
    try:
        return APPS[name]
    except KeyError:
        raise ModelError(
            "app", f"unknown application model {name!r} (known: {', '.join(sorted(APPS))})"
        ) from None
