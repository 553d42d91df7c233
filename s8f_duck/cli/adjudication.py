"""`s8f-duck adjudicate ...`: facts no rule can derive (docs/adjudication.md)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from s8f_duck.cli.app import Quiet, TableFormat, Verbose, guarded, say
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.progress import Progress


class Policy(str, Enum):
    """How adjudicate gold finds a record's gold label among the adjudicators' labels."""

    unanimous = "unanimous"
    majority = "majority"


adjudicate = typer.Typer(
    help="Facts no rule can derive: a rubric, a packet of records to judge, labels by people and "
    "models, and how far they agree. See docs/adjudication.md.",
    no_args_is_help=True,
)


@adjudicate.command()
def packet(
    public: Annotated[Path, typer.Option(help="The public corpus to take the records from.")],
    rubric: Annotated[Path, typer.Option(help="The rubric (RUBRIC.toml): the fields to judge.")],
    records: Annotated[int, typer.Option(help="How many records of each split.")],
    output: Annotated[Path, typer.Option(help="Where to write the packet (JSON).")],
    splits: Annotated[str, typer.Option(help="The splits to take records from, comma-separated.")] = "tune,test",
    min_body_bytes: Annotated[int, typer.Option(help="Leave out records whose body is shorter.")] = 0,
    extend: Annotated[
        Path | None,
        typer.Option(help="An older packet (of this corpus, or of the older corpus this one refreshes): every record "
                          "of it is kept, and records are added in its hash order until each split holds --records; "
                          "its labels files count in agree and gold for the records they hold."),  # fmt: skip
    ] = None,
    where: Annotated[
        str | None,
        typer.Option(help="A SQL condition on the public corpus's columns (id, split, number, title, body, state, "
                          "labels, created_at, updated_at, closed_at, url) choosing the records that may be added, "
                          "e.g. \"state = 'OPEN'\" or \"list_contains(labels, 'bug')\"."),  # fmt: skip
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a packet made from other inputs (refused without it).")
    ] = False,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Choose the records to adjudicate and write them with the rubric.

    Of each split, the records with the lowest SHA-256 of the corpus digest and their id:
    the same packet from the same corpus, whatever its order. The packet holds only public
    text and binds the corpus's and the rubric's digests; its own SHA-256 identifies it.
    A packet made from other inputs is not replaced without --force (labels made for it
    would no longer match); the same inputs again give the same file.

    \b
    Exit status:
      0  written
      2  an unusable corpus, rubric or option (one line names it)
    """
    from s8f_duck.adjudication.packet import make_packet

    progress = Progress.for_options("adjudicate packet", quiet=quiet, verbose=verbose)
    chosen = tuple(s.strip() for s in splits.split(","))
    digest, count = guarded("adjudicate packet", lambda: make_packet(
        public, rubric, output, records, chosen, min_body_bytes, progress, extend, where, force))  # fmt: skip
    progress.done()
    say(quiet, f"wrote {count} records to {output}\npacket sha256 {digest}")


@adjudicate.command()
def page(
    packet: Annotated[Path, typer.Argument(metavar="PACKET", help="The packet to label.")],
    output: Annotated[Path, typer.Option(help="Where to write the page (one HTML file).")],
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Write the labelling page for people: one HTML file that works offline.

    Open it in a browser: one record at a time, its title and body shown as text, a
    control per field of the rubric, evidence taken by selecting text in the record, a
    keyboard shortcut for every action (press ?), the work kept in the browser across
    reloads, and an export that downloads the labels file NAME.labels.json for
    `adjudicate agree` and `gold`. Nothing is fetched or sent.

    \b
    Exit status:
      0  written
      2  an unusable packet or output (one line names it)
    """
    from s8f_duck.adjudication.page import write_page

    count = guarded("adjudicate page", lambda: write_page(packet, output))
    say(quiet, f"wrote the labelling page of {count} records to {output}")


@adjudicate.command()
def agree(
    packet: Annotated[Path, typer.Argument(metavar="PACKET", help="The packet the labels are for.")],
    labels: Annotated[list[Path], typer.Argument(metavar="LABELS...", help="Labels files (JSON, or CSV).")],
    format: Annotated[TableFormat, typer.Option("--format", help="How to print the figures.")] = TableFormat.table,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples over the records.")] = 2000,
    seed: Annotated[int, typer.Option(help="The bootstrap's seed: the same seed, the same figures.")] = 0,
    disagreements: Annotated[
        Path | None,
        typer.Option(help="Also write the records they disagree on as a packet, for a further adjudicator."),
    ] = None,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """How far the adjudicators agree, per field.

    How many records each labelled; raw agreement and Cohen's kappa for every pair;
    Krippendorff's alpha (nominal) over all, missing labels allowed; each with a seeded
    95% bootstrap interval over the packet's records; each pair's confusion table; and how
    many records they disagree on (--disagreements writes them as a packet).

    \b
    Exit status:
      0  printed
      2  an unusable packet or labels file (one line names the file, record and field)
    """
    from s8f_duck.adjudication.agreement import agreement, to_text, write_disagreements
    from s8f_duck.safety import arguments

    def go() -> dict:
        arguments.check({"PACKET": packet, **{f"LABELS {n + 1}": p for n, p in enumerate(labels)}},
                        {"--disagreements": disagreements})  # fmt: skip
        return agreement(packet, labels, resamples, seed)

    document = guarded("adjudicate agree", go)
    if disagreements is not None:
        count = guarded("adjudicate agree", lambda: write_disagreements(document, packet, disagreements))
        say(quiet, f"wrote the {count} records they disagree on to {disagreements}", to_stderr=True)
    say(quiet, to_text(document, format.value))


@adjudicate.command()
def gold(
    packet: Annotated[Path, typer.Argument(metavar="PACKET", help="The packet the labels are for.")],
    labels: Annotated[list[Path], typer.Argument(metavar="LABELS...", help="The adjudicators' labels files.")],
    policy: Annotated[Policy, typer.Option(help="unanimous: every adjudicator's label; majority: more than half's.")],
    public: Annotated[Path, typer.Option(help="The public corpus the packet was made from.")],
    answers: Annotated[Path, typer.Option(help="The corpus's answer bundle, which the semantic bundle binds.")],
    output: Annotated[Path, typer.Option(help="Where to write the semantic answer bundle (private, 0600).")],
    report: Annotated[Path, typer.Option(help="Where to write its report.")],
    resolver: Annotated[
        Path | None, typer.Option(help="A further adjudicator's labels, deciding where the policy finds none.")
    ] = None,
    resolver_packet: Annotated[
        Path | None, typer.Option(help="The packet --resolver labelled, if not PACKET (agree --disagreements).")
    ] = None,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples for the report's agreement figures.")] = 2000,
    seed: Annotated[int, typer.Option(help="The bootstrap's seed.")] = 0,
    min_alpha: Annotated[
        float, typer.Option(help="Refuse a field whose Krippendorff's alpha is below this (0.667: tentative).")
    ] = 0.667,
    min_records: Annotated[int, typer.Option(help="Refuse a split holding fewer gold records of a field.")] = 30,
    allow_weak: Annotated[
        bool, typer.Option("--allow-weak", help="Write a weak gold anyway, the weakness recorded in the bundle.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a bundle or report made from other inputs (refused without it).")
    ] = False,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Write the semantic answer bundle: the gold label of every record and field.

    Where two or more adjudicators labelled a record's field, the policy decides; where
    it finds none, the resolver's label, else the field is excluded (and counted). The
    bundle binds the corpus's and the answer bundle's digests and is written private,
    with its report (the adjudicators', the packet's and the bundle's digests, the policy,
    the counts and the agreement figures), both at once and only when every leak check
    holds. A gold whose field's alpha is below --min-alpha, or whose split holds fewer
    than --min-records gold records of a field, is refused (--allow-weak writes it, the
    weakness recorded and shown beside every score graded on it). Each field's ceiling is
    measured on the records graded: each adjudicator against the gold of the others.
    `s8f-duck verify --semantic ...` derives both again. A bundle or report made from
    other inputs (packet, labels files, policy, gates) is not replaced without --force;
    the same inputs again give the same files.

    \b
    Exit status:
      0  written
      1  a leak check fails, or the gold is weak (named; nothing written)
      2  an unusable packet, labels file, corpus, bundle or option (one line names it)
    """
    from s8f_duck.adjudication.gold import ceiling_lines, describe_weaknesses, make_gold, read_inputs
    from s8f_duck.safety import arguments

    progress = Progress.for_options("adjudicate gold", quiet=quiet, verbose=verbose)

    def go() -> dict:
        given = {"PACKET": packet, "--public": public, "--answers": answers, "--resolver": resolver,
                 "--resolver-packet": resolver_packet, **{f"LABELS {n + 1}": p for n, p in enumerate(labels)}}  # fmt: skip
        arguments.check(given, {"--output": output, "--report": report})
        if resamples < 1:
            raise UnusableInput(f"--resamples {resamples}: need at least 1")
        inputs = read_inputs(public, packet, labels, policy.value, resolver, resolver_packet, answers, resamples, seed,
                             min_alpha, min_records)  # fmt: skip
        return make_gold(inputs, output, report, progress, allow_weak, force=force)

    written = guarded("adjudicate gold", go)
    progress.done()
    counts = ", ".join(f"{c['field']} {c['gold']}/{c['records']}" for c in written["counts"])
    say(quiet, f"wrote {output} (gold per field: {counts}) and {report}\n"
               f"semantic sha256 {written['semantic_sha256']}\nleak checks: all true")  # fmt: skip
    if written["weaknesses"]:
        say(quiet, f"WEAK GOLD (--allow-weak): {describe_weaknesses(written['weaknesses'])}", to_stderr=True)
    for line in ceiling_lines(written):
        say(quiet, line)
    if written["judges"]:
        from s8f_duck.adjudication.agreement import judge_rows
        from s8f_duck.pipeline.text_tables import aligned

        say(quiet, "models against people:\n" + aligned(judge_rows(written["judges"])))
    if written["probe"]:
        from s8f_duck.adjudication.probe import probe_lines

        say(quiet, "\n".join(probe_lines(written["probe"])))


@adjudicate.command()
def model(
    packet: Annotated[Path, typer.Argument(metavar="PACKET", help="The packet to label.")],
    endpoint: Annotated[str, typer.Option(help="The API's base URL, e.g. http://127.0.0.1:8000/v1.")],
    model: Annotated[str, typer.Option("--model", help="The model's name, as the endpoint knows it.")],
    output: Annotated[Path, typer.Option(help="Where to write the labels file (JSON).")],
    api_key_env: Annotated[
        str | None, typer.Option(help="The environment variable holding the API key (else a placeholder is sent).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="The adjudicator's name (default: the model's).")] = None,
    concurrency: Annotated[int, typer.Option(help="Requests under way at once.")] = 4,
    max_retries: Annotated[int, typer.Option(help="Retries of a request after a 429, a 5xx or a lost connection.")] = 4,
    timeout: Annotated[float, typer.Option(help="Seconds to wait for one answer.")] = 120.0,
    probe_order: Annotated[
        bool, typer.Option("--probe-order", help="Ask each record again with every field's labels reversed and "
                                                 "record the share of answers that change (the labels keep the first).")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a labels file of another packet, model, endpoint or probe "
                                           "(refused without it); ask every record again.")
    ] = False,
    quiet: Quiet = False,
    verbose: Verbose = False,
) -> None:
    """Have a model label the packet through an OpenAI-compatible endpoint.

    One request per record, its answer held to a JSON schema made from the rubric; an
    answer that breaks it (or quotes what the record does not say) is asked for once
    more, then the record is marked invalid, never guessed. Each record done is kept in
    OUTPUT.journal at once: a run stopped at any point, run again with the same options,
    asks only for the rest. The labels file holds every request's tokens and time. A
    complete labels file of the same packet, model and endpoint at OUTPUT is left as it
    is (nothing asked); a partial one is resumed; one of other inputs is refused unless
    --force (one made without --probe-order counts as another input for a run with it,
    and the other way round; a resumed run with it asks the probe only for the records it
    asks now). The last line counts the requests this command sent apart from those done
    before.

    \b
    Exit status:
      0  written
      2  an unusable packet or option, a journal of another run, or an endpoint that
         cannot be reached or refuses (one line names it; the journal is kept)
    """
    from s8f_duck.adjudication.model import adjudicate_model

    progress = Progress.for_options("adjudicate model", quiet=quiet, verbose=verbose)
    totals = guarded("adjudicate model", lambda: adjudicate_model(
        packet, output, endpoint, model, name=name, api_key_env=api_key_env, concurrency=concurrency,
        max_retries=max_retries, timeout=timeout, progress=progress, probe_order=probe_order,
        force=force))  # fmt: skip
    progress.done()
    waited = totals["latency_ms"] / 1000
    done_before = totals["records"] - totals["asked"]
    if totals["complete"]:
        first = f"{output} already holds the labels of all {totals['records']} records of this packet by this " \
                "model and endpoint: nothing asked"
    else:
        first = f"wrote the labels of {totals['labelled']} records to {output} ({totals['invalid']} invalid)"
    say(quiet, f"{first}\n"
               f"{totals['requests']} requests in all: {totals['prompt_tokens']} prompt tokens, "
               f"{totals['completion_tokens']} completion tokens, {waited:.1f} s waited\n"
               f"{totals['sent']} requests sent now for {totals['asked']} records; "
               f"{totals['requests'] - totals['sent']} requests of {done_before} records done before")  # fmt: skip
    if "probe" in totals:
        from s8f_duck.adjudication.probe import probe_lines

        say(quiet, "\n".join(probe_lines(totals["probe"])))
