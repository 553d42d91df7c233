"""A minimal candidate: reads the public corpus, answers from what it shows, writes a submission.

Run it blind with:
    s8f-duck run --public P --answers A --runs runs.duckdb --name minimal \
        --candidate-dir examples -- python3 minimal_candidate.py
It answers state and labels as the corpus shows them, cites every `#N` it sees (a rough
rule: the exact one is in docs/format.md), and leaves duplicates, contradictions and the
aggregates unanswered, so it passes some slices and fails others.
"""

import json
import os
import re

corpus = json.load(open(os.environ["S8F_PUBLIC"], encoding="utf-8"))
answers = []
for record in corpus["records"]:
    text = record["title"] + "\n" + record["body"]
    answers.append({
        "id": record["id"],
        "state": record["state"],
        "labels": sorted(record["labels"] or []),
        "references": sorted({int(n) for n in re.findall(r"#([0-9]{1,7})\b", text) if int(n) > 0}),
        "duplicate_targets": [],
        "scope_contradictions": [],
    })
submission = {
    "schema": "fak-microcontext-submission/1",
    "corpus_sha256": os.environ["S8F_PUBLIC_SHA256"],
    "answers": answers,
    "aggregates": {"state_counts": {}, "label_counts": {}, "newest_issue_ids": [], "most_recently_updated_issue_ids": []},
}
with open(os.environ["S8F_OUTPUT"], "w", encoding="utf-8") as out:
    json.dump(submission, out)
print(f"answered {len(answers)} records")
