-- docs/format.md §6: frozen_at is the latest updatedAt, in UTC, to the whole second. The
-- original's maximum starts at Go's zero time, 0001-01-01T00:00:00Z (-62135596800 s), and
-- only moves forward: a corpus whose every updatedAt is earlier keeps that.
CREATE OR REPLACE TABLE corpus_header AS
SELECT strftime(make_timestamp(greatest(max(updated_epoch_s), -62135596800) * 1000000), '%Y-%m-%dT%H:%M:%SZ')
    AS frozen_at
FROM issues;
