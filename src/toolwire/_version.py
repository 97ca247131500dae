"""The installed distribution's version, read only when asked (it costs a metadata lookup)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def installed_version() -> str:
    try:
        return version("toolwire")
    except PackageNotFoundError:
        return "0"
