-- A public corpus's records read straight from its `records` array, copied to files of
-- its own by the loader (s8f_duck/load.py) when the corpus ends with that array, as every
-- corpus freeze writes does: one row each, every field still a JSON value but the title
-- and body, read as strings beside their text_kind (as for a raw dump read in parts:
-- an unknown kind is a problem, and the file is then read whole). This streams
-- on several cores where public_document parses the whole corpus as one value on one.
-- Without record positions (numbering the rows would take the reading back to one core):
-- when public_problems finds a problem, the loader reads the file whole to name it.
-- DuckDB refuses a record that is not an object or that repeats a key; the loader then
-- reads the file whole (public_document.sql, or Go's decoding).
CREATE OR REPLACE VIEW public_records AS
SELECT NULL::BIGINT AS record, 'OBJECT' AS kind, *, text_kind(title) AS title_kind, text_kind(body) AS body_kind
FROM read_json(
    getvariable('input_path'),
    format = 'array',
    records = true,
    columns = {
        'id': 'JSON', 'split': 'JSON', 'number': 'JSON', 'title': 'VARCHAR', 'body': 'VARCHAR', 'created_at': 'JSON',
        'updated_at': 'JSON', 'url': 'JSON', 'state': 'JSON', 'labels': 'JSON', 'closed_at': 'JSON',
        'title_sha256': 'JSON', 'body_sha256': 'JSON'
    },
    maximum_object_size = 268435456,
    case_insensitive_keys = true
);
