-- docs/adjudication.md: the records of a packet. Of each split asked for, the
-- getvariable('packet_records') records whose body holds at least packet_min_body_bytes
-- bytes, chosen by the lowest SHA-256 of the corpus digest and the record's id: the same
-- records from the same public corpus whatever its order, and no choice a person makes.
-- Only the public text goes in (the corpus is already scrubbed).
CREATE OR REPLACE TABLE packet_records AS
SELECT id, split, number, title, body
FROM (
    SELECT
        'issue-' || i.number AS id, s.split, i.number, i.title, i.body,
        row_number() OVER (
            PARTITION BY s.split ORDER BY sha256(getvariable('packet_corpus_sha256') || ':issue-' || i.number)
        ) AS pick
    FROM scrubbed_issues AS i
    JOIN splits AS s USING (number)
    WHERE list_contains(getvariable('packet_splits'), s.split)
        AND octet_length(encode(coalesce(i.body, ''))) >= getvariable('packet_min_body_bytes')
)
WHERE pick <= getvariable('packet_records')
ORDER BY list_position(getvariable('packet_splits'), split), pick;
