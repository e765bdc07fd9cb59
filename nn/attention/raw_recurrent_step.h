// raw_recurrent_step.h — an attention variant's recurrent form on raw float32 host buffers, for
// inference only (generation, nn/models/image_recurrent_engine.h): no autograd, no allocation per
// step, and heads split across threads.
//
// InnerAttention::make_raw_step(shape) returns one for `batch` sequences of at most `max_steps`
// steps, or nullptr when the variant has none (generation then runs step() on Vars). One call
//   step(t, io, h0, h1)
// consumes time step t (t = 0 starts every sequence afresh) for heads [h0, h1) of every sequence:
//   q_t, k_t (B, H, E) and v_t (B, H, M) → y_t (B, H, M)
// with sequence b's head h at q + b·io.in_stride + h·E (the same for k; v at h·M) and its output
// at y + b·io.out_stride + h·M. It must equal InnerAttention::step() on the same values, float32
// rounding aside (the conformance suite checks every variant that offers one). Calls for disjoint
// head ranges of the same t may run concurrently; t + 1 starts once every range has done t.
#pragma once

#include <cstdint>

namespace lintra::nn {

struct RawStepShape {
  int64_t batch = 1;
  int64_t heads = 1;
  int64_t query_dim = 1;  // E
  int64_t value_dim = 1;  // M
  int64_t max_steps = 1;  // capacity of the state (a key/value cache is sized once)
};

struct RawStepIO {
  const float* q = nullptr;
  const float* k = nullptr;
  const float* v = nullptr;
  int64_t in_stride = 0;  // floats between sequences in q, k and v
  float* y = nullptr;
  int64_t out_stride = 0;  // floats between sequences in y
};

class RawRecurrentStep {
 public:
  virtual ~RawRecurrentStep() = default;
  // Callers keep 0 <= t < max_steps and step t only after t − 1 (or restart at 0); not checked
  // here, since this runs inside parallel regions where nothing may throw.
  virtual void step(int64_t t, const RawStepIO& io, int64_t h0, int64_t h1) = 0;
};

}  // namespace lintra::nn
