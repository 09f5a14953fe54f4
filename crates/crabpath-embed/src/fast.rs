//! A lean CPU forward pass of the BERT encoder, numerically equivalent to PyTorch's
//! (Hugging Face `BertModel`) for inference, and of its MPNet variant (`MPNetModel`:
//! positions from `padding_idx + 1`, no token types, and a relative-position bias added to
//! every layer's attention scores — issue 28, item 4).
//!
//! Differences that make it faster, none of which changes the mathematics:
//! * **No padding.** The tokens of all texts of a batch are stacked into one
//!   `tokens × hidden` matrix for the dense layers, and attention runs per text
//!   over that text's own tokens, so no work goes to `[PAD]` positions (which the
//!   attention mask removes exactly anyway).
//! * **Fused kernels**: Q, K and V come from one matrix product; bias + GELU,
//!   bias + residual + LayerNorm and the softmax are single passes over each row;
//!   the attention scale is folded into the product.
//! * Buffers are allocated once per batch and reused by every layer.
//! * GELU uses erf to within 1.5e-7 (Abramowitz–Stegun 7.1.26, the same formula
//!   PyTorch's vectorised CPU erf uses), and the exponential is a range-reduced
//!   polynomial (relative error about 1e-7); both vectorise.

use gemm::Parallelism;
use rayon::prelude::*;
use safetensors::{Dtype, SafeTensors};

use crate::error::{EmbedError, Result};
use crate::spec::Arch;

/// Weights of one encoder layer; matrices are stored transposed (`in × out`,
/// row-major) so that `x · W` is a plain row-major product.
struct Layer {
    w_qkv: Vec<f32>,
    b_qkv: Vec<f32>,
    w_o: Vec<f32>,
    b_o: Vec<f32>,
    ln1_g: Vec<f32>,
    ln1_b: Vec<f32>,
    w_i: Vec<f32>,
    b_i: Vec<f32>,
    w_out: Vec<f32>,
    b_out: Vec<f32>,
    ln2_g: Vec<f32>,
    ln2_b: Vec<f32>,
}

/// Shapes of the encoder.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Dims {
    pub hidden: usize,
    pub heads: usize,
    pub intermediate: usize,
    pub layers: usize,
    pub vocab: usize,
    pub max_positions: usize,
    pub eps: f32,
    pub arch: Arch,
    /// The model's name, for errors.
    pub name: &'static str,
}

/// MPNet's relative-position buckets (`MPNetEncoder.relative_position_bucket` with
/// `num_buckets = 32`, `max_distance = 128`, transformers 5.24): half the buckets for each
/// direction; distances below 8 get their own bucket, longer ones share logarithmically
/// wider buckets up to the last. `rel` is the key position minus the query position. The
/// logarithm is taken in f32, as PyTorch does on an f32 tensor, so that distances 16, 32
/// and 64 land where PyTorch puts them.
const REL_BUCKETS: usize = 32;
const REL_MAX_DISTANCE: f32 = 128.0;

fn relative_bucket(rel: i64) -> usize {
    let half = REL_BUCKETS / 2;
    let n = -rel;
    let base = if n < 0 { half } else { 0 };
    let n = n.unsigned_abs() as usize;
    let max_exact = half / 2;
    if n < max_exact {
        return base + n;
    }
    let scale = (REL_MAX_DISTANCE / max_exact as f32).ln();
    let large = max_exact
        + ((n as f32 / max_exact as f32).ln() / scale * (half - max_exact) as f32) as usize;
    base + large.min(half - 1)
}

/// The attention bias of every head for every relative position `-span ..= span`
/// (computed once at load; PyTorch computes it once per forward pass and shares it across
/// the layers): `table[head · (2·span + 1) + rel + span]`.
struct RelativeBias {
    span: usize,
    table: Vec<f32>,
}

impl RelativeBias {
    /// From `encoder.relative_attention_bias.weight` (`buckets × heads`).
    fn new(weights: &[f32], heads: usize, span: usize) -> Self {
        let width = 2 * span + 1;
        let mut table = vec![0f32; heads * width];
        for r in 0..width {
            let bucket = relative_bucket(r as i64 - span as i64);
            for h in 0..heads {
                table[h * width + r] = weights[bucket * heads + h];
            }
        }
        RelativeBias { span, table }
    }

    /// Adds head `head`'s bias to the `len × len` scores.
    fn add(&self, scores: &mut [f32], len: usize, head: usize) {
        let width = 2 * self.span + 1;
        let row_bias = &self.table[head * width..][..width];
        for (i, row) in scores.chunks_exact_mut(len).enumerate() {
            // rel = j - i, stored at j - i + span
            let start = self.span - i;
            for (s, b) in row.iter_mut().zip(&row_bias[start..start + len]) {
                *s += b;
            }
        }
    }
}

/// The tensor names of one layer's attention block (without `.weight` / `.bias`):
/// Q, K, V, output projection, LayerNorm.
fn attention_names(arch: Arch, p: &str) -> [String; 5] {
    match arch {
        Arch::Bert => [
            format!("{p}.attention.self.query"),
            format!("{p}.attention.self.key"),
            format!("{p}.attention.self.value"),
            format!("{p}.attention.output.dense"),
            format!("{p}.attention.output.LayerNorm"),
        ],
        Arch::MpNet => [
            format!("{p}.attention.attn.q"),
            format!("{p}.attention.attn.k"),
            format!("{p}.attention.attn.v"),
            format!("{p}.attention.attn.o"),
            format!("{p}.attention.LayerNorm"),
        ],
    }
}

/// The BERT encoder with its weights in plain vectors.
pub(crate) struct FastBert {
    d: Dims,
    word: Vec<f32>,
    position: Vec<f32>,
    token_type0: Vec<f32>,
    /// First position id of a text (BERT 0; MPNet `padding_idx + 1` = 2).
    position_offset: usize,
    /// MPNet's relative-position attention bias (BERT: none).
    relative: Option<RelativeBias>,
    emb_ln_g: Vec<f32>,
    emb_ln_b: Vec<f32>,
    layers: Vec<Layer>,
    workspace: std::sync::Mutex<Workspace>,
}

/// Activation buffers of one forward pass, kept for the next.
#[derive(Default)]
struct Workspace {
    x: Vec<f32>,
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    tmp: Vec<f32>,
    act: Vec<f32>,
}

thread_local! {
    /// Attention scores of one head (`len × len`), per worker thread.
    static SCORES: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `v` resized to `n` (contents unspecified: every user overwrites it).
fn resize(v: &mut Vec<f32>, n: usize) -> &mut [f32] {
    if v.len() < n {
        v.resize(n, 0.0);
    }
    &mut v[..n]
}

/// The tensor `name` (or `bert.name`, `mpnet.name`) of `tensors` as f32 values, checked to
/// have `shape`.
fn take(tensors: &SafeTensors<'_>, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
    let err = |message: String| EmbedError::Inner {
        name: crate::spec::MODEL_NAME.into(),
        message,
    };
    let t = tensors
        .tensor(name)
        .or_else(|_| tensors.tensor(&format!("bert.{name}")))
        .or_else(|_| tensors.tensor(&format!("mpnet.{name}")))
        .map_err(|_| err(format!("model.safetensors has no tensor {name}")))?;
    if t.shape() != shape {
        return Err(err(format!(
            "tensor {name} has shape {:?}, expected {shape:?}",
            t.shape()
        )));
    }
    if t.dtype() != Dtype::F32 {
        return Err(err(format!(
            "tensor {name} is {:?}; only F32 weights are supported",
            t.dtype()
        )));
    }
    Ok(t.data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect())
}

/// `w` is `out × in` row-major (PyTorch's Linear layout); returns `in × out`.
fn transpose(w: &[f32], out: usize, inp: usize) -> Vec<f32> {
    let mut t = vec![0f32; w.len()];
    for o in 0..out {
        for i in 0..inp {
            t[i * out + o] = w[o * inp + i];
        }
    }
    t
}

impl FastBert {
    pub(crate) fn load(tensors: &SafeTensors<'_>, d: Dims) -> Result<Self> {
        let h = d.hidden;
        if d.heads == 0 || !h.is_multiple_of(d.heads) {
            return Err(EmbedError::Inner {
                name: d.name.into(),
                message: format!("hidden size {h} is not a multiple of {} heads", d.heads),
            });
        }
        let inter = d.intermediate;
        let token_type0 = match d.arch {
            Arch::Bert => take(tensors, "embeddings.token_type_embeddings.weight", &[2, h])
                .or_else(|_| take(tensors, "embeddings.token_type_embeddings.weight", &[1, h]))?
                [..h]
                .to_vec(),
            // No token types: adding zeros leaves word + position exactly as they are.
            Arch::MpNet => vec![0f32; h],
        };
        let (position_offset, relative) = match d.arch {
            Arch::Bert => (0, None),
            Arch::MpNet => {
                // RoBERTa-style ids: padding_idx (1) + 1 + the token's index.
                let offset = 2;
                let weights = take(
                    tensors,
                    "encoder.relative_attention_bias.weight",
                    &[REL_BUCKETS, d.heads],
                )?;
                let span = d.max_positions.saturating_sub(offset);
                (offset, Some(RelativeBias::new(&weights, d.heads, span)))
            }
        };
        let mut layers = Vec::with_capacity(d.layers);
        for l in 0..d.layers {
            let p = format!("encoder.layer.{l}");
            let [q_name, k_name, v_name, o_name, ln1_name] = attention_names(d.arch, &p);
            let q = take(tensors, &format!("{q_name}.weight"), &[h, h])?;
            let k = take(tensors, &format!("{k_name}.weight"), &[h, h])?;
            let v = take(tensors, &format!("{v_name}.weight"), &[h, h])?;
            let mut qkv = q;
            qkv.extend_from_slice(&k);
            qkv.extend_from_slice(&v);
            let mut b_qkv = take(tensors, &format!("{q_name}.bias"), &[h])?;
            b_qkv.extend(take(tensors, &format!("{k_name}.bias"), &[h])?);
            b_qkv.extend(take(tensors, &format!("{v_name}.bias"), &[h])?);
            let w_o = take(tensors, &format!("{o_name}.weight"), &[h, h])?;
            let w_i = take(
                tensors,
                &format!("{p}.intermediate.dense.weight"),
                &[inter, h],
            )?;
            let w_out = take(tensors, &format!("{p}.output.dense.weight"), &[h, inter])?;
            layers.push(Layer {
                w_qkv: transpose(&qkv, 3 * h, h),
                b_qkv,
                w_o: transpose(&w_o, h, h),
                b_o: take(tensors, &format!("{o_name}.bias"), &[h])?,
                ln1_g: take(tensors, &format!("{ln1_name}.weight"), &[h])?,
                ln1_b: take(tensors, &format!("{ln1_name}.bias"), &[h])?,
                w_i: transpose(&w_i, inter, h),
                b_i: take(tensors, &format!("{p}.intermediate.dense.bias"), &[inter])?,
                w_out: transpose(&w_out, h, inter),
                b_out: take(tensors, &format!("{p}.output.dense.bias"), &[h])?,
                ln2_g: take(tensors, &format!("{p}.output.LayerNorm.weight"), &[h])?,
                ln2_b: take(tensors, &format!("{p}.output.LayerNorm.bias"), &[h])?,
            });
        }
        Ok(FastBert {
            d,
            word: take(tensors, "embeddings.word_embeddings.weight", &[d.vocab, h])?,
            position: take(
                tensors,
                "embeddings.position_embeddings.weight",
                &[d.max_positions, h],
            )?,
            token_type0,
            position_offset,
            relative,
            emb_ln_g: take(tensors, "embeddings.LayerNorm.weight", &[h])?,
            emb_ln_b: take(tensors, "embeddings.LayerNorm.bias", &[h])?,
            layers,
            workspace: Default::default(),
        })
    }

    /// Runs the encoder over `seqs` (token ids, no padding) and returns, per
    /// sequence, the mean of its last hidden states, L2-normalised.
    pub(crate) fn embed(&self, seqs: &[&[u32]]) -> Result<Vec<Vec<f32>>> {
        let h = self.d.hidden;
        let inter = self.d.intermediate;
        let mut offsets = Vec::with_capacity(seqs.len() + 1);
        offsets.push(0usize);
        for s in seqs {
            if s.len() + self.position_offset > self.d.max_positions {
                return Err(EmbedError::Inner {
                    name: self.d.name.into(),
                    message: format!(
                        "{} tokens exceed the model's {} positions",
                        s.len(),
                        self.d.max_positions - self.position_offset
                    ),
                });
            }
            if let Some(&bad) = s.iter().find(|&&id| id as usize >= self.d.vocab) {
                return Err(EmbedError::Inner {
                    name: self.d.name.into(),
                    message: format!("token id {bad} outside the vocabulary"),
                });
            }
            offsets.push(offsets[offsets.len() - 1] + s.len());
        }
        let total = offsets[seqs.len()];
        if total == 0 {
            return Ok(seqs.iter().map(|_| vec![0f32; h]).collect());
        }

        // Embeddings: word + position (from the model's first position id) + token type 0,
        // then LayerNorm.
        // Scratch buffers live across calls (fresh pages cost more than the work
        // of the small kernels); a concurrent caller gets its own.
        let mut ws = self
            .workspace
            .lock()
            .map(|mut w| std::mem::take(&mut *w))
            .unwrap_or_default();
        let Workspace {
            x,
            qkv,
            ctx,
            tmp,
            act,
        } = &mut ws;
        let x = resize(x, total * h);
        {
            let mut rows: Vec<(&mut [f32], u32, usize)> = Vec::with_capacity(total);
            let mut rest = &mut *x;
            for s in seqs {
                for (pos, &id) in s.iter().enumerate() {
                    let (row, tail) = rest.split_at_mut(h);
                    rows.push((row, id, pos + self.position_offset));
                    rest = tail;
                }
            }
            rows.par_iter_mut().for_each(|(row, id, pos)| {
                let w = &self.word[*id as usize * h..][..h];
                let p = &self.position[*pos * h..][..h];
                for i in 0..h {
                    row[i] = w[i] + p[i] + self.token_type0[i];
                }
                layer_norm(row, &self.emb_ln_g, &self.emb_ln_b, self.d.eps);
            });
        }

        let qkv = resize(qkv, total * 3 * h);
        let ctx = resize(ctx, total * h);
        let tmp = resize(tmp, total * h);
        let act = resize(act, total * inter);
        for layer in &self.layers {
            matmul(qkv, x, &layer.w_qkv, total, h, 3 * h);
            add_bias_rows(qkv, &layer.b_qkv);
            self.attention(qkv, ctx, &offsets);
            matmul(tmp, ctx, &layer.w_o, total, h, h);
            residual_layer_norm(x, tmp, &layer.b_o, &layer.ln1_g, &layer.ln1_b, self.d.eps);
            matmul(act, x, &layer.w_i, total, h, inter);
            bias_gelu_rows(act, &layer.b_i);
            matmul(tmp, act, &layer.w_out, total, inter, h);
            residual_layer_norm(x, tmp, &layer.b_out, &layer.ln2_g, &layer.ln2_b, self.d.eps);
        }
        let pooled = offsets
            .windows(2)
            .map(|w| mean_pool_normalise(&x[w[0] * h..w[1] * h], h))
            .collect();
        if let Ok(mut w) = self.workspace.lock() {
            *w = ws;
        }
        Ok(pooled)
    }

    /// Multi-head self-attention of each sequence over its own tokens; writes the
    /// per-head contexts side by side into `ctx` (`tokens × hidden`).
    fn attention(&self, qkv: &[f32], ctx: &mut [f32], offsets: &[usize]) {
        let h = self.d.hidden;
        let heads = self.d.heads;
        let hd = h / heads;
        let scale = 1.0 / (hd as f32).sqrt();
        let mut chunks: Vec<(&mut [f32], usize, usize)> = Vec::with_capacity(offsets.len());
        let mut rest = ctx;
        for w in offsets.windows(2) {
            let len = w[1] - w[0];
            let (c, tail) = rest.split_at_mut(len * h);
            chunks.push((c, w[0], len));
            rest = tail;
        }
        chunks.par_iter_mut().for_each(|(c, start, len)| {
            let len = *len;
            if len == 0 {
                return;
            }
            let rows = &qkv[*start * 3 * h..(*start + len) * 3 * h];
            SCORES.with_borrow_mut(|scores| {
                let scores = resize(scores, len * len);
                for head in 0..heads {
                    let q = &rows[head * hd..];
                    let k = &rows[h + head * hd..];
                    let v = &rows[2 * h + head * hd..];
                    // scores = scale · Q Kᵀ  (len × len)
                    if len * len <= SMALL_SCORES {
                        small_scores(scores, len, hd, q, k, 3 * h, scale);
                    } else {
                        gemm_strided(
                            scores,
                            len,
                            len,
                            hd,
                            len,
                            (q, 3 * h, 1),
                            (k, 1, 3 * h),
                            scale,
                            Parallelism::None,
                        );
                    }
                    if let Some(relative) = &self.relative {
                        relative.add(scores, len, head);
                    }
                    softmax_rows(scores, len);
                    // context = P V  (len × hd), written at column head·hd.
                    gemm_strided(
                        &mut c[head * hd..],
                        len,
                        hd,
                        len,
                        h,
                        (scores, len, 1),
                        (v, 3 * h, 1),
                        1.0,
                        Parallelism::None,
                    );
                }
            });
        });
    }
}

fn parallelism() -> Parallelism {
    let n = rayon::current_num_threads();
    if n > 1 {
        Parallelism::Rayon(n)
    } else {
        Parallelism::None
    }
}

/// `dst (m × n) = a (m × k) · b (k × n)`, all row-major and contiguous, on all workers.
fn matmul(dst: &mut [f32], a: &[f32], b: &[f32], m: usize, k: usize, n: usize) {
    gemm_strided(dst, m, n, k, n, (a, k, 1), (b, n, 1), 1.0, parallelism());
}

/// `dst (m × n, row stride dst_rs) = scale · lhs (m × k) · rhs (k × n)` where
/// each operand is `(slice, row stride, column stride)`.
#[allow(clippy::too_many_arguments)]
fn gemm_strided(
    dst: &mut [f32],
    m: usize,
    n: usize,
    k: usize,
    dst_rs: usize,
    lhs: (&[f32], usize, usize),
    rhs: (&[f32], usize, usize),
    scale: f32,
    par: Parallelism,
) {
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    // The bounds gemm will touch; these are internal invariants, checked always
    // because the call below is unchecked.
    assert!((m - 1) * dst_rs + n <= dst.len(), "gemm dst bounds");
    assert!(
        (m - 1) * lhs.1 + (k - 1) * lhs.2 < lhs.0.len(),
        "gemm lhs bounds"
    );
    assert!(
        (k - 1) * rhs.1 + (n - 1) * rhs.2 < rhs.0.len(),
        "gemm rhs bounds"
    );
    // gemm cuts the inner dimension into blocks whose size it derives from the CPU's
    // detected L1 cache (at least MAX_GEMM_K, at most k), and the block sums are added in
    // that cut: with k above MAX_GEMM_K the last bits would depend on the machine. So the
    // cut is made here, at fixed points (equal blocks of at most MAX_GEMM_K), and gemm
    // sees one block per call: every vector is then the same bits on every machine with
    // the same SIMD kernels (x86-64 with AVX2 and FMA).
    let blocks = k.div_ceil(MAX_GEMM_K);
    let kb = k.div_ceil(blocks);
    for start in (0..k).step_by(kb) {
        let len = kb.min(k - start);
        let first = start == 0;
        // SAFETY: the asserts above keep every index gemm computes from these strides
        // inside the slices (this block's operands start `start` columns of lhs and
        // `start` rows of rhs in, and end by column / row k - 1); dst does not alias lhs
        // or rhs (it is a unique borrow).
        unsafe {
            gemm::gemm(
                m,
                n,
                len,
                dst.as_mut_ptr(),
                1,
                dst_rs as isize,
                !first,
                lhs.0.as_ptr().add(start * lhs.2),
                lhs.2 as isize,
                lhs.1 as isize,
                rhs.0.as_ptr().add(start * rhs.1),
                rhs.2 as isize,
                rhs.1 as isize,
                if first { 0.0 } else { 1.0 },
                scale,
                false,
                false,
                false,
                par,
            );
        }
    }
}

/// The largest inner dimension handed to one `gemm` call: gemm's own blocks of the inner
/// dimension are never shorter (gemm-common 0.19, `cache::kernel_params`: at least 512),
/// so a call with at most this many terms is summed in one block on every machine.
const MAX_GEMM_K: usize = 512;

/// Whether the AVX2+FMA versions of the row kernels can run (checked once).
#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    use std::sync::OnceLock;
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    })
}

/// Defines `$name`, which runs the `#[inline(always)]` body `$generic` compiled
/// for AVX2+FMA when the CPU has them (so that it vectorises 8 lanes wide), else
/// as compiled for the baseline target.
macro_rules! multiversion {
    ($(#[$m:meta])* fn $name:ident / $avx:ident = $generic:ident ($($arg:ident : $ty:ty),*)) => {
        $(#[$m])*
        fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            if has_avx2() {
                // SAFETY: the CPU supports AVX2 and FMA (checked just above).
                unsafe { $avx($($arg),*) };
                return;
            }
            $generic($($arg),*)
        }
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2,fma")]
        fn $avx($($arg: $ty),*) {
            $generic($($arg),*)
        }
    };
}

/// Score matrices of at most this many entries (texts of up to 16 tokens) are computed by
/// [`small_scores`]: gemm 0.19 hands them (`m · n ≤ 16 · 16` with contiguous rows of Q and
/// K) to its "horizontal" kernels, whose sums depend on the SIMD width.
const SMALL_SCORES: usize = 16 * 16;

multiversion!(
    /// `scores (len × len) = scale · Q Kᵀ` for a short text, with the arithmetic of gemm
    /// 0.19's AVX2 horizontal kernel (gemm-common `horizontal_microkernel.rs`, gemm-f32
    /// `fma::f32::reduce_sum`), which computed every committed MiniLM vector of a text of
    /// at most 16 tokens: per entry, eight fused multiply-add lanes over the head dimension
    /// (lane `l` takes the terms `l, l + 8, ...`; a last partial block adds zeros), reduced
    /// as `((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7))`, then multiplied by the scale.
    /// Fixed here, it stays the same bits when gemm runs its AVX-512 kernels (16 lanes)
    /// for the large products. `q` and `k` are rows `stride` apart.
    fn small_scores / small_scores_avx2 = small_scores_generic(
        scores: &mut [f32], len: usize, hd: usize, q: &[f32], k: &[f32], stride: usize, scale: f32)
);

#[inline(always)]
fn small_scores_generic(
    scores: &mut [f32],
    len: usize,
    hd: usize,
    q: &[f32],
    k: &[f32],
    stride: usize,
    scale: f32,
) {
    for i in 0..len {
        let qi = &q[i * stride..][..hd];
        for j in 0..len {
            let kj = &k[j * stride..][..hd];
            let mut acc = [0f32; LANES];
            let mut d = 0;
            while d < hd {
                for l in 0..LANES {
                    let (a, b) = if d + l < hd {
                        (qi[d + l], kj[d + l])
                    } else {
                        (0.0, 0.0)
                    };
                    acc[l] = a.mul_add(b, acc[l]);
                }
                d += LANES;
            }
            let x = [
                acc[0] + acc[4],
                acc[1] + acc[5],
                acc[2] + acc[6],
                acc[3] + acc[7],
            ];
            scores[i * len + j] = scale * ((x[0] + x[2]) + (x[1] + x[3]));
        }
    }
}

const ROWS_PER_TASK: usize = 16;

fn add_bias_rows(x: &mut [f32], bias: &[f32]) {
    let n = bias.len();
    x.par_chunks_mut(n * ROWS_PER_TASK)
        .for_each(|rows| add_bias_block(rows, bias));
}

multiversion!(fn add_bias_block / add_bias_block_avx2 = add_bias_block_generic(rows: &mut [f32], bias: &[f32]));

#[inline(always)]
fn add_bias_block_generic(rows: &mut [f32], bias: &[f32]) {
    for row in rows.chunks_exact_mut(bias.len()) {
        for (v, b) in row.iter_mut().zip(bias) {
            *v += b;
        }
    }
}

fn bias_gelu_rows(x: &mut [f32], bias: &[f32]) {
    let n = bias.len();
    x.par_chunks_mut(n * ROWS_PER_TASK)
        .for_each(|rows| bias_gelu_block(rows, bias));
}

multiversion!(fn bias_gelu_block / bias_gelu_block_avx2 = bias_gelu_block_generic(rows: &mut [f32], bias: &[f32]));

#[inline(always)]
fn bias_gelu_block_generic(rows: &mut [f32], bias: &[f32]) {
    for row in rows.chunks_exact_mut(bias.len()) {
        for (v, b) in row.iter_mut().zip(bias) {
            *v = gelu(*v + b);
        }
    }
}

/// `x ← LayerNorm(x + y + bias)` row by row.
fn residual_layer_norm(x: &mut [f32], y: &[f32], bias: &[f32], g: &[f32], b: &[f32], eps: f32) {
    let n = bias.len();
    x.par_chunks_mut(n * ROWS_PER_TASK)
        .zip(y.par_chunks(n * ROWS_PER_TASK))
        .for_each(|(xs, ys)| residual_ln_block(xs, ys, bias, g, b, eps));
}

multiversion!(fn residual_ln_block / residual_ln_block_avx2 = residual_ln_block_generic(
    xs: &mut [f32], ys: &[f32], bias: &[f32], g: &[f32], b: &[f32], eps: f32));

#[inline(always)]
fn residual_ln_block_generic(
    xs: &mut [f32],
    ys: &[f32],
    bias: &[f32],
    g: &[f32],
    b: &[f32],
    eps: f32,
) {
    let n = bias.len();
    for (row, yr) in xs.chunks_exact_mut(n).zip(ys.chunks_exact(n)) {
        for ((v, yv), bv) in row.iter_mut().zip(yr).zip(bias) {
            *v += yv + bv;
        }
        layer_norm_generic(row, g, b, eps);
    }
}

multiversion!(fn layer_norm / layer_norm_avx2 = layer_norm_generic(row: &mut [f32], g: &[f32], b: &[f32], eps: f32));

#[inline(always)]
fn layer_norm_generic(row: &mut [f32], g: &[f32], b: &[f32], eps: f32) {
    let n = row.len() as f32;
    let mean = sum(row) / n;
    let mut acc = [0f32; LANES];
    let mut chunks = row.chunks_exact(LANES);
    for c in &mut chunks {
        for i in 0..LANES {
            let d = c[i] - mean;
            acc[i] += d * d;
        }
    }
    let rest: f32 = chunks
        .remainder()
        .iter()
        .map(|v| (v - mean) * (v - mean))
        .sum();
    let var = (acc.iter().sum::<f32>() + rest) / n;
    let inv = 1.0 / (var + eps).sqrt();
    for ((v, gv), bv) in row.iter_mut().zip(g).zip(b) {
        *v = (*v - mean) * inv * gv + bv;
    }
}

const LANES: usize = 8;

/// Sum with eight independent accumulators (vectorises).
#[inline(always)]
fn sum(xs: &[f32]) -> f32 {
    let mut acc = [0f32; LANES];
    let mut chunks = xs.chunks_exact(LANES);
    for c in &mut chunks {
        for i in 0..LANES {
            acc[i] += c[i];
        }
    }
    acc.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>()
}

/// Maximum with eight independent lanes (vectorises).
#[inline(always)]
fn max(xs: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; LANES];
    let mut chunks = xs.chunks_exact(LANES);
    for c in &mut chunks {
        for i in 0..LANES {
            acc[i] = if c[i] > acc[i] { c[i] } else { acc[i] };
        }
    }
    chunks
        .remainder()
        .iter()
        .chain(acc.iter())
        .fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m })
}

multiversion!(fn softmax_rows / softmax_rows_avx2 = softmax_rows_generic(rows: &mut [f32], len: usize));

#[inline(always)]
fn softmax_rows_generic(rows: &mut [f32], len: usize) {
    for row in rows.chunks_exact_mut(len) {
        softmax_generic(row);
    }
}

#[inline(always)]
fn softmax_generic(row: &mut [f32]) {
    let m = max(row);
    for v in row.iter_mut() {
        *v = exp(*v - m);
    }
    let inv = 1.0 / sum(row);
    for v in row.iter_mut() {
        *v *= inv;
    }
}

/// Mean of the token rows, then division by the L2 norm (clamped at 1e-12, as
/// sentence-transformers' Normalize does).
fn mean_pool_normalise(rows: &[f32], h: usize) -> Vec<f32> {
    let mut sum = vec![0f32; h];
    let count = rows.len() / h;
    for row in rows.chunks_exact(h) {
        for (s, v) in sum.iter_mut().zip(row) {
            *s += v;
        }
    }
    let count = (count as f32).max(1e-9);
    for s in &mut sum {
        *s /= count;
    }
    let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    for s in &mut sum {
        *s /= norm;
    }
    sum
}

/// e^x for x ≤ 88 (underflows to about 1e-38 below -87), relative error ~1e-7.
#[inline(always)]
fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    const MAGIC: f32 = 12_582_912.0; // 1.5 · 2^23: adding it rounds to an integer
    let x = x.clamp(-87.0, 88.0);
    let shifted = x * LOG2E + MAGIC;
    let n = shifted - MAGIC;
    let ni = shifted.to_bits() as i32 - MAGIC.to_bits() as i32;
    let r = x - n * LN2_HI - n * LN2_LO;
    let z = r * r;
    let mut p = 1.987_569_1e-4f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let e = p * z + r + 1.0;
    e * f32::from_bits(((ni + 127) as u32) << 23)
}

/// GELU with erf: `x/2 · (1 + erf(x/√2))`.
#[inline(always)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// erf to within 1.5e-7 (Abramowitz & Stegun 7.1.26).
#[inline(always)]
fn erf(x: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A1: f32 = 0.254_829_6;
    const A2: f32 = -0.284_496_74;
    const A3: f32 = 1.421_413_7;
    const A4: f32 = -1.453_152;
    const A5: f32 = 1.061_405_4;
    let a = x.abs();
    let t = 1.0 / (1.0 + P * a);
    let poly = ((((A5 * t + A4) * t + A3) * t + A2) * t + A1) * t;
    let y = 1.0 - poly * exp(-a * a);
    y.copysign(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_accurate() {
        let mut worst = 0f64;
        let mut x = -80.0f32;
        while x < 80.0 {
            let want = (x as f64).exp();
            let got = exp(x) as f64;
            worst = worst.max(((got - want) / want).abs());
            x += 0.0137;
        }
        assert!(worst < 3e-7, "exp relative error {worst}");
    }

    #[test]
    fn gelu_is_accurate() {
        let mut worst = 0f64;
        let mut x = -12.0f32;
        while x < 12.0 {
            let xd = x as f64;
            let want = 0.5 * xd * (1.0 + libm_erf(xd / std::f64::consts::SQRT_2));
            worst = worst.max((gelu(x) as f64 - want).abs());
            x += 0.0071;
        }
        assert!(worst < 1e-6, "gelu absolute error {worst}");
    }

    /// erf in f64 by its Maclaurin series (|x| < 3) or continued fraction.
    fn libm_erf(x: f64) -> f64 {
        if x.abs() < 3.0 {
            let mut sum = 0f64;
            let mut term = x;
            let mut k = 0f64;
            while term.abs() > 1e-17 || k < 5.0 {
                sum += term / (2.0 * k + 1.0);
                k += 1.0;
                term *= -x * x / k;
            }
            sum * 2.0 / std::f64::consts::PI.sqrt()
        } else {
            // erfc(x) ≈ e^{-x²}/(x√π) · continued fraction (Lentz)
            let a = x.abs();
            let mut f = 0f64;
            for k in (1..60).rev() {
                f = (k as f64 / 2.0) / (a + f);
            }
            let erfc = (-a * a).exp() / std::f64::consts::PI.sqrt() / (a + f);
            (1.0 - erfc).copysign(x)
        }
    }

    /// `small_scores` against gemm on the same operands (a text of 13 tokens, head
    /// dimension 32, rows 3·384 apart as in `attention`). Where gemm runs its AVX2
    /// kernels (no AVX-512), it must be the same bits: that is the arithmetic every
    /// committed vector of a short text came from. On an AVX-512 machine gemm sums in 16
    /// lanes, so only closeness is asserted there; `bench check` compares the vectors of
    /// every benchmark text exactly.
    #[test]
    fn small_scores_match_gemm() {
        let (len, hd, stride) = (13, 32, 3 * 384);
        let mut state = 0x2545f4914f6cdd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let q: Vec<f32> = (0..len * stride).map(|_| next()).collect();
        let k: Vec<f32> = (0..len * stride).map(|_| next()).collect();
        let scale = 1.0 / (hd as f32).sqrt();
        let mut ours = vec![0f32; len * len];
        small_scores(&mut ours, len, hd, &q, &k, stride, scale);
        let mut theirs = vec![0f32; len * len];
        gemm_strided(
            &mut theirs,
            len,
            len,
            hd,
            len,
            (&q, stride, 1),
            (&k, 1, stride),
            scale,
            Parallelism::None,
        );
        #[cfg(target_arch = "x86_64")]
        let exact = has_avx2() && !std::arch::is_x86_feature_detected!("avx512f");
        #[cfg(not(target_arch = "x86_64"))]
        let exact = false;
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            if exact {
                assert_eq!(a.to_bits(), b.to_bits(), "entry {i}: {a} vs {b}");
            } else {
                assert!((a - b).abs() <= 1e-6, "entry {i}: {a} vs {b}");
            }
        }
    }

    /// The buckets PyTorch computes (transformers 5.24, torch 2.15,
    /// `MPNetEncoder.relative_position_bucket(torch.arange(-520, 521))`) at every edge
    /// between two buckets, both directions, and past the maximum distance.
    #[test]
    fn relative_buckets_match_pytorch() {
        let torch: [(i64, usize); 40] = [
            (-400, 15),
            (-128, 15),
            (-127, 15),
            (-91, 15),
            (-90, 14),
            (-64, 14),
            (-63, 13),
            (-45, 12),
            (-44, 12),
            (-32, 12),
            (-31, 11),
            (-23, 11),
            (-22, 10),
            (-16, 10),
            (-15, 9),
            (-12, 9),
            (-11, 8),
            (-8, 8),
            (-7, 7),
            (0, 0),
            (1, 17),
            (7, 23),
            (8, 24),
            (11, 24),
            (12, 25),
            (15, 25),
            (16, 26),
            (22, 26),
            (23, 27),
            (31, 27),
            (32, 28),
            (44, 28),
            (45, 28),
            (63, 29),
            (64, 30),
            (90, 30),
            (91, 31),
            (127, 31),
            (128, 31),
            (400, 31),
        ];
        for (rel, bucket) in torch {
            assert_eq!(relative_bucket(rel), bucket, "relative position {rel}");
        }
    }

    #[test]
    fn softmax_sums_to_one() {
        let mut row = vec![1.0f32, 2.0, 3.0, -1e30];
        softmax_rows(&mut row, 4);
        let mut long: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).sin() * 9.0).collect();
        softmax_rows(&mut long, 37);
        assert!((long.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(row[3] < 1e-30);
    }
}
