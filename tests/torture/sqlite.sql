-- SQLite reflection torture test: every feature the SQLite reflector must read back.
PRAGMA user_version = 7;

CREATE TABLE "author" (
    id INTEGER PRIMARY KEY,
    name VARCHAR(100) NOT NULL COLLATE NOCASE,
    email TEXT UNIQUE,
    born DATE,
    rating REAL DEFAULT 2.5,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT author_name_nonempty CHECK (length(name) > 0)
);

CREATE TABLE [book] (
    [book_id] INTEGER PRIMARY KEY AUTOINCREMENT,
    `author_id` INTEGER NOT NULL CONSTRAINT book_author_fk REFERENCES author (id) ON DELETE CASCADE,
    title NVARCHAR(200) NOT NULL DEFAULT 'Untitled ''draft''',
    isbn CHAR(13),
    price NUMERIC(10,2) CHECK (price >= 0),
    pages SMALLINT UNSIGNED DEFAULT +100,
    weight DOUBLE PRECISION,
    cover BLOB,
    meta JSON DEFAULT ('{}'),
    guid UUID,
    published TIMESTAMP(3),
    starts_at TIME,
    anything,
    odd MONEY,
    title_lower TEXT GENERATED ALWAYS AS (lower(title)) VIRTUAL,
    price_cents INTEGER AS (CAST(price * 100 AS INTEGER)) STORED,
    updated TEXT DEFAULT (datetime('now')),
    CHECK (pages IS NULL OR pages > 0),
    CONSTRAINT book_isbn_key UNIQUE (isbn),
    UNIQUE (author_id, title)
);

CREATE TABLE tag (
    name TEXT NOT NULL,
    lang TEXT NOT NULL DEFAULT 'en',
    weight INT DEFAULT -1,
    PRIMARY KEY (name, lang)
) WITHOUT ROWID;

CREATE TABLE book_tag (
    book_id INTEGER NOT NULL REFERENCES book ON UPDATE CASCADE,
    tag_name TEXT NOT NULL,
    tag_lang TEXT NOT NULL,
    FOREIGN KEY (tag_name, tag_lang) REFERENCES tag (name, lang) DEFERRABLE INITIALLY DEFERRED,
    PRIMARY KEY (book_id, tag_name, tag_lang)
);

CREATE TABLE strict_counter (
    id INTEGER PRIMARY KEY DESC,
    n INTEGER NOT NULL DEFAULT 0,
    label TEXT
) STRICT;

CREATE INDEX book_title_idx ON book (title COLLATE NOCASE DESC, isbn);
CREATE UNIQUE INDEX author_email_lower ON author (lower(email)) WHERE email IS NOT NULL;
CREATE INDEX "book price idx" ON book (price) WHERE price > 10;

CREATE VIEW cheap_books AS SELECT book_id, title FROM book WHERE price < 10;
CREATE VIEW author_stats (author, books) AS
    SELECT a.name, count(b.book_id) FROM author a LEFT JOIN book b ON b.author_id = a.id GROUP BY a.id;

CREATE TRIGGER book_touch AFTER UPDATE OF title, price ON book
FOR EACH ROW WHEN NEW.price IS NOT OLD.price
BEGIN
    UPDATE book SET updated = datetime('now') WHERE book_id = NEW.book_id;
END;

CREATE TRIGGER author_guard BEFORE DELETE ON author
BEGIN
    SELECT RAISE(ABORT, 'author has books') WHERE EXISTS (SELECT 1 FROM book WHERE author_id = OLD.id);
END;

CREATE TRIGGER cheap_books_insert INSTEAD OF INSERT ON cheap_books
BEGIN
    INSERT INTO book (author_id, title, price) VALUES (1, NEW.title, 5);
END;

INSERT INTO author (id, name, email) VALUES (1, 'Ann', 'ann@example.com');
INSERT INTO book (author_id, title, price) VALUES (1, 'First', 12.5), (1, 'Second', 7);
DELETE FROM book WHERE title = 'Second';
