"""The run log's one reader of rows: columns go to fields by name, converted unless NULL."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from toolwire.log._rows import read_rows


@dataclass(frozen=True, kw_only=True)
class Row:
    name: str
    flag: bool
    data: Any


@pytest.fixture
def db() -> Iterator[sqlite3.Connection]:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (n INTEGER, label TEXT, flag INTEGER, data TEXT)")
    db.executemany(
        "INSERT INTO t VALUES (?, ?, ?, ?)", [(2, "b", 0, None), (1, "a", 1, '{"x": [1]}')]
    )
    yield db
    db.close()


def test_columns_go_to_fields_by_name_converted_and_null_stays_none(
    db: sqlite3.Connection,
) -> None:
    rows = read_rows(
        db,
        "SELECT data, flag, label AS name FROM t WHERE n >= ? ORDER BY n",
        (1,),
        Row,
        {"flag": bool, "data": json.loads},
    )
    assert rows == [
        Row(name="a", flag=True, data={"x": [1]}),
        Row(name="b", flag=False, data=None),
    ]


def test_a_column_no_field_takes_is_refused(db: sqlite3.Connection) -> None:
    with pytest.raises(TypeError, match="label"):
        read_rows(db, "SELECT label, flag, data FROM t", (), Row)
