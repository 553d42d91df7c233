-- adjudicate packet --extend / --where (docs/adjudication.md): packet_records.sql's choice,
-- grown. Every record of the older packet (packet_older: its text as labelled) is kept;
-- then, of each split asked for, the records packet_wanted holds (those --where chooses)
-- whose body holds at least packet_min_body_bytes bytes are added by the lowest SHA-256 of
-- packet_hash_sha256 (the first packet's corpus digest, so the older packet's order goes
-- on) and the id, until the split holds packet_records records. Records in that hash order
-- within each split.
CREATE OR REPLACE TABLE packet_records AS
WITH
key AS (SELECT getvariable('packet_hash_sha256') AS hash_key),
older AS (
    SELECT older.id, coalesce(splits.split, older.split) AS split, older.number, older.title, older.body
    FROM packet_older AS older
    LEFT JOIN splits USING (number)
),
kept AS (SELECT split, count(*) AS records FROM older GROUP BY split),
added AS (
    SELECT
        'issue-' || i.number AS id, s.split, i.number, i.title, i.body,
        row_number() OVER (PARTITION BY s.split ORDER BY sha256((SELECT hash_key FROM key) || ':issue-' || i.number))
            AS pick
    FROM scrubbed_issues AS i
    JOIN splits AS s USING (number)
    WHERE list_contains(getvariable('packet_splits'), s.split)
        AND octet_length(encode(coalesce(i.body, ''))) >= getvariable('packet_min_body_bytes')
        AND i.number IN (SELECT number FROM packet_wanted)
        AND i.number NOT IN (SELECT number FROM packet_older)
),
chosen AS (
    SELECT id, split, number, title, body FROM older
    UNION ALL
    SELECT added.id, added.split, added.number, added.title, added.body
    FROM added
    LEFT JOIN kept USING (split)
    WHERE added.pick <= getvariable('packet_records') - coalesce(kept.records, 0)
)
SELECT id, split, number, title, body
FROM chosen
ORDER BY coalesce(nullif(list_position(getvariable('packet_splits'), split), 0), 99), split,
    sha256((SELECT hash_key FROM key) || ':' || id);
