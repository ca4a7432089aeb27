"""Every paper claim quotes its paper: the words it tests, found verbatim in our copy of the paper's
text.

A claim's scope is easily written from memory of a paper instead of from its words; a quote found in
the text ties the claim to what the paper says. The texts are our copies in ``../shared/papers/``
(not shipped: where they are absent the search is skipped with a message, and only the presence of
the quotes is checked). Both sides are normalised the same way before the search: Unicode
compatibility forms (ligatures), line-break hyphenation ("re-\\n source"), every run of whitespace
as one space.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path

import pytest

from fairlib.repro.ledger import load_registry, quotes_of

ROOT = Path(__file__).resolve().parents[1]
PAPERS = ROOT.parent / "shared" / "papers"
REGISTRIES = sorted(p for p in (ROOT / "notebooks" / "claims").glob("*.toml"))

#: a registry -> our copies of its paper's text (the bidding-game paper: the English preprint and
#: the EC'05 version)
PAPER_TEXTS = {
    "feldman2005": ("000_26d1266a26fa730f.txt", "004_6e313b8f346a7d00.txt"),
    "khamseashari2018": ("001_dcbca73e887729fc.txt",),
    "khamseashari2018_traces": ("001_dcbca73e887729fc.txt",),
    "li2019": ("002_5ddb179125d9e5ad.txt",),
    "metin2025": ("003_1e72054512f22997.txt",),
}


def normalise(text: str) -> str:
    """Text as the quote search compares it: NFKC, line-break hyphenation removed, whitespace runs
    as one space.

    >>> normalise("re-\\n  source  ﬁts")
    'resource fits'
    """
    text = unicodedata.normalize("NFKC", text)
    text = re.sub(r"(\w)-\s*\n\s*(\w)", r"\1\2", text)
    return re.sub(r"\s+", " ", text).strip()


@cache
def paper_text(key: str) -> str | None:
    # the four papers' copies keep their archive names; any other paper's text is <key>.txt
    names = PAPER_TEXTS.get(key, (f"{key}.txt",))
    if not all((PAPERS / n).is_file() for n in names):
        return None
    return "\n".join(normalise((PAPERS / n).read_text(encoding="utf-8")) for n in names)


def _paper_claims():
    for path in REGISTRIES:
        for cid, declared in load_registry(path, path.stem).items():
            if declared.kind == "paper":
                yield pytest.param(path.stem, declared, id=f"{path.stem}:{cid}")


@pytest.mark.parametrize("key, declared", list(_paper_claims()))
def test_every_paper_claim_quotes_its_paper(key, declared):
    quotes = quotes_of(declared)
    assert quotes, (
        f"{key}: paper claim {declared.id!r} has no quote: give the paper's words it tests "
        "(quote = "
        '"..." in its registry), or declare it a finding if the paper does not say it'
    )
    assert declared.scope.strip(), (
        f"{key}: paper claim {declared.id!r} has no scope (what the measurement covers)"
    )
    text = paper_text(key)
    if text is None:
        where = PAPER_TEXTS.get(key, (f"{key}.txt",))
        pytest.skip(
            f"no copy of {key}'s paper text in {PAPERS} ({', '.join(where)}): quotes present, "
            "not searched"
        )
    for q in quotes:
        assert normalise(q) in text, (
            f"{key}: claim {declared.id!r}: quote not found verbatim in the paper's text: {q!r}"
        )


def test_normalise_makes_hyphenation_and_spacing_irrelevant():
    assert normalise("multi-\nresource   fair") == normalise("multiresource fair")
    assert normalise("Dominant  Resource\tFairness") == "Dominant Resource Fairness"
    assert normalise("x - y") == "x - y"  # a dash between spaces is not a line break's hyphen


def test_paper_texts_name_existing_registries():
    assert set(PAPER_TEXTS) <= {p.stem for p in REGISTRIES}
