-- raw_fields.sql's records of a dump read in Arrow batches (batches/rest_objects.sql), with
-- the title and body read from their JSON texts: only for the records raw_fields.sql keeps
-- (the pull requests are most of a dump's texts), as it keeps them (rest_fields).
ALTER VIEW raw_fields RENAME TO rest_fields;
CREATE OR REPLACE VIEW raw_fields AS
SELECT * REPLACE (title->>'$' AS title, body->>'$' AS body) FROM rest_fields;
