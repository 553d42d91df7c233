"""Go's sort.Slice, emulated for the first places only (the top-ten aggregates).

The reference copies the records in number order and sorts the copy with
`sort.Slice(x, func(i, j int) bool { return x[i].T.After(x[j].T) })`: pdqsort since Go
1.19, which is not stable, so records with the same instant end where its swaps leave
them. This is a line-by-line transcription of Go's sort/zsortfunc.go (pdqsort_func,
insertionSort_func, heapSort_func, partition_func, partitionEqual_func,
partialInsertionSort_func, breakPatterns_func, choosePivot_func, median_func,
reverseRange_func) and of xorshift in sort/sort.go, over a list of sort keys, with one
change that leaves the first places as Go leaves them: a range that starts at or after
the last wanted place is not sorted (sorting it only moves elements among later places).
That makes it a quickselect: about two passes over the list.

breakPatterns draws from xorshift with the constants of Go 1.24 and later (13, 7, 17;
Go 1.19-1.23 used 13, 17, 5). It runs only after a badly unbalanced partition.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

XORSHIFT = (13, 7, 17)
_MASK = (1 << 64) - 1
_UNKNOWN, _INCREASING, _DECREASING = range(3)


def settle_ties(con: duckdb.DuckDBPyConnection, table: str, instant: str, places: int = 10) -> None:
    """Replace the top-ten `table` (rank, id) that sql/facts/{table}.sql made, ordered by
    the `{instant}_epoch_s`, `{instant}_nanos` of scrubbed_issues, with Go's order, when
    ties reach its first places (the file's variable `{table}_tied`)."""
    if not con.execute(f"SELECT getvariable('{table}_tied')").fetchall()[0][0]:
        return
    numbers, keys = con.execute(
        f"SELECT list(number ORDER BY number), list(key ORDER BY number) FROM (SELECT number, "
        f"dense_rank() OVER (ORDER BY {instant}_epoch_s, {instant}_nanos) AS key FROM scrubbed_issues)"
    ).fetchall()[0]
    order = [numbers[at] for at in first_places(keys, places)]
    con.execute(f"CREATE OR REPLACE TABLE {table} (rank BIGINT, id VARCHAR)")
    con.execute(f"INSERT INTO {table} SELECT ordinality, issue_id(n) FROM unnest(?) WITH ORDINALITY AS t(n)", [order])


def first_places(keys: Sequence[int], count: int) -> list[int]:
    """The positions in `keys` of the records that Go's sort.Slice, with less(i, j) =
    keys[i] > keys[j] (newest first), puts in its first `count` places, in that order."""
    return _Sort(keys, count).run()


class _Sort:
    def __init__(self, keys: Sequence[int], want: int) -> None:
        self.v = list(keys)  # the sort keys, moved as Go moves the elements
        self.at = list(range(len(keys)))  # which record each place holds
        self.want = want

    def run(self) -> list[int]:
        n = len(self.v)
        self.pdqsort(0, n, n.bit_length())
        return self.at[: self.want]

    def less(self, i: int, j: int) -> bool:
        return self.v[i] > self.v[j]

    def swap(self, i: int, j: int) -> None:
        v, at = self.v, self.at
        v[i], v[j] = v[j], v[i]
        at[i], at[j] = at[j], at[i]

    def insertion_sort(self, a: int, b: int) -> None:
        for i in range(a + 1, b):
            j = i
            while j > a and self.less(j, j - 1):
                self.swap(j, j - 1)
                j -= 1

    def sift_down(self, lo: int, hi: int, first: int) -> None:
        root = lo
        while True:
            child = 2 * root + 1
            if child >= hi:
                return
            if child + 1 < hi and self.less(first + child, first + child + 1):
                child += 1
            if not self.less(first + root, first + child):
                return
            self.swap(first + root, first + child)
            root = child

    def heap_sort(self, a: int, b: int) -> None:
        first, lo, hi = a, 0, b - a
        for i in range((hi - 1) // 2, -1, -1):
            self.sift_down(i, hi, first)
        for i in range(hi - 1, -1, -1):
            self.swap(first, first + i)
            self.sift_down(lo, i, first)

    def pdqsort(self, a: int, b: int, limit: int) -> None:
        was_balanced, was_partitioned = True, True
        while True:
            if a >= self.want:  # the one change: nothing here reaches the wanted places
                return
            length = b - a
            if length <= 12:
                self.insertion_sort(a, b)
                return
            if limit == 0:
                self.heap_sort(a, b)
                return
            if not was_balanced:
                self.break_patterns(a, b)
                limit -= 1
            pivot, hint = self.choose_pivot(a, b)
            if hint == _DECREASING:
                self.reverse_range(a, b)
                pivot = (b - 1) - (pivot - a)
                hint = _INCREASING
            if was_balanced and was_partitioned and hint == _INCREASING:
                if self.partial_insertion_sort(a, b):
                    return
            if a > 0 and not self.less(a - 1, pivot):
                a = self.partition_equal(a, b, pivot)
                continue
            mid, was_partitioned = self.partition(a, b, pivot)
            left, right = mid - a, b - mid
            threshold = length // 8
            if left < right:
                was_balanced = left >= threshold
                self.pdqsort(a, mid, limit)
                a = mid + 1
            else:
                was_balanced = right >= threshold
                self.pdqsort(mid + 1, b, limit)
                b = mid

    def partition(self, a: int, b: int, pivot: int) -> tuple[int, bool]:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while i <= j and self.less(i, a):
            i += 1
        while i <= j and not self.less(j, a):
            j -= 1
        if i > j:
            self.swap(j, a)
            return j, True
        self.swap(i, j)
        i, j = i + 1, j - 1
        while True:
            while i <= j and self.less(i, a):
                i += 1
            while i <= j and not self.less(j, a):
                j -= 1
            if i > j:
                break
            self.swap(i, j)
            i, j = i + 1, j - 1
        self.swap(j, a)
        return j, False

    def partition_equal(self, a: int, b: int, pivot: int) -> int:
        self.swap(a, pivot)
        i, j = a + 1, b - 1
        while True:
            while i <= j and not self.less(a, i):
                i += 1
            while i <= j and self.less(a, j):
                j -= 1
            if i > j:
                return i
            self.swap(i, j)
            i, j = i + 1, j - 1

    def partial_insertion_sort(self, a: int, b: int) -> bool:
        max_steps, shortest_shifting = 5, 50
        i = a + 1
        for _ in range(max_steps):
            while i < b and not self.less(i, i - 1):
                i += 1
            if i == b:
                return True
            if b - a < shortest_shifting:
                return False
            self.swap(i, i - 1)
            if i - a >= 2:  # shift the smaller one to the left (Go's loop runs down to 1, not a + 1)
                for j in range(i - 1, 0, -1):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
            if b - i >= 2:  # shift the greater one to the right
                for j in range(i + 1, b):
                    if not self.less(j, j - 1):
                        break
                    self.swap(j, j - 1)
        return False

    def break_patterns(self, a: int, b: int) -> None:
        length = b - a
        if length >= 8:
            random = length
            modulus = 1 << length.bit_length()
            left, right, shift_left = XORSHIFT
            for idx in range(a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 2):
                random ^= (random << left) & _MASK
                random ^= random >> right
                random ^= (random << shift_left) & _MASK
                other = random & (modulus - 1)
                if other >= length:
                    other -= length
                self.swap(idx, a + other)

    def choose_pivot(self, a: int, b: int) -> tuple[int, int]:
        shortest_ninther, max_swaps = 50, 4 * 3
        length = b - a
        swaps = [0]
        i, j, k = a + length // 4 * 1, a + length // 4 * 2, a + length // 4 * 3
        if length >= 8:
            if length >= shortest_ninther:
                i = self.median(i - 1, i, i + 1, swaps)
                j = self.median(j - 1, j, j + 1, swaps)
                k = self.median(k - 1, k, k + 1, swaps)
            j = self.median(i, j, k, swaps)
        if swaps[0] == 0:
            return j, _INCREASING
        if swaps[0] == max_swaps:
            return j, _DECREASING
        return j, _UNKNOWN

    def order2(self, a: int, b: int, swaps: list[int]) -> tuple[int, int]:
        if self.less(b, a):
            swaps[0] += 1
            return b, a
        return a, b

    def median(self, a: int, b: int, c: int, swaps: list[int]) -> int:
        a, b = self.order2(a, b, swaps)
        b, c = self.order2(b, c, swaps)
        a, b = self.order2(a, b, swaps)
        return b

    def reverse_range(self, a: int, b: int) -> None:
        i, j = a, b - 1
        while i < j:
            self.swap(i, j)
            i, j = i + 1, j - 1
