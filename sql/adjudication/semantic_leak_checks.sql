-- docs/adjudication.md: the semantic answer bundle's leak checks, one row; adjudicate gold
-- writes nothing unless all are true. semantic_scan holds what a byte scan of the public
-- corpus and of the packet found (the bundle's digest, its schema name); packet_given the
-- packet's records as the file holds them, each compared with the public corpus's record.
CREATE OR REPLACE TABLE semantic_leak_checks AS
SELECT
    NOT coalesce((SELECT bool_or(found) FROM semantic_scan WHERE needle = 'semantic_sha256'), false)
        AS semantic_digest_absent_from_public_and_packet,
    NOT coalesce((SELECT bool_or(found) FROM semantic_scan WHERE needle = 'semantic_schema'), false)
        AS semantic_schema_absent_from_public_and_packet,
    (SELECT bool_and(extra_keys = 0) FROM packet_given) AS packet_holds_only_id_split_number_title_body,
    (
        SELECT bool_and(
            s.split IS NOT DISTINCT FROM g.split AND i.number IS NOT DISTINCT FROM g.number
            AND i.title IS NOT DISTINCT FROM g.title AND i.body IS NOT DISTINCT FROM g.body
        )
        FROM packet_given AS g
        LEFT JOIN scrubbed_issues AS i ON 'issue-' || i.number = g.id
        LEFT JOIN splits AS s ON s.number = i.number
    ) AS packet_text_is_the_public_text;
