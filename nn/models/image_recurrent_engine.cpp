#include "nn/models/image_recurrent_engine.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "autograd/node.h"
#include "core/host_simd.h"
#include "core/matmul_precision.h"
#include "core/ops.h"
#include "core/scalar_ops.h"
#include "core/spin_barrier.h"
#include "core/threading.h"

namespace lintra::nn {

namespace {

std::vector<float> host_floats(const Var& v) { return v.data().contiguous().to_vector<float>(); }

// [r0, r1) of `rows` for thread `tid` of `n`: contiguous blocks, multiples of 16 rows (one cache
// line of a float32 output, and simd::PackedRows' groups) except the last.
std::pair<int64_t, int64_t> block(int64_t rows, int tid, int n) {
  const int64_t per = (rows + n - 1) / n;
  const int64_t chunk = (per + 15) / 16 * 16;
  const int64_t r0 = std::min(rows, chunk * tid);
  return {r0, std::min(rows, r0 + chunk)};
}

// out[b] = LN(a[b] + add[b]) (add may be null), the statistics in double (as the LayerNorm kernel).
void layer_norm_rows(const float* a, const float* add, const float* gamma, const float* beta, double eps, float* out,
                     int64_t B, int64_t D) {
  for (int64_t b = 0; b < B; ++b) {
    const float* ab = a + b * D;
    const float* db = add ? add + b * D : nullptr;
    auto z = [&](int64_t i) { return db ? ab[i] + db[i] : ab[i]; };
    double s = 0;
    for (int64_t i = 0; i < D; ++i) s += double(z(i));
    const double mu = s / double(D);
    double v = 0;
    for (int64_t i = 0; i < D; ++i) {
      const double d = double(z(i)) - mu;
      v += d * d;
    }
    const float rs = float(1.0 / std::sqrt(v / double(D) + eps));
    const float m = float(mu);
    float* ob = out + b * D;
    for (int64_t i = 0; i < D; ++i) ob[i] = (z(i) - m) * rs * gamma[i] + beta[i];
  }
}

void add_rows(const float* a, const float* add, float* out, int64_t B, int64_t D) {
  for (int64_t i = 0; i < B * D; ++i) out[i] = a[i] + add[i];
}

}  // namespace

// One product's weights packed in the engine's format (simd::PackedRows: column-major groups of 16
// rows, float32 or each weight rounded once to bf16), and its bias (float32).
struct ImageRecurrentEngine::Packed {
  simd::PackedRows w;
  std::vector<float> bias;

  // y (B, rows) rows [r0, r1) = W·x + bias for x (B, in); r0 and r1 on 16-row groups (block() gives them).
  void gemv(const float* x, float* y, int64_t B, int64_t r0, int64_t r1) const {
    simd::gemv_packed(w, bias.data(), x, y, B, r0, r1);
  }
};

namespace {

// A product to pack: its weight (rows × in) and its bias, float32 and contiguous on the host.
struct ProductSource {
  Tensor weight;
  Tensor bias;
};

ProductSource source_of(const Linear& lin) {
  LINTRA_CHECK(lin.bias().defined(), "ImageRecurrentEngine: a product needs a bias: {}", lin.describe());
  return {lin.weight().data().to(DType::f32).contiguous(), lin.bias().data().to(DType::f32).contiguous()};
}

// Every product of the model packed into one block of the host allocator, in order (the block's
// transparent huge pages and its reuse from the cache by the next engine: simd::PackedRows).
std::vector<simd::PackedRows> pack_all(const std::vector<ProductSource>& sources, EngineWeights format) {
  const auto f = format == EngineWeights::f32 ? simd::PackedRows::Format::f32 : simd::PackedRows::Format::bf16;
  auto bytes_of = [&](const ProductSource& p) { return simd::packed_rows_bytes(f, p.weight.size(0), p.weight.size(1)); };
  int64_t total = 0;
  for (const ProductSource& p : sources) total += bytes_of(p);
  const Tensor block = Tensor::empty({total}, DType::u8);
  std::vector<simd::PackedRows> out;
  int64_t offset = 0;
  for (const ProductSource& p : sources) {
    const int64_t rows = p.weight.size(0), in = p.weight.size(1), bytes = bytes_of(p);
    LINTRA_CHECK(p.bias.numel() == rows, "ImageRecurrentEngine: a product needs a bias per row: {} rows, {} biases",
                 rows, p.bias.numel());
    const Tensor into = block.narrow(0, offset, bytes);
    const float* w = p.weight.data<float>();
    out.push_back(f == simd::PackedRows::Format::f32 ? simd::pack_rows_f32(w, rows, in, into)
                                                     : simd::pack_rows_bf16(w, rows, in, into));
    offset += bytes;
  }
  return out;
}

}  // namespace

struct ImageRecurrentEngine::Layer {
  std::unique_ptr<Packed> qkv;  // ((2E + M)·H, D): query, key and value rows stacked
  std::unique_ptr<Packed> o;    // (D, H·M)
  std::unique_ptr<Packed> ff1;  // (d_ff, D)
  std::unique_ptr<Packed> ff2;  // (D, d_ff)
  std::vector<float> g_1, be_1, g_2, be_2;
  double eps_1 = 0, eps_2 = 0;
  Activation activation = Activation::relu;
  std::unique_ptr<RawRecurrentStep> attention;
};

// Shared: the products' outputs, split by rows (or heads) among the team. Own: each thread's whole
// copy of the D-wide rows (Note [four barriers a layer]).
struct ImageRecurrentEngine::Buffers {
  struct Own {
    std::vector<float> x, x_next, x_norm, h, h_norm;
  };
  std::vector<float> qkv, att, o, f, g;
  std::vector<Own> own;
  SpinBarrier barrier;
  explicit Buffers(int threads) : own(size_t(threads)), barrier(threads) {}
};

std::string ImageRecurrentEngine::unsupported_reason(ImageModel& model) {
  for (const Var& p : model.parameters()) {
    if (p.dtype() != DType::f32) return fmt::format("its parameters are {}, not float32", p.dtype());
    if (p.data().device() != Device::cpu) return "its parameters are not on the CPU";
  }
  TransformerEncoder& enc = model.trunk().encoder();
  for (int64_t i = 0; i < enc.n_layers(); ++i) {
    AttentionLayer& a = enc.layer(i).attention();
    if (a.inner().make_raw_step(RawStepShape{}) == nullptr)
      return fmt::format("attention '{}' has no raw recurrent step", a.inner().variant());
  }
  return "";
}

EngineWeights default_engine_weights() {
  return matmul_precision() == MatmulPrecision::bf16 ? EngineWeights::bf16 : EngineWeights::f32;
}

const char* engine_weights_name(EngineWeights w) { return w == EngineWeights::bf16 ? "bf16" : "f32"; }

ImageRecurrentEngine::ImageRecurrentEngine(ImageModel& model, int64_t batch, int64_t max_steps, int threads,
                                           EngineWeights weights)
    : batch_(batch), max_steps_(max_steps), weights_(weights) {
  const std::string why = unsupported_reason(model);
  LINTRA_CHECK(why.empty(), "ImageRecurrentEngine: this model cannot run on the engine: {}", why);
  LINTRA_CHECK(batch >= 1 && max_steps >= 1, "ImageRecurrentEngine: batch and max_steps must be positive, got {} and {}",
               batch, max_steps);
  NoGradGuard no_grad;
  TokenTransformer& trunk = model.trunk();
  TransformerEncoder& enc = trunk.encoder();
  const TransformerOptions& o = enc.options();
  d_model_ = o.d_model;
  d_ff_ = o.d_ff;
  heads_ = o.n_heads;
  d_query_ = o.d_keys;
  d_value_ = o.d_values;
  pre_norm_ = o.pre_norm;
  param_dim_ = model.head().out_features();
  d_embed_ = trunk.embedding().dim();
  LINTRA_CHECK(trunk.embedding().num_embeddings() == ImageModel::kLevels && d_embed_ == trunk.positional().input_dim(),
               "ImageRecurrentEngine: unexpected embedding {} × {}", trunk.embedding().num_embeddings(), d_embed_);
  embedding_ = host_floats(trunk.embedding().weight());
  positional_ = host_floats(trunk.positional().forward(Var(Tensor::zeros({1, max_steps, d_embed_}, DType::f32))));

  const RawStepShape shape{.batch = batch, .heads = heads_, .query_dim = d_query_, .value_dim = d_value_,
                           .max_steps = max_steps};
  layers_.resize(size_t(enc.n_layers()));
  std::vector<ProductSource> sources;  // per layer QKV, out, W1, W2; then the head
  for (int64_t i = 0; i < enc.n_layers(); ++i) {
    TransformerEncoderLayer& src = enc.layer(i);
    AttentionLayer& a = src.attention();
    const ProductSource q = source_of(a.query()), k = source_of(a.key()), v = source_of(a.value());
    sources.push_back({ops::cat({q.weight, k.weight, v.weight}, 0), ops::cat({q.bias, k.bias, v.bias}, 0)});
    const FeedForward& ff = src.feed_forward();
    for (const Linear* lin : {&a.out(), &ff.linear1(), &ff.linear2()}) sources.push_back(source_of(*lin));
    Layer& l = layers_[size_t(i)];
    l.activation = ff.activation();
    l.g_1 = host_floats(src.norm1().weight());
    l.be_1 = host_floats(src.norm1().bias());
    l.eps_1 = src.norm1().eps();
    l.g_2 = host_floats(src.norm2().weight());
    l.be_2 = host_floats(src.norm2().bias());
    l.eps_2 = src.norm2().eps();
    l.attention = a.inner().make_raw_step(shape);
  }
  sources.push_back(source_of(model.head()));
  std::vector<simd::PackedRows> words = pack_all(sources, weights);
  std::vector<std::unique_ptr<Packed>> packed;
  for (size_t i = 0; i < sources.size(); ++i)
    packed.push_back(std::make_unique<Packed>(Packed{std::move(words[i]), sources[i].bias.to_vector<float>()}));
  for (size_t i = 0; i < layers_.size(); ++i) {
    Layer& l = layers_[i];
    l.qkv = std::move(packed[4 * i]);
    l.o = std::move(packed[4 * i + 1]);
    l.ff1 = std::move(packed[4 * i + 2]);
    l.ff2 = std::move(packed[4 * i + 3]);
  }
  if (const LayerNorm* n = enc.final_norm()) {
    final_gamma_ = host_floats(n->weight());
    final_beta_ = host_floats(n->bias());
    final_eps_ = n->eps();
  }
  head_ = std::move(packed.back());

  // A team pays off only when a token's products are large: the paper's MNIST model (2^20
  // multiply-adds per layer) gains from two threads, the CPU-scale models (d_model 64) lose.
  const int64_t macs_per_layer = batch * d_model_ * (2 * heads_ * d_query_ + 2 * heads_ * d_value_ + 2 * d_ff_);
  threads_ = threads > 0 ? threads : (macs_per_layer >= (int64_t(1) << 18) ? std::max(1, num_threads()) : 1);
  const int64_t qkv = heads_ * (2 * d_query_ + d_value_);
  buf_ = std::make_unique<Buffers>(threads_);
  for (Buffers::Own& own : buf_->own)
    for (auto* v : {&own.x, &own.x_next, &own.x_norm, &own.h, &own.h_norm}) v->assign(size_t(batch * d_model_), 0.0f);
  for (auto* v : {&buf_->o, &buf_->g}) v->assign(size_t(batch * d_model_), 0.0f);
  qkv_by_heads_ = d_query_ % simd::PackedRows::kGroup == 0 && d_value_ % simd::PackedRows::kGroup == 0;
  buf_->qkv.assign(size_t(batch * qkv), 0.0f);
  buf_->att.assign(size_t(batch * heads_ * d_value_), 0.0f);
  buf_->f.assign(size_t(batch * d_ff_), 0.0f);
}

ImageRecurrentEngine::~ImageRecurrentEngine() = default;

void ImageRecurrentEngine::step(const int64_t* pixels, int64_t position, float* params) {
  LINTRA_CHECK(position == 0 || position == next_position_,
               "ImageRecurrentEngine::step: position {} out of order (expected 0 or {})", position, next_position_);
  LINTRA_CHECK(position < max_steps_, "ImageRecurrentEngine::step: position {} is past the capacity of {} steps",
               position, max_steps_);
  for (int64_t b = 0; b < batch_; ++b)
    LINTRA_CHECK(pixels[b] >= 0 && pixels[b] < ImageModel::kLevels,
                 "ImageRecurrentEngine::step: pixel {} of sequence {} is outside [0, {})", pixels[b], b,
                 ImageModel::kLevels);
  const bool team = threads_ > 1 && backoff_.use_team();
  const auto start = std::chrono::steady_clock::now();
  if (!team) {
    run(0, 1, pixels, position, params);
  } else {
#pragma omp parallel num_threads(threads_)
    {
      // A smaller team than asked for (nested parallelism, a thread limit): one thread does it all.
      if (omp_get_num_threads() == threads_)
        run(omp_get_thread_num(), threads_, pixels, position, params);
      else if (omp_get_thread_num() == 0)
        run(0, 1, pixels, position, params);
    }
  }
  if (threads_ > 1)
    backoff_.record(team, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  next_position_ = position + 1;
}

// Note [four barriers a layer]
// Every thread keeps its own copy of the D-wide rows (x, its norm, h, h's norm: Buffers::Own) and
// computes them whole, which costs a few hundred redundant multiply-adds per row; in exchange only
// the products, split by rows, meet at barriers: after the attention (the out product reads every
// head), after the out product, after W1 and after W2. Where the heads' Q, K and V rows fall on
// whole groups of 16 (E and M multiples of 16) each thread computes the rows of its own heads, so
// the attention needs no barrier before it either; otherwise the QKV product is split by rows and
// waits for a fifth. Each value is computed by the same code in the same order as on one thread, so
// the result does not depend on the team.
void ImageRecurrentEngine::run(int tid, int n, const int64_t* pixels, int64_t t, float* params) {
  const int64_t B = batch_, D = d_model_, F = d_ff_, H = heads_, E = d_query_, M = d_value_;
  const int64_t QKV = H * (2 * E + M), HM = H * M;
  Buffers& bf = *buf_;
  Buffers::Own& own = bf.own[size_t(tid)];
  auto sync = [&] {
    if (n > 1) bf.barrier.wait();
  };
  const int64_t h0 = H * tid / n, h1 = H * (tid + 1) / n;  // this thread's heads
  float* x = own.x.data();
  float* x_next = own.x_next.data();

  const float* pe = positional_.data() + t * D;  // x = [embedding, 0] + pe (concat) or embedding + pe (add)
  for (int64_t b = 0; b < B; ++b) {
    const float* emb = embedding_.data() + pixels[b] * d_embed_;
    for (int64_t c = 0; c < D; ++c) x[b * D + c] = pe[c] + (c < d_embed_ ? emb[c] : 0.0f);
  }

  for (Layer& l : layers_) {
    const float* in = x;
    if (pre_norm_) {
      layer_norm_rows(x, nullptr, l.g_1.data(), l.be_1.data(), l.eps_1, own.x_norm.data(), B, D);
      in = own.x_norm.data();
    }
    if (qkv_by_heads_) {  // the Q, K and V rows of this thread's heads
      l.qkv->gemv(in, bf.qkv.data(), B, h0 * E, h1 * E);
      l.qkv->gemv(in, bf.qkv.data(), B, H * E + h0 * E, H * E + h1 * E);
      l.qkv->gemv(in, bf.qkv.data(), B, 2 * H * E + h0 * M, 2 * H * E + h1 * M);
    } else {
      const auto [r0, r1] = block(QKV, tid, n);
      l.qkv->gemv(in, bf.qkv.data(), B, r0, r1);
      sync();
    }
    {
      const RawStepIO io{.q = bf.qkv.data(), .k = bf.qkv.data() + H * E, .v = bf.qkv.data() + 2 * H * E,
                         .in_stride = QKV, .y = bf.att.data(), .out_stride = HM};
      if (h1 > h0) l.attention->step(t, io, h0, h1);
    }
    sync();
    {
      const auto [r0, r1] = block(D, tid, n);
      l.o->gemv(bf.att.data(), bf.o.data(), B, r0, r1);
    }
    sync();
    const float* h_in = own.h.data();
    if (pre_norm_) {
      add_rows(x, bf.o.data(), own.h.data(), B, D);
      layer_norm_rows(own.h.data(), nullptr, l.g_2.data(), l.be_2.data(), l.eps_2, own.h_norm.data(), B, D);
      h_in = own.h_norm.data();
    } else {
      layer_norm_rows(x, bf.o.data(), l.g_1.data(), l.be_1.data(), l.eps_1, own.h.data(), B, D);
    }
    {
      const auto [r0, r1] = block(F, tid, n);
      l.ff1->gemv(h_in, bf.f.data(), B, r0, r1);
      for (int64_t b = 0; b < B; ++b)
        for (int64_t r = r0; r < r1; ++r) {
          float& v = bf.f[size_t(b * F + r)];
          v = l.activation == Activation::relu ? scalar::relu(v) : scalar::gelu(v);
        }
    }
    sync();
    {
      const auto [r0, r1] = block(D, tid, n);
      l.ff2->gemv(bf.f.data(), bf.g.data(), B, r0, r1);
    }
    sync();
    if (pre_norm_)
      add_rows(own.h.data(), bf.g.data(), x_next, B, D);
    else
      layer_norm_rows(own.h.data(), bf.g.data(), l.g_2.data(), l.be_2.data(), l.eps_2, x_next, B, D);
    std::swap(x, x_next);
  }

  const float* top = x;
  if (!final_gamma_.empty()) {
    layer_norm_rows(x, nullptr, final_gamma_.data(), final_beta_.data(), final_eps_, x_next, B, D);
    top = x_next;
  }
  const auto [r0, r1] = block(param_dim_, tid, n);
  head_->gemv(top, params, B, r0, r1);
}

}  // namespace lintra::nn
