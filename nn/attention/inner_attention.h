// inner_attention.h — the one interface every attention variant implements (DESIGN.md §5).
//
// Batch form, on heads already split by AttentionLayer:
//   forward(q (B, H, N, E), k (B, H, S, E), v (B, H, S, M), masks) → (B, H, N, M)
// Recurrent form (variants with has_recurrent()), one time step of a causal model:
//   step(q_t (B, H, E), k_t (B, H, E), v_t (B, H, M), state) → y_t (B, H, M), state updated in place
// so that calling step for t = 0 … N−1 gives the rows of forward(q, k, v, causal mask). This is
// `step(x_t, state) → (y_t, state)` with the state an in/out argument.
//
// forward() and step() are not virtual: they check shapes, dtypes and masks against what the
// variant declares in mask_support(), throwing lintra::Error that names the variant and the
// mask, and only then call the variant's attend() / attend_step(). A new variant therefore
// implements attend() (and optionally attend_step()) and never re-validates.
//
// Inner attentions are Modules: they may own parameters or random streams (attention dropout),
// and follow train()/eval() with the rest of the model.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "nn/attention/masks.h"
#include "nn/attention/raw_recurrent_step.h"
#include "nn/module.h"

namespace lintra::nn {

// What a variant honours. A variant that accepts neither `full` nor `causal` is not allowed.
struct MaskSupport {
  bool full = true;          // no attention mask
  bool causal = false;       // TriangularCausalMask
  bool key_lengths = false;  // LengthMask over keys
  bool cross_attention = true;  // N ≠ S allowed; false for shared-QK variants (reformer) that need N == S
  std::string hint;          // appended to the error for an unsupported mask, e.g. "use 'causal-linear'"
};

// The state of one attention layer across time steps: named Vars owned by the variant
// ("S", "Z" for causal-linear; "K", "V" caches for softmax) and the number of steps consumed.
// Copies share tensors; a variant may write into them in place when no graph is recorded, so use
// clone() for an independent copy (e.g. to branch a generation).
struct RecurrentState {
  std::map<std::string, Var> values;
  int64_t steps = 0;

  bool empty() const { return steps == 0; }
  bool has(const std::string& name) const { return values.count(name) != 0; }
  Var& at(const std::string& name);
  const Var& at(const std::string& name) const;
  void reset() { *this = RecurrentState(); }
  RecurrentState clone() const;  // deep copy of the tensors (detached)
};

class InnerAttention : public Module {
 public:
  // `variant` is the registry name ("softmax"), used in every message.
  explicit InnerAttention(std::string variant) : variant_(std::move(variant)) {}

  const std::string& variant() const { return variant_; }
  virtual MaskSupport mask_support() const = 0;
  virtual bool has_recurrent() const { return false; }

  Var forward(const Var& q, const Var& k, const Var& v, const AttentionMasks& masks);
  Var step(const Var& q_t, const Var& k_t, const Var& v_t, RecurrentState& state);
  // The recurrent form on raw float32 buffers for inference (raw_recurrent_step.h); nullptr (the
  // default) when the variant has none. Eval-mode semantics: no dropout.
  virtual std::unique_ptr<RawRecurrentStep> make_raw_step(const RawStepShape& shape) const;

  std::string type_name() const override;

 protected:
  // Called with validated inputs: 4-d, same B, H and dtype; q and k share E; k and v share S;
  // masks supported, key lengths int64 (B) within [0, S], and N == S under a causal mask.
  virtual Var attend(const Var& q, const Var& k, const Var& v, const AttentionMasks& masks) = 0;
  // Called with validated 3-d inputs when has_recurrent(); the default throws.
  virtual Var attend_step(const Var& q_t, const Var& k_t, const Var& v_t, RecurrentState& state);

 private:
  std::string variant_;
};

}  // namespace lintra::nn
