"""GridPortal's scheduling engine (``python -m scheduler``, packaged as gridportal-sim)."""

#: The engine's version (pyproject.toml's): bundles and job-array results carry it.
__version__ = "0.1.0"
