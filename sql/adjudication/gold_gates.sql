-- docs/adjudication.md: what makes the gold weak, one row per field and figure: its alpha
-- (agreement.sql's point; NULL, undefined, counts as weak) below
-- getvariable('gold_min_alpha') (Krippendorff's floor for tentative conclusions is 0.667),
-- or, per split, fewer gold records than getvariable('gold_min_records'). No rows: the
-- gold passes the gates. adjudicate gold refuses a weak gold unless --allow-weak, and then
-- records these rows in the bundle.
CREATE OR REPLACE TABLE gold_gates AS
SELECT field, split, figure, value, minimum
FROM (
    SELECT
        f.field_index, f.field, NULL::VARCHAR AS split, -1 AS split_order, 'alpha' AS figure, a.value,
        getvariable('gold_min_alpha')::DOUBLE AS minimum
    FROM rubric_fields AS f
    LEFT JOIN agreement AS a ON a.field = f.field AND a.statistic = 'alpha'
    WHERE a.value IS NULL OR a.value < getvariable('gold_min_alpha')
    UNION ALL
    SELECT
        f.field_index, c.field, c.split, (SELECT min(record_index) FROM packet_units AS u WHERE u.split = c.split),
        'gold records', c.gold_records, getvariable('gold_min_records')::DOUBLE
    FROM gold_ceilings AS c JOIN rubric_fields AS f USING (field)
    WHERE c.gold_records < getvariable('gold_min_records')
)
ORDER BY field_index, split_order;
