-- Per-kind torture data for tests/test_export_kinds.py (every value must export to its canonical line).
CREATE TABLE kinds (
  id INT PRIMARY KEY,
  c_bool TINYINT(1), c_tiny TINYINT, c_utiny TINYINT UNSIGNED, c_small SMALLINT, c_med MEDIUMINT, c_int INT, c_uint INT UNSIGNED,
  c_big BIGINT, c_ubig BIGINT UNSIGNED, c_dec DECIMAL(12,3), c_dec0 DECIMAL(20,0), c_float FLOAT, c_double DOUBLE,
  c_char CHAR(5), c_varchar VARCHAR(30), c_text TEXT, c_latin VARCHAR(20) CHARACTER SET latin1, c_binary BINARY(4), c_varbinary VARBINARY(20), c_blob BLOB,
  c_bit BIT(10), c_bit1 BIT(1), c_date DATE, c_time TIME, c_time3 TIME(3), c_dt DATETIME, c_dt6 DATETIME(6), c_ts TIMESTAMP(2) NULL, c_year YEAR,
  c_enum ENUM('a','b c','d'), c_set SET('x','y','z'), c_json JSON, c_geom GEOMETRY, c_point POINT SRID 4326,
  c_inv INT INVISIBLE
);
SET SESSION sql_mode = 'ALLOW_INVALID_DATES';
SET SESSION time_zone = '+00:00';
INSERT INTO kinds (id, c_bool, c_tiny, c_utiny, c_small, c_med, c_int, c_uint, c_big, c_ubig, c_dec, c_dec0, c_float, c_double, c_char, c_varchar, c_text, c_latin, c_binary, c_varbinary, c_blob, c_bit, c_bit1, c_date, c_time, c_time3, c_dt, c_dt6, c_ts, c_year, c_enum, c_set, c_json, c_geom, c_point, c_inv) VALUES
 (1, 1, -128, 255, -32768, -8388608, -2147483648, 4294967295, -9223372036854775808, 18446744073709551615, -123456789.123, 12345678901234567890, 0.1, 0.1,
  'ab', 'x"y\\z', 'line\nbreak\ttab \Z ctrl é 😀 / \'q\'', 'café', X'00FF1000', X'', X'DEADBEEF',
  b'1010101010', b'1', '0000-00-00', '-838:59:59', '838:59:59.999', '0000-00-00 00:00:00', '2024-02-29 23:59:59.123456', '2038-01-19 03:14:07.99', 2155,
  'b c', 'z,x', '{"b": 1.50, "a": [1e300, 18446744073709551616], "s": "x  y\\n", "u": "\\u0001 é"}', ST_GeomFromText('LINESTRING(0 0, 1 1.5)'), ST_GeomFromText('POINT(1 2)', 4326), 7),
 (2, 0, 127, 0, 32767, 8388607, 2147483647, 0, 9223372036854775807, 0, 0.5, 0, -3.4e38, 1e16,
  'abcde', '', '', '', X'01', X'00', X'',
  b'0', b'0', '2024-02-30', '00:00:00', '-00:00:01.5', '9999-12-31 23:59:59', '1000-01-01 00:00:00.000001', '1970-01-01 00:00:01', 1901,
  'a', '', 'null', ST_GeomFromText('POLYGON((0 0,1 0,1 1,0 0))'), ST_GeomFromText('POINT(-71.06 42.36)', 4326), NULL),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (4, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 1.5e-7, 1.5e-7,
  ' a ', 'tail  ', 'back\\slash "q"', 'x', X'FFFFFFFF', X'0102', X'00',
  b'1111111111', b'1', '2024-01-01', '12:34:56', '00:00:00.000', '2024-01-01 00:00:00', '2024-01-01 00:00:00', '2024-01-01 00:00:00', 0,
  'd', 'x,y,z', '[]', ST_GeomFromText('POINT(0 0)'), ST_GeomFromText('POINT(0 0)', 4326), 0);
INSERT INTO kinds (id, c_text, c_varchar) VALUES (5, CONCAT('lit \\\\u001B and ', CHAR(27), ' and \\\\\\\\', CHAR(31), CHAR(11), CHAR(127)), CONCAT(CHAR(14),'\\\\u000E'));
CREATE TABLE floats (id INT PRIMARY KEY AUTO_INCREMENT, d DOUBLE, r REAL);
INSERT INTO floats (d) VALUES (0.1), (1e15), (1.5e-7), (1e-5), (1.23e-5), (9.99e-6), (1e16), (-0.0), (0), (1234567890123456.7), (5e-324), (1.7976931348623157e308),
 (-1.5), (9999999999999998), (1e-4), (0.30000000000000004), (-1e-300), (99999.99999), (1.2345678901234567e16), (-2.5e-8), (123e20), (1e100), (7e-6), (2.2250738585072014e-308), (4.9e-324), (33554432), (-123.456), (1e21), (1.0000000000000002), (3.141592653589793), (-9.87654321e-10), (6.02214076e23);
