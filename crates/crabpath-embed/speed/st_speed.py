"""Times sentence-transformers (PyTorch, CPU) on the texts of a JSON file, for the
side-by-side speed comparison of all-MiniLM-L6-v2 or all-mpnet-base-v2 (compare.sh beside
this file runs it).

Usage: st_speed.py MODEL_DIR TEXTS_JSON PARAGRAPHS QUERIES REPEAT THREADS

TEXTS_JSON is {"paragraphs": [...], "queries": [...]} (`bench embed --dump-texts`); the
first PARAGRAPHS and QUERIES texts are timed, REPEAT times each (the best is printed),
with THREADS intra-op threads, the model's own max_seq_length (its
sentence_bert_config.json: 256 for MiniLM, 384 for MPNet), batch size 32
(sentence-transformers' default, which
sorts a call's texts by length and pads each batch to its longest), in f32. Prints one
line per set in the format of `crabpath-embed bench-speed`.
"""
import json
import sys
import time


def main():
    model_dir, texts_path = sys.argv[1], sys.argv[2]
    n_par, n_q, repeat, threads = (int(x) for x in sys.argv[3:7])
    import torch

    torch.set_num_threads(threads)
    torch.set_num_interop_threads(1)
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_dir, device="cpu")
    max_len = model.max_seq_length
    dim = model.get_sentence_embedding_dimension()
    with open(texts_path, encoding="utf-8") as f:
        data = json.load(f)
    sets = [("paragraphs", data["paragraphs"][:n_par]), ("queries", data["queries"][:n_q])]
    model.encode(sets[0][1][:4], batch_size=32)  # warm-up
    tok = model.tokenizer
    for label, texts in sets:
        tokens = sum(
            min(len(tok(t, add_special_tokens=True)["input_ids"]), max_len) for t in texts
        )
        best = float("inf")
        for _ in range(max(repeat, 1)):
            t0 = time.perf_counter()
            with torch.inference_mode():
                v = model.encode(texts, batch_size=32, convert_to_numpy=True)
            best = min(best, time.perf_counter() - t0)
            assert v.shape == (len(texts), dim)
        print(
            f"{label}: {len(texts)} texts, {tokens / max(len(texts), 1):.1f} tokens/text, "
            f"best {best:.3f} s, {len(texts) / best:.1f} texts/s, {tokens / best:.0f} tokens/s"
        )
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"{torch.backends.cpu.get_cpu_capability()}")


if __name__ == "__main__":
    main()
