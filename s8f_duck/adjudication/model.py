"""`s8f-duck adjudicate model`: a model labels the packet through any OpenAI-compatible
chat completions endpoint, one request per record, its answer held to a JSON schema made
from the rubric (prompt.py). An answer that breaks it is asked for once more, then the
record is marked invalid. 429s, 5xx and lost connections are retried by the client
(max_retries, with backoff and the server's retry-after). Each finished record goes to
the journal (journal.py) at once; the labels file is written when every record is done."""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from s8f_duck.adjudication import probe as probing
from s8f_duck.adjudication import resume
from s8f_duck.adjudication.agreement import probe_changes
from s8f_duck.adjudication.journal import Journal
from s8f_duck.adjudication.labels import LABELS_SCHEMA, read_labels
from s8f_duck.adjudication.packet import Packet, read_packet
from s8f_duck.adjudication.prompt import ASK_AGAIN, BadAnswer, Prompt, check_answer, prompt_for
from s8f_duck.adjudication.responses import BadResponse, read_completion
from s8f_duck.reading.gojson import dumps
from s8f_duck.safety import arguments, interrupts
from s8f_duck.safety.commit import Outputs
from s8f_duck.safety.errors import UnusableInput
from s8f_duck.safety.progress import Progress
from s8f_duck.safety.writers import write_text

PLACEHOLDER_KEY = "none"  # sent without --api-key-env: local servers ignore it, the client wants one
ATTEMPTS = 2  # an answer that breaks the schema or the rubric is asked for once more


@dataclass(frozen=True)
class Asking:
    client: Any  # openai.OpenAI, shared by the threads (its HTTP client is thread-safe)
    endpoint: str
    model: str
    prompt: Prompt
    packet: Packet
    stop: threading.Event = field(default_factory=threading.Event)  # set at the first failure: no more requests
    probe: Prompt | None = None  # --probe-order: each record asked again with the labels reversed (probe.py)


def adjudicate_model(
    packet_path: Path, output: Path, endpoint: str, model: str, *, name: str | None = None,
    api_key_env: str | None = None, concurrency: int = 4, max_retries: int = 4, timeout: float = 120.0,
    progress: Progress | None = None, probe_order: bool = False, force: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Write the labels file; return its totals, with `sent` (the requests this command
    sent), `asked` (its records) and `complete` (the file held every record already: nothing
    asked, nothing written), and with probe_order the probe's share of changed answers per
    field. A labels file of the same inputs at output is resumed (with probe_order, one made
    with the same probe: its records keep their probe answers), one of other inputs refused
    unless force (resume.py)."""
    progress = progress or Progress("adjudicate model")
    journal_path = Path(f"{output}.journal")
    arguments.check({"PACKET": packet_path}, {"--output": output, "the journal": journal_path})
    _check_options(endpoint, model, concurrency, max_retries, timeout)
    key = _api_key(api_key_env)
    packet = read_packet(packet_path)
    prompt = prompt_for(packet.rubric)
    who = (name if name is not None else model).strip()
    if not who:
        raise UnusableInput("--name: give the adjudicator a name")
    binding = {"packet_sha256": packet.sha256, "model": model, "endpoint": endpoint, "prompt_sha256": prompt.sha256}
    probe = probing.reversed_prompt(packet.rubric) if probe_order else None
    if probe is not None:  # a journal without the probe's answers is not resumed with it
        binding["probe_prompt_sha256"] = probe.sha256
    adjudicator = {"name": who, "kind": "model", "model": model, "endpoint": endpoint,
                   "prompt_sha256": prompt.sha256}  # fmt: skip
    outputs = Outputs([output])  # its directory locked: one run at a time appends to the journal
    try:
        ids = [r["id"] for r in packet.records]
        probe_sha256 = probe.sha256 if probe is not None else None
        previous = {} if force else resume.done_records(output, packet.sha256, adjudicator, ids, probe_sha256)
        if len(previous) == len(ids):  # complete: nothing to ask, the file stays as it is
            return {**_document(packet, adjudicator, previous)["totals"], "sent": 0, "asked": 0, "complete": True,
                    **_probe_changes(probe, packet, output)}  # fmt: skip
        journal = Journal.open(journal_path, binding, set(ids))
        try:
            for result in previous.values():  # a partial file's records count as journaled
                if result["id"] not in journal.results:
                    journal.add(result)
            before = set(journal.results)
            asking = Asking(_client(endpoint, key, max_retries, timeout), endpoint, model, prompt, packet, probe=probe)
            with interrupts.on_stop(journal.stopped):
                _ask_all(asking, journal, concurrency, progress)
        finally:
            journal.close()
            journal.remove_if_empty()
        document = _document(packet, adjudicator, journal.results)
        if probe is not None:
            document["probe"] = probing.probe_document(probe, [journal.results[r["id"]] for r in packet.records])
        write_text(outputs.temp_for(output), dumps(document))
        outputs.commit()
        journal_path.unlink()
    finally:
        outputs.discard()
    sent = sum(len(r["requests"]) for i, r in journal.results.items() if i not in before)
    return {**document["totals"], "sent": sent, "asked": len(ids) - len(before), "complete": False,
            **_probe_changes(probe, packet, output)}


def _probe_changes(probe: Prompt | None, packet: Packet, output: Path) -> dict[str, Any]:
    """With --probe-order, the probe's share of changed answers per field, read back from
    the labels file (every record's, those asked before included)."""
    if probe is None:
        return {}
    return {"probe": probe_changes(packet, [read_labels(output, packet)])}


def _check_options(endpoint: str, model: str, concurrency: int, max_retries: int, timeout: float) -> None:
    if concurrency < 1:
        raise UnusableInput(f"--concurrency {concurrency}: need at least 1")
    if max_retries < 0:
        raise UnusableInput(f"--max-retries {max_retries}: need 0 or more")
    if not timeout > 0:
        raise UnusableInput(f"--timeout {timeout}: need more than 0 seconds")
    if not model.strip():
        raise UnusableInput("--model: give the model's name")
    try:
        url = urlsplit(endpoint)
        url.port  # noqa: B018  (a bad port raises here)
    except ValueError as exc:
        raise UnusableInput(f"--endpoint {endpoint}: not a URL: {exc}") from None
    if url.scheme not in ("http", "https") or not url.hostname:
        raise UnusableInput(f"--endpoint {endpoint}: expected the API's base URL, http(s)://HOST[:PORT]/v1")
    if url.username or url.password or url.query or url.fragment:
        raise UnusableInput(f"--endpoint {endpoint}: the base URL alone, without credentials, query or fragment "
                            "(the key goes in --api-key-env)")  # fmt: skip


def _api_key(variable: str | None) -> str:
    if variable is None:
        return PLACEHOLDER_KEY
    key = os.environ.get(variable, "")
    if not key.strip():
        raise UnusableInput(f"--api-key-env {variable}: the environment variable is not set or empty")
    return key


def _client(endpoint: str, key: str, max_retries: int, timeout: float) -> Any:
    import openai  # here: it costs half a second to import, and only this command needs it

    from s8f_duck.adjudication.responses import bounded_http_client

    return openai.OpenAI(base_url=endpoint, api_key=key, max_retries=max_retries, timeout=timeout,
                         http_client=bounded_http_client(timeout))  # fmt: skip


def _ask_all(asking: Asking, journal: Journal, concurrency: int, progress: Progress) -> None:
    """Every record not in the journal, `concurrency` at a time; each result journaled as it
    comes. The first endpoint failure cancels what has not started; what has is kept."""
    total = len(asking.packet.records)
    pending = [r for r in asking.packet.records if r["id"] not in journal.results]
    _show(progress, journal, total)
    failure: BaseException | None = None
    with ThreadPoolExecutor(concurrency, thread_name_prefix="adjudicate") as pool:
        futures: list[Future[dict[str, Any]]] = [pool.submit(_adjudicate, asking, r) for r in pending]
        for future in as_completed(futures):
            try:
                journal.add(future.result())
            except CancelledError:
                continue
            except BaseException as exc:  # noqa: BLE001  (the first one is raised below)
                failure = failure or exc
                for other in futures:
                    other.cancel()
                continue
            _show(progress, journal, total)
    if failure is not None:
        raise _as_unusable(failure, asking, journal) from None


def _show(progress: Progress, journal: Journal, total: int) -> None:
    invalid = sum("invalid" in r for r in journal.results.values())
    progress.step(f"{len(journal.results)}/{total} records, {invalid} invalid")


def _as_unusable(exc: BaseException, asking: Asking, journal: Journal) -> BaseException:
    import openai

    if not isinstance(exc, openai.APIError):
        return exc  # a bug: exit 3
    endpoint = asking.endpoint
    done = len(journal.results)
    kept = f"the {done} records done are kept in {journal.path} for a re-run" if done else "no record was done"
    if isinstance(exc, openai.APIStatusError):
        hint = " (is it the API's base URL, …/v1, and the model's name?)" if exc.status_code == 404 else ""
        return UnusableInput(f"--endpoint {endpoint} answered {exc.status_code}{hint}: {_short(exc.message)}; {kept}")
    retries = asking.client.max_retries
    return UnusableInput(f"--endpoint {endpoint}: unreachable after {retries} retries ({_short(str(exc))}); {kept}")


def _short(text: str) -> str:
    return " ".join(text.split())[:200]


def _adjudicate(asking: Asking, record: dict[str, Any]) -> dict[str, Any]:
    """One record's labels, or the reason it is invalid, with every request made for it."""
    if asking.stop.is_set():
        raise CancelledError  # another record's request failed: this one is not sent
    try:
        return _labelled(asking, record)
    except BaseException:
        asking.stop.set()  # before the pool's thread takes the next record
        raise


def _labelled(asking: Asking, record: dict[str, Any]) -> dict[str, Any]:
    messages = asking.prompt.messages(record)
    requests: list[dict[str, Any]] = []
    for attempt in range(1, ATTEMPTS + 1):
        started = time.perf_counter()
        try:
            content, request = _ask(asking, messages)
        except BadResponse as bad:  # this record's answer, not the run's end
            latency_ms = round((time.perf_counter() - started) * 1000)
            requests.append({"id": record["id"], "attempt": attempt, "valid": False, "reason": str(bad),
                             "prompt_tokens": None, "completion_tokens": None, "latency_ms": latency_ms,
                             "retries": None})  # fmt: skip
            return {"id": record["id"], "invalid": str(bad), "requests": requests}
        try:
            labels = check_answer(content, record, asking.packet.rubric)
        except BadAnswer as bad:
            requests.append({"id": record["id"], "attempt": attempt, "valid": False, "reason": str(bad), **request})
            messages = [*messages, {"role": "assistant", "content": content or ""},
                        {"role": "user", "content": ASK_AGAIN.format(reason=bad)}]  # fmt: skip
            continue
        requests.append({"id": record["id"], "attempt": attempt, "valid": True, "reason": None, **request})
        if asking.probe is not None:
            second, asked = probing.probe_record(lambda m, p: _ask(asking, m, p), asking.probe, record,
                                                 asking.packet.rubric, ATTEMPTS)  # fmt: skip
            return {"id": record["id"], "labels": labels, "requests": [*requests, *asked], "probe": second}
        return {"id": record["id"], "labels": labels, "requests": requests}
    return {"id": record["id"], "invalid": requests[-1]["reason"], "requests": requests}


def _ask(
    asking: Asking, messages: list[dict[str, str]], prompt: Prompt | None = None
) -> tuple[str | None, dict[str, Any]]:
    """One answer's text, and its request's tokens, time and the client's retries (the
    answer's schema the prompt's: the probe's lists the labels reversed); BadResponse when
    the response is not a chat completion that can be read (responses.py)."""
    import openai

    started = time.perf_counter()
    try:
        raw = asking.client.chat.completions.with_raw_response.create(
            model=asking.model, messages=messages, response_format=(prompt or asking.prompt).response_format()
        )
    except openai.APIStatusError as exc:
        if 300 <= exc.status_code < 400:  # another host's answer is not this endpoint's
            location = exc.response.headers.get("location", "(no location)")
            raise BadResponse(f"the endpoint redirected ({exc.status_code}) to {_short(location)}: not followed") from None
        raise
    content, prompt_tokens, completion_tokens = read_completion(raw.http_response.content)
    latency_ms = round((time.perf_counter() - started) * 1000)
    return content, {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "latency_ms": latency_ms,
        "retries": raw.retries_taken,
    }


def _document(packet: Packet, adjudicator: dict[str, Any], results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The labels file (labels.py's format, with the model's invalid records, requests and
    totals), in the packet's order whatever order the answers came in."""
    done = [results[r["id"]] for r in packet.records]
    requests = [q for result in done for q in result["requests"]]
    tokens = {k: sum(q[k] or 0 for q in requests) for k in ("prompt_tokens", "completion_tokens", "latency_ms")}
    invalid = [{"id": result["id"], "reason": result["invalid"]} for result in done if "invalid" in result]
    return {
        "schema": LABELS_SCHEMA, "packet_sha256": packet.sha256, "adjudicator": adjudicator,
        "labels": [label for result in done for label in result.get("labels", [])],
        "invalid": invalid, "requests": requests,
        "totals": {"records": len(done), "labelled": len(done) - len(invalid), "invalid": len(invalid),
                   "requests": len(requests), **tokens},
    }  # fmt: skip
