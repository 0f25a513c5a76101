"""The model's (de)serialization is deterministic and lossless."""

from __future__ import annotations

from dbjson import model as m


def sample() -> m.Database:
    col = m.Column(
        name="id",
        ordinal=1,
        type=m.Type(kind="integer", bits=24, unsigned=True),
        native=m.NativeType(engine="mysql", raw="mediumint unsigned"),
        nullable=False,
        identity=m.Identity(kind="auto_increment", next_value=42),
    )
    t = m.Table(
        name="t",
        columns=(col,),
        primary_key=m.PrimaryKey(columns=("id",)),
        options={"mysql": {"engine": "InnoDB", "charset": "utf8mb4"}},
    )
    return m.Database(
        source=m.Source(engine="mysql", server_version="9.1.0", database="d", dumped_at="2026-01-01T00:00:00Z"),
        schemas=(m.Schema(name="d", tables=(t,)),),
    )


def test_roundtrip_is_identity_and_byte_stable() -> None:
    db = sample()
    text = db.to_json()
    again = m.Database.from_json(text, validate=False)
    assert again == db
    assert again.to_json() == text
    assert text.endswith("\n")
    assert text.startswith('{\n  "format": "dbjson-schema"')


def test_defaults_are_omitted() -> None:
    d = sample().to_dict()
    col = d["schemas"][0]["tables"][0]["columns"][0]
    assert "invisible" not in col and "comment" not in col
    assert col["type"] == {"kind": "integer", "bits": 24, "unsigned": True}
