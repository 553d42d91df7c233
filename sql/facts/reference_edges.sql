-- SPEC §3 references: every `#N` in title + "\n" + body that starts the text or follows
-- a character other than an ASCII letter, digit or underscore, and ends at a word
-- boundary; N > 0, self-references and numbers outside the corpus included.
CREATE OR REPLACE TABLE reference_edges AS
SELECT DISTINCT number AS src, unnest(cited_numbers(
    title || chr(10) || body,
    '(?i)(?:^|[^[:alnum:]_])#([0-9]{1,7})\b'
)) AS dst
FROM scrubbed_issues
ORDER BY src, dst;
