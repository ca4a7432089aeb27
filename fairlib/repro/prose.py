"""Numbers in sentences: the one place a notebook's prose formats a measured value.

Every "What we found" paragraph and every **Findings** list of the notebooks is written through
these helpers, so the same wording rules hold everywhere:

- a share of 0 is "none" and a share of 1 is "all" (:func:`share`), never "0%" or "100%" of
  something;
- a range whose ends are equal (after rounding) is one number (:func:`span`), never "126%-126%";
- zero is "0", and a value that rounds to zero but is not zero is written by its size
  (:func:`number`, :func:`scientific`): never "-0.00" or "0.000";
- two values that agree exactly are "exactly" equal, else equal "to within" their difference
  (:func:`within`);
- a paragraph is shown once, as rendered Markdown (:func:`found`), never as the code that made it.

:func:`findings_markdown` renders a notebook's **Findings** list from its claims ledger: one bullet
per chosen claim, saying whether it held and the one number we measured.

>>> share(0), share(1), share(0.3)
('none', 'all', '30%')
>>> span(1.26, 1.26, percent=True)
'126%'
>>> number(-0.001, 2), number(0.0, 3)
('-1.0 × 10⁻³', '0')
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._validate import InvalidInputError, as_count, as_flag, as_instance, as_labels, as_text

__all__ = [
    "number",
    "scientific",
    "within",
    "percent",
    "share",
    "span",
    "found",
    "findings_markdown",
    "registry_headlines",
    "HEADLINE_WORDS",
    "show_findings",
    "running_note",
    "show_running_note",
    "show_found",
]


#: the most decimals (or significant digits) prose writes: far beyond any number a reader takes in
MAX_DIGITS = 20


def _real(value: Any, name: str) -> float:
    """``value`` as a float: a number (NaN and ±inf too, which prose writes as "n/a" and "∞");
    text (which ``float`` would read), a bool, a complex number or an integer too large for a float
    is an error naming it."""
    import numpy as np

    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise InvalidInputError(
            f"{name} = {value!r}: expected a real number, got {type(value).__name__}"
        )
    try:
        return float(value)
    except OverflowError:
        raise InvalidInputError(f"{name} = {str(value)[:40]}: too large for a float") from None
    except (TypeError, ValueError):
        raise InvalidInputError(f"{name} = {value!r}: expected a real number") from None


def _digits(digits: int, minimum: int = 0) -> int:
    return as_count(digits, "digits", minimum=minimum, maximum=MAX_DIGITS)


def _undefined(x: float) -> str | None:
    """How a value that is not a finite number reads: "n/a" (not measured), "∞" or "−∞"."""
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return None


def number(value: float, digits: int = 2, *, sign: bool = False) -> str:
    """``value`` with ``digits`` decimals and thousands separated; ``sign=True`` writes "+" before a
    positive value. A value that rounds to zero has no sign (never "-0.00"); NaN reads "n/a" and
    infinity "∞".

    Parameters
    ----------
    value : float
        A real number (NaN reads "n/a", infinity "∞"); an integer (``int``, a NumPy integer) is
        written exactly, as :func:`fairlib.repro.tables.table` writes one (2**53 + 1 is not
        rounded to 2**53).
    digits : int, default 2
        Decimals, from 0 to :data:`MAX_DIGITS`.
    sign : bool, default False
        Write "+" before a positive value.

    Returns
    -------
    str
        The number as prose writes it; a non-zero value that rounds to zero in its size
        (:func:`scientific`).

    Raises
    ------
    InvalidInputError
        When ``value`` is not a real number (text and bools are not) or is beyond the float
        range (``10**400``), or ``digits`` is not an integer from 0 to :data:`MAX_DIGITS`.

    Examples
    --------
    >>> (
    ...     number(-0.004),
    ...     number(12345.678, 1),
    ...     number(3, 0),
    ...     number(0.25, 2, sign=True),
    ...     number(0.0, 2, sign=True),
    ... )
    ('-4.0 × 10⁻³', '12,345.7', '3', '+0.25', '0')
    """
    import numpy as np

    sign = as_flag(sign, "sign")
    x = _real(value, "value")  # a number within the float range (10**400 is refused)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        # exactly, as tables.table writes an integer (a float would round one beyond 2**53)
        n, digits = int(value), _digits(digits)
        if n == 0:
            return "0"
        whole = f"{n:,}" + ("." + "0" * digits if digits else "")
        return "+" + whole if sign and n > 0 else whole
    digits = _digits(digits)
    if (text := _undefined(x)) is not None:
        return text
    if x == 0:
        return "0"
    text = f"{x:,.{digits}f}"
    if (
        text.lstrip("-").strip("0,.") == ""
    ):  # rounds to zero but is not zero: its size, never "0.000" or "-0.00"
        return ("+" if sign and x > 0 else "") + scientific(x)
    return "+" + text if sign and x > 0 else text


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def scientific(value: float, digits: int = 2) -> str:
    """``value`` with ``digits`` significant digits as a power of ten, as prose writes it: ``8.9 ×
    10⁻¹⁰``; zero is ``0``.

    Parameters
    ----------
    value : float
        A real number.
    digits : int, default 2
        Significant digits, from 1 to :data:`MAX_DIGITS`.

    Returns
    -------
    str
        ``mantissa × 10ⁿ`` with a superscript exponent; ``"0"`` for zero, "n/a" for NaN, "∞"
        for infinity.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a real number or ``digits`` < 1.

    Examples
    --------
    >>> scientific(8.91e-10), scientific(-0.000123), scientific(0), scientific(3e5, 1)
    ('8.9 × 10⁻¹⁰', '-1.2 × 10⁻⁴', '0', '3 × 10⁵')
    """
    x = _real(value, "value")
    digits = _digits(digits, minimum=1)
    if (text := _undefined(x)) is not None:
        return text
    if x == 0:
        return "0"
    mantissa, exponent = f"{abs(x):.{digits - 1}e}".split("e")
    return f"{'-' if x < 0 else ''}{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def within(difference: float, digits: int = 2) -> str:
    """How close two values are, in words: ``"exactly"`` when ``difference`` is 0, else ``"to within
    8.9 × 10⁻¹⁰"`` (its magnitude, :func:`scientific`). Never "to within 0.0e+00".

    Parameters
    ----------
    difference : float
        The difference of the two values (its sign is ignored).
    digits : int, default 2
        Decimals (or significant digits, for a difference below ``10**-digits``), from 0 to
        :data:`MAX_DIGITS`.

    Returns
    -------
    str
        ``"exactly"``, ``"to within ..."``, or "n/a" for NaN.

    Raises
    ------
    InvalidInputError
        When ``difference`` is not a real number or ``digits`` is not an integer from 0 to
        :data:`MAX_DIGITS`.

    Examples
    --------
    >>> within(0.0), within(-8.91e-10), within(0.25)
    ('exactly', 'to within 8.9 × 10⁻¹⁰', 'to within 0.25')
    """
    x = abs(_real(difference, "difference"))
    digits = _digits(digits)
    if math.isnan(x):
        return "n/a"
    if x == 0:
        return "exactly"
    return f"to within {number(x, digits) if x >= 10**-digits else scientific(x, digits)}"


def percent(value: float, digits: int = 0, *, sign: bool = False) -> str:
    """A fraction as a percentage, ``0.256 -> '26%'`` (no sign on a rounded zero; ``sign=True``
    marks a gain "+").

    Parameters
    ----------
    value : float
        A fraction (0.256 is 26%).
    digits : int, default 0
        Decimals of the percentage, from 0 to :data:`MAX_DIGITS`.
    sign : bool, default False
        Write "+" before a positive value.

    Returns
    -------
    str
        The percentage; a non-zero value that rounds to zero is shown by its bound (``"<0.1%"``,
        ``">-0.1%"``).

    Raises
    ------
    InvalidInputError
        When ``value`` is not a real number or ``digits`` is not an integer from 0 to
        :data:`MAX_DIGITS`.

    Examples
    --------
    >>> percent(0.256), percent(-0.0001, 1), percent(0.02, sign=True), percent(0)
    ('26%', '>-0.1%', '+2%', '0%')
    """
    sign = as_flag(sign, "sign")
    x = _real(value, "value")
    digits = _digits(digits)
    if (text := _undefined(x)) is not None:
        return text
    if x == 0:
        return "0%"
    text = f"{x * 100:,.{digits}f}"
    if (
        text.lstrip("-").strip("0,.") == ""
    ):  # rounds to zero but is not zero: its bound, never "-0.0%"
        smallest = f"{10**-digits:.{digits}f}%"
        return f"<{smallest}" if x > 0 else f">-{smallest}"
    return number(x * 100, digits, sign=sign) + "%"


def share(value: float, digits: int = 0) -> str:
    """A share of a whole in words: exactly 0 is ``"none"``, exactly 1 is ``"all"``, anything else a
    percentage (a share that only rounds to 0% or 100% is shown as "<1%" / ">99%" so it is never
    mistaken for none or all).

    Parameters
    ----------
    value : float
        A share in [0, 1] (NaN reads "n/a").
    digits : int, default 0
        Decimals of the percentage, from 0 to :data:`MAX_DIGITS`.

    Returns
    -------
    str
        ``"none"``, ``"all"``, or a percentage.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a real number in [0, 1] (or NaN) or ``digits`` is not an integer
        from 0 to :data:`MAX_DIGITS`.

    Examples
    --------
    >>> share(0.0), share(1.0), share(0.004), share(0.9996), share(0.5)
    ('none', 'all', '<1%', '>99%', '50%')
    """
    x = _real(value, "value")
    digits = _digits(digits)
    if math.isnan(x):
        return "n/a"
    if not 0 <= x <= 1:
        raise InvalidInputError(f"value = {value!r}: a share must lie in [0, 1]")
    if x == 0:
        return "none"
    if x == 1:
        return "all"
    text = percent(x, digits)
    if text == percent(0, digits):
        return f"<{percent(10**-digits / 100, digits)}"
    if text == percent(1, digits):
        return f">{percent(1 - 10**-digits / 100, digits)}"
    return text


def span(
    low: float,
    high: float,
    digits: int = 0,
    *,
    percent: bool = False,
    sep: str = "–",
) -> str:
    """A range ``low–high``, or one number when both ends read the same after rounding.

    Parameters
    ----------
    low, high : float
        The range's ends, ``low <= high``.
    digits : int, default 0
        Decimals of each end, from 0 to :data:`MAX_DIGITS`.
    percent : bool, default False
        Write the ends as percentages of fractions (:func:`percent`).
    sep : str, default "–"
        Between the ends.

    Returns
    -------
    str
        ``"low–high"``, or one number when both ends read the same.

    Raises
    ------
    InvalidInputError
        When an end is not a real number or ``low > high``, ``digits`` is not an integer from 0
        to :data:`MAX_DIGITS` or ``sep`` is not text that shows.

    Examples
    --------
    >>> span(3964, 4034), span(0.5, 0.5, 2), span(1.258, 1.262, percent=True)
    ('3,964–4,034', '0.50', '126%')
    """
    percent = as_flag(percent, "percent")
    lo, hi = _real(low, "low"), _real(high, "high")
    digits = _digits(digits)
    as_text(sep, "sep", what="the separator is shown between the two ends")
    if lo > hi:
        raise InvalidInputError(
            f"low = {low!r} > high = {high!r}: a range runs from its smaller end"
        )
    fmt = (lambda x: globals()["percent"](x, digits)) if percent else (lambda x: number(x, digits))
    a, b = fmt(lo), fmt(hi)
    return a if a == b else f"{a}{sep}{b}"


def found(text: str, *, lead: str = "What we found.") -> str:
    """A "What we found" paragraph as Markdown: ``**What we found.** text`` (``lead=""`` for none).

    Parameters
    ----------
    text : str
        The finding, a non-empty sentence.
    lead : str, default "What we found."
        The bold lead-in; ``""`` for none.

    Returns
    -------
    str
        The Markdown paragraph.

    Raises
    ------
    InvalidInputError
        When ``text`` is not a sentence that shows, or ``lead`` is not text that shows (or
        ``""``).

    Examples
    --------
    >>> found("Every run converged.")
    '**What we found.** Every run converged.'
    """
    as_text(text, "text", what="a finding is a sentence a reader sees", lines=True)
    as_text(lead, "lead", what="the bold lead-in shows, or is empty for none", optional=True)
    return f"**{lead}** {text.strip()}" if lead else text.strip()


def show_found(text: str, **kw: str) -> None:
    """Display :func:`found` as rendered Markdown in a notebook (the cell's code is hidden in the
    book).

    Parameters
    ----------
    text : str
        The finding, a non-empty sentence.
    **kw
        ``lead=``, as :func:`found` takes it.
    """
    from IPython.display import Markdown, display

    display(Markdown(found(text, **kw)))


_STATUS_WORD = {
    "held": "Held",
    "not reproduced": "Not reproduced",
    "inconclusive": "Inconclusive",
    "not tested": "Not tested",
}


def _value_text(value: object) -> str:
    from .ledger import display_value

    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return (
            number(value, 4).rstrip("0").rstrip(".")
            if abs(value) >= 1e-4 or value == 0
            else f"{value:.3g}"
        )
    return display_value(value)


def _plain_statement(statement: str) -> str:
    """A ledger statement as a Findings bullet says it: without its ``[setup: ...]`` block (the
    run's set-up, which the ledger below keeps), brackets inside it such as ``[INF]`` included.

    Parameters
    ----------
    statement : str
        A claim's statement as the ledger records it.

    Returns
    -------
    str
        The statement without its ``[setup: ...]`` block, spaces tidied.

    Examples
    --------
    >>> _plain_statement(
    ...     "PS-DSF leads [setup: open loop, demands capped [INF], 2% of the jobs] on CPU"
    ... )
    'PS-DSF leads on CPU'
    """
    out, i = [], 0
    while True:
        start = statement.find("[setup:", i)
        if start < 0:
            out.append(statement[i:])
            break
        out.append(statement[i:start])
        depth, j = 0, start
        while j < len(statement):
            depth += {"[": 1, "]": -1}.get(statement[j], 0)
            j += 1
            if depth == 0:
                break
        i = j
    return re.sub(r"\s+([,.;:)])", r"\1", re.sub(r"\s{2,}", " ", "".join(out))).strip()


#: the longest Findings bullet, in words: a headline a reader takes in at a glance (the rule and
#: history are the ledger's)
HEADLINE_WORDS = 35


def _headline_text(template: str, claim: Mapping[str, Any]) -> str:
    """A claim's declared ``headline`` filled with its ledger values: ``{ours}``, ``{paper}``, and
    for a list of values ``{ours_min}``, ``{ours_max}`` and ``{n}`` (format specs allowed:
    ``{ours:.2f}``).

    Parameters
    ----------
    template : str
        The declared headline, a :meth:`str.format` template.
    claim : dict
        The claim's ledger row (``ours``, ``paper``).

    Returns
    -------
    str
        The filled headline.

    Raises
    ------
    InvalidInputError
        When the template names a field the ledger does not give or its format does not fit the
        value, naming the claim and the template.

    Examples
    --------
    >>> _headline_text(
    ...     "PDRF is {ours:.0f}x faster than DRF; the paper says considerably", {"ours": 31.4}
    ... )
    'PDRF is 31x faster than DRF; the paper says considerably'
    >>> _headline_text(
    ...     "median efficiency {ours_min:.2f} to {ours_max:.2f} over {n} user counts",
    ...     {"ours": [0.88, 0.91]},
    ... )
    'median efficiency 0.88 to 0.91 over 2 user counts'
    """
    ours = claim.get("ours")
    values = {"ours": ours, "paper": claim.get("paper")}
    if (
        isinstance(ours, list)
        and ours
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in ours)
    ):
        values.update(ours_min=min(ours), ours_max=max(ours), n=len(ours))
    try:
        return template.format(**values)
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise InvalidInputError(
            f"headline = {template!r} of claim {claim.get('claim_id')!r}: cannot be filled "
            f"with the ledger's values {values} ({exc})"
        ) from None


def _short_source(source: str) -> str:
    """A claim's source as a Findings bullet cites it: the reference without its parenthesised gloss
    (the ledger keeps the whole source).

    Parameters
    ----------
    source : str
        The claim's ``source`` (``"§6.1, Fig. 7 (mean of CPU and RAM utilisation)"``).

    Returns
    -------
    str
        The part before the first ``" ("``; the whole source when that part is empty.

    Examples
    --------
    >>> _short_source("§6.1, Fig. 7 (mean of CPU and RAM utilisation)"), _short_source("Thm 2")
    ('§6.1, Fig. 7', 'Thm 2')
    """
    head = source.split(" (", 1)[0].strip()
    return head or source


def findings_markdown(
    claims: list[dict], chosen: list[str], headlines: Mapping[str, str] | None = None
) -> str:
    """The **Findings** list of a notebook: one Markdown bullet per claim of ``chosen`` (3 to 5
    claim ids of the ledger ``claims``, as written to ``claims.json``; all of them where it has
    fewer than 3; empty: the ledger's first five, its paper claims first, until the notebook names
    its main ones), in that order, each saying whether the claim held and what we measured, then the
    ledger's counts.

    ``headlines``: claim id → the claim's declared headline (its registry's ``headline``, filled
    with the claim's ledger values), the bullet's words; a claim without one says its statement and
    the value we measured. A bullet is at most :data:`HEADLINE_WORDS` words, its status and short
    source (the reference without its parenthesised gloss) included.

    Parameters
    ----------
    claims : list of dict
        The ledger's claims, as ``claims.json`` holds them.
    chosen : list of str
        The claim ids to show, in order, each once (see above).
    headlines : dict of str to str, optional
        Claim id → declared headline (see above).

    Returns
    -------
    str
        Markdown: the bullets, then a line of the ledger's counts by status.

    Raises
    ------
    InvalidInputError
        When ``claims`` is not a list of dicts, ``chosen`` is not a list of distinct claim ids
        of the ledger or has the wrong length, ``headlines`` is not a mapping, or a bullet is
        longer than :data:`HEADLINE_WORDS` words.

    Examples
    --------
    >>> ledger = [
    ...     {
    ...         "claim_id": "a",
    ...         "statement": "the worst efficiency is 3/4",
    ...         "status": "held",
    ...         "ours": 0.7502,
    ...         "kind": "paper",
    ...         "source": "§3",
    ...     }
    ... ]
    >>> print(findings_markdown(ledger, ["a"]).splitlines()[0])
    - **Held** (§3): the worst efficiency is 3/4 — we measure 0.7502.
    >>> print(
    ...     findings_markdown(
    ...         ledger, ["a"], {"a": "worst efficiency {ours:.3f}; the paper: 3/4"}
    ...     ).splitlines()[0]
    ... )
    - **Held** (§3): worst efficiency 0.750; the paper: 3/4.
    """
    for i, claim in enumerate(as_instance(claims, list, "claims")):
        if not isinstance(claim, dict):
            raise InvalidInputError(f"claims[{i}] = {claim!r}: must be a dict (a ledger row)")
    chosen = list(as_labels(chosen, "chosen"))
    headlines = {} if headlines is None else as_instance(headlines, Mapping, "headlines")
    if (
        len(chosen) == 0
    ):  # not chosen yet (a new paper's notebook): the ledger's first claims, the paper's first
        chosen = (
            [c["claim_id"] for c in claims if c.get("kind") == "paper"]
            + [c["claim_id"] for c in claims if c.get("kind") != "paper"]
        )[:5]
    least = min(3, len(claims))
    if not least <= len(chosen) <= 5:
        raise InvalidInputError(
            f"chosen = {chosen!r}: a Findings list has {least} to 5 bullets (3 to 5 where the "
            f"ledger has 3 claims or more), got {len(chosen)}"
        )
    by_id = {c["claim_id"]: c for c in claims}
    lines = []
    for i, claim_id in enumerate(chosen):
        c = by_id.get(claim_id)
        if c is None:
            raise InvalidInputError(
                f"chosen[{i}] = {claim_id!r}: not a claim of the ledger; known: {sorted(by_id)}"
            )
        word = _STATUS_WORD[c["status"]]
        if headlines.get(claim_id) and not (c["status"] == "not tested" or c.get("ours") is None):
            body = _headline_text(headlines[claim_id], c).rstrip(".") + "."
        elif c["status"] == "not tested" or c.get("ours") is None:
            body = (
                f"{_plain_statement(c['statement']).rstrip('.')} — "
                f"{c.get('note') or 'not measured'}."
            )
        else:
            body = (
                f"{_plain_statement(c['statement']).rstrip('.')} — we measure "
                f"{_value_text(c['ours'])}."
            )
        bullet = f"**{word}** ({_short_source(c['source'])}): {body}"
        words = len(bullet.replace("**", "").split())
        if headlines.get(claim_id) and words > HEADLINE_WORDS:
            raise InvalidInputError(
                f"headline of claim {claim_id!r}: its bullet has {words} words once filled, "
                f"more than {HEADLINE_WORDS}: {bullet!r}"
            )
        lines.append(f"- {bullet}")
    counts = {s: sum(c["status"] == s for c in claims) for s in _STATUS_WORD}
    lines.append(
        f"\nAll {len(claims)} claims of the ledger: {counts['held']} held, "
        f"{counts['not reproduced']} not reproduced, "
        + (f"{counts['inconclusive']} inconclusive, " if counts["inconclusive"] else "")
        + f"{counts['not tested']} not tested (see Claims below)."
    )
    return "\n".join(lines)


def registry_headlines(key: str) -> dict[str, str]:
    """Claim id → declared ``headline`` of notebook ``key``'s claims registry
    (``notebooks/claims/<key>.toml``).

    Parameters
    ----------
    key : str
        The notebook's key.

    Returns
    -------
    dict of str to str
        The claims that declare a headline; empty when the notebook has no registry.

    Raises
    ------
    InvalidInputError
        When ``key`` is not a notebook key (:func:`fairlib.paths.check_key`).
    """
    from ..paths import check_key
    from .ledger import load_registry, registry_path

    path = registry_path(check_key(key))
    if not path.is_file():
        return {}
    return {cid: d.headline for cid, d in load_registry(path, key).items() if d.headline}


def running_note(key: str, mode: str, *, traces: bool = False, seconds: float | None = None) -> str:
    """What running notebook ``key`` yourself costs, for the top of the notebook. A notebook opens
    in quick mode (seconds, reduced sizes, provisional statuses); full mode takes the wall time of
    its last full run (``seconds``, else the papermill metadata of ``executed/<key>.ipynb``). For a
    notebook that reads traces: where the data comes from. The executed copy a full run publishes
    says it ran in full mode, and how long it took (:func:`fairlib.repro.executed.publish_executed`
    renders the note again with that run's own time).

    Parameters
    ----------
    key : str
        The notebook's key.
    mode : {"quick", "full"}
        The mode this copy runs in.
    traces : bool, default False
        Add where the notebook's trace data comes from.
    seconds : float, optional
        The full run's wall time in seconds, from 0 to 2**53 (default: read from
        ``executed/<key>.ipynb``).

    Returns
    -------
    str
        The Markdown note.

    Raises
    ------
    InvalidInputError
        When ``key`` is not a notebook key (:func:`fairlib.paths.check_key`), ``mode`` is neither
        ``"quick"`` nor ``"full"``, ``traces`` is not a bool or ``seconds`` is not a number of
        seconds.

    Examples
    --------
    >>> running_note("feldman2005", "full", seconds=300)[:78]
    "**This copy ran in full mode** (the paper's sizes) in about 5 min on 2 cores. "
    """
    traces = as_flag(traces, "traces")
    from .._validate import MAX_SECONDS, as_number, check_choice
    from ..paths import check_key

    # a key in the form of one, not necessarily catalogued yet: the template and a paper being
    # scaffolded run their notebook before (or without) an entry in the catalogue
    check_key(key)
    check_choice(mode, ("quick", "full"), "mode")
    if seconds is not None:
        seconds = as_number(seconds, "seconds", minimum=0.0, inclusive=True, maximum=MAX_SECONDS)
    if seconds is None:
        from .landing import notebook_durations

        seconds = notebook_durations().get(key, (None, ""))[0]
    minutes = f"about {max(1, round(seconds / 60))} min on 2 cores" if seconds else None
    if mode == "full":
        text = (
            "**This copy ran in full mode** (the paper's "
            f"sizes){' in ' + minutes if minutes else ''}. Opened on "
            "Binder or on your machine, the notebook runs in quick mode (seconds; reduced "
            "sizes, provisional "
            f'statuses) unless you set `MODE = "full"` in its parameters cell or run '
            f"`python run_all.py --only {key}`."
        )
    else:
        text = (
            "**This run: quick mode** — reduced sizes and repetitions, statuses provisional. Set "
            '`MODE = "full"` in the parameters cell (or run `python run_all.py --only '
            f"{key}`) for the "
            f"paper's sizes: {minutes + ' (the last full run)' if minutes else 'longer'}."
        )
    if traces:
        text += (
            " The trace excerpts come from `python -m fairlib.traces.fetch --notebooks` "
            "(into `data/traces/`, or `$FAIRLIB_TRACE_DIR`); without them the notebook runs "
            "on labelled synthetic stand-ins."
        )
    return text


def show_running_note(key: str, mode: str, *, traces: bool = False) -> None:
    """Display :func:`running_note` as Markdown (the cell's code is hidden in the book).

    Parameters
    ----------
    key : str
        The notebook's key.
    mode : {"quick", "full"}
        The mode this copy runs in.
    traces : bool, default False
        Add where the notebook's trace data comes from.

    Raises
    ------
    InvalidInputError
        As :func:`running_note`.
    """
    from IPython.display import Markdown, display

    display(Markdown(running_note(key, mode, traces=traces)))


def _ledger(key: str, mode: str) -> list[dict] | None:
    from .. import paths

    f = Path(paths.results_dir(key, mode)) / "claims.json"
    if not f.is_file():
        return None
    return json.loads(f.read_text(encoding="utf-8"))["claims"]


def show_findings(key: str, mode: str, chosen: list[str]) -> None:
    """Display the **Findings** of notebook ``key`` from the last ledger of ``mode`` (a full run's
    is committed); ``run_all.py`` renders it again from the ledger of the run that just finished
    when it publishes the notebook (:func:`fairlib.repro.executed.publish_executed`), so the
    executed notebook's Findings are that run's.

    Parameters
    ----------
    key : str
        The notebook's key.
    mode : {"quick", "full"}
        Whose ledger to read (``paths.results_dir(key, mode)/claims.json``).
    chosen : list of str
        The claim ids to show (:func:`findings_markdown`).

    Raises
    ------
    InvalidInputError
        When ``key`` is not a notebook key, ``mode`` is neither ``"quick"`` nor ``"full"``, or
        ``chosen`` is not a list of distinct claim ids of the ledger (3 to 5, or none).
    """
    from IPython.display import Markdown, display

    from ..paths import check_key

    check_key(key)  # the mode is checked by paths.results_dir, with the same name
    chosen = list(as_labels(chosen, "chosen"))
    claims = _ledger(key, mode)
    if claims is None:
        display(
            Markdown(
                f"*No {mode}-mode ledger of `{key}` yet: the Findings appear after the first run.*"
            )
        )
        return
    headlines = registry_headlines(key)
    measured = {c["claim_id"] for c in claims}
    newer = [c for c in chosen if c not in measured and c in headlines]
    if newer:  # declared (or renamed) since that ledger was written: a typo is still refused below
        display(
            Markdown(
                f"*The last {mode}-mode ledger of `{key}` predates "
                f"{', '.join(f'`{c}`' for c in newer)}: the "
                "Findings appear after the next run.*"
            )
        )
        return
    display(Markdown(findings_markdown(claims, chosen, headlines)))
