#include "nn/attention/registry.h"

#include <fmt/format.h>

#include <cmath>

#include "core/error.h"

namespace lintra::nn {

namespace {

const char* type_name(ParamSpec::Type t) {
  switch (t) {
    case ParamSpec::Type::integer: return "integer";
    case ParamSpec::Type::real: return "real";
    case ParamSpec::Type::boolean: return "bool";
    case ParamSpec::Type::string: return "string";
  }
  return "?";
}

const char* value_type_name(const ParamValue& v) {
  switch (v.index()) {
    case 0: return "bool";
    case 1: return "integer";
    case 2: return "real";
    default: return "string";
  }
}

std::string bound_str(double x) {
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  return fmt::format("{:g}", x);
}

}  // namespace

std::string param_value_str(const ParamValue& v) {
  switch (v.index()) {
    case 0: return std::get<bool>(v) ? "true" : "false";
    case 1: return std::to_string(std::get<int64_t>(v));
    case 2: return fmt::format("{:g}", std::get<double>(v));
    default: return "'" + std::get<std::string>(v) + "'";
  }
}

// --- ParamSpec ------------------------------------------------------------------------------------

ParamSpec ParamSpec::integer(int64_t def, int64_t min, int64_t max, std::string doc) {
  ParamSpec s;
  s.type = Type::integer;
  s.default_value = def;
  s.min = min == std::numeric_limits<int64_t>::min() ? -INFINITY : double(min);
  s.max = max == std::numeric_limits<int64_t>::max() ? INFINITY : double(max);
  s.doc = std::move(doc);
  return s;
}

ParamSpec ParamSpec::real(double def, double min, double max, std::string doc) {
  ParamSpec s;
  s.type = Type::real;
  s.default_value = def;
  s.min = min;
  s.max = max;
  s.doc = std::move(doc);
  return s;
}

ParamSpec ParamSpec::optional_real(double min, double max, std::string doc) {
  ParamSpec s = real(0, min, max, std::move(doc));
  s.default_value.reset();
  return s;
}

ParamSpec ParamSpec::boolean(bool def, std::string doc) {
  ParamSpec s;
  s.type = Type::boolean;
  s.default_value = def;
  s.doc = std::move(doc);
  return s;
}

ParamSpec ParamSpec::string(std::string def, std::vector<std::string> choices, std::string doc) {
  ParamSpec s;
  s.type = Type::string;
  s.default_value = std::move(def);
  s.choices = std::move(choices);
  s.doc = std::move(doc);
  return s;
}

std::string ParamSpec::describe() const {
  std::string out = type_name(type);
  if ((type == Type::integer || type == Type::real) && (!std::isinf(min) || !std::isinf(max)))
    out += fmt::format(" in [{}, {}{}", bound_str(min), bound_str(max), max_exclusive ? ")" : "]");
  if (type == Type::string && !choices.empty()) out += fmt::format(" (one of {})", fmt::join(choices, ", "));
  out += default_value ? ", default " + param_value_str(*default_value) : ", optional";
  if (!doc.empty()) out += ": " + doc;
  return out;
}

ParamValue ParamSpec::check(const std::string& variant, const std::string& name, const ParamValue& v) const {
  auto fail_type = [&]() -> ParamValue {
    LINTRA_FAIL("attention '{}': parameter '{}' expects {} {}, got {} {} ({})", variant, name,
                type == Type::integer ? "an" : "a", type_name(type),
                value_type_name(v), param_value_str(v), describe());
  };
  auto check_range = [&](double x) {
    const bool ok = x >= min && (max_exclusive ? x < max : x <= max);
    LINTRA_CHECK(ok, "attention '{}': parameter '{}' = {} is out of range ({})", variant, name, param_value_str(v),
                 describe());
  };
  switch (type) {
    case Type::integer:
      if (!std::holds_alternative<int64_t>(v)) return fail_type();
      check_range(double(std::get<int64_t>(v)));
      return v;
    case Type::real: {
      double x;
      if (std::holds_alternative<double>(v)) x = std::get<double>(v);
      else if (std::holds_alternative<int64_t>(v)) x = double(std::get<int64_t>(v));
      else return fail_type();
      LINTRA_CHECK(std::isfinite(x), "attention '{}': parameter '{}' must be finite, got {}", variant, name, x);
      check_range(x);
      return x;
    }
    case Type::boolean:
      if (!std::holds_alternative<bool>(v)) return fail_type();
      return v;
    case Type::string: {
      if (!std::holds_alternative<std::string>(v)) return fail_type();
      const std::string& s = std::get<std::string>(v);
      bool ok = choices.empty();
      for (const std::string& c : choices) ok = ok || c == s;
      LINTRA_CHECK(ok, "attention '{}': parameter '{}' = '{}' is not one of {}", variant, name, s,
                   fmt::join(choices, ", "));
      return v;
    }
  }
  return v;
}

// --- AttentionParams ------------------------------------------------------------------------------

const ParamValue& AttentionParams::get(const std::string& name) const {
  auto it = values_.find(name);
  LINTRA_CHECK(it != values_.end(), "attention '{}': parameter '{}' was not given and has no default", variant_,
               name);
  return it->second;
}

int64_t AttentionParams::get_int(const std::string& name) const {
  const ParamValue& v = get(name);
  LINTRA_CHECK(std::holds_alternative<int64_t>(v), "attention '{}': parameter '{}' is not an integer", variant_, name);
  return std::get<int64_t>(v);
}

double AttentionParams::get_double(const std::string& name) const {
  const ParamValue& v = get(name);
  if (std::holds_alternative<int64_t>(v)) return double(std::get<int64_t>(v));
  LINTRA_CHECK(std::holds_alternative<double>(v), "attention '{}': parameter '{}' is not a real", variant_, name);
  return std::get<double>(v);
}

bool AttentionParams::get_bool(const std::string& name) const {
  const ParamValue& v = get(name);
  LINTRA_CHECK(std::holds_alternative<bool>(v), "attention '{}': parameter '{}' is not a bool", variant_, name);
  return std::get<bool>(v);
}

const std::string& AttentionParams::get_string(const std::string& name) const {
  const ParamValue& v = get(name);
  LINTRA_CHECK(std::holds_alternative<std::string>(v), "attention '{}': parameter '{}' is not a string", variant_,
               name);
  return std::get<std::string>(v);
}

// --- AttentionRegistry ----------------------------------------------------------------------------

void AttentionRegistry::add(const std::string& name, AttentionFactory factory, ParamSpecs params, std::string doc) {
  LINTRA_CHECK(!name.empty(), "AttentionRegistry: empty variant name");
  LINTRA_CHECK(!contains(name), "AttentionRegistry: attention '{}' is already registered", name);
  LINTRA_CHECK(factory != nullptr, "AttentionRegistry: attention '{}' has no factory", name);
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& [pname, spec] = params[i];
    for (size_t j = 0; j < i; ++j)
      LINTRA_CHECK(params[j].first != pname, "AttentionRegistry: attention '{}' lists parameter '{}' twice", name,
                   pname);
    if (spec.default_value) spec.check(name, pname, *spec.default_value);
  }
  entries_.push_back({name, std::move(factory), std::move(params), std::move(doc)});
}

const AttentionRegistry::Entry* AttentionRegistry::find(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<std::string> AttentionRegistry::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

const AttentionRegistry::Entry& AttentionRegistry::entry(const std::string& name) const {
  const Entry* e = find(name);
  LINTRA_CHECK(e != nullptr, "unknown attention variant '{}'; the registered variants are: {}", name,
               fmt::join(names(), ", "));
  return *e;
}

AttentionParams AttentionRegistry::resolve(const std::string& name, const ParamMap& params) const {
  const Entry& e = entry(name);
  ParamMap out;
  for (const auto& [pname, value] : params) {
    const ParamSpec* spec = nullptr;
    for (const auto& [n, s] : e.params)
      if (n == pname) spec = &s;
    if (spec == nullptr) {
      std::vector<std::string> valid;
      for (const auto& [n, s] : e.params) valid.push_back(fmt::format("{} ({})", n, s.describe()));
      LINTRA_FAIL("attention '{}' has no parameter '{}'; its parameters are: {}", name, pname,
                  valid.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(valid, "; ")));
    }
    out[pname] = spec->check(name, pname, value);
  }
  for (const auto& [pname, spec] : e.params)
    if (!out.count(pname) && spec.default_value) out[pname] = *spec.default_value;
  return AttentionParams(name, std::move(out));
}

std::shared_ptr<InnerAttention> AttentionRegistry::create(const std::string& name, const ParamMap& params,
                                                          const AttentionContext& context) const {
  AttentionParams resolved = resolve(name, params);
  LINTRA_CHECK(context.query_dim > 0 && context.value_dim > 0,
               "attention '{}': the context needs positive query_dim and value_dim, got {} and {}", name,
               context.query_dim, context.value_dim);
  std::shared_ptr<InnerAttention> inner = entry(name).factory(resolved, context);
  LINTRA_CHECK(inner != nullptr, "attention '{}': the factory returned null", name);
  LINTRA_CHECK(inner->variant() == name, "attention '{}': the factory built a '{}' variant", name, inner->variant());
  return inner;
}

AttentionRegistry& builtin_attention_registry() {
  static AttentionRegistry* registry = [] {
    auto* r = new AttentionRegistry();
    register_builtin_attentions(*r);
    return r;
  }();
  return *registry;
}

}  // namespace lintra::nn
