-- docs/format.md §7: the submissions of a batch, a line each as s8f_duck/reading/submissions.py
-- wrote it from the values the reference decodes (msgspec read the file once): every
-- string, integer and list already of its type, null answer fields left out, each
-- aggregate's entries after Go's decoding (of a repeated key the last, a null count 0, a
-- null id ''), and whether the aggregate was missing or null.
CREATE OR REPLACE TABLE submitted_documents AS
SELECT *
FROM read_json(
    getvariable('input_path'),
    format = 'newline_delimited',
    records = true,
    columns = {
        'submission': 'BIGINT', 'schema': 'VARCHAR', 'corpus_sha256': 'VARCHAR',
        'answers': 'STRUCT(id VARCHAR, split VARCHAR, state VARCHAR, labels VARCHAR[], "references" BIGINT[],
                           duplicate_targets BIGINT[], scope_contradictions VARCHAR[])[]',
        'state_counts': 'STRUCT(key VARCHAR, count BIGINT)[]', 'state_counts_missing': 'BOOLEAN',
        'label_counts': 'STRUCT(key VARCHAR, count BIGINT)[]', 'label_counts_missing': 'BOOLEAN',
        'newest_issue_ids': 'VARCHAR[]', 'newest_issue_ids_missing': 'BOOLEAN',
        'most_recently_updated_issue_ids': 'VARCHAR[]', 'most_recently_updated_issue_ids_missing': 'BOOLEAN'
    },
    maximum_object_size = getvariable('max_object_size')
);
