"""Code two or more engines share (the SQL export base, bulk-load text encoding, fetch batching).
Imported by the engine packages only; nothing here knows an engine by name."""
