"""Queue-wait prediction, virtual advance reservations and the combined scheme (thesis ch. 6):
a QBETS-like predictor (:mod:`.predictor`), VAR (Figure 33, :mod:`.var`), the
adaptive-pricing arm (:mod:`.adaptive`), their combination (Figure 45, :mod:`.combined`), the
daily comparison (:mod:`.study`) and the portal's "when would my job start?" (:mod:`.site`)."""

from .adaptive import AdaptiveOutcome, adaptive_reservation
from .combined import PENALTY, CombinedOutcome, combine
from .history import SiteHistory
from .predictor import WaitPredictor, bound_index, min_history_for
from .var import STEP, VarOutcome, VarPlan, plan_var, run_var

__all__ = [
    "PENALTY",
    "STEP",
    "AdaptiveOutcome",
    "CombinedOutcome",
    "SiteHistory",
    "VarOutcome",
    "VarPlan",
    "WaitPredictor",
    "adaptive_reservation",
    "bound_index",
    "combine",
    "min_history_for",
    "plan_var",
    "run_var",
]
