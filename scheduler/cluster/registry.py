"""The one table of batch policies: names, labels, parameters and accelerations.

Every layer reads it — the simulator (which class to build, which whole-run acceleration may
take a run, whether a scheduling interval is allowed), pricing (which quote kernel plans a
queue), the experiment kinds, the command line, the portal's forms and REST, labels and the
reproductions.  Nothing else lists policies.

A policy is named by text: a registry name (``easy``), a name with its parameter
(``backfill-k=8``; ``backfill-k=inf`` for an unbounded depth), or a user policy file
(``path/to/mine.py:MyPolicy``, see :mod:`scheduler.policies`).  :func:`resolve` turns the text
into a :class:`PolicyRef` — the entry and its parameter values — or raises
:class:`~scheduler.cluster.policy.PolicyError` naming what is wrong; the same function checks
a form at submit and builds the policy at run time.

Accelerations are faster implementations registered against the reference they speed up and
proven equal to it by tests/scheduler/test_accelerations.py:

* ``whole_runs`` — a whole plain replay in one loop (:mod:`.whole_run`), tried in order;
* ``quote`` — the family of the pricing kernel that re-plans this policy's queue for a
  reservation quote (:mod:`scheduler.pricing.price`: ``fcfs``, ``easy``, ``conservative``,
  ``depth``); without one, pricing plays the policy itself forward
  (:func:`scheduler.pricing.plan.plan_with_policy`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from . import whole_run
from .conservative import Conservative
from .depth import _MAX_DEPTH, DEFAULT_DEPTH, depth_policy
from .easy import EASY
from .fairshare import FairShare, FairShareBackfill
from .fcfs import FCFS
from .policy import ClusterState, Policy, PolicyEntry, PolicyError, PolicyRef
from .slurm import SlurmPolicy

__all__ = [
    "BUILTIN",
    "PolicyEntry",
    "PolicyRef",
    "policy_choices",
    "is_user_policy_name",
    "policy_label",
    "resolve",
    "run_user_policies",
]


def _plain(cls: type[Policy]) -> Callable[[ClusterState, Any], Policy]:
    return lambda state, _value: cls(state)


def _depth(state: ClusterState, value: int | None) -> Policy:
    return depth_policy(value)(state)


def _slurm(state: ClusterState, value: object) -> Policy:
    """Slurm's model; ``value`` is a :class:`~.slurm.SlurmParams` (None: Slurm's defaults,
    one partition and one QOS), given as ``PolicyRef(BUILTIN["slurm"], params)``."""
    return SlurmPolicy(state, value)  # type: ignore[arg-type]


def _parse_depth(text: str) -> int | None:
    k = text.strip().lower()
    if k in ("inf", "infinity", "∞"):
        return None
    if not k.isdigit() or len(k) > 8 or not 1 <= int(k) <= _MAX_DEPTH:
        raise PolicyError(
            f"the reservation depth K must be an integer in 1..{_MAX_DEPTH} or 'inf'; got {text!r}"
        )
    return int(k)


_MUALEM = "Mu'alem & Feitelson, IEEE TPDS 12(6), 2001"

#: every built-in policy, by name: THE list (forms, CLI, REST and labels read it)
BUILTIN: dict[str, PolicyEntry] = {
    e.name: e
    for e in (
        PolicyEntry(
            "fcfs", "FCFS", "FCFS", "Strict queue order, no backfilling.", _plain(FCFS),
            decides_afresh=True, whole_runs=(whole_run.compiled_fcfs,),
            quote="fcfs", cites=_MUALEM,
        ),
        PolicyEntry(
            "easy", "EASY", "EASY (aggressive) backfilling",
            "Only the first queued job holds a reservation; later jobs start now when they do "
            "not delay it.", _plain(EASY), whole_runs=(whole_run.compiled_easy,), quote="easy",
            cites=f"Lifka 1995; {_MUALEM}",
        ),
        PolicyEntry(
            "conservative", "Conservative", "conservative backfilling",
            "Every queued job holds a reservation; a job starts early only if it delays none.",
            _plain(Conservative), whole_runs=(whole_run.compiled_conservative,),
            quote="conservative", cites=f"{_MUALEM}, section 3",
        ),
        PolicyEntry(
            "backfill-k", "Backfilling, depth K", "backfilling with reservation depth",
            "The first K queued jobs hold reservations, the others backfill (K = 1 is EASY, "
            "K = inf conservative).", _depth, param="K", param_default=DEFAULT_DEPTH,
            quote="depth",
            cites="Chiang, Arpaci-Dusseau & Vernon, JSSPP 2002; Srinivasan et al., JSSPP 2002",
        ),
        PolicyEntry(
            "fairshare", "Fair share", "Maui-style fair share",
            "Priority from users' decayed usage, queue time, expansion factor, bypass count "
            "and size; strict priority order.", _plain(FairShare), decides_afresh=True,
            cites="Jackson, Snell & Clement, JSSPP 2001 (Maui)",
        ),
        PolicyEntry(
            "fairshare-cb", "Fair share + backfilling", "fair share + backfilling",
            "The same priority with conservative backfilling of the 50 highest-priority jobs.",
            _plain(FairShareBackfill), decides_afresh=True,
            cites="Jackson, Snell & Clement, JSSPP 2001 (Maui)",
        ),
        PolicyEntry(
            "slurm", "Slurm", "Slurm (multifactor priority + backfill)",
            "Slurm's multifactor priority, partitions, QOS limits, main and backfill "
            "schedulers with a site's parameters (Slurm's defaults when none are given).",
            _slurm, cites="https://slurm.schedmd.com/sched_config.html; "
            "https://slurm.schedmd.com/priority_multifactor.html",
        ),
    )
}  # fmt: skip


#: a policy uploaded to the portal, named by the first 12 hex digits of its file's sha256
USER_POLICY_NAME = re.compile(r"user:[0-9a-f]{12}")

#: the user policies this process may run: ``user:<sha256 prefix>`` -> ``file.py:Class``.
#: Filled only by :func:`run_user_policies`, which the portal's sandboxed child calls
#: (scheduler/cli/sandboxed.py); everywhere else a ``user:`` name is checked, never run.
_USER_POLICIES: dict[str, str] = {}


def is_user_policy_name(text: str) -> bool:
    """``text`` names a policy uploaded to the portal (``user:<12 hex digits>``)."""
    return bool(USER_POLICY_NAME.fullmatch(text.strip()))


def run_user_policies(table: dict[str, str]) -> None:
    """Let this process run the portal's user policies of ``table`` (name -> ``file.py:Class``):
    only the sandboxed child of a run does this."""
    for name, spec in table.items():
        if not is_user_policy_name(name):
            raise PolicyError(f"{name!r} is not a user policy name (user:<12 hex digits>)")
        _USER_POLICIES[name] = spec


def _user_policy(text: str) -> PolicyRef:
    spec = _USER_POLICIES.get(text)
    if spec is None:
        raise PolicyError(
            f"policy {text!r}: a policy uploaded to the portal runs only in the portal's "
            "sandbox, for its owner"
        )
    from .userpolicy import load_policy_file  # noqa: PLC0415 (user policies: when asked)

    entry = load_policy_file(spec)
    title = f"{entry.title} ({text})"
    return PolicyRef(dataclasses.replace(entry, name=text, title=title, label=title, spec=text))


def resolve(policy: str | PolicyRef | PolicyEntry | type, *, files: bool = False) -> PolicyRef:
    """The :class:`PolicyRef` named by ``policy`` (see the module's docstring) — or of a user
    policy class (:mod:`scheduler.policies`) given itself, as from a notebook; raises
    :class:`PolicyError` naming the problem and the known names.

    A policy file (``path/to/mine.py:Class``) is code: it is read and run only when the caller
    says so with ``files=True`` (the command line and :mod:`scheduler.policies`, which run as
    the user).  Everywhere else — the simulator given text, forms, the portal — such a name is
    refused, so no text from a form can make the engine run a file."""
    if isinstance(policy, PolicyRef):
        return policy
    if isinstance(policy, PolicyEntry):
        return PolicyRef(policy, policy.param_default)
    if isinstance(policy, type):
        from .userpolicy import entry_for_class  # noqa: PLC0415 (user policies: when asked)

        return PolicyRef(entry_for_class(policy))
    if not isinstance(policy, str):
        raise PolicyError(f"a policy is named by text, not {type(policy).__name__}")
    text = policy.strip()
    if USER_POLICY_NAME.fullmatch(text):
        return _user_policy(text)
    entry = BUILTIN.get(text)
    if entry is not None:
        return PolicyRef(entry, entry.param_default)
    name, eq, value = text.partition("=")
    entry = BUILTIN.get(name.strip())
    if entry is not None and eq:
        if entry.param is None:
            raise PolicyError(f"policy {entry.name!r} takes no parameter; got {text!r}")
        try:
            return PolicyRef(entry, _parse_depth(value))
        except PolicyError as exc:
            raise PolicyError(f"policy {text!r}: {exc}") from None
    if ":" in text and text.partition(":")[0].endswith(".py"):
        if not files:
            raise PolicyError(
                f"policy {text[:80]!r}: a policy file runs only from the command line or "
                "scheduler.policies (load it there and pass the policy)"
            )
        from .userpolicy import load_policy_file  # noqa: PLC0415 (user policies: when asked)

        return PolicyRef(load_policy_file(text))
    known = ", ".join(BUILTIN)
    raise PolicyError(
        f"unknown policy {text[:80]!r} (known: {known}; backfill-k=K; or path/to/file.py:Class)"
    )


def policy_label(policy: str | PolicyRef) -> str:
    """The chart/table title of ``policy`` ("EASY", "Backfilling, depth K = 8"); the text
    itself if it names no policy."""
    try:
        return resolve(policy).title
    except PolicyError:
        return str(policy)


def policy_choices(
    depths: tuple[int, ...] = (2, 4, 8, 16), *, quotable: bool = False, backfilling: bool = False
) -> list[tuple[str, str]]:
    """``(text, label)`` of the built-in policies for a form's choice list, a parameterised
    policy once per value of ``depths``; ``quotable``: only those a pricing kernel re-plans
    (a site that quotes reservations); ``backfilling``: not plain FCFS."""
    out = []
    for e in BUILTIN.values():
        if (quotable and e.quote is None) or (backfilling and e.name == "fcfs"):
            continue
        if e.param is None:
            out.append((e.name, e.label))
        else:
            out.extend((r.text, r.label) for r in (PolicyRef(e, k) for k in depths))
    return out
