#!/usr/bin/env python3
"""Rewrite a raw ``gh issue list --json`` dump in GitHub's REST form, with pull requests.

Usage::

    python3 experiments/rest_dump.py RAW.json OUT [--form array|pages|lines] [--gzip]
                                     [--per-page 100] [--indent] [-q]

Each issue becomes the object ``GET /repos/OWNER/REPO/issues`` returns for it (snake_case
keys, ``html_url`` beside an API ``url``, lower-case ``state``, label objects with ids and
colours, a ``user``, ``reactions`` and the other members the API sends), and after each
one comes a pull request: a copy of it numbered ``number + 2000`` (S8f's numbers lie in
5105..6111, and scale_up.py keeps each copy in its own 10,000) with a ``pull_request``
member. One issue in five carries ``"pull_request": {"html_url": null, ...}``, as early
API versions put on plain issues, and an empty body is written as ``null``, as the API
writes it. Freezing the output gives the bytes of freezing RAW.

Forms: ``array`` (one JSON array), ``pages`` (arrays of ``--per-page`` objects one after
another, as ``gh api --paginate`` prints the API's compact responses without
``--slurp``), ``lines`` (JSON Lines: one object per line). ``--indent`` indents arrays
and pages by two spaces. ``--gzip`` compresses the output. Written to ``OUT.tmp``,
renamed on success. Stdlib only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

PULL_OFFSET = 2000
OLD_API_EVERY = 5  # issues whose position is a multiple of this carry a null pull_request.html_url


def _user(login: str) -> dict[str, Any]:
    api = f"https://api.github.com/users/{login}"
    return {
        "login": login, "id": 1000001, "node_id": "MDQ6VXNlcjEwMDAwMDE=",
        "avatar_url": "https://avatars.githubusercontent.com/u/1000001?v=4", "gravatar_id": "", "url": api,
        "html_url": f"https://github.com/{login}", "followers_url": f"{api}/followers",
        "following_url": f"{api}/following{{/other_user}}", "gists_url": f"{api}/gists{{/gist_id}}",
        "starred_url": f"{api}/starred{{/owner}}{{/repo}}", "subscriptions_url": f"{api}/subscriptions",
        "organizations_url": f"{api}/orgs", "repos_url": f"{api}/repos", "events_url": f"{api}/events{{/privacy}}",
        "received_events_url": f"{api}/received_events", "type": "User", "user_view_type": "public",
        "site_admin": False,
    }  # fmt: skip


def rest_object(issue: dict[str, Any], position: int, *, pull: bool = False) -> dict[str, Any]:
    """The REST object of one gh record (a pull request numbered number + PULL_OFFSET when pull)."""
    number = issue["number"] + (PULL_OFFSET if pull else 0)
    html = issue["url"].rsplit("/", 2)[0] + f"/{'pull' if pull else 'issues'}/{number}"
    owner_repo = "/".join(html.split("/")[3:5])
    repo_api = f"https://api.github.com/repos/{owner_repo}"
    api = f"{repo_api}/issues/{number}"
    obj: dict[str, Any] = {
        "url": api, "repository_url": repo_api, "labels_url": f"{api}/labels{{/name}}",
        "comments_url": f"{api}/comments", "events_url": f"{api}/events", "html_url": html,
        "id": 3000000000 + number, "node_id": f"I_kwDOOx{number:08d}", "number": number, "title": issue["title"],
        "user": _user(owner_repo.split("/")[0]),
        "labels": [
            {"id": 9000000000 + i, "node_id": f"LA_kwDOOx{i:08d}", "url": f"{repo_api}/labels/{label['name']}",
             "name": label["name"], "color": "ededed", "default": False, "description": None}
            for i, label in enumerate(issue.get("labels") or [])
        ],
        "state": issue["state"].lower(), "locked": False, "assignee": None, "assignees": [], "milestone": None,
        "comments": 0, "created_at": issue["createdAt"], "updated_at": issue["updatedAt"],
        "closed_at": issue.get("closedAt"), "author_association": "OWNER", "type": None,
        "active_lock_reason": None,
        "sub_issues_summary": {"total": 0, "completed": 0, "percent_completed": 0},
        "issue_dependencies_summary": {"blocked_by": 0, "total_blocked_by": 0, "blocking": 0, "total_blocking": 0},
        "body": issue["body"] or None,
        "reactions": {"url": f"{api}/reactions", "total_count": 0, "+1": 0, "-1": 0, "laugh": 0, "hooray": 0,
                      "confused": 0, "heart": 0, "rocket": 0, "eyes": 0},
        "timeline_url": f"{api}/timeline", "performed_via_github_app": None,
        "state_reason": "completed" if issue.get("closedAt") else None,
    }  # fmt: skip
    if pull:
        obj["draft"] = False
        obj["pull_request"] = {"url": f"{repo_api}/pulls/{number}", "html_url": html, "diff_url": f"{html}.diff",
                               "patch_url": f"{html}.patch", "merged_at": issue.get("closedAt")}  # fmt: skip
    elif position % OLD_API_EVERY == 0:
        obj["pull_request"] = {"html_url": None, "diff_url": None, "patch_url": None}
    return obj


def rest_objects(issues: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Each issue's REST object followed by its pull request's."""
    for position, issue in enumerate(issues):
        yield rest_object(issue, position)
        yield rest_object(issue, position, pull=True)


def write(objects: Iterator[dict[str, Any]], out: IO[str], form: str, per_page: int, compact: bool) -> int:
    """Write the objects in the form (compact: without spaces, as the API sends them); return how many."""
    options: dict[str, Any] = {"ensure_ascii": False}
    options.update({"separators": (",", ":")} if compact or form == "lines" else {"indent": 2})
    count = 0
    if form == "lines":
        for obj in objects:
            out.write(json.dumps(obj, **options) + "\n")
            count += 1
        return count
    page: list[dict[str, Any]] = []
    if form == "array":
        page = list(objects)
        out.write(json.dumps(page, **options) + "\n")
        return len(page)
    for obj in objects:
        page.append(obj)
        if len(page) == per_page:
            out.write(json.dumps(page, **options))
            count, page = count + len(page), []
    if page or not count:
        out.write(json.dumps(page, **options))
    return count + len(page)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raw", help="raw `gh issue list --json` dump (JSON array)")
    ap.add_argument("out", help="output path (written via OUT.tmp + rename)")
    ap.add_argument("--form", choices=("array", "pages", "lines"), default="pages")
    ap.add_argument("--per-page", type=int, default=100)
    ap.add_argument("--indent", action="store_true", help="indent arrays and pages by two spaces")
    ap.add_argument("--gzip", action="store_true")
    ap.add_argument("-q", "--quiet", action="store_true")
    args = ap.parse_args(argv)
    with open(args.raw, "rb") as f:
        issues = json.loads(f.read().decode("utf-8", errors="surrogateescape"))
    tmp = args.out + ".tmp"
    try:
        raw_out = gzip.open(tmp, "wt", encoding="utf-8", errors="surrogateescape", compresslevel=6) if args.gzip \
            else open(tmp, "w", encoding="utf-8", errors="surrogateescape", buffering=1 << 20)  # fmt: skip
        with raw_out as out:
            count = write(rest_objects(issues), out, args.form, args.per_page, compact=not args.indent)
        os.replace(tmp, args.out)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    if not args.quiet:
        print(f"rest_dump: wrote {count} objects ({len(issues)} issues) to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
