"""Seed 001 (Takefusa et al.): advance-reservation co-allocation of computers and network."""

from __future__ import annotations

from ._base import claim as _c

WIRING = (
    "missing data in the seed: the testbed's wiring and the four request types are not given; "
    "we calibrate them (see CALIBRATION) and the ratios depend on that choice"
)
READ = "two decimals printed in the text; ± 0.05 for the calibrated testbed"

SUCCESS = (
    _c(
        where="seed 001, Success Ratios",
        figure="Success ratios",
        metric="normal_success_at_50",
        quote="About 0.90 when the load = 50[%]",
        value=0.90,
        tolerance=0.05,
        tolerance_why=READ,
        cause=WIRING,
    ),
    _c(
        where="seed 001, Success Ratios",
        figure="Success ratios",
        metric="normal_success_at_80",
        quote="over 0.61 when the load = 80 [%]",
        value=0.61,
        tolerance=0.05,
        shape=">=",
        than=0.61,
        tolerance_why=READ,
        cause=WIRING,
    ),
)
LEVELS = (
    _c(
        where="seed 001, Service levels",
        figure="Service levels",
        metric="service_levels_UserA_at_100",
        quote="UserA is 0.60 and UserB is 0.37 when the load = 100[%]",
        value=0.60,
        tolerance=0.05,
        tolerance_why=READ,
        cause=WIRING,
    ),
    _c(
        where="seed 001, Service levels",
        figure="Service levels",
        metric="service_levels_UserB_at_100",
        quote="UserA is 0.60 and UserB is 0.37 when the load = 100[%]",
        value=0.37,
        tolerance=0.05,
        shape="<",
        than="service_levels_UserA_at_100",
        tolerance_why=READ,
        cause=WIRING,
    ),
)
PREFERRED = "Preferred resources are selected first"

CLAIMS = {
    "coallocation/seed001-success-ratios": SUCCESS + LEVELS,
    "coallocation/seed001-admin-options": (
        _c(where="seed 001, Administrator options (B1)", figure="Admin options",
           metric="pref_domain_util_N",
           quote=PREFERRED, shape=">", than="pref_domain_util_S", cause=WIRING),
        _c(where="seed 001, Administrator options (B1)", figure="Admin options",
           metric="pref_domain_util_S",
           quote=PREFERRED, shape=">", than="pref_domain_util_U", cause=WIRING),
    ),
}  # fmt: skip
