-- Per-kind torture data for tests/test_export_kinds.py (every value must export to its canonical line).
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE kinds (
  id integer PRIMARY KEY,
  c_bool boolean, c_small smallint, c_int integer, c_big bigint,
  c_num numeric, c_num_ps numeric(12,3), c_real real, c_double double precision, c_money money,
  c_char char(5), c_varchar varchar(20), c_text text, c_bytea bytea, c_bit bit(8), c_varbit varbit(16),
  c_date date, c_time time, c_time3 time(3), c_timetz timetz, c_ts timestamp, c_ts0 timestamp(0), c_ts3 timestamp(3),
  c_tstz timestamptz, c_interval interval, c_json json, c_jsonb jsonb, c_uuid uuid, c_inet inet, c_cidr cidr,
  c_mac macaddr, c_xml xml, c_mood mood, c_int_arr integer[], c_text_arr text[], c_ts_arr timestamp[],
  c_range int4range, c_point point, c_tsv tsvector
);
INSERT INTO kinds VALUES
 (1, true, -32768, -2147483648, -9223372036854775808, 'NaN', 1.5, 'NaN', 'Infinity', '-12.34',
  'ab', 'x"y\z', E'line\nbreak\ttab \u0001 ctrl \u001f é 😀 /', '\x00ff10', B'10101010', B'101',
  'infinity', '24:00:00', '12:34:56.5', '12:34:56.789+05:30', '2024-02-29 23:59:59.123456', '2024-01-01 00:00:00', '2024-01-01 00:00:00.5',
  '2024-06-01 12:00:00.25+02', 'P1Y2M3DT4H5M6.5S', E'{ "b" : 1.50,\n "a": [1e400, 18446744073709551616], "s": "x  y\\n" }', '{"b": 1, "a": {"c": [true, null]}}',
  'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '192.168.0.1/24', '10.0.0.0/8', '08:00:2b:01:02:03', '<a>x &amp; y</a>', 'happy',
  '{1,NULL,3}', '{"a b","c,d",NULL,"q\"uote"}', '{"2024-01-01 10:00:00","infinity"}', '[1,5)', '(1.5,2)', 'a fat cat'),
 (2, false, 32767, 2147483647, 9223372036854775807, '123456789012345678901234567890.000000000000000000001', -0.001, 3.4028235e38, 1e-300, '0',
  'abcde', '', '', '\x', B'00000000', B'',
  '-infinity', '00:00:00', '00:00:00', '00:00:00-03', '-infinity', '1999-12-31 23:59:59', '0044-03-15 12:00:00 BC',
  'infinity', 'P-1D', 'null', 'null', '00000000-0000-0000-0000-000000000000', '::1', '::ffff:1.2.3.4/128', 'ff:ff:ff:ff:ff:ff', '', 'sad',
  '{}', '{}', '{}', 'empty', '(0,0)', ''),
 (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
 (4, true, 0, 0, 0, '-0.5', 0, 0.1, 0.1, '1000000.99',
  ' a ', 'tail  ', 'back\slash "q"', '\xdeadbeef', B'11111111', B'1111111111111111',
  '2024-01-01', '23:59:59.999999', '23:59:59.999', '23:59:59.999999+14', '2024-01-01 00:00:00', '2024-01-01 00:00:01', '2024-01-01 00:00:00',
  '1970-01-01 00:00:00+00', 'PT0S', '[]', '[1, "two", {"three": 3.0}]', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '2001:db8::1', '2001:db8::/32', '00:00:00:00:00:00', '<x/>', 'ok',
  '{{1,2},{3,4}}', '{""}', '{"2024-01-01 10:00:00.5"}', '(,)', '(-1e10,1e-10)', 'x:1A');
CREATE TABLE floats (id serial PRIMARY KEY, r real, d double precision);
INSERT INTO floats (r, d) VALUES (0.1, 0.1), (1e6, 1e15), (1.5e-7, 1.5e-7), (1e-5, 1e-5), (1.23e-5, 1.23e-5), (9.99e-6, 9.99e-6),
 (3.4028235e38, 1e16), (-0.0, -0.0), (0, 0), (123456, 1234567890123456.7), (1e-45, 5e-324), (1.17549435e-38, 1.7976931348623157e308),
 ('NaN', 'NaN'), ('-Infinity', 'Infinity'), (-1.5, 2.5e-5), (16777216, 9999999999999998), (33554432, 1e-4), (0.3, 0.30000000000000004), (1e10, -1e-300), (7e-6, 99999.99999);
INSERT INTO kinds (id, c_bytea, c_text, c_json) VALUES (5, decode(repeat('00ff', 60), 'hex'), repeat('long text ', 30), '{"k": "v with : and , inside", "n": [1 , 2]}');
