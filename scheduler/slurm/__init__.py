"""What-if for a real Slurm site: its configuration read from ``slurm.conf`` and
``sacctmgr`` (:mod:`.config`), its accounting dump replayed under the Slurm model of the
policy registry (:class:`scheduler.cluster.slurm.SlurmPolicy`) and compared with the
recorded starts (:mod:`.replay`).  The model itself lives in the cluster layer, beside the
other policies of the one registry; this package reads a site and runs what-ifs on it."""

from .config import SlurmConf, SlurmConfigError, SlurmSite, parse_assoc, parse_qos, parse_slurm_conf
from .replay import SlurmDump, comparison, group_figures, load_dump, replay, write_schedule

__all__ = [
    "SlurmConf",
    "SlurmConfigError",
    "SlurmDump",
    "SlurmSite",
    "comparison",
    "group_figures",
    "load_dump",
    "parse_assoc",
    "parse_qos",
    "parse_slurm_conf",
    "replay",
    "write_schedule",
]
