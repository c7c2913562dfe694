"""Slots (thesis ch. 3).

==============  ==================================================================
module          what
==============  ==================================================================
``model``       the slot ``<s, n, d, c, f, b, e>``, its cost, Table 1 sub-slots
``advertise``   the holes of a conservative plan as slots (level-band cut, horizon)
``fit``         thesis Figure 2: a task onto a slot list, Figure 3's left-overs
``schedule``    a site run on its slot list (conservative backfilling by Figure 2)
``commands``    ``python -m scheduler slots``
==============  ==================================================================
"""

from __future__ import annotations

from .advertise import (
    DEFAULT_TAIL,
    DEFAULT_WINDOW,
    Hole,
    advertise,
    advertise_simulator,
    cut_free_area,
    horizon,
)
from .fit import EXTENSION_MARGIN, Fit, FreeSlot, Use, find_start, fit_task, free_slots, take
from .model import SECONDS_PER_SU, Slot, SubslotError
from .schedule import SlotListScheduler, recut, schedule_on_slots

__all__ = [
    "DEFAULT_TAIL",
    "DEFAULT_WINDOW",
    "EXTENSION_MARGIN",
    "SECONDS_PER_SU",
    "Fit",
    "FreeSlot",
    "Hole",
    "Slot",
    "SlotListScheduler",
    "SubslotError",
    "Use",
    "advertise",
    "advertise_simulator",
    "cut_free_area",
    "find_start",
    "fit_task",
    "free_slots",
    "horizon",
    "recut",
    "schedule_on_slots",
    "take",
]
