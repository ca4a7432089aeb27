"""The wording rules of every "What we found" and Findings text (fairlib.repro.prose)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairlib.repro import prose
from fairlib._validate import InvalidInputError


def test_a_share_of_nothing_is_none_and_of_everything_all():
    assert prose.share(0) == "none" and prose.share(0.0) == "none"
    assert prose.share(1) == "all" and prose.share(1.0) == "all"
    assert prose.share(0.25) == "25%" and prose.share(0.255, 1) == "25.5%"


def test_a_share_that_only_rounds_to_none_or_all_says_so():
    assert prose.share(0.001) == "<1%" and prose.share(0.999) == ">99%"
    assert prose.share(0.0001, 1) == "<0.1%" and prose.share(0.9999, 1) == ">99.9%"


@pytest.mark.parametrize("bad", [-0.1, 1.5, "half", None])
def test_a_share_outside_zero_to_one_is_refused(bad):
    with pytest.raises(InvalidInputError, match="value"):
        prose.share(bad)


def test_a_range_with_equal_ends_is_one_number():
    assert prose.span(1.26, 1.26, percent=True) == "126%"
    assert prose.span(1.2601, 1.2649, percent=True) == "126%"
    assert prose.span(4034, 4034) == "4,034"
    assert prose.span(3964, 4034) == "3,964–4,034"
    assert prose.span(0.5, 0.75, 2) == "0.50–0.75"


def test_a_range_runs_from_its_smaller_end():
    with pytest.raises(InvalidInputError, match="low"):
        prose.span(2, 1)


@given(st.floats(min_value=-0.00499, max_value=0.00499, allow_nan=False))
def test_never_minus_zero(x):
    """Zero is "0"; a value that only rounds to zero is written by its size (never "0.00" or
    "-0.00")."""
    for text in (prose.number(x, 2), prose.number(x, 2, sign=True)):
        assert (text == "0") == (x == 0)
        assert not text.startswith("-0") and "0.00" not in text
    if x != 0:
        assert float(
            prose.number(x, 2)
            .replace(" × 10", "e")
            .translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789"))
        ) == pytest.approx(x, rel=0.06)
    assert not prose.percent(x / 100, 2).startswith("-0")


def test_exact_agreement_and_tiny_differences_read_as_words():
    assert prose.within(0.0) == "exactly" and prose.within(-8.91e-10) == "to within 8.9 × 10⁻¹⁰"
    assert (
        prose.number(0.0, 6) == "0"
        and prose.percent(0.0, 1) == "0%"
        and prose.span(0.0, 0.0, 3) == "0"
    )


def test_signs_and_undefined_values():
    assert (
        prose.number(0.0312, 3, sign=True) == "+0.031"
        and prose.number(-0.0312, 3, sign=True) == "-0.031"
    )
    assert prose.percent(-0.021, 1, sign=True) == "-2.1%"
    assert (
        prose.number(math.nan) == "n/a"
        and prose.number(math.inf) == "∞"
        and prose.share(math.nan) == "n/a"
    )
    with pytest.raises(InvalidInputError, match="digits"):
        prose.number(1.0, -1)


def test_found_is_one_paragraph_with_its_lead():
    assert prose.found("All runs converge.") == "**What we found.** All runs converge."
    with pytest.raises(InvalidInputError, match="text"):
        prose.found("  ")


LEDGER = [
    {
        "claim_id": "worst",
        "kind": "paper",
        "source": "§3.1",
        "statement": "the worst efficiency is 2√2 − 2",
        "status": "held",
        "ours": 0.8284271247,
        "note": "",
    },
    {
        "claim_id": "gain",
        "kind": "paper",
        "source": "§5",
        "statement": "about 50% more efficient",
        "status": "not reproduced",
        "ours": 0.39,
        "note": "median gain 39%",
    },
    {
        "claim_id": "mixed",
        "kind": "paper",
        "source": "§4",
        "statement": "no mixed equilibrium",
        "status": "not tested",
        "ours": None,
        "note": "a proof, not a measurement",
    },
    {
        "claim_id": "steps",
        "kind": "check",
        "source": "§6",
        "statement": "converges in few steps",
        "status": "held",
        "ours": 12.0,
        "note": "",
    },
]


def test_findings_state_each_status_and_one_number():
    text = prose.findings_markdown(LEDGER, ["worst", "gain", "mixed", "steps"])
    bullets = [line for line in text.splitlines() if line.startswith("- ")]
    assert bullets == [
        "- **Held** (§3.1): the worst efficiency is 2√2 − 2 — we measure 0.8284.",
        "- **Not reproduced** (§5): about 50% more efficient — we measure 0.39.",
        "- **Not tested** (§4): no mixed equilibrium — a proof, not a measurement.",
        "- **Held** (§6): converges in few steps — we measure 12.",
    ]
    assert "All 4 claims of the ledger: 2 held, 1 not reproduced, 1 not tested" in text


def test_findings_are_three_to_five_known_claims():
    with pytest.raises(InvalidInputError, match="3 to 5"):
        prose.findings_markdown(LEDGER, ["worst", "gain"])
    with pytest.raises(InvalidInputError, match=r"chosen\[2\] = 'nope'"):
        prose.findings_markdown(LEDGER, ["worst", "gain", "nope"])
    # a ledger with fewer than three claims lists them all
    assert prose.findings_markdown(LEDGER[:1], ["worst"]).startswith("- **Held**")


def test_findings_not_yet_chosen_are_the_ledgers_first_paper_claims():
    """``[]``: the first five claims, the paper's before ours (a new paper's notebook until it names
    its own)."""
    ledger = [dict(LEDGER[3], claim_id=f"check{i}") for i in range(3)] + LEDGER[:3]
    bullets = [
        line for line in prose.findings_markdown(ledger, []).splitlines() if line.startswith("- ")
    ]
    assert len(bullets) == 5
    assert bullets[:3] == [
        line
        for line in prose.findings_markdown(LEDGER, ["worst", "gain", "mixed"]).splitlines()
        if line.startswith("- ")
    ]
    assert prose.findings_markdown(LEDGER[:1], []).startswith("- **Held** (§3.1)")


@given(st.integers(min_value=-(2**80), max_value=2**80))
def test_an_integer_is_written_exactly(n):
    """number(2**53 + 1) wrote 9,007,199,254,740,992.00 (through a float); tables.table writes an
    integer exactly, and so does prose."""
    import numpy as np

    assert prose.number(n, 0) == f"{n:,}"
    assert prose.number(n) == (f"{n:,}.00" if n else "0")
    assert prose.number(2**53 + 1) == "9,007,199,254,740,993.00"
    assert prose.number(np.int64(-5), 1, sign=True) == "-5.0"
    assert prose.number(5, 0, sign=True) == "+5"


def test_an_integer_beyond_the_float_range_is_refused_as_a_float_is():
    with pytest.raises(InvalidInputError, match=r"value = 1000.*: too large for a float"):
        prose.number(10**400)
