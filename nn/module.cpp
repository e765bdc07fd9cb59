#include "nn/module.h"

#include <fmt/format.h>

#include "core/error.h"

namespace lintra::nn {

namespace {

std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

}  // namespace

void Module::check_new_name(const std::string& name, const char* what) const {
  LINTRA_CHECK(!name.empty() && name.find('.') == std::string::npos,
               "{}: {} name '{}' must be non-empty and contain no '.'", type_name(), what, name);
  for (const auto& [n, _] : params_)
    LINTRA_CHECK(n != name, "{}: '{}' is already registered as a parameter", type_name(), name);
  for (const auto& [n, _] : children_)
    LINTRA_CHECK(n != name, "{}: '{}' is already registered as a child module", type_name(), name);
  for (const auto& [n, _] : generators_)
    LINTRA_CHECK(n != name, "{}: '{}' is already registered as a generator", type_name(), name);
}

Var Module::register_parameter(const std::string& name, Var v) {
  check_new_name(name, "parameter");
  LINTRA_CHECK(v.defined() && v.is_leaf(), "{}: parameter '{}' must be a defined leaf Var", type_name(), name);
  LINTRA_CHECK(is_floating(v.dtype()), "{}: parameter '{}' must be floating, got {}", type_name(), name,
               v.data().describe());
  v.set_requires_grad(true);
  params_.emplace_back(name, v);
  return v;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> child) {
  check_new_name(name, "child module");
  LINTRA_CHECK(child != nullptr, "{}: child module '{}' is null", type_name(), name);
  child->train(training_);
  children_.emplace_back(name, std::move(child));
}

void Module::register_generator(const std::string& name, Generator* gen) {
  check_new_name(name, "generator");
  LINTRA_CHECK(gen != nullptr, "{}: generator '{}' is null", type_name(), name);
  generators_.emplace_back(name, gen);
}

std::vector<std::pair<std::string, Var>> Module::named_parameters(const std::string& prefix) const {
  std::vector<std::pair<std::string, Var>> out;
  for (const auto& [n, v] : params_) out.emplace_back(join_name(prefix, n), v);
  for (const auto& [n, c] : children_) {
    auto sub = c->named_parameters(join_name(prefix, n));
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

std::vector<Var> Module::parameters() const {
  std::vector<Var> out;
  for (auto& [_, v] : named_parameters()) out.push_back(v);
  return out;
}

std::vector<std::pair<std::string, Generator*>> Module::named_generators(const std::string& prefix) const {
  std::vector<std::pair<std::string, Generator*>> out;
  for (const auto& [n, g] : generators_) out.emplace_back(join_name(prefix, n), g);
  for (const auto& [n, c] : children_) {
    auto sub = c->named_generators(join_name(prefix, n));
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

Var Module::parameter(const std::string& dotted_name) const {
  auto all = named_parameters();
  std::vector<std::string> names;
  for (auto& [n, v] : all) {
    if (n == dotted_name) return v;
    names.push_back(n);
  }
  LINTRA_FAIL("{}: no parameter named '{}'; the parameters are: {}", type_name(), dotted_name,
              fmt::join(names, ", "));
}

int64_t Module::num_parameters() const {
  int64_t n = 0;
  for (auto& [_, v] : named_parameters()) n += v.numel();
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [_, c] : children_) c->train(on);
}

void Module::zero_grad() {
  for (auto& [_, v] : named_parameters()) v.zero_grad();
}

void Module::to(DType dtype) {
  LINTRA_CHECK(is_floating(dtype), "{}: to() needs a floating dtype, got {}", type_name(), dtype);
  for (auto& [_, v] : named_parameters()) {
    VarImpl* impl = v.impl();
    if (impl->data.dtype() == dtype) continue;
    impl->data = impl->data.to(dtype);  // a fresh tensor: nothing saved for backward refers to it
    impl->grad = Tensor();
  }
}

void Module::to(Device device) {
  for (auto& [_, v] : named_parameters()) {
    VarImpl* impl = v.impl();
    if (impl->data.device() == device) continue;
    impl->data = impl->data.to(device);
    impl->grad = Tensor();
  }
}

Device Module::device() const {
  const auto params = named_parameters();
  if (params.empty()) return Device::cpu;
  const Device d = params.front().second.data().device();
  for (const auto& [name, v] : params)
    LINTRA_CHECK(v.data().device() == d, "{}: parameters on several devices: '{}' on {}, '{}' on {}", type_name(),
                 params.front().first, d, name, v.data().device());
  return d;
}

void Module::describe_into(std::string& out, const std::string& name, int depth) const {
  std::string indent(size_t(2 * depth), ' ');
  out += indent;
  if (!name.empty()) out += name + ": ";
  out += type_name();
  std::string extra = extra_repr();
  if (!extra.empty()) out += "(" + extra + ")";
  for (const auto& [n, v] : params_) out += fmt::format("  {} {}", n, shape_str(v.shape()));
  out += "\n";
  for (const auto& [n, c] : children_) c->describe_into(out, n, depth + 1);
}

std::string Module::describe() const {
  std::string out;
  describe_into(out, "", 0);
  out += fmt::format("{} parameters ({} tensors)\n", num_parameters(), named_parameters().size());
  return out;
}

}  // namespace lintra::nn
