// gradcheck.h — finite-difference gradient checking (library code: tests and anyone adding an op).
//
// For f: inputs → one output tensor, builds the full Jacobian twice at small sizes:
//   analytic: row k = backward of the one-hot gradient e_k (retain_graph across rows);
//   numeric:  column j = (f(x + ε e_j) − f(x − ε e_j)) / 2ε  (central differences).
// Inputs must be float64 (float32 central differences are too noisy to check anything);
// integer inputs pass through as constants. f runs on the device of the inputs (one device for all):
// the values are perturbed on the host and copied there for each evaluation. An entry fails when
//   |analytic − numeric| > atol + rtol·|numeric|.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "autograd/var.h"

namespace lintra {

struct GradcheckOptions {
  double eps = 1e-6;   // step: the truncation error is O(ε²), the rounding error O(1e-16/ε)
  double atol = 1e-6;  // absolute tolerance
  double rtol = 1e-4;  // relative tolerance
  int max_reported = 5;  // mismatches listed in the message
};

struct GradcheckResult {
  bool ok = true;
  double max_abs_error = 0;
  int64_t entries = 0;  // Jacobian entries compared
  std::string message;  // the first mismatches, or "ok"
};

using GradcheckFn = std::function<Var(const std::vector<Var>&)>;

GradcheckResult gradcheck(const GradcheckFn& f, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options = {});

}  // namespace lintra
