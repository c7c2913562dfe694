"""A Montage-like mosaic workflow: 7 levels (Singh, Kesselman & Deelman 2005, §4.1), or 9 with the
JPEG preview.

Montage (Berriman et al., SPIE 2004) builds a sky mosaic from ``images`` input images laid on a
grid.  Levels, as in Singh, Kesselman & Deelman's (2005) Figure 4 and the Pegasus Montage DAX
(``Montage_*.xml``):

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

__all__ = [
    "MONTAGE_DATA",
    "MONTAGE_RUNTIME",
    "SEED003_LEVELS",
    "generate_montage",
    "generate_montage_seed003",
    "montage_overlaps",
    "montage_overlaps_count",
]

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


#: Singh, Kesselman & Deelman's (2005) 10-degree M16 Montage (§4.1, Tables 1–2): tasks per level and
#: runtime (s) per
#: task.  The seed gives 17,034 tasks on 7 levels, a mean runtime of 3.1 s, an average
#: parallelism of 89 and a max/average ratio of 113; its Tables 1–2 give the task count of
#: each clustering, which fixes the level widths: two single-task levels, two levels of 100 and
#: 120 tasks, three wide ones summing to 16,812 (found by enumeration: 3,374 / 10,064 / 3,374
#: is the solution with as many backgrounds as projections and the widest level 113 × 89).
#: Runtimes: least-squares fit of the 24 average parallelisms of Tables 1–2 with the total
#: 52,822 s (Table 1: 7 × 7,546 s) and the average parallelism 89 (largest error 7.7 %, on
#: 4 tasks per cluster).  The module names of levels 6–7 and which of them has 100 tasks are
#: not in the seed (the order changes no number above).
SEED003_LEVELS: tuple[tuple[str, int, float], ...] = (
    ("mProject", 3374, 4.56),
    ("mDiffFit", 10064, 1.79),
    ("mConcatFit", 1, 273.8),
    ("mBgModel", 1, 273.8),
    ("mBackground", 3374, 4.56),
    ("mAddTile", 120, 1.0),
    ("mMosaic", 100, 34.0),
)


def montage_overlaps_count(images: int, count: int) -> list[tuple[int, int]]:
    """``count`` overlapping pairs on the row-major grid of :func:`montage_overlaps`: first
    every right and lower neighbour, then lower-right, then lower-left ones (in image order)."""
    cols = math.ceil(math.sqrt(images))
    tiers: list[list[tuple[int, int]]] = [[], [], []]
    for i in range(images):
        r, c = divmod(i, cols)
        for tier, (dr, dc) in ((0, (0, 1)), (0, (1, 0)), (1, (1, 1)), (2, (1, -1))):
            rr, cc = r + dr, c + dc
            j = rr * cols + cc
            if 0 <= cc < cols and j < images:
                tiers[tier].append((i, j))
    pairs = [p for tier in tiers for p in tier]
    if count > len(pairs):
        raise ValueError(f"{images} images have at most {len(pairs)} overlaps, not {count}")
    return pairs[:count]


def generate_montage_seed003(
    *, runtime_jitter: float = 0.0, seed: int = 0, name: str | None = None
) -> Workflow:
    """Singh, Kesselman & Deelman's (2005) 10-degree M16 Montage: 17,034 tasks on 7 levels
    (:data:`SEED003_LEVELS`).

    Levels 1–5 are wired as in :func:`generate_montage` (each difference fit reads two
    overlapping projections; each background reads the model and its projection); each of the
    120 level-6 tasks co-adds a contiguous tile of backgrounds, and each of the 100 level-7
    tasks reads one or two adjacent level-6 tiles.  Every task uses one processor."""
    if not (math.isfinite(runtime_jitter) and 0 <= runtime_jitter < 1):
        raise ValueError(f"runtime_jitter must be in [0, 1), got {runtime_jitter}")
    rng = random.Random(seed)
    (proj, n_img, r_proj), (diff, n_diff, r_diff), (cat, _, r_cat), (bgm, _, r_bgm), (
        bg, _, r_bg), (tile, n_tile, r_tile), (top, n_top, r_top) = SEED003_LEVELS  # fmt: skip
    tasks: list[Task] = []
    edges: list[Edge] = []

    def new(tid: str, module: str, runtime: float) -> str:
        if runtime_jitter:
            runtime *= rng.uniform(1 - runtime_jitter, 1 + runtime_jitter)
        tasks.append(Task(tid, max(0.01, round(runtime, 2)), 1, module=module))
        return tid

    project = [new(f"{proj}_{i:05d}", proj, r_proj) for i in range(n_img)]
    diffs = []
    for k, (i, j) in enumerate(montage_overlaps_count(n_img, n_diff)):
        d = new(f"{diff}_{k:05d}", diff, r_diff)
        edges += [Edge(project[i], d), Edge(project[j], d)]
        diffs.append(d)
    concat = new(cat, cat, r_cat)
    edges += [Edge(d, concat) for d in diffs]
    model = new(bgm, bgm, r_bgm)
    edges.append(Edge(concat, model))
    backs = []
    for i in range(n_img):
        b = new(f"{bg}_{i:05d}", bg, r_bg)
        edges += [Edge(model, b), Edge(project[i], b)]
        backs.append(b)
    tiles = []
    for t in range(n_tile):
        a, b = t * n_img // n_tile, (t + 1) * n_img // n_tile
        tid = new(f"{tile}_{t:03d}", tile, r_tile)
        edges += [Edge(backs[i], tid) for i in range(a, b)]
        tiles.append(tid)
    for t in range(n_top):
        a, b = t * n_tile // n_top, -(-(t + 1) * n_tile // n_top)
        tid = new(f"{top}_{t:03d}", top, r_top)
        edges += [Edge(tiles[i], tid) for i in range(a, b)]
    return Workflow(tuple(tasks), tuple(edges), name or "montage-m16-seed003")
