-- Torture schema for MySQL 9: every native type and every catalog feature dbjson reflects.
-- Loaded into a fresh, empty database by tests/test_reflect_mysql.py (DELIMITER lines are honoured).

CREATE TABLE ints (
  id INT NOT NULL AUTO_INCREMENT COMMENT 'surrogate key',
  t TINYINT,
  tu TINYINT UNSIGNED,
  tz TINYINT(3) UNSIGNED ZEROFILL,
  b BOOL DEFAULT TRUE,
  s SMALLINT DEFAULT -5,
  su SMALLINT UNSIGNED,
  m MEDIUMINT,
  mu MEDIUMINT UNSIGNED NOT NULL DEFAULT 7,
  i INT,
  iu INT UNSIGNED,
  iz INT(8) ZEROFILL,
  bi BIGINT,
  bu BIGINT UNSIGNED,
  PRIMARY KEY (id)
) ENGINE=InnoDB AUTO_INCREMENT=1000 COMMENT='integer widths';

CREATE TABLE nums (
  id SERIAL,
  d DECIMAL(10,2) DEFAULT 1.50,
  du DECIMAL(65,30) UNSIGNED,
  d0 DECIMAL,
  n NUMERIC(5),
  f FLOAT,
  fu FLOAT UNSIGNED,
  f24 FLOAT(24),
  f53 FLOAT(53),
  fmd FLOAT(7,3),
  dbl DOUBLE DEFAULT 2.5,
  dblmd DOUBLE(12,4),
  r REAL,
  bit1 BIT(1) DEFAULT b'1',
  bit5 BIT(5) DEFAULT b'101',
  bit64 BIT(64)
) ROW_FORMAT=COMPACT;

CREATE TABLE strs (
  id INT PRIMARY KEY,
  c CHAR(10) DEFAULT 'it''s',
  c0 CHAR(0),
  vc VARCHAR(200) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'a,b',
  vu VARCHAR(50) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL DEFAULT '',
  va VARCHAR(20) CHARACTER SET ascii,
  nv NATIONAL VARCHAR(10),
  tt TINYTEXT,
  tx TEXT COLLATE utf8mb4_bin,
  mt MEDIUMTEXT,
  lt LONGTEXT,
  txd TEXT DEFAULT ('dflt'),
  bn BINARY(16),
  bt BINARY(2) DEFAULT 'ab',
  bd VARBINARY(4) DEFAULT 0x00FF,
  vb VARBINARY(300),
  tb TINYBLOB,
  bl BLOB,
  mb MEDIUMBLOB,
  lb LONGBLOB,
  e ENUM('a','b''q','c,d','x\\y') NOT NULL DEFAULT 'b''q',
  st SET('r','g','b') DEFAULT 'r,b',
  j JSON,
  v VECTOR(3),
  FULLTEXT KEY ft_body (tt, mt) COMMENT 'fulltext on two columns',
  KEY ix_prefix (vc(10), bn(4)),
  UNIQUE KEY uq_vu (vu)
) DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci COMMENT='strings & blobs';

CREATE TABLE times (
  id INT PRIMARY KEY,
  d DATE DEFAULT '2000-01-01',
  dn DATE DEFAULT (CURRENT_DATE),
  t TIME,
  t3 TIME(3) DEFAULT '12:00:00.500',
  dt DATETIME,
  dt6 DATETIME(6) DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
  ts TIMESTAMP NULL DEFAULT CURRENT_TIMESTAMP,
  ts3 TIMESTAMP(3) NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP(3),
  y YEAR DEFAULT 2024,
  u CHAR(36) DEFAULT (uuid()),
  expr_def INT DEFAULT (id * 2),
  KEY ix_desc (d DESC, t ASC),
  UNIQUE KEY uq_u_hidden (u) INVISIBLE,
  KEY ix_invisible (y) INVISIBLE COMMENT 'not used by the optimizer'
);

CREATE TABLE geo (
  id INT PRIMARY KEY,
  g GEOMETRY,
  p POINT NOT NULL SRID 4326,
  ls LINESTRING SRID 0,
  pg POLYGON,
  mp MULTIPOINT,
  mls MULTILINESTRING,
  mpg MULTIPOLYGON,
  gc GEOMETRYCOLLECTION,
  SPATIAL KEY sp_p (p)
);

CREATE TABLE features (
  id INT NOT NULL AUTO_INCREMENT,
  price DECIMAL(8,2) NOT NULL,
  qty INT NOT NULL DEFAULT 1,
  total DECIMAL(10,2) AS (price * qty) STORED,
  label VARCHAR(40) GENERATED ALWAYS AS (concat('item-', qty)) VIRTUAL,
  secret VARCHAR(10) INVISIBLE DEFAULT 'hidden',
  email VARCHAR(100),
  doc JSON,
  PRIMARY KEY (id),
  KEY ix_func ((lower(email)), qty DESC),
  KEY ix_json ((CAST(doc->>'$.k' AS CHAR(20)) COLLATE utf8mb4_bin)),
  UNIQUE KEY uq_email (email),
  CONSTRAINT chk_price CHECK (price >= 0),
  CONSTRAINT chk_lax CHECK (qty < 1000) NOT ENFORCED,
  CHECK (email LIKE '%@%')
) AUTO_INCREMENT=42;
INSERT INTO features (price, qty, email) VALUES (1.00, 2, 'a@b.c');

CREATE TABLE parent (
  id INT PRIMARY KEY,
  a INT NOT NULL,
  b INT NOT NULL,
  child_id INT,
  UNIQUE KEY uq_ab (a, b) COMMENT 'natural key'
);

CREATE TABLE child (
  id INT PRIMARY KEY,
  parent_id INT,
  pa INT,
  pb INT,
  CONSTRAINT fk_child_parent FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE ON UPDATE SET NULL,
  CONSTRAINT fk_child_ab FOREIGN KEY (pa, pb) REFERENCES parent (a, b) ON DELETE RESTRICT
);

ALTER TABLE parent ADD CONSTRAINT fk_parent_child FOREIGN KEY (child_id) REFERENCES child (id) ON DELETE SET NULL;

CREATE TABLE parts (
  id INT NOT NULL,
  created DATE NOT NULL,
  PRIMARY KEY (id, created)
) COMMENT='range partitioned'
PARTITION BY RANGE (YEAR(created))
SUBPARTITION BY HASH (id) SUBPARTITIONS 2 (
  PARTITION p2020 VALUES LESS THAN (2021) COMMENT 'old',
  PARTITION p2021 VALUES LESS THAN (2022),
  PARTITION pmax VALUES LESS THAN MAXVALUE
);

CREATE TABLE lparts (
  id INT NOT NULL,
  region CHAR(2) NOT NULL,
  PRIMARY KEY (id, region)
)
PARTITION BY LIST COLUMNS (region) (
  PARTITION peu VALUES IN ('de','fr'),
  PARTITION pus VALUES IN ('us')
);

CREATE TABLE kparts (
  id INT NOT NULL PRIMARY KEY
) PARTITION BY KEY (id) PARTITIONS 3;

CREATE TABLE memo (
  k INT NOT NULL,
  v VARCHAR(10),
  KEY ix_hash (k) USING HASH
) ENGINE=MEMORY;

CREATE TABLE `odd name``s` (
  `co"l` INT NOT NULL PRIMARY KEY COMMENT 'quote''s',
  `ünï` VARCHAR(5) DEFAULT 'ä'
) COMMENT 'table with an odd name';

CREATE TABLE ft_cjk (
  id INT PRIMARY KEY,
  body TEXT,
  FULLTEXT KEY ft_ngram (body) WITH PARSER ngram COMMENT 'CJK tokens'
);

CREATE VIEW v_parent AS SELECT id, a, b FROM parent WHERE a > 0 WITH CASCADED CHECK OPTION;
CREATE ALGORITHM=MERGE SQL SECURITY INVOKER VIEW v_local (pid, total) AS
  SELECT id, a + b FROM parent WITH LOCAL CHECK OPTION;
CREATE VIEW v_plain AS SELECT f.id, f.email FROM features f;

DELIMITER //
CREATE PROCEDURE add_parent(IN p_id INT, INOUT p_a INT, OUT p_out VARCHAR(20))
  COMMENT 'inserts a parent'
  MODIFIES SQL DATA
BEGIN
  INSERT INTO parent (id, a, b) VALUES (p_id, p_a, 0);
  SET p_a = p_a + 1;
  SET p_out = 'done';
END //
CREATE FUNCTION twice(x DECIMAL(10,2)) RETURNS DECIMAL(12,2)
  DETERMINISTIC NO SQL SQL SECURITY INVOKER
  RETURN x * 2 //
CREATE FUNCTION label_of(p VARCHAR(20) CHARSET latin1) RETURNS VARCHAR(30) CHARSET utf8mb4 COLLATE utf8mb4_bin
  DETERMINISTIC
  RETURN concat('<', p, '>') //
CREATE TRIGGER trg_child_bi BEFORE INSERT ON child FOR EACH ROW
BEGIN
  IF NEW.pa IS NULL THEN SET NEW.pa = 0; END IF;
END //
CREATE TRIGGER trg_child_bi2 BEFORE INSERT ON child FOR EACH ROW FOLLOWS trg_child_bi
  SET NEW.pb = COALESCE(NEW.pb, 0) //
CREATE TRIGGER trg_parent_au AFTER UPDATE ON parent FOR EACH ROW
  UPDATE child SET pa = NEW.a WHERE parent_id = NEW.id //
DELIMITER ;

CREATE EVENT ev_cleanup ON SCHEDULE EVERY 1 DAY STARTS '2030-01-01 03:00:00'
  ON COMPLETION PRESERVE DISABLE COMMENT 'nightly cleanup'
  DO DELETE FROM child WHERE parent_id IS NULL;
CREATE EVENT ev_once ON SCHEDULE AT '2031-06-01 12:00:00' DISABLE
  DO UPDATE parent SET a = a + 1;
CREATE EVENT ev_odd ON SCHEDULE EVERY '1:30' HOUR_MINUTE STARTS '2030-01-01 00:00:00' ENDS '2032-01-01 00:00:00' DISABLE
  DO SELECT 1;
