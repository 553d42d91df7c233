-- docs/format.md §3 references: every `#N` in title + "\n" + body that starts the text or follows
-- a character other than an ASCII letter, digit or underscore, and ends at a word
-- boundary; N > 0, self-references and numbers outside the corpus included.
-- That is the RE2 pattern (?:^|[^[:alnum:]_])#([0-9]{1,7})\b, computed without it: a
-- pattern that starts with a class makes RE2 step through every byte, while splitting at
-- '#' is a fast scan. Each piece after a '#' cites its leading 1-7 digits (followed by
-- a word boundary) when the piece before is empty (the '#' starts the text or follows
-- another '#') or does not end in [[:alnum:]_ſK] (RE2's class is ASCII, but (?i) folds it:
-- ſ (U+017F) and the Kelvin sign (U+212A) are s and k to it; RE2 searches a
-- pattern anchored at the end backwards, where right(piece, 1) counts every character
-- of the piece). Most pieces do not start with a digit, so that is tested first,
-- without a regular expression.
-- (Matches cannot overlap in a way that hides one: a match ends on a digit followed by
-- a non-word character.)
CREATE OR REPLACE TABLE reference_edges AS
WITH pieces AS (
    SELECT number, string_split(title || chr(10) || body, '#') AS p
    FROM scrubbed_issues
    WHERE contains(title, '#') OR contains(body, '#')
),
cited AS (
    SELECT number, unnest(list_transform(p[2:], lambda after, i:
        CASE WHEN NOT (left(after, 1) BETWEEN '0' AND '9') THEN NULL
            WHEN p[i] = '' OR NOT regexp_matches(p[i], '[[:alnum:]_ſK]$')
                THEN regexp_extract(after, '^([0-9]{1,7})\b', 1)
        END)) AS digits
    FROM pieces
)
SELECT DISTINCT number AS src, TRY_CAST(digits AS BIGINT) AS dst
FROM cited
WHERE TRY_CAST(digits AS BIGINT) > 0
ORDER BY src, dst;
