-- pre-data
CREATE TABLE "author" (
  "id" INTEGER,
  "name" VARCHAR(100) COLLATE NOCASE NOT NULL,
  "email" TEXT,
  "born" DATE,
  "rating" REAL DEFAULT 2.5,
  "active" BOOLEAN DEFAULT 1 NOT NULL,
  "created" DATETIME DEFAULT CURRENT_TIMESTAMP NOT NULL,
  PRIMARY KEY ("id"),
  CONSTRAINT "author_email_key" UNIQUE ("email"),
  CONSTRAINT "author_name_nonempty" CHECK (length(name) > 0)
);
CREATE TABLE "book" (
  "book_id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "author_id" INTEGER NOT NULL,
  "title" NVARCHAR(200) DEFAULT 'Untitled ''draft''' NOT NULL,
  "isbn" CHAR(13),
  "price" NUMERIC(10,2) CHECK (price >= 0),
  "pages" SMALLINT UNSIGNED DEFAULT 100,
  "weight" DOUBLE PRECISION,
  "cover" BLOB,
  "meta" JSON DEFAULT '{}',
  "guid" UUID,
  "published" TIMESTAMP(3),
  "starts_at" TIME,
  "anything" ,
  "odd" MONEY,
  "title_lower" TEXT GENERATED ALWAYS AS (lower(title)) VIRTUAL,
  "price_cents" INTEGER GENERATED ALWAYS AS (CAST(price * 100 AS INTEGER)) STORED,
  "updated" TEXT DEFAULT (datetime('now')),
  CONSTRAINT "book_author_id_title_key" UNIQUE ("author_id", "title"),
  CONSTRAINT "book_isbn_key" UNIQUE ("isbn"),
  CONSTRAINT "book_check" CHECK (pages IS NULL OR pages > 0),
  CONSTRAINT "book_author_fk" FOREIGN KEY ("author_id") REFERENCES "author" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
);
CREATE TABLE "book_tag" (
  "book_id" INTEGER NOT NULL,
  "tag_name" TEXT NOT NULL,
  "tag_lang" TEXT NOT NULL,
  PRIMARY KEY ("book_id", "tag_name", "tag_lang"),
  CONSTRAINT "book_tag_book_id_fkey" FOREIGN KEY ("book_id") REFERENCES "book" ("book_id") ON DELETE NO ACTION ON UPDATE CASCADE,
  CONSTRAINT "book_tag_tag_name_tag_lang_fkey" FOREIGN KEY ("tag_name", "tag_lang") REFERENCES "tag" ("name", "lang") ON DELETE NO ACTION ON UPDATE NO ACTION DEFERRABLE INITIALLY DEFERRED
);
CREATE TABLE "strict_counter" (
  "id" INTEGER NOT NULL PRIMARY KEY DESC,
  "n" INTEGER DEFAULT 0 NOT NULL,
  "label" TEXT
) STRICT;
CREATE TABLE "tag" (
  "name" TEXT NOT NULL,
  "lang" TEXT DEFAULT 'en' NOT NULL,
  "weight" INT DEFAULT -1,
  PRIMARY KEY ("name", "lang")
) WITHOUT ROWID;
-- post-data
CREATE UNIQUE INDEX "author_email_lower" ON "author" ((lower(email))) WHERE email IS NOT NULL;
CREATE INDEX "book price idx" ON "book" ("price") WHERE price > 10;
CREATE INDEX "book_title_idx" ON "book" ("title" COLLATE "NOCASE" DESC, "isbn");
CREATE VIEW "author_stats" ("author", "books") AS SELECT a.name, count(b.book_id) FROM author a LEFT JOIN book b ON b.author_id = a.id GROUP BY a.id;
CREATE VIEW "cheap_books" AS SELECT book_id, title FROM book WHERE price < 10;
CREATE TRIGGER author_guard BEFORE DELETE ON author
BEGIN
    SELECT RAISE(ABORT, 'author has books') WHERE EXISTS (SELECT 1 FROM book WHERE author_id = OLD.id);
END;
CREATE TRIGGER book_touch AFTER UPDATE OF title, price ON book
FOR EACH ROW WHEN NEW.price IS NOT OLD.price
BEGIN
    UPDATE book SET updated = datetime('now') WHERE book_id = NEW.book_id;
END;
CREATE TRIGGER cheap_books_insert INSTEAD OF INSERT ON cheap_books
BEGIN
    INSERT INTO book (author_id, title, price) VALUES (1, NEW.title, 5);
END;
PRAGMA user_version = 7;
DELETE FROM sqlite_sequence WHERE name = 'book' AND seq < 2;
INSERT INTO sqlite_sequence (name, seq) SELECT 'book', 2 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'book');

-- translation report: 0 item(s)
