-- Per-kind torture data for tests/test_export_kinds.py (every value must export to its canonical line).
CREATE TABLE kinds (id INTEGER PRIMARY KEY, c_int INT, c_big BIGINT, c_real REAL, c_float FLOAT, c_num NUMERIC(10,2), c_dec DECIMAL, c_text TEXT, c_varchar VARCHAR(10), c_blob BLOB, c_bool BOOLEAN, c_date DATE, c_dt DATETIME, c_ts TIMESTAMP, c_json JSON, c_any);
INSERT INTO kinds VALUES
 (1, -2147483648, 9223372036854775807, 0.1, 1e300, 1.1, 3.14159, 'é 😀 "q" \ ' || char(10) || char(1), 'abc', x'00ff', 1, '2024-02-29', '2024-01-02 03:04:05', '2024-01-02T03:04:05.123Z', '{ "a" : [1, 2.50] }', 'any'),
 (2, 0, -9223372036854775808, 'NaN', -0.0, 0, 0, '', '', x'', 0, '0000-00-00', '2024-01-02 03:04:05.5', '2024-01-02 03:04:05+02:00', 'null', 42),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
