"""Seed 004 (Dumitrescu, Wilde, Foster): usage-policy enforcement.

The seed's only numbers (the 'Comparison Results' table: BUPV, EUPV, ARU of S-PEP and the
local RMs) come from the single-site testbed (slide 23: policies (3000 s, 20 %), (30 s, 60 %)
and (3000 s, 80 %), (30 s, 90 %), Condor and OpenPBS/Maui), not from the two-site simulation
of slide 19 (3600 s / 5 s) that ``seed004-2sites`` reproduces; the simulations' figures carry
no numbers in the text.  So no claim is checked against those presets: the table needs a
testbed preset (a single site with the testbed's policies), not built yet.
"""

from __future__ import annotations

CLAIMS: dict = {}
