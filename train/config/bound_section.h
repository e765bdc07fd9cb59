// bound_section.h — a config section whose keys are declared once, each with the struct member it
// fills: the same declaration adds the key to the section's Schema (type, default, doc, range) and
// reads it back into the struct, so the schema and the typed options cannot drift apart.
//
//   BoundSection<OptimizerOptions> s("the optimizer");
//   s.add_double("lr", &OptimizerOptions::lr, 1e-3, "learning rate").greater_than(0);
//   top.add_section("optim", s.schema(), "the optimizer");     // the schema
//   OptimizerOptions o = s.read(cfg.section("optim"));          // the options of a validated config
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "train/config/config.h"

namespace lintra {

template <typename Options>
class BoundSection {
 public:
  explicit BoundSection(std::string doc) : schema_(std::move(doc)) {}

  Field& add_int(std::string name, int64_t Options::*member, int64_t default_value, std::string doc) {
    bind(name, member, &Config::get_int);
    return schema_.add_int(std::move(name), default_value, std::move(doc));
  }
  Field& add_double(std::string name, double Options::*member, double default_value, std::string doc) {
    bind(name, member, &Config::get_double);
    return schema_.add_double(std::move(name), default_value, std::move(doc));
  }
  Field& add_bool(std::string name, bool Options::*member, bool default_value, std::string doc) {
    bind(name, member, &Config::get_bool);
    return schema_.add_bool(std::move(name), default_value, std::move(doc));
  }
  Field& add_string(std::string name, std::string Options::*member, std::string default_value, std::string doc) {
    bind(name, member, &Config::get_string);
    return schema_.add_string(std::move(name), std::move(default_value), std::move(doc));
  }
  Field& add_enum(std::string name, std::string Options::*member, std::vector<std::string> allowed,
                  std::string default_value, std::string doc) {
    bind(name, member, &Config::get_string);
    return schema_.add_enum(std::move(name), std::move(allowed), std::move(default_value), std::move(doc));
  }
  Field& add_list_int(std::string name, std::vector<int64_t> Options::*member, std::vector<int64_t> default_value,
                      std::string doc) {
    bind(name, member, &Config::get_list_int);
    return schema_.add_list_int(std::move(name), std::move(default_value), std::move(doc));
  }
  // The section's schema (keys that no member holds are added to it directly).
  Schema& schema() { return schema_; }
  const Schema& schema() const { return schema_; }

  // The options of a section validated against schema(): `base` with every bound member set.
  Options read(const Config& section, Options base = {}) const {
    for (const auto& r : readers_) r(section, base);
    return base;
  }

 private:
  template <typename T, typename Getter>
  void bind(const std::string& name, T Options::*member, Getter get) {
    readers_.push_back([name, member, get](const Config& c, Options& o) { o.*member = (c.*get)(name); });
  }

  Schema schema_;
  std::vector<std::function<void(const Config&, Options&)>> readers_;
};

}  // namespace lintra
