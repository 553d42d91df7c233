"""Latency of the grading service under 50 concurrent submissions (the SQL baseline's, on
S8f), against the real server started on the loopback. Writes
experiments/service-bench.json and prints the table.

    .venv/bin/python experiments/service_bench.py [--concurrent 50] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
S8F = REPO.parent / "shared" / "s8f"
CLI = Path(sys.executable).parent / "s8f-duck"
PUBLIC = S8F / "s8f-github-issues-public-2026-08-09.json"
ANSWERS = S8F / "s8f-github-issues-answers-2026-08-09.json"


async def burst(url: str, token: str, body: bytes, concurrent: int) -> list[float]:
    async def one(client: httpx.AsyncClient) -> float:
        started = time.perf_counter()
        answer = await client.post("/submissions", content=body)
        assert answer.status_code == 201, answer.text
        return time.perf_counter() - started

    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    limits = httpx.Limits(max_connections=concurrent)
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=600, limits=limits) as client:
        return list(await asyncio.gather(*(one(client) for _ in range(concurrent))))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--concurrent", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        work_dir = Path(work)
        submission = work_dir / "submission.json"
        subprocess.run([CLI, "baseline", "--public", PUBLIC, "--output", submission], check=True, capture_output=True)
        token = subprocess.run([CLI, "team", "--teams", work_dir / "teams.json", "bench"], check=True,
                               capture_output=True, text=True).stdout.strip()  # fmt: skip
        server = subprocess.Popen(
            [CLI, "serve", "--answers", ANSWERS, "--public", PUBLIC, "--db", work_dir / "service.duckdb",
             "--teams", work_dir / "teams.json", "--port", "0", "--daily-limit", str(args.concurrent * args.rounds)],
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            url = server.stderr.readline().split()[2].rstrip("/")
            body = submission.read_bytes()
            rounds = []
            for _ in range(args.rounds):
                started = time.perf_counter()
                latencies = asyncio.run(burst(url, token, body, args.concurrent))
                rounds.append((time.perf_counter() - started, sorted(latencies)))
        finally:
            server.terminate()
            server.wait()
    every = sorted(x for _, latencies in rounds for x in latencies)
    result = {
        "command": f"python experiments/service_bench.py --concurrent {args.concurrent} --rounds {args.rounds}",
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
        "submissions": len(every),
        "concurrent": args.concurrent,
        "p50_seconds": round(statistics.median(every), 3),
        "p95_seconds": round(every[int(0.95 * (len(every) - 1))], 3),
        "max_seconds": round(every[-1], 3),
        "burst_seconds": [round(total, 3) for total, _ in rounds],
        "throughput_per_second": round(len(every) / sum(total for total, _ in rounds), 1),
    }
    (REPO / "experiments" / "service-bench.json").write_text(json.dumps(result, indent=2) + "\n")
    for key, value in result.items():
        print(f"{key:>22}: {value}")


if __name__ == "__main__":
    main()
