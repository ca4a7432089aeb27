"""docs/claims-coverage.md and the claims registries agree: every declared claim is mapped to a
statement of its paper, and every claim the coverage names is declared.

A coverage row names claims by id in backticks in its third (last) column; a whole family of table
cells may be named by a pattern with ``<placeholders>`` (``table1_<row>_<column>``). Notebook keys,
file names and rule words in backticks are not claim ids: only names that look like ids
(:data:`RULE`) and are not notebook keys are checked. The page states the same rule at its top, and
CONTRIBUTING.md in its "Add a paper" table.
"""

import re
import tomllib

from fairlib import paths

COVERAGE = paths.ROOT / "docs" / "claims-coverage.md"
#: how a table's third column is read, as every failure message states it
RULE = (
    "in a table's third column of docs/claims-coverage.md, a name in backticks made of "
    "letters, digits, _ and - that starts with a lower-case letter and holds an underscore "
    "is read as a claim id, and one with a <placeholder> as a family of claim ids "
    "(table1_<row>_<column>); notebook keys are not"
)
_ID = re.compile(r"[a-z][A-Za-z0-9_\-]*_[A-Za-z0-9_\-]+")
REGISTRIES = sorted(p for p in (paths.NOTEBOOKS / "claims").glob("*.toml") if p.stem != "template")


def _declared() -> dict[str, str]:
    out = {}
    for path in REGISTRIES:
        for claim in tomllib.loads(path.read_text(encoding="utf-8")).get("claim", []):
            out[claim["id"]] = path.stem
    return out


def _named() -> tuple[set[str], list[re.Pattern]]:
    ids, patterns = set(), []
    for line in COVERAGE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| ") or line.startswith("|---"):
            continue
        claims_column = line.rstrip(" |").rsplit(" | ", 1)[-1]
        for token in re.findall(r"`([^`]+)`", claims_column):
            if "<" in token:
                parts = re.split(r"<[^>]+>", token)
                patterns.append(re.compile(r"[A-Za-z0-9._\-]+".join(map(re.escape, parts)) + r"\Z"))
            elif _ID.fullmatch(token):
                ids.add(token)
    return ids, patterns


def test_every_declared_claim_is_in_the_coverage():
    ids, patterns = _named()
    missing = [
        f"{key}: {cid}"
        for cid, key in _declared().items()
        if cid not in ids and not any(p.match(cid) for p in patterns)
    ]
    assert not missing, (
        f"claims declared but not mapped in docs/claims-coverage.md: {missing}. Name each in the "
        f"third column of its paper's table, in backticks ({RULE})."
    )


def test_every_claim_the_coverage_names_is_declared():
    declared = _declared()
    ids, patterns = _named()
    keys = {p.stem for p in REGISTRIES}
    unknown = sorted(i for i in ids - keys if i not in declared)
    assert not unknown, (
        f"docs/claims-coverage.md names claims no registry declares: {unknown}. Each "
        f"{RULE}: declare it in notebooks/claims/<key>.toml, or, if it is not a claim (a function, "
        "a parameter), write it without backticks."
    )
    for p in patterns:
        assert any(p.match(cid) for cid in declared), (
            f"the pattern {p.pattern} matches no declared claim ({RULE})"
        )


def test_the_rule_is_written_where_a_contributor_reads():
    """The rule the tests above apply is stated at the top of the coverage page and in
    CONTRIBUTING.md."""
    for page in (COVERAGE, paths.ROOT / "CONTRIBUTING.md"):
        text = " ".join(page.read_text(encoding="utf-8").split())
        for words in (
            "starts with a lower-case letter and holds an underscore",
            "is read as a claim id",
            "without backticks",
        ):
            assert words in text, f"{page.name} does not state the rule ({words!r})"
    assert (
        _ID.fullmatch("worked_example_tasks")
        and not _ID.fullmatch("li2019")
        and not _ID.fullmatch("drf")
    )


def test_no_paper_claim_is_held_on_a_wall_clock_ratio_near_one():
    """A wall-clock comparison of two forms within 10% of each other is machine noise: reported,
    never "held" as a paper claim (the committed full-mode ledgers, from which claims.csv is
    aggregated)."""
    import json

    near_one = []
    for ledger in sorted(paths.RESULTS.glob("*/claims.json")):
        for c in json.loads(ledger.read_text(encoding="utf-8"))["claims"]:
            values = c["ours"] if isinstance(c["ours"], list) else [c["ours"]]
            numbers = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
            if (
                c["kind"] == "paper"
                and c["status"] == "held"
                and c.get("wall_clock")
                and any(abs(v - 1) <= 0.1 for v in numbers)
            ):
                near_one.append(f"{ledger.parent.name}: {c['claim_id']} = {c['ours']}")
    assert not near_one, near_one
