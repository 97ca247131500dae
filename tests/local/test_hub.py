from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from toolwire.models.local import LocalModel

SHOW = (
    "from toolwire.models import get_model\n"
    "from toolwire import UsageError\n"
    "try:\n"
    "    print(get_model('local:' + __import__('sys').argv[1]).engine.path)\n"
    "except UsageError as error:\n"
    "    print('error:', error)\n"
)


def run_offline(spec: str, cache: Path) -> str:
    env = {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", SHOW, spec], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_hub_repo_loads_from_the_cache_offline(tmp_path: Path, smol: LocalModel) -> None:
    repo = tmp_path / "hub" / "models--someone--tiny-gguf"
    revision = "0123456789abcdef0123456789abcdef01234567"
    snapshot = repo / "snapshots" / revision
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(revision)
    shutil.copyfile(smol.engine.path, snapshot / "tiny-q4.gguf")
    found = run_offline("someone/tiny-gguf:tiny-q4.gguf", tmp_path / "hub")
    assert found == str(snapshot / "tiny-q4.gguf")
    assert run_offline("someone/tiny-gguf:other.gguf", tmp_path / "hub").startswith(
        "error: cannot get other.gguf from the Hugging Face repo someone/tiny-gguf"
    )
    assert "name the file: local:someone/tiny-gguf:FILENAME.gguf" in run_offline(
        "someone/tiny-gguf", tmp_path / "hub"
    )
