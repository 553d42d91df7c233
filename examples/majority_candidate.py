"""The majority-label baseline for the adjudicated fields: every record of the split graded
gets, per rubric field, the label most often given in a labels file the benchmark's owner
chose to publish (for example one adjudicator's labels of the tune records), or, without
one, the field's first label in the rubric. It never sees test gold: it reads only the
public corpus, the rubric and that file, and refuses a file that labels any test record.

    s8f-duck run --public public.json --answers answers.json --semantic semantic.json \\
        --runs runs.duckdb --name majority --candidate-dir examples --ro "$(python3 -c 'import sys; print(sys.base_prefix)')" \\
        -- python3 /candidate/majority_candidate.py /candidate/rubrics/triage.toml [--labels /candidate/tune-labels.json]

Standard library only; writes $S8F_OUTPUT (a submission with the `semantic` member only).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
from collections import Counter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rubric", help="the rubric (RUBRIC.toml)")
    parser.add_argument("--labels", help="a published labels file (s8f-duck-adjudication-labels/1) of non-test records")
    args = parser.parse_args()
    with open(args.rubric, "rb") as f:
        fields = tomllib.load(f)["field"]
    with open(os.environ.get("S8F_PUBLIC", "/corpus/public.json"), encoding="utf-8") as f:
        corpus = json.load(f)
    split_of = {r["id"]: r["split"] for r in corpus["records"]}
    chosen = {f["name"]: [f["values"][0]] for f in fields}
    if args.labels:
        with open(args.labels, encoding="utf-8") as f:
            published = json.load(f)["labels"]
        test = sorted({e["id"] for e in published if split_of.get(e["id"]) == "test"})
        if test:
            sys.exit(f"{args.labels}: labels test records ({', '.join(test[:3])}...): publish no test labels")
        for field in fields:
            counts = Counter(tuple(e["values"]) for e in published if e["field"] == field["name"])
            if counts:  # the most frequent; a tie goes to the set that comes first in the rubric
                order = {v: n for n, v in enumerate(field["values"])}
                best = max(counts.items(), key=lambda item: (item[1], [-order.get(v, 99) for v in item[0]]))
                chosen[field["name"]] = list(best[0])
    split = os.environ.get("S8F_SPLIT", "test")
    semantic = [{"id": r["id"], "field": name, "values": values}
                for r in corpus["records"] if r["split"] == split for name, values in chosen.items()]  # fmt: skip
    submission = {"schema": "fak-microcontext-submission/1", "corpus_sha256": os.environ.get("S8F_PUBLIC_SHA256", ""),
                  "answers": [], "semantic": semantic}  # fmt: skip
    with open(os.environ.get("S8F_OUTPUT", "/out/submission.json"), "w", encoding="utf-8") as f:
        json.dump(submission, f)
    print(f"answered {len(semantic)} fields of the {split} records with {chosen}", file=sys.stderr)


if __name__ == "__main__":
    main()
