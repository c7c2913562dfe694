"""Workflows (thesis §4.1; Singh, Kesselman & Deelman 2005, §4): the DAG model, readers, generators,
metrics.

==================  ==============================================================
module              what
==================  ==============================================================
``dag``             Task, Edge, Workflow (validated DAG), WorkflowError, Limits,
                    ``with_virtual_endpoints``
``dax``             Pegasus DAX 2.x / 3.x XML reader (defusedxml, SAX, line numbers)
``pegasus_yaml``    Pegasus 5 abstract workflow reader, YAML or JSON (paths in errors)
``wfformat``        WfCommons WfFormat JSON reader (schemas 1.4, 1.5, 1.6)
``native``          GridPortal's own JSON format: reader and writer
``loader``          ``load_workflow``: format sniffing, size limits
``metrics``         levels, critical path, average parallelism, ``summarize``
``heft``            HEFT upward rank and order (thesis eq. 7)
``gen_layered``     random layered workflows (thesis §4.7)
``gen_cybershake``  the CyberShake workflow of thesis §4.8
``gen_montage``     Montage-like 7-level workflow (Singh, Kesselman & Deelman 2005, §4.1)
``clustering``      Singh, Kesselman & Deelman's (2005) level clusterings (fixed clusters / fixed
size) ==================  ==============================================================

Everything here is pure Python (stdlib + defusedxml); no Django.
"""

from __future__ import annotations

from .clustering import cluster_fixed_clusters, cluster_fixed_size, cluster_levels
from .dag import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_EDGES,
    DEFAULT_MAX_TASKS,
    Edge,
    Limits,
    Task,
    Workflow,
    WorkflowError,
    with_virtual_endpoints,
)
from .dax import parse_dax
from .gen_cybershake import CYBERSHAKE_MODULES, generate_cybershake
from .gen_layered import generate_layered
from .gen_montage import generate_montage
from .heft import HeftRanking, NetworkModel, heft_order, heft_rank, upward_ranks
from .loader import detect_format, load_workflow, parse_workflow_bytes
from .metrics import (
    average_parallelism,
    critical_path,
    critical_path_tasks,
    level_count,
    summarize,
    task_levels,
    tasks_per_level,
    total_runtime,
)
from .native import dumps_native, parse_native, to_native, write_native
from .wfformat import parse_wfformat

__all__ = [
    "CYBERSHAKE_MODULES",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_EDGES",
    "DEFAULT_MAX_TASKS",
    "Edge",
    "HeftRanking",
    "Limits",
    "NetworkModel",
    "Task",
    "Workflow",
    "WorkflowError",
    "average_parallelism",
    "cluster_fixed_clusters",
    "cluster_fixed_size",
    "cluster_levels",
    "critical_path",
    "critical_path_tasks",
    "detect_format",
    "dumps_native",
    "generate_cybershake",
    "generate_layered",
    "generate_montage",
    "heft_order",
    "heft_rank",
    "level_count",
    "load_workflow",
    "parse_dax",
    "parse_native",
    "parse_wfformat",
    "parse_workflow_bytes",
    "summarize",
    "task_levels",
    "tasks_per_level",
    "to_native",
    "total_runtime",
    "upward_ranks",
    "with_virtual_endpoints",
    "write_native",
]
