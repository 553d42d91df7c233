"""The service's submissions graded together: those waiting when a grade can start are
graded by one pass of the grader's SQL (grading.Grader.grade_many), each as it would be
graded alone.

A submission joins the queue of its split, then waits for one of the grading slots (as
many as there are cores: DuckDB uses every core for each grade). Whoever gets a slot
takes everything waiting for that split, up to most_bytes of submissions in all (so a
batch needs no more memory than the largest submission the service accepts), and grades
it on a worker thread; a submission already taken by another batch just waits for its
result (Grader.grade_many grades a batch that fails as a whole one submission at a time).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

import anyio

from s8f_duck.grading.grade import Graded, Grader


@dataclass
class _Waiting:
    path: Path
    size: int
    result: asyncio.Future[Graded] = field(default_factory=lambda: asyncio.get_running_loop().create_future())
    batch: int = 0  # how many were graded together with it (itself included)


class GradeBatches:
    """Submissions waiting for a grade, by split; graded together (see the module)."""

    def __init__(self, grader: Grader, slots: anyio.CapacityLimiter, most_bytes: int) -> None:
        self.grader, self.slots, self.most_bytes = grader, slots, most_bytes
        self.waiting: dict[str, list[_Waiting]] = {}

    async def grade(self, path: Path, split: str, size: int) -> tuple[Graded, int]:
        """The grade of the submission file (of size bytes) over split, or why it is unusable,
        and how many submissions were graded together with it (itself included)."""
        waiting = _Waiting(path, size)
        self.waiting.setdefault(split, []).append(waiting)  # (on the event loop: no lock needed)
        async with self.slots:
            batch = self._take(split)
            if batch:
                for one in batch:
                    one.batch = len(batch)
                try:
                    graded = await anyio.to_thread.run_sync(self.grader.grade_many, [one.path for one in batch], split)
                except BaseException as exc:  # each one waiting on this batch hears of it
                    for one in batch:
                        if not one.result.done():
                            one.result.set_exception(exc)
                else:
                    for one, result in zip(batch, graded):
                        one.result.set_result(result)
        return await waiting.result, waiting.batch

    def _take(self, split: str) -> list[_Waiting]:
        """The submissions waiting for split, oldest first, up to most_bytes (at least one)."""
        queue = self.waiting.get(split, [])
        taken, size = 0, 0
        while taken < len(queue) and (taken == 0 or size + queue[taken].size <= self.most_bytes):
            size += queue[taken].size
            taken += 1
        batch, self.waiting[split] = queue[:taken], queue[taken:]
        return batch
