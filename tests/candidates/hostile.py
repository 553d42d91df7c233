"""A hostile candidate: tries to reach what the sandbox must hide, then prints, as one
JSON object on stdout, what each attempt managed (None when it failed, else what it got).

Usage inside the sandbox: python hostile.py ANSWERS_PATH RUNS_DB HOME_FILE CHECKOUT_FILE TCP_PORT MARKER
(the host's paths and port, as the test knows them; a leaked copy would show up here).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

ANSWERS_MARK = b"fak-microcontext-answers/1"


def attempt(action):  # type: ignore[no-untyped-def]
    try:
        return action()
    except Exception:  # every failure is the expected outcome
        return None


def read(path: str) -> str | None:
    with open(path, "rb") as file:
        return file.read(200).decode("utf-8", "replace")


def walk_for_answers() -> str | None:
    for root, dirs, files in os.walk("/", onerror=None):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in ("/proc", "/sys", "/dev")]
        for name in files:
            if not name.endswith((".json", ".duckdb", ".wal", ".tmp")):
                continue  # every form an answer bundle or a runs database takes on disk
            path = os.path.join(root, name)
            try:
                with open(path, "rb") as file:
                    if ANSWERS_MARK in file.read(4096):
                        return path
            except OSError:
                continue
    return None


def through_proc() -> list[str] | None:
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        for link in ("cwd", "root"):  # a host directory, if some process had one
            target = attempt(lambda: os.readlink(f"/proc/{pid}/{link}"))
            if target and (target.startswith(("/work", "/root", "/home")) or "pytest" in target):
                found.append(f"{pid}/{link} -> {target}")
        for fd in attempt(lambda: os.listdir(f"/proc/{pid}/fd")) or []:
            target = attempt(lambda: os.readlink(f"/proc/{pid}/fd/{fd}")) or ""
            if "answers" in target or "runs" in target or target.startswith(("/work", "/root")):
                found.append(f"{pid}/fd/{fd} -> {target}")
        environ = attempt(lambda: open(f"/proc/{pid}/environ", "rb").read()) or b""
        if b"S8F_TEST_SECRET" in environ:
            found.append(f"{pid}/environ")
    return found or None


def connect(port: int) -> str | None:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
        conn.sendall(b"GET / HTTP/1.0\r\n\r\n")
        return conn.recv(100).decode("latin-1")


def write_outside() -> list[str] | None:
    written = []
    for path in ("/candidate/x", "/corpus/x", "/usr/x", "/x", "/etc/x", "/proc/x"):
        if attempt(lambda: open(path, "w").write("x")):
            written.append(path)
    return written or None


def leave_daemon(marker: str) -> str:
    """Start a process meant to outlive the candidate (it never succeeds if the sandbox holds)."""
    subprocess.Popen(
        [sys.executable, "-c", f"import time; time.sleep(120)  # {marker}"],
        start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    return "started"


def main() -> None:
    answers, runs_db, home_file, checkout_file, port, marker = sys.argv[1:7]
    results = {
        "answers_by_host_path": attempt(lambda: read(answers)),
        "answers_by_walking": attempt(walk_for_answers),
        "answers_through_proc": attempt(through_proc),
        "runs_database": attempt(lambda: read(runs_db)),
        "runs_database_wal": attempt(lambda: read(runs_db + ".wal")),
        "home_file": attempt(lambda: read(home_file)),
        "checkout_file": attempt(lambda: read(checkout_file)),
        "host_tcp_port": attempt(lambda: connect(int(port))),
        "resolve_host_name": attempt(lambda: socket.getaddrinfo("github.com", 443)),
        "resolve_localhost_to_host": attempt(lambda: connect_by_name(int(port))),
        "secret_in_own_environment": os.environ.get("S8F_TEST_SECRET"),
        "write_outside_out": attempt(write_outside),
    }
    print(json.dumps(results, default=str))
    sys.stdout.flush()
    leave_daemon(marker)
    time.sleep(0.2)


def connect_by_name(port: int) -> str | None:
    with socket.create_connection(("localhost", port), timeout=2) as conn:
        return conn.recv(10).decode("latin-1")


if __name__ == "__main__":
    main()
