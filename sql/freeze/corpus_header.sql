-- docs/format.md §6: frozen_at is the latest updatedAt, in UTC, to the whole second.
CREATE OR REPLACE TABLE corpus_header AS
SELECT strftime(make_timestamp(max(updated_epoch_s) * 1000000), '%Y-%m-%dT%H:%M:%SZ') AS frozen_at
FROM issues;
