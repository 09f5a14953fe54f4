"""Build the all-MiniLM-L6-v2 ONNX graph that mcp-memory-service loads, offline.

Issue 29, "Systems": mcp-memory-service embeds with an ONNX MiniLM that it downloads at
run time from a host this project cannot reach. Its loader
(mcp_memory_service/embeddings/onnx_embeddings.py, 12.4.0) looks for
``$HOME/.cache/mcp_memory/onnx_models/all-MiniLM-L6-v2/onnx/{model.onnx,tokenizer.json}``
and skips the download when both exist. This script writes both from the MiniLM folder
this project fetches (``cargo run -q -p crabpath-embed -- fetch-model``): the BERT graph
is written node by node with the ``onnx`` package from ``model.safetensors`` (no torch),
with the graph's input names (input_ids, attention_mask, token_type_ids) and output
(last_hidden_state) that the loader feeds and mean-pools.

The tokenizer keeps the model folder's vocabulary and normalisation, with truncation at
256 tokens (sentence-transformers' ``max_seq_length`` in sentence_bert_config.json) and no
fixed padding, so the service's vectors are sentence-transformers' vectors.

Usage: python minilm_onnx.py MODEL_DIR OUT_DIR      (build)
       python minilm_onnx.py --check OUT_DIR        (compare with REFERENCE below)
"""

import json
import struct
import sys
from pathlib import Path

import numpy as np

HIDDEN = 384
HEADS = 12
LAYERS = 6
EPS = 1e-12  # config.json layer_norm_eps
MAX_TOKENS = 256  # sentence_bert_config.json max_seq_length

# sentence-transformers 6.2.0 (torch 2.15 CPU) on a local all-MiniLM-L6-v2 copy, the
# first 6 components of each normalised vector; --check wants the ONNX graph within 2e-5
# of each (cosine over all 384 components was >= 0.99999 when this was written).
REFERENCE = {
    "Caroline went to the LGBTQ support group on 7 May 2023.": [-0.062869, 0.000315, -0.01066, 0.082236, -0.058818, 0.048739],
    "What did Melanie paint recently?": [-0.025442, 0.02765, 0.049341, 0.012899, 0.026348, 0.064691],
    "hello": [-0.062772, 0.054959, 0.052165, 0.08579, -0.082749, -0.074573],
}


def read_safetensors(path):
    """The float32 tensors of a .safetensors file, by name (its format: an 8-byte
    little-endian header length, a JSON header of dtype/shape/offsets, raw data)."""
    raw = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] != "F32":
            continue
        start, end = meta["data_offsets"]
        out[name] = np.frombuffer(raw[base + start : base + end], dtype="<f4").reshape(meta["shape"])
    return out


def build_graph(w):
    """The BertModel forward pass (transformers' modeling_bert, absolute positions, exact
    GELU) as an opset-17 ONNX graph."""
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def linear(x, prefix, out):
        t = const(prefix + ".wT", np.ascontiguousarray(w[prefix + ".weight"].T))
        b = const(prefix + ".b", w[prefix + ".bias"])
        return node("Add", [node("MatMul", [x, t], out + "_mm"), b], out)

    def layer_norm(x, prefix, out):
        g = const(prefix + ".g", w[prefix + ".weight"])
        b = const(prefix + ".beta", w[prefix + ".bias"])
        return node("LayerNormalization", [x, g, b], out, axis=-1, epsilon=EPS)

    # Embeddings: word + position + token type, then LayerNorm.
    seq = node("Gather", [node("Shape", ["input_ids"], "ids_shape"), const("one_i", np.array(1))], "seq_len")
    pos = node("Range", [const("zero_i", np.array(0)), seq, const("step_i", np.array(1))], "pos_ids")
    e = node("Add", [
        node("Gather", [const("word_emb", w["embeddings.word_embeddings.weight"]), "input_ids"], "e_word"),
        node("Gather", [const("pos_emb", w["embeddings.position_embeddings.weight"]), pos], "e_pos"),
    ], "e_wp")
    e = node("Add", [e, node("Gather", [const("type_emb", w["embeddings.token_type_embeddings.weight"]),
                                         "token_type_ids"], "e_type")], "e_sum")
    x = layer_norm(e, "embeddings.LayerNorm", "h0")

    # Additive attention mask [B,1,1,S]: 0 where attended, float32 min where padded.
    m = node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    m = node("Unsqueeze", [m, const("mask_axes", np.array([1, 2]))], "mask_4d")
    m = node("Sub", [const("one_f", np.array(1.0, dtype=np.float32)), m], "mask_inv")
    mask = node("Mul", [m, const("neg_big", np.array(np.finfo(np.float32).min, dtype=np.float32))], "mask_add")

    head_dim = HIDDEN // HEADS
    split = const("split_shape", np.array([0, 0, HEADS, head_dim]))
    merge = const("merge_shape", np.array([0, 0, HIDDEN]))
    scale = const("scale", np.array(1.0 / np.sqrt(head_dim), dtype=np.float32))
    half = const("half", np.array(0.5, dtype=np.float32))
    one = "one_f"
    rsqrt2 = const("rsqrt2", np.array(1.0 / np.sqrt(2.0), dtype=np.float32))
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        heads = {}
        for part, perm in (("query", [0, 2, 1, 3]), ("key", [0, 2, 3, 1]), ("value", [0, 2, 1, 3])):
            y = linear(x, f"{p}.attention.self.{part}", f"l{i}_{part}")
            y = node("Reshape", [y, split], f"l{i}_{part}_split")
            heads[part] = node("Transpose", [y], f"l{i}_{part}_t", perm=perm)
        s = node("MatMul", [heads["query"], heads["key"]], f"l{i}_scores")
        s = node("Add", [node("Mul", [s, scale], f"l{i}_scaled"), mask], f"l{i}_masked")
        a = node("Softmax", [s], f"l{i}_probs", axis=-1)
        c = node("MatMul", [a, heads["value"]], f"l{i}_ctx")
        c = node("Transpose", [c], f"l{i}_ctx_t", perm=[0, 2, 1, 3])
        c = node("Reshape", [c, merge], f"l{i}_ctx_m")
        c = linear(c, f"{p}.attention.output.dense", f"l{i}_attn_out")
        x = layer_norm(node("Add", [c, x], f"l{i}_attn_res"), f"{p}.attention.output.LayerNorm", f"l{i}_attn_ln")
        f = linear(x, f"{p}.intermediate.dense", f"l{i}_inter")
        g = node("Erf", [node("Mul", [f, rsqrt2], f"l{i}_gelu_s")], f"l{i}_gelu_erf")
        g = node("Mul", [node("Mul", [f, half], f"l{i}_gelu_h"), node("Add", [g, one], f"l{i}_gelu_1")], f"l{i}_gelu")
        f = linear(g, f"{p}.output.dense", f"l{i}_ffn_out")
        x = layer_norm(node("Add", [f, x], f"l{i}_ffn_res"), f"{p}.output.LayerNorm", f"l{i}_out")
    nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="last_hidden_state"))

    ids = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "seq"])
           for n in ("input_ids", "attention_mask", "token_type_ids")]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", HIDDEN])
    graph = helper.make_graph(nodes, "all-MiniLM-L6-v2", ids, [out], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="crabpath-peers")


def build(model_dir, out_dir):
    """Write OUT_DIR/model.onnx, tokenizer.json, tokenizer_config.json, config.json and
    special_tokens_map.json from MODEL_DIR."""
    import onnx

    model_dir, out_dir = Path(model_dir), Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    model = build_graph(read_safetensors(model_dir / "model.safetensors"))
    onnx.checker.check_model(model)
    onnx.save(model, str(out_dir / "model.onnx"))
    tok = json.loads((model_dir / "tokenizer.json").read_text())
    tok["truncation"] = {"direction": "Right", "max_length": MAX_TOKENS, "strategy": "LongestFirst", "stride": 0}
    tok["padding"] = None
    (out_dir / "tokenizer.json").write_text(json.dumps(tok))
    # fastembed (mcp-server-qdrant) also reads these three; its truncation limit is
    # tokenizer_config.json's model_max_length, set to the same 256 tokens.
    cfg = json.loads((model_dir / "tokenizer_config.json").read_text())
    cfg["model_max_length"] = MAX_TOKENS
    (out_dir / "tokenizer_config.json").write_text(json.dumps(cfg))
    for name in ("config.json", "special_tokens_map.json"):
        (out_dir / name).write_bytes((model_dir / name).read_bytes())


def embed(out_dir, texts):
    """Vectors of `texts` the way mcp-memory-service 12.4.0's ONNXEmbeddingModel.encode
    computes them: masked mean of last_hidden_state, L2-normalised."""
    import onnxruntime as ort
    from tokenizers import Tokenizer

    out_dir = Path(out_dir)
    sess = ort.InferenceSession(str(out_dir / "model.onnx"), providers=["CPUExecutionProvider"])
    tok = Tokenizer.from_file(str(out_dir / "tokenizer.json"))
    vecs = []
    for t in texts:
        enc = tok.encode(t)
        feed = {
            "input_ids": np.array([enc.ids], dtype=np.int64),
            "attention_mask": np.array([enc.attention_mask], dtype=np.int64),
            "token_type_ids": np.array([enc.type_ids], dtype=np.int64),
        }
        h = sess.run(None, feed)[0][0]
        v = h.mean(axis=0)
        vecs.append(v / np.linalg.norm(v))
    return np.array(vecs)


def check(out_dir):
    """Exit non-zero unless the graph reproduces REFERENCE within 2e-5 per component."""
    texts = list(REFERENCE)
    got = embed(out_dir, texts)
    worst = 0.0
    for t, v in zip(texts, got):
        ref = np.array(REFERENCE[t], dtype=np.float32)
        worst = max(worst, float(np.abs(v[: len(ref)] - ref).max()))
    if worst > 2e-5:
        sys.exit(f"minilm_onnx: {out_dir}/model.onnx differs from sentence-transformers by {worst:.2e} (want <= 2e-5)")
    print(f"minilm_onnx: {out_dir}/model.onnx matches sentence-transformers (max difference {worst:.1e})")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check":
        check(sys.argv[2])
    elif len(sys.argv) == 3:
        build(sys.argv[1], sys.argv[2])
    else:
        sys.exit("usage: minilm_onnx.py MODEL_DIR OUT_DIR | minilm_onnx.py --check OUT_DIR")
