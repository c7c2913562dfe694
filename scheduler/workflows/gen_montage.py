"""A Montage-like mosaic workflow: 7 levels (seed 003 §4.1), or 9 with the JPEG preview.

Montage (Berriman et al., SPIE 2004) builds a sky mosaic from ``images`` input images laid on a
grid.  Levels, as in seed 003's Figure 4 and the Pegasus Montage DAX (``Montage_*.xml``):

1. ``mProjectPP`` ×images — reproject each image;
2. ``mDiffFit`` ×overlaps — fit the difference of each pair of overlapping images (parents:
   the two projections).  Images sit row-major on a ⌈√images⌉-wide grid and overlap their
   right, lower, lower-right and lower-left neighbours: up to 4 per image, 589 for 166 images
   (the generated DAX ``Montage_1000.xml`` has 662);
3. ``mConcatFit`` — gather all fits;  4. ``mBgModel`` — solve the background model;
5. ``mBackground`` ×images — correct each image (parents: mBgModel and its projection);
6. ``mImgtbl`` — table of the corrected images;  7. ``mAdd`` — co-add the mosaic;
8. ``mShrink`` and 9. ``mJPEG`` — only with ``jpeg=True`` (the 9-level DAX layout).

Runtimes and edge data are the means measured in ``Montage_1000.xml`` (166 images): per task for
the per-image modules, per input image for the aggregating ones (their work grows with the
mosaic) — see :data:`MONTAGE_RUNTIME` and :data:`MONTAGE_DATA`.  ``runtime_jitter`` = j draws
each runtime uniformly on [1 − j, 1 + j] × mean (seeded; rounded to 0.01 s, at least 0.01 s).
Every task uses one processor.
"""

from __future__ import annotations

import math
import random

from .dag import Edge, Task, Workflow

__all__ = ["MONTAGE_DATA", "MONTAGE_RUNTIME", "generate_montage", "montage_overlaps"]

#: module → (mean runtime s, per image?): per task, or per input image for aggregating modules.
MONTAGE_RUNTIME: dict[str, tuple[float, bool]] = {
    "mProjectPP": (13.58, False),
    "mDiffFit": (10.59, False),
    "mConcatFit": (0.319, True),
    "mBgModel": (0.537, True),
    "mBackground": (10.74, False),
    "mImgtbl": (0.397, True),
    "mAdd": (0.600, True),
    "mShrink": (0.134, True),
    "mJPEG": (0.0152, True),
}

#: (parent module, child module) → (mean bytes, per image?), measured in Montage_1000.xml.
MONTAGE_DATA: dict[tuple[str, str], tuple[int, bool]] = {
    ("mProjectPP", "mDiffFit"): (8_326_281, False),
    ("mDiffFit", "mConcatFit"): (288_671, False),
    ("mConcatFit", "mBgModel"): (837, True),
    ("mBgModel", "mBackground"): (53, True),
    ("mProjectPP", "mBackground"): (8_325_655, False),
    ("mBackground", "mImgtbl"): (8_322_282, False),
    ("mImgtbl", "mAdd"): (406, True),
    ("mAdd", "mShrink"): (3_671_922, True),
    ("mShrink", "mJPEG"): (73_468, True),
}


def montage_overlaps(images: int) -> list[tuple[int, int]]:
    """Pairs (i, j), i < j, of overlapping images on the row-major grid (see module doc)."""
    cols = math.ceil(math.sqrt(images))
    pairs = []
    for i in range(images):
        r, c = divmod(i, cols)
        for dr, dc in ((0, 1), (1, -1), (1, 0), (1, 1)):
            rr, cc = r + dr, c + dc
            j = rr * cols + cc
            if 0 <= cc < cols and j < images:
                pairs.append((i, j))
    return pairs


def generate_montage(
    images: int = 166,
    *,
    jpeg: bool = False,
    runtime_jitter: float = 0.0,
    seed: int = 0,
    name: str | None = None,
) -> Workflow:
    """A Montage-like workflow over ``images`` input images (7 levels; 9 with ``jpeg``)."""
    if not 2 <= images <= 20_000:
        raise ValueError(f"images must be between 2 and 20000, got {images}")
    if not (math.isfinite(runtime_jitter) and 0 <= runtime_jitter < 1):
        raise ValueError(f"runtime_jitter must be in [0, 1), got {runtime_jitter}")
    rng = random.Random(seed)
    width = len(str(images))

    def runtime(module: str) -> float:
        mean, per_image = MONTAGE_RUNTIME[module]
        value = mean * images if per_image else mean
        if runtime_jitter:
            value *= rng.uniform(1 - runtime_jitter, 1 + runtime_jitter)
        return max(0.01, round(value, 2))

    def data(parent: str, child: str) -> int:
        mean, per_image = MONTAGE_DATA[(parent, child)]
        return mean * images if per_image else mean

    tasks: list[Task] = []
    edges: list[Edge] = []
    modules: dict[str, str] = {}

    def new(tid: str, module: str) -> str:
        modules[tid] = module
        tasks.append(Task(tid, runtime(module), 1, module=module))
        return tid

    def link(parent: str, child: str) -> None:
        edges.append(Edge(parent, child, data(modules[parent], modules[child])))

    project = [new(f"mProjectPP_{i:0{width}d}", "mProjectPP") for i in range(images)]
    overlaps = montage_overlaps(images)
    dwidth = len(str(len(overlaps)))
    diffs = []
    for k, (i, j) in enumerate(overlaps):
        d = new(f"mDiffFit_{k:0{dwidth}d}", "mDiffFit")
        link(project[i], d)
        link(project[j], d)
        diffs.append(d)
    concat = new("mConcatFit", "mConcatFit")
    for d in diffs:
        link(d, concat)
    model = new("mBgModel", "mBgModel")
    link(concat, model)
    backgrounds = []
    for i in range(images):
        b = new(f"mBackground_{i:0{width}d}", "mBackground")
        link(model, b)
        link(project[i], b)
        backgrounds.append(b)
    table = new("mImgtbl", "mImgtbl")
    for b in backgrounds:
        link(b, table)
    mosaic = new("mAdd", "mAdd")
    link(table, mosaic)
    if jpeg:
        shrink = new("mShrink", "mShrink")
        link(mosaic, shrink)
        link(shrink, new("mJPEG", "mJPEG"))
    return Workflow(tuple(tasks), tuple(edges), name or f"montage-{images}")
