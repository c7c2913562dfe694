"""A real single-node Slurm for the tests of this folder (and any test that asks for it):
``slurm_cluster``, session-scoped, started once (a few seconds) and stopped at the end.

It needs Debian's ``slurm-wlm``, ``slurmdbd`` and ``munge`` (``.ci/run`` installs them), root
(the daemons run as root) and MariaDB on 127.0.0.1:3306 (``SLURM_TEST_DB_*``): without them the
tests skip with the reason, except under CI (``CI`` set), where they fail.  The cluster is
described in :mod:`tests.slurm.cluster`; its start time is printed and kept as
``slurm_cluster.started_seconds``.
"""

from __future__ import annotations

import os
import socket

import pytest

from tests.conftest import require

from .cluster import SlurmCluster, missing


def _mariadb_answers(host: str, port: int) -> bool:
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError:
        return False
    return True


def require_slurm() -> None:
    """Skip (fail under CI) unless Slurm's daemons, root and MariaDB for slurmdbd are here."""
    reason = missing()
    require(reason is None, reason or "")
    require(os.geteuid() == 0, "the Slurm test cluster runs its daemons as root")
    host = os.environ.get("SLURM_TEST_DB_HOST", "127.0.0.1")
    port = int(os.environ.get("SLURM_TEST_DB_PORT", "3306"))
    require(_mariadb_answers(host, port), f"slurmdbd needs MariaDB on {host}:{port}")


@pytest.fixture(scope="session")
def slurm_cluster(tmp_path_factory):
    """A running :class:`~tests.slurm.cluster.SlurmCluster` (8 CPUs on node ``localhost``)."""
    require_slurm()
    cluster = SlurmCluster(tmp_path_factory.mktemp("slurm"), cpus=8)
    seconds = cluster.start()
    print(f"\nslurm test cluster {cluster.name} started in {seconds:.1f} s")
    try:
        yield cluster
    finally:
        cluster.stop()
