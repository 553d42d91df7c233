-- The corpus, answer bundle and semantic bundle (NULL: scored without one) a service store
-- was first served with: one row, written when the store is new, never changed. `serve`
-- refuses to open the store with others (server.py), so no team's scores are mixed.
-- Source: binding_given (one row, from the service).
CREATE TABLE IF NOT EXISTS service.store_binding (
    public_sha256 VARCHAR NOT NULL,
    answers_sha256 VARCHAR NOT NULL,
    semantic_sha256 VARCHAR,
    bound_at TIMESTAMPTZ NOT NULL
);
INSERT INTO service.store_binding
SELECT public_sha256, answers_sha256, semantic_sha256, now()
FROM binding_given
WHERE NOT EXISTS (SELECT 1 FROM service.store_binding);
