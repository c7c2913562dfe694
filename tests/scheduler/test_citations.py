"""The code cites papers, not the project's history or documents a reader cannot open.

A newcomer reading ``scheduler/``, ``gridportal/`` or ``templates/`` has the repository and the
papers of docs/references.md, nothing else: no issue tracker, no specification outside the
repository, not the seed text files, not our machines.  So the code says "Singh, Kesselman &
Deelman 2005, §3.2" or "thesis Figure 22", never "seed 003 §3.2", "SPEC §8", "(issue 21)" or
"/work/shared/…".  Names that stored runs look up by value (presets ``seed001-…``, the
topology ``seed001``, claim modules ``seed00N.py``) carry no space and are not matched.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scheduler.experiments.base import seed_of

ROOT = Path(__file__).resolve().parents[2]

#: Between two words: spaces, or a line break with the next line's indentation and comment mark.
_GAP = r"(?:\s|#)+"

#: What a reader cannot follow, by name.
PATTERNS = {
    "the former specification (SPEC §N)": re.compile(rf"SPEC{_GAP}?§", re.I),
    "an issue number": re.compile(rf"\bissues?{_GAP}\#?\d+", re.I),
    "a seed file number (seed 00N)": re.compile(rf"\bseeds?{_GAP}00\d", re.I),
    "an absolute machine path": re.compile(r"(?<![\w.:/])/(?:work|root|home)/"),
}

#: Files the lead cleans up in their own change (other engineers are editing them now); remove
#: each entry once its file is clean — the test then guards it too.
LEAD_FILES: set[str] = set()

#: Where a match must stay, by file and pattern name, with the reason.
ALLOWED: set[tuple[str, str]] = set()


def _scanned() -> list[Path]:
    files = [p for d in ("scheduler", "gridportal") for p in (ROOT / d).rglob("*.py")]
    files += [p for p in (ROOT / "templates").rglob("*") if p.is_file()]
    return sorted(p for p in files if "__pycache__" not in p.parts)


def _lead(rel: str) -> bool:
    return any(rel == f or rel.startswith(f + "/") for f in LEAD_FILES)


def test_code_cites_papers_not_issues_specs_seed_files_or_machine_paths():
    found = []
    for path in _scanned():
        rel = path.relative_to(ROOT).as_posix()
        if _lead(rel):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        lines = text.splitlines()
        for name, rx in PATTERNS.items():
            if (rel, name) in ALLOWED:
                continue
            for m in rx.finditer(text):  # the whole text: a reference may wrap a line
                lineno = text.count("\n", 0, m.start()) + 1
                found.append(f"{rel}:{lineno}: {name}: {lines[lineno - 1].strip()[:100]}")
    assert not found, (
        "cite the paper (docs/references.md: author, year, section/figure/table/equation), "
        "say the reason in words instead of an issue number, name a repository path or a "
        "setting instead of a machine path:\n" + "\n".join(found)
    )


#: The tests, benchmarks, scripts and build files: the same reader, minus the seed ids (the
#: tests name the seed publications' claims, presets and scenarios by id, as
#: docs/references.md explains).
AROUND = ("tests", "bench", "scripts", "clients")
AROUND_PATTERNS = {k: v for k, v in PATTERNS.items() if not k.startswith("a seed file")}
#: Where a match must stay in those files, with the reason.
AROUND_ALLOWED = {
    # the page check looks for the former specification's section marks in rendered pages
    ("tests/browser/test_layout.py", "the former specification (SPEC §N)"),
    # the escape test tries to write to such paths from the sandbox
    ("tests/reliability/test_sandbox_escapes.py", "an absolute machine path"),
    # this file names what it looks for
    ("tests/scheduler/test_citations.py", "the former specification (SPEC §N)"),
    ("tests/scheduler/test_citations.py", "an issue number"),
    ("tests/scheduler/test_citations.py", "an absolute machine path"),
}


def test_tests_benchmarks_and_scripts_cite_no_issues_specs_or_machine_paths():
    files = [p for d in AROUND for p in (ROOT / d).rglob("*") if p.is_file()]
    files += [ROOT / "Makefile", ROOT / "setup.py", ROOT / "pyproject.toml"]
    found = []
    for path in sorted(files):
        rel = path.relative_to(ROOT).as_posix()
        if "__pycache__" in path.parts or path.suffix not in {
            "",
            ".py",
            ".sh",
            ".toml",
            ".md",
            ".txt",
        }:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for name, rx in AROUND_PATTERNS.items():
            if (rel, name) in AROUND_ALLOWED:
                continue
            for m in rx.finditer(text):
                lineno = text.count("\n", 0, m.start()) + 1
                found.append(
                    f"{rel}:{lineno}: {name}: {text.splitlines()[lineno - 1].strip()[:100]}"
                )
    assert not found, "say the reason in words, name a repository path:\n" + "\n".join(found)


def test_the_allow_lists_name_files_that_exist():
    for entry in LEAD_FILES:
        assert (ROOT / entry).exists(), entry
    for rel, name in ALLOWED | AROUND_ALLOWED:
        assert (ROOT / rel).is_file() and name in PATTERNS, (rel, name)


@pytest.mark.parametrize(
    "source, seed",
    [
        ("thesis §5.3, Figure 23", "000"),
        ("Singh 2008 (thesis), ch. 3", "000"),
        ("Takefusa et al. 2010, Success Ratios", "001"),
        ("Buisson et al. 2007, §6.1, Figure 6", "002"),
        ("Singh, Kesselman & Deelman 2005, §5.1, Figure 7", "003"),
        ("Dumitrescu, Wilde & Foster 2005, slide 26, Comparison Results", "004"),
        ("seed 002 §7", "002"),  # a source written before the papers were cited by name
        ("somewhere else", ""),
    ],
)
def test_a_claims_citation_names_its_seed(source, seed):
    """The scoreboard groups claims by seed id, read from where the claim is made."""
    assert seed_of(source) == seed
