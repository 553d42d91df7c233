"""`s8f-duck submit`: a submission sent to a grading service, as any client would send it."""

from __future__ import annotations

from pathlib import Path

import httpx

from s8f_duck.safety.errors import UnusableInput


def send(submission: Path, url: str, token_file: Path, split: str) -> httpx.Response:
    """POST the submission's bytes to URL/submissions with the team's bearer token; a file
    that cannot be read or a service that cannot be reached is unusable input."""
    try:
        token = token_file.read_text(encoding="utf-8").strip()
        body = submission.read_bytes()
    except OSError as exc:
        raise UnusableInput(f"{exc.filename}: cannot read: {exc.strerror}") from None
    try:
        return httpx.post(
            url.rstrip("/") + "/submissions", params={"split": split}, content=body, timeout=600,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )  # fmt: skip
    except httpx.HTTPError as exc:
        raise UnusableInput(f"{url}: cannot reach the service: {exc}") from None
