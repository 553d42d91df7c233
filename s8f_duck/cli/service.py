"""The grading service's commands: `serve`, `team` and `submit`."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from s8f_duck.cli.app import Quiet, Split, Verbose, guarded
from s8f_duck.safety.errors import UnusableInput

if TYPE_CHECKING:  # imported where serve listens: not paid by every command
    import socket


def serve(
    answers: Annotated[Path, typer.Option(help="The answer bundle: read by this process only.")],
    public: Annotated[Path, typer.Option(help="The public corpus the bundle is bound to (served at GET /corpus).")],
    db: Annotated[Path, typer.Option(help="The service database: every submission is stored here first.")],
    teams: Annotated[Path, typer.Option(help="TEAMS.json: [{\"team\": NAME, \"token_sha256\": HEX}] (see `s8f-duck team`).")],
    host: Annotated[str, typer.Option(help="Address to listen on; other than loopback only when asked.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
    daily_limit: Annotated[int, typer.Option(help="Submissions per team per UTC day; past it, 429.")] = 5,
    release_after: Annotated[
        str | None, typer.Option(help="RFC 3339 time after which GET /answers returns the bundle (else 403).")
    ] = None,
    ladder_step: Annotated[float, typer.Option(help="The Ladder's step for held-out scores (a share of records).")] = 0.01,
    max_bytes: Annotated[str, typer.Option(help="Largest submission accepted; larger is 413.")] = "64MiB",
    semantic: Annotated[
        Path | None,
        typer.Option(help="A semantic answer bundle (adjudicate gold): grade the answers to the rubric too; on test "
                          "the one score is the mean of the exact share and the adjudicated accuracy."),  # fmt: skip
    ] = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Serve the answers behind a grading service.

    Teams POST submissions with a bearer token and get the Ladder's held-out score (no
    per-record detail) or, for the tune and train splits, the full grade; every submission
    is stored in the service database before the answer. Starlette on uvicorn. See
    docs/service.md. Submissions waiting at once are graded together, each as it is graded
    alone. A line on stderr per submission (time, team, split, id, status, size, seconds,
    how many were graded together; never a score). With -q neither that nor the address
    it listens on is printed.

    \b
    Exit status:
      0  stopped (Ctrl-C)
      2  an input is unusable or the port is taken
    """
    import uvicorn

    from s8f_duck.runs import runner
    from s8f_duck.safety import paths
    from s8f_duck.service import server as service
    from s8f_duck.service.connections import server_config
    from s8f_duck.service.teams import load_teams

    def start() -> service.Service:
        released = None
        if release_after is not None:
            try:
                released = datetime.fromisoformat(release_after.replace("Z", "+00:00"))
            except ValueError:
                raise UnusableInput(f"--release-after {release_after!r}: not an RFC 3339 time") from None
            if released.tzinfo is None:
                raise UnusableInput(f"--release-after {release_after!r}: give the offset (Z for UTC)")
        paths.make_parent(db, "--db")
        config = service.ServiceConfig(
            answers=answers, public=public, db=db, teams=load_teams(teams), daily_limit=daily_limit,
            release_after=released, ladder_step=ladder_step, max_bytes=runner.parse_size(max_bytes, "--max-bytes"),
            teams_path=teams, semantic=semantic, quiet=quiet,
        )  # fmt: skip
        return service.Service(config)

    def listen() -> socket.socket:
        import socket

        try:
            return socket.create_server((host, port))
        except OSError as exc:
            raise UnusableInput(f"--host {host} --port {port}: cannot listen: {exc.strerror or exc}") from None

    state = guarded("serve", start)
    try:
        listener = guarded("serve", listen)
        if not quiet:
            print(f"s8f-duck serve: http://{host}:{listener.getsockname()[1]}/ (corpus {state.public_sha256[:12]}…, "
                  f"store {db})", file=sys.stderr, flush=True)  # fmt: skip
        server = uvicorn.Server(server_config(service.create_app(state)))
        server.run(sockets=[listener])
    finally:
        state.close()


def team(
    teams: Annotated[Path, typer.Option(help="The teams file of `s8f-duck serve` (created when missing).")],
    name: Annotated[str, typer.Argument(metavar="NAME", help="The new team's name.")],
    output: Annotated[
        Path | None, typer.Option(help="Write the token to this file (readable by its owner only) instead of printing it.")
    ] = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Add a team and print its new bearer token (or write it to --output, mode 0600).

    The token is printed once (also with -q: it is what the command is for); the file keeps
    only its SHA-256. A shell redirection (`> alpha.token`) leaves the token readable by
    everyone the umask lets read it: --output does not.

    \b
    Exit status:
      0  added
      2  the file is unusable or the team exists
    """
    from s8f_duck.safety.paths import make_parent
    from s8f_duck.service.teams import add_team

    def go() -> str:
        from s8f_duck.safety import arguments
        from s8f_duck.safety.commit import Outputs
        from s8f_duck.safety.writers import write_text

        arguments.check({"--teams": teams}, {"--output": output})
        make_parent(teams, "--teams")
        if output is None:
            return add_team(teams, name)
        with Outputs([output], private=[output]) as outputs:  # its place first: a token never lost unwritten
            temp = outputs.temp_for(output, private=True)
            token = add_team(teams, name)
            write_text(temp, token + "\n")
            outputs.commit()
        return ""

    token = guarded("team", go)
    if token:
        print(token)


def submit(
    url: Annotated[str, typer.Option(help="The grading service, e.g. http://127.0.0.1:8765.")],
    token_file: Annotated[Path, typer.Option(help="A file holding the team's bearer token.")],
    submission_argument: Annotated[
        Path | None, typer.Argument(metavar="SUBMISSION", help="The submission file (fak-microcontext-submission/1).")
    ] = None,
    submission: Annotated[Path | None, typer.Option(help="The submission file, as grade takes it.")] = None,
    split: Annotated[Split, typer.Option(help="test: the held-out score; tune / train: the full grade.")] = Split.test,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Send a submission to a grading service.

    Prints the service's answer (JSON).

    \b
    Exit status:
      0  graded
      1  the service refused it (the message says why: 400 unusable, 401 token, 413 size,
         429 daily limit)
      2  it cannot be sent
    """
    from s8f_duck.service import client

    if submission is None and submission_argument is None:
        raise typer.BadParameter("the submission is required: SUBMISSION or --submission FILE", param_hint="SUBMISSION")
    if submission is not None and submission_argument not in (None, submission):
        raise typer.BadParameter("give the submission once: SUBMISSION or --submission FILE", param_hint="SUBMISSION")
    submission = submission or submission_argument
    assert submission is not None
    answer = guarded("submit", lambda: client.send(submission, url, token_file, split.value))
    try:  # the service's JSON, indented for people (still JSON for scripts)
        print(json.dumps(answer.json(), indent=2, ensure_ascii=False))
    except ValueError:
        print(answer.text)
    if answer.status_code != 201:
        retry = answer.headers.get("retry-after")
        print(f"s8f-duck submit: the service answered {answer.status_code}" + (f"; retry after {retry} s" if retry else ""),
              file=sys.stderr)  # fmt: skip
        raise typer.Exit(1)
