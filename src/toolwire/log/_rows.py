"""A query's rows as records, each column going to the field of its name, so a reader's SELECT
names every field once and no position is counted by hand."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def read_rows(
    db: sqlite3.Connection,
    query: str,
    params: Sequence[Any],
    build: Callable[..., T],
    convert: Mapping[str, Callable[[Any], Any]] | None = None,
) -> list[T]:
    """`build(column=value, ...)` for each row of `query`, its columns named as `build`'s
    parameters (`AS` where the table's differ). `convert` reads a column's stored value (JSON text,
    SQLite's 0 and 1 for booleans); NULL stays None."""
    convert = convert or {}
    cursor = db.execute(query, params)
    names = [column[0] for column in cursor.description]
    return [
        build(
            **{
                name: value if value is None or name not in convert else convert[name](value)
                for name, value in zip(names, row, strict=True)
            }
        )
        for row in cursor
    ]
