"""Names for new accounts: no look-alike of an existing name, no mix of alphabets.

A new name is compared with every existing one by its *skeletons*: NFKC-normalised, case-folded,
and each character replaced by its prototype in Unicode's confusables table (UTS #39, as shipped
by ``confusable_homoglyphs``) — so ``demо`` with a Cyrillic ``о``, ``аdmin`` with a Cyrillic
``а`` and ``stαff_r`` with a Greek ``α`` share a skeleton with ``demo``, ``admin`` and
``staff_r``; so do ``Demo``, ``dem0`` and ``aIice``/``alice``. Unlike UTS #39's skeleton, case
is folded too: ``Alice`` and ``alice`` are one name to a person.

A name must also be written in one script (digits and ``@.+-_`` are common to all), or in one of
UTS #39's "highly restrictive" combinations (Latin with Han and Japanese kana, or with Han and
Hangul, or with Han and Bopomofo) — so ``pаypal`` is refused even when no ``paypal`` exists.

An existing, look-alike or reserved name gets the same answer: "this name cannot be used", so
the form does not say which names exist.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from confusable_homoglyphs import categories, confusables
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

__all__ = ["RESERVED", "UNAVAILABLE", "check_new_username", "skeletons"]

UNAVAILABLE = "This name cannot be used. Please choose another."
MIXED = (
    "Use letters from one alphabet only (digits and . @ + - _ may be added): this name mixes "
    "%(scripts)s."
)
#: Names nobody signs up with: staff and the product (and, by skeleton, their look-alikes).
RESERVED = ("admin", "administrator", "root", "staff", "support", "security", "gridportal")

_COMBINATIONS = (
    {"LATIN", "HAN", "HIRAGANA", "KATAKANA"},
    {"LATIN", "HAN", "BOPOMOFO"},
    {"LATIN", "HAN", "HANGUL"},
)


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each confusable character -> its prototype in Unicode's confusables table.

    ``confusable_homoglyphs`` keeps the table as pairs listed both ways. A source character
    has one line in the table (its prototype), and a prototype is never a source, so: a
    character with one entry whose partner has several is a source; a character with several
    entries is a prototype; a pair listing only each other maps both to the smaller one (for
    comparing skeletons that is the same as UTS #39, which maps one to the other).
    """
    table = {
        k: [g["c"].replace("\u200e", "") for g in v]  # the table's LRM marks
        for k, v in confusables.confusables_data.items()
    }
    out: dict[str, str] = {}
    for char, partners in table.items():
        if len(char) != 1 or len(partners) != 1:
            continue
        (target,) = partners
        back = table.get(target, ())
        if len(back) == 1 and back[0] == char:  # a pair: both to the smaller
            out[char] = min(char, target)
        else:
            out[char] = target
    return out


def _map(text: str) -> str:
    protos = _prototypes()
    return "".join(protos.get(ch, ch) for ch in text)


def skeletons(name: str) -> frozenset[str]:
    """The look-alike classes of ``name``: names sharing one read the same to a person.

    NFKC and case folding, then confusables mapped to their prototypes (``demо`` -> ``derno``,
    as UTS #39 maps ``m`` to ``rn``); and the same with the confusables mapped before the case
    is folded too, which keeps a capital ``I`` written for an ``l`` (``aIice``)."""
    text = unicodedata.normalize("NFKC", name)
    folded_first = _map(text.casefold()).casefold()
    mapped_first = _map(_map(text).casefold()).casefold()
    return frozenset({folded_first, mapped_first})


def _scripts(name: str) -> set[str]:
    return set(categories.unique_aliases(name)) - {"COMMON", "INHERITED"}


def check_new_username(name: str, *, exclude_pk: int | None = None, reserved: bool = True) -> None:
    """Raise ``ValidationError`` unless ``name`` may be given to a new account (or to the
    account ``exclude_pk``, renamed). ``reserved=False``: staff may give a reserved name."""
    scripts = _scripts(unicodedata.normalize("NFKC", name))
    if len(scripts) > 1 and not any(scripts <= combo for combo in _COMBINATIONS):
        raise ValidationError(
            MIXED, code="mixed_script", params={"scripts": " and ".join(sorted(scripts)).title()}
        )
    mine = skeletons(name)
    if reserved and any(mine & skeletons(r) for r in RESERVED):
        raise ValidationError(UNAVAILABLE, code="unavailable")
    users = get_user_model().objects.all()
    if exclude_pk is not None:
        users = users.exclude(pk=exclude_pk)
    # Every existing name is compared (sign-up is throttled; ~1 µs a name).
    for existing in users.values_list("username", flat=True).iterator(chunk_size=2000):
        if mine & skeletons(existing):
            raise ValidationError(UNAVAILABLE, code="unavailable")
