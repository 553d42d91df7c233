"""s8f_duck.gosort: Go's sort.Slice (pdqsort) emulated for the first places."""

from __future__ import annotations

import random

import pytest

from s8f_duck.pipeline import gosort
from s8f_duck.pipeline.gosort import first_places


def go_order(keys: list[int]) -> list[int]:
    return first_places(keys, len(keys))


def slice_of_notes(length: int) -> list[int]:
    """The slice of a published Go demonstration of sort.Slice's instability (SECCON 2023,
    Go 1.21): one note `x`, then length - 1 notes `test` with ids 0, 1, ...; sorted by
    content ascending. Here less(i, j) is keys[i] > keys[j], so `test` gets the larger key."""
    return [0] + [1] * (length - 1)


@pytest.mark.parametrize(
    "length, ids",
    [
        (11, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1]),  # insertion sort: stable
        (12, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, -1]),
        (13, [5, 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, -1]),  # pdqsort: one partition, then insertion sort
        (14, [5, 7, 1, 2, 3, 4, 0, 12, 9, 8, 6, 10, 11, -1]),  # and breakPatterns
    ],
)
def test_go_1_21_output(monkeypatch: pytest.MonkeyPatch, length: int, ids: list[int]) -> None:
    """Go's own output for these slices (printed by go1.21, whose xorshift breakPatterns
    draws from used the constants 13, 17, 5)."""
    monkeypatch.setattr(gosort, "XORSHIFT", (13, 17, 5))
    assert [at - 1 for at in go_order(slice_of_notes(length))] == ids


def test_the_tie_of_thirteen_does_not_depend_on_the_go_version() -> None:
    assert [at - 1 for at in go_order(slice_of_notes(13))] == [5, 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, -1]


def test_breakpatterns_draws_as_go_1_24_does() -> None:
    """Go 1.24 and later: xorshift with 13, 7, 17 (go.dev/issue/70144). The draws for a
    13-element range, worked by hand: 13 -> 13 ^ 13<<13 = 0x1A00D, ^ >>7 -> 0x1A34D,
    ^ <<17 keeps the low bits: 0xD = 13, 13 >= 13 so the first swap is with place a + 0."""
    assert gosort.XORSHIFT == (13, 7, 17)
    state = 13
    state ^= state << 13
    assert state == 0x1A00D
    state ^= state >> 7
    assert state == 0x1A34D and (state ^ (state << 17)) & 15 == 13
    order = go_order(slice_of_notes(14))
    assert order[-1] == 0 and sorted(order[:-1]) == list(range(1, 14))  # the older record is last


def test_all_equal_keys_keep_their_order() -> None:
    assert go_order([7] * 1000) == list(range(1000))


def test_distinct_keys_are_sorted_newest_first() -> None:
    keys = random.Random(1).sample(range(10**6), 5000)
    assert go_order(keys) == sorted(range(len(keys)), key=lambda i: -keys[i])


@pytest.mark.parametrize("seed", range(12))
def test_first_places_are_the_full_sort_s(seed: int) -> None:
    """Skipping the ranges past the wanted places leaves those places as the full sort does."""
    rng = random.Random(seed)
    keys = [rng.randrange(rng.choice([3, 20, 500])) for _ in range(rng.choice([40, 300, 3000]))]
    full = first_places(keys, len(keys))
    assert first_places(keys, 10) == full[:10]
    assert [keys[i] for i in full] == sorted(keys, reverse=True)
