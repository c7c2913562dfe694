"""The experiment catalogue: every kind registers itself on import."""

from . import trace_stats  # noqa: F401  (registers the kind)
from .base import (
    Cancelled,
    ExperimentKind,
    InputError,
    InputSpec,
    Preset,
    get_kind,
    kinds,
    register,
    run_experiment,
)
from .cluster_sim import ClusterSim  # noqa: F401  (registers the kind)
from .coallocation import Coallocation  # noqa: F401  (registers the kind)
from .greedy_provisioning import GreedyProvisioning  # noqa: F401  (registers the kind)
from .malleability import Malleability  # noqa: F401  (registers the kind)
from .pricing import Pricing  # noqa: F401  (registers the kind)
from .provisioning import Provisioning  # noqa: F401  (registers the kind)
from .provisioning_impact import ProvisioningImpact  # noqa: F401  (registers the kind)
from .schema import Param, ParamError, validate_params
from .slot_advertisement import SlotAdvertisement  # noqa: F401  (registers the kind)
from .slurm_whatif import SlurmWhatIf  # noqa: F401  (registers the kind)
from .usage_policy import UsagePolicy  # noqa: F401  (registers the kind)
from .virtual_reservations import VirtualReservations  # noqa: F401  (registers the kind)

__all__ = [
    "Cancelled",
    "ExperimentKind",
    "InputError",
    "InputSpec",
    "Param",
    "ParamError",
    "Preset",
    "get_kind",
    "kinds",
    "register",
    "run_experiment",
    "validate_params",
]
