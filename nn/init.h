// init.h — parameter initialisers, each driven by an explicit Generator (core/rng.h), and the
// random streams of a model built from one seed.
//
// PyTorch's defaults, which the paper's code used (PAPER.md §7):
//   Linear weight  kaiming_uniform(a = √5):  gain = √(2 / (1 + a²)) = √(1/3),
//                  bound = gain · √(3 / fan_in) = 1 / √fan_in  →  U(−1/√fan_in, 1/√fan_in)
//   Linear bias    U(−1/√fan_in, 1/√fan_in)
//   Embedding      N(0, 1)
//   LayerNorm      weight 1, bias 0
// fan_in / fan_out of a weight (out, in, …) are in·receptive and out·receptive.
// Every initialiser writes new data into the leaf (Var::set_data) and keeps its dtype.
#pragma once

#include <cstdint>
#include <utility>

#include "autograd/var.h"
#include "core/rng.h"

namespace lintra::nn {

namespace init {

std::pair<int64_t, int64_t> fan_in_out(const Shape& weight_shape);  // (fan_in, fan_out)

void uniform_(Var& v, Generator& gen, double low, double high);
void normal_(Var& v, Generator& gen, double mean = 0, double std = 1);
void constant_(Var& v, double value);
inline void zeros_(Var& v) { constant_(v, 0); }
inline void ones_(Var& v) { constant_(v, 1); }
// U(−b, b) with b = gain·√(3/fan_in), gain = √(2 / (1 + a²)) (leaky-ReLU gain, PyTorch's default).
void kaiming_uniform_(Var& weight, Generator& gen, double a = 0);
// U(−b, b) with b = gain·√(6 / (fan_in + fan_out)) (Glorot & Bengio 2010).
void xavier_uniform_(Var& weight, Generator& gen, double gain = 1);
// PyTorch's Linear defaults: weight kaiming_uniform(a = √5), bias U(±1/√fan_in).
void linear_default_(Var& weight, Var& bias, Generator& gen);

}  // namespace init

// One seed for a whole model: stream 0 initialises the weights (in construction order), and every
// dropout site takes the next stream 1, 2, … of the same seed, so building the same architecture
// with the same seed gives bitwise the same weights and masks.
class ModelRng {
 public:
  explicit ModelRng(uint64_t seed) : seed_(seed), init_(seed, 0) {}
  Generator& init() { return init_; }
  Generator next_stream() { return Generator(seed_, ++last_stream_); }
  uint64_t seed() const { return seed_; }

 private:
  uint64_t seed_;
  uint64_t last_stream_ = 0;
  Generator init_;
};

}  // namespace lintra::nn
