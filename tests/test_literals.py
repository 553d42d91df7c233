"""The scrub's first scan keeps every text some redaction rule matches (docs/format.md §2): the
literal each rule requires is in every match, in some case."""

from __future__ import annotations

import random

import pytest

from s8f_duck.pipeline import steps
from s8f_duck.pipeline.literals import required_literal


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        ("samsung", "samsung"),
        ("node-agent-netra", "node-agent-netra"),
        (r"\b(?:lab[-_ ])?dgx[0-9]+\b", "dgx"),
        ("ghp_[A-Za-z0-9]{36}", "ghp_"),
        (r"abc\.def", "abc.def"),
        ("[]abc]defg", "defg"),  # a leading ] belongs to the class
        ("[^]x]yz{1}w", "yzw"),
        ("abcd+e", "abcd"),  # d repeats: the run ends after it
        ("ab(?:cd)?efg", "efg"),
        ("abc?de", None),  # c is optional: ab and de are too short
        ("abc{0}de", None),
        ("abc*?xyz", "xyz"),
        ("a|bcdef", None),  # an alternation at the top
        ("(?i)abcdef", "abcdef"),
        ("abc$", "abc"),
        ("ab", None),  # too short to be worth a scan
        ("[[:alpha:]]abcd", None),  # not read: no literal
        (r"\Qabcd\E", None),
        (r"\x41bcd", None),
        ("é+abcd", None),
        ("abc{", None),
        ("ab[c", None),
        ("(abcd", None),
    ],
)
def test_required_literal(pattern: str, literal: str | None) -> None:
    assert required_literal(pattern) == literal


PATTERNS = [
    "samsung", "node-agent-netra", r"\b(?:lab[-_ ])?dgx[0-9]+\b", "sk-[a-z]{2}", "kas+k", r"s\.k+ss",
    "ab(?:cd)?efk", "[]k]ssk", "x{2}yks", r"(?:a|b)kks\b", "ksk*sks",
]  # fmt: skip
ALPHABET = list("sSkKaAbBdDgGxXeEfFyY0123.-_ ]") + ["\u017f", "\u212a", "\u0130", "\u0131"]


def test_first_scan_and_passes_keep_every_text_a_rule_matches() -> None:
    con = steps.connect()
    steps.run_steps(con, ["macros"])
    rng = random.Random(8)
    texts = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 14))) for _ in range(20000)]
    texts += ["ſamſung", "SAMſUNG", "node-agent-netra", "dgx1", "Lab DGX3", "ſK-ab", "kaſſK", "ſ.KKſſ", "abcdefK",
              "ABEFK", "]ſſK", "xxYKſ", "aKKS", "ksKſKs"]  # fmt: skip
    con.execute("CREATE TABLE texts AS SELECT unnest(?) AS t", [texts])
    for pattern in PATTERNS:
        literal = required_literal(pattern)
        assert literal is not None, pattern
        con.execute("SET VARIABLE scrub_literals = [scrub_class_pattern(?)]", [literal])
        con.execute("SET VARIABLE scrub_folds = ?", [any(c in "sSkK" for c in literal)])
        missed = con.execute(
            "SELECT list(t) FROM texts WHERE regexp_matches(t, ?) AND NOT scrub_candidate(t)", ["(?i)" + pattern]
        ).fetchall()[0][0]
        assert not missed, (pattern, missed[:5])
        missed = con.execute(
            "SELECT list(t) FROM texts WHERE regexp_matches(t, ?) AND NOT scrub_may_match(t, ?)",
            ["(?i)" + pattern, literal],
        ).fetchall()[0][0]
        assert not missed, ("scrub_may_match", pattern, missed[:5])  # the passes' per-rule check
        kept = con.execute("SELECT count(*) FROM texts WHERE regexp_matches(t, ?)", ["(?i)" + pattern]).fetchall()
        assert kept[0][0] > 0, pattern  # the texts do exercise the rule
