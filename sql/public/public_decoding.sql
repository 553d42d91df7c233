-- Whether public_document needs Go's decoding after all: not exactly one JSON value in
-- the file (Go refuses the rest).
CREATE OR REPLACE TABLE public_decoding AS
SELECT count(*) <> 1 AS needs_go_decoding FROM public_document;
