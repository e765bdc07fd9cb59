// registry.h — attention variants by name: a factory and a typed parameter spec per variant
// (after fast-transformers' AttentionRegistry, but with per-variant parameter names).
//
//   AttentionRegistry registry;
//   register_builtin_attentions(registry);          // softmax, linear, causal-linear, …
//   auto inner = registry.create("softmax", {{"attention_dropout", 0.0}},
//                                AttentionContext{.query_dim = 32, .value_dim = 32, .generator = Generator(7, 1)});
//
// create() validates the parameters against the spec, fills in defaults and passes the resolved
// AttentionParams to the factory. Errors name the variant and list what is valid: an unknown
// variant lists the registered names, an unknown parameter lists that variant's parameters, a
// wrong type or out-of-range value quotes the spec.
//
// Adding a variant: one file nn/attention/<name>_attention.cpp defining the class and
// `void register_<name>_attention(AttentionRegistry&)`, plus its line in builtin_attentions.cpp
// (docs/attention.md walks through an example). No static self-registration: it would be dropped
// from a static library and depends on initialisation order.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/rng.h"
#include "nn/attention/inner_attention.h"

namespace lintra::nn {

// A parameter value as a config gives it. (int64_t first: integer literals select it.)
using ParamValue = std::variant<bool, int64_t, double, std::string>;
using ParamMap = std::map<std::string, ParamValue>;
std::string param_value_str(const ParamValue& v);  // "32", "0.1", "true", "'elu'"

struct ParamSpec {
  enum class Type : uint8_t { integer, real, boolean, string };
  Type type = Type::real;
  std::optional<ParamValue> default_value;  // nullopt: optional, absent unless given
  double min = -std::numeric_limits<double>::infinity();  // integer and real: inclusive bounds
  double max = std::numeric_limits<double>::infinity();
  bool max_exclusive = false;
  std::vector<std::string> choices;  // string: the allowed values (empty: any)
  std::string doc;

  static ParamSpec integer(int64_t def, int64_t min = std::numeric_limits<int64_t>::min(),
                           int64_t max = std::numeric_limits<int64_t>::max(), std::string doc = {});
  static ParamSpec real(double def, double min = -std::numeric_limits<double>::infinity(),
                        double max = std::numeric_limits<double>::infinity(), std::string doc = {});
  // A real with no default: AttentionParams::has() is false unless given (e.g. softmax_temp).
  static ParamSpec optional_real(double min, double max, std::string doc = {});
  static ParamSpec boolean(bool def, std::string doc = {});
  static ParamSpec string(std::string def, std::vector<std::string> choices = {}, std::string doc = {});
  ParamSpec& exclusive_max() {
    max_exclusive = true;
    return *this;
  }

  // "real in [0, 1), default 0.1"
  std::string describe() const;
  // Checks a given value (ints are accepted for reals) and returns it in canonical type.
  ParamValue check(const std::string& variant, const std::string& name, const ParamValue& v) const;
};

using ParamSpecs = std::vector<std::pair<std::string, ParamSpec>>;  // in documentation order

// The resolved parameters a factory receives: every spec'd parameter with a default is present.
class AttentionParams {
 public:
  AttentionParams(std::string variant, ParamMap values) : variant_(std::move(variant)), values_(std::move(values)) {}
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  int64_t get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  bool get_bool(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  const ParamMap& values() const { return values_; }

 private:
  const ParamValue& get(const std::string& name) const;
  std::string variant_;
  ParamMap values_;
};

// What the model tells a variant about where it sits.
struct AttentionContext {
  int64_t query_dim = 0;  // E, per head
  int64_t value_dim = 0;  // M, per head
  int64_t n_heads = 0;
  Generator generator = Generator(0, 0);  // the variant's own random stream (attention dropout, hashing)
};

using AttentionFactory =
    std::function<std::shared_ptr<InnerAttention>(const AttentionParams&, const AttentionContext&)>;

class AttentionRegistry {
 public:
  struct Entry {
    std::string name;
    AttentionFactory factory;
    ParamSpecs params;
    std::string doc;
  };

  // Throws if the name is taken or a spec's default fails its own checks.
  void add(const std::string& name, AttentionFactory factory, ParamSpecs params = {}, std::string doc = {});
  bool contains(const std::string& name) const { return find(name) != nullptr; }
  std::vector<std::string> names() const;  // in registration order
  const Entry& entry(const std::string& name) const;  // throws listing the valid names

  // Validates `params` against the spec and fills in defaults.
  AttentionParams resolve(const std::string& name, const ParamMap& params) const;
  std::shared_ptr<InnerAttention> create(const std::string& name, const ParamMap& params,
                                         const AttentionContext& context) const;

 private:
  const Entry* find(const std::string& name) const;
  std::vector<Entry> entries_;
};

// Registers softmax, linear, causal-linear and reformer (one line each in builtin_attentions.cpp).
void register_builtin_attentions(AttentionRegistry& registry);
// The process-wide registry with the built-in variants (created on first use). A program may add
// its own variants to it at start-up, before building models.
AttentionRegistry& builtin_attention_registry();

}  // namespace lintra::nn
