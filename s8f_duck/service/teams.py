"""The teams file of `s8f-duck serve` and `s8f-duck team`: each team's name beside the
SHA-256 of its bearer token (the token itself is shown once, when the team is added, and
never stored)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from s8f_duck.reading.load import read_json_file
from s8f_duck.safety.errors import UnusableInput


def load_teams(path: Path) -> dict[str, str]:
    """TEAMS.json: [{"team": NAME, "token_sha256": HEX}, ...] -> {digest: team}."""
    teams = read_json_file(path)
    if not isinstance(teams, list):
        raise UnusableInput(f"{path}: expected a JSON array of {{\"team\": ..., \"token_sha256\": ...}} objects")
    found: dict[str, str] = {}
    for i, entry in enumerate(teams):
        if not (isinstance(entry, dict) and isinstance(entry.get("team"), str) and entry["team"]
                and isinstance(entry.get("token_sha256"), str) and re.fullmatch(r"[0-9a-f]{64}", entry["token_sha256"])):
            raise UnusableInput(f"{path}: [{i}]: expected {{\"team\": NAME, \"token_sha256\": 64 hex digits}}")  # fmt: skip
        if entry["token_sha256"] in found:
            raise UnusableInput(f"{path}: [{i}]: team {entry['team']!r} has the same token as {found[entry['token_sha256']]!r}")
        found[entry["token_sha256"]] = entry["team"]
    if not found:
        raise UnusableInput(f"{path}: no team")
    return found


def add_team(path: Path, team: str) -> str:
    """Add a team with a new random token to TEAMS.json (created when missing, mode 0600);
    return the token, which is stored only as its SHA-256."""
    import secrets

    entries = read_json_file(path) if path.exists() else []
    if not isinstance(entries, list):
        raise UnusableInput(f"{path}: expected a JSON array")
    if any(isinstance(e, dict) and e.get("team") == team for e in entries):
        raise UnusableInput(f"{path}: team {team!r} already exists")
    token = secrets.token_urlsafe(32)
    entries.append({"team": team, "token_sha256": hashlib.sha256(token.encode()).hexdigest()})
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w") as out:
        json.dump(entries, out, indent=2)
        out.write("\n")
    os.replace(temp, path)
    return token
