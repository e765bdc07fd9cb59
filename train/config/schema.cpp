// schema.cpp — schemas (Schema, Field), validation against them (validate_section),
// sections whose keys depend on a type key (variant_resolver), and the documented-YAML generator
// behind configs/base.yaml.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/error.h"
#include "train/config/config.h"
#include "train/config/detail.h"

namespace lintra {

using namespace config_detail;

// --- Schema ---------------------------------------------------------------------------------------

namespace {

ConfigNode default_scalar(std::string text, bool is_string = false) {
  return ConfigNode::make_scalar(std::move(text), Origin::schema_default(), is_string);
}

template <typename T, typename ToText>
ConfigNode default_list(const std::vector<T>& values, ToText to_text, bool is_string) {
  ConfigNode seq = ConfigNode::sequence(Origin::schema_default());
  for (const T& v : values) seq.items.push_back(default_scalar(to_text(v), is_string));
  return seq;
}

const char* type_name(FieldType t) {
  switch (t) {
    case FieldType::Int:
      return "int";
    case FieldType::Double:
      return "float";
    case FieldType::Bool:
      return "bool";
    case FieldType::String:
      return "string";
    case FieldType::Enum:
      return "enum";
    case FieldType::ListInt:
      return "list of int";
    case FieldType::ListDouble:
      return "list of float";
    case FieldType::ListString:
      return "list of string";
    case FieldType::Section:
      return "section";
    case FieldType::Owned:
      return "section";
  }
  return "?";
}

}  // namespace

// Access to Field's internals for the schema and the validator.
struct FieldAccess {
  static Field make(std::string name, FieldType type, std::string doc, std::optional<ConfigNode> def) {
    Field f;
    f.name_ = std::move(name);
    f.type_ = type;
    f.doc_ = std::move(doc);
    f.has_default_ = def.has_value();
    f.required_ = false;
    if (def) f.default_ = std::move(*def);
    return f;
  }
  static Field& set_allowed(Field& f, AllowedValues allowed) {
    f.allowed_ = std::move(allowed);
    return f;
  }
  static void set_section(Field& f, Schema s) { f.section_.push_back(std::move(s)); }
  static void set_resolver(Field& f, SchemaResolver r) { f.resolver_ = std::move(r); }
  static Schema* section(Field& f) { return f.section_.empty() ? nullptr : &f.section_[0]; }

  // "" when v is within the field's bounds, else the bounds as text (">= 1", "in [0, 1]", "> 0").
  static std::string out_of_range(const Field& f, double v) {
    bool ok = (!f.has_min_ || (f.min_exclusive_ ? v > f.min_ : v >= f.min_)) && (!f.has_max_ || v <= f.max_);
    return ok ? std::string() : bounds(f);
  }
  static std::string bounds(const Field& f) {
    if (f.has_min_ && f.has_max_) {
      return fmt::format("in {}{}, {}]", f.min_exclusive_ ? "(" : "[", f.min_, f.max_);
    }
    if (f.has_min_) return fmt::format("{} {}", f.min_exclusive_ ? ">" : ">=", f.min_);
    if (f.has_max_) return fmt::format("<= {}", f.max_);
    return {};
  }
};

Schema::Schema(std::string doc) : doc_(std::move(doc)) {}

Field& Schema::add(Field field) {
  const std::string& name = field.name();
  if (name.empty() || name.find('.') != std::string::npos || name.find('=') != std::string::npos) {
    throw Error(fmt::format("schema: '{}' is not a valid key name (non-empty, no '.' or '=')", name));
  }
  if (find(name)) throw Error(fmt::format("schema: key '{}' is declared twice", name));
  fields_.push_back(std::move(field));
  return fields_.back();
}

Field& Schema::add_int(std::string name, int64_t default_value, std::string doc) {
  return add(FieldAccess::make(std::move(name), FieldType::Int, std::move(doc),
                               default_scalar(canonical_int(default_value))));
}

Field& Schema::add_double(std::string name, double default_value, std::string doc) {
  return add(FieldAccess::make(std::move(name), FieldType::Double, std::move(doc),
                               default_scalar(canonical_double(default_value))));
}

Field& Schema::add_bool(std::string name, bool default_value, std::string doc) {
  return add(FieldAccess::make(std::move(name), FieldType::Bool, std::move(doc),
                               default_scalar(canonical_bool(default_value))));
}

Field& Schema::add_string(std::string name, std::string default_value, std::string doc) {
  return add(FieldAccess::make(std::move(name), FieldType::String, std::move(doc),
                               default_scalar(std::move(default_value), true)));
}

Field& Schema::add_enum(std::string name, std::vector<std::string> allowed, std::string default_value,
                        std::string doc) {
  return add_enum(std::move(name), AllowedValues([allowed = std::move(allowed)] { return allowed; }),
                  std::move(default_value), std::move(doc));
}

Field& Schema::add_enum(std::string name, AllowedValues allowed, std::string default_value, std::string doc) {
  if (!allowed) throw Error(fmt::format("schema: enum '{}' has no list of allowed values", name));
  Field& f = add(FieldAccess::make(std::move(name), FieldType::Enum, std::move(doc),
                                   default_scalar(std::move(default_value), true)));
  return FieldAccess::set_allowed(f, std::move(allowed));
}

Field& Schema::add_list_int(std::string name, std::vector<int64_t> default_value, std::string doc) {
  return add(FieldAccess::make(std::move(name), FieldType::ListInt, std::move(doc),
                               default_list(default_value, canonical_int, false)));
}

Field& Schema::add_list_double(std::string name, std::vector<double> default_value, std::string doc) {
  return add(FieldAccess::make(std::move(name), FieldType::ListDouble, std::move(doc),
                               default_list(default_value, canonical_double, false)));
}

Field& Schema::add_list_string(std::string name, std::vector<std::string> default_value, std::string doc) {
  return add(FieldAccess::make(std::move(name), FieldType::ListString, std::move(doc),
                               default_list(
                                   default_value, [](const std::string& s) { return s; }, true)));
}

Field& Schema::add_section(std::string name, Schema section, std::string doc) {
  Field& f = add(FieldAccess::make(std::move(name), FieldType::Section, std::move(doc), std::nullopt));
  FieldAccess::set_section(f, std::move(section));
  return f;
}

Field& Schema::add_owned_section(std::string name, std::string doc, SchemaResolver resolver) {
  Field& f = add(FieldAccess::make(std::move(name), FieldType::Owned, std::move(doc), std::nullopt));
  FieldAccess::set_resolver(f, std::move(resolver));
  return f;
}

void Schema::extend(const Schema& other) {
  for (const Field& f : other.fields_) add(f);
}

const Field* Schema::find(std::string_view name) const {
  for (const Field& f : fields_) {
    if (f.name() == name) return &f;
  }
  return nullptr;
}

Schema& Schema::section(std::string_view dotted) {
  Schema* s = this;
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    std::string_view part = dotted.substr(start, dot == std::string_view::npos ? dotted.npos : dot - start);
    auto it =
        std::find_if(s->fields_.begin(), s->fields_.end(), [&](const Field& f) { return f.name() == part; });
    if (it == s->fields_.end() || it->type() != FieldType::Section) {
      throw Error(fmt::format("schema: '{}' is not a declared section", dotted));
    }
    s = FieldAccess::section(*it);
    if (dot == std::string_view::npos) return *s;
    start = dot + 1;
  }
}

std::vector<std::string> Schema::names() const {
  std::vector<std::string> out;
  for (const Field& f : fields_) out.push_back(f.name());
  return out;
}

// --- Field ----------------------------------------------------------------------------------------

namespace {

bool numeric(FieldType t) {
  return t == FieldType::Int || t == FieldType::Double || t == FieldType::ListInt ||
         t == FieldType::ListDouble;
}

}  // namespace

Field& Field::min(double lo) {
  if (!numeric(type_)) throw Error(fmt::format("schema: '{}' is not numeric; it cannot have a range", name_));
  has_min_ = true;
  min_ = lo;
  min_exclusive_ = false;
  return *this;
}

Field& Field::greater_than(double lo) {
  min(lo);
  min_exclusive_ = true;
  return *this;
}

Field& Field::max(double hi) {
  if (!numeric(type_)) throw Error(fmt::format("schema: '{}' is not numeric; it cannot have a range", name_));
  has_max_ = true;
  max_ = hi;
  return *this;
}

Field& Field::required() {
  has_default_ = false;
  required_ = true;
  default_ = ConfigNode();
  return *this;
}

Field& Field::optional() {
  has_default_ = false;
  required_ = false;
  default_ = ConfigNode();
  return *this;
}

std::vector<std::string> Field::allowed_values() const {
  return allowed_ ? allowed_() : std::vector<std::string>{};
}

const Schema* Field::section_schema() const { return section_.empty() ? nullptr : &section_[0]; }

std::string Field::summary() const {
  if (type_ == FieldType::Section) return "section";
  if (type_ == FieldType::Owned) return "section, validated by its owner";
  std::string s = required_ ? "required " : !has_default_ ? "optional " : "";
  if (type_ == FieldType::Enum) {
    s += "one of " + join(allowed_values(), ", ");
  } else {
    s += type_name(type_);
    if (std::string b = FieldAccess::bounds(*this); !b.empty()) s += " " + b;
  }
  if (has_default_) {
    auto flow = emit_flow_sequence(default_);
    s += "; default " + (flow ? *flow : emit_scalar(default_));
  }
  return s;
}

// --- validation -----------------------------------------------------------------------------------

namespace {

class Validator {
 public:
  std::vector<std::string> errors;

  // A mapping (or null: empty) against a schema; returns it resolved.
  ConfigNode section(const ConfigNode& in, const Schema& schema, const std::string& path) {
    ConfigNode out = ConfigNode::mapping(in.origin);
    if (!in.is_mapping() && !in.is_null()) {
      errors.push_back(type_error(in, path.empty() ? "top level" : path, "a section (a mapping of keys)"));
      return out;
    }
    for (const ConfigNode::Entry& e : in.entries) {
      if (!schema.find(e.key)) errors.push_back(unknown_key(e, schema, path));
    }
    for (const Field& f : schema.fields()) field(in, f, join_key(path, f.name()), out);
    return out;
  }

 private:
  // One field of a section: absent or `~default` take the default, null is an error, else the value.
  void field(const ConfigNode& in, const Field& f, const std::string& key, ConfigNode& out) {
    const ConfigNode::Entry* e = in.find_entry(f.name());
    if (e && e->value.is_null()) {
      errors.push_back(null_value(e->value, f, key));
      return;
    }
    const bool use_default = !e || is_reset_to_default(e->value);
    Origin key_origin = e ? e->key_origin : Origin::schema_default();
    const ConfigNode empty = ConfigNode::mapping(e ? e->value.origin : in.origin);
    const ConfigNode& raw = use_default ? empty : e->value;
    if (f.type() == FieldType::Section) {
      out.set(f.name(), section(raw, *f.section_schema(), key), key_origin);
    } else if (f.type() == FieldType::Owned) {
      if (auto v = owned(raw, f, key)) out.set(f.name(), std::move(*v), key_origin);
    } else if (use_default) {
      if (f.has_default()) {
        if (auto v = value(f.default_value(), f, key)) out.set(f.name(), std::move(*v), key_origin);
      } else if (f.is_required()) {
        const Origin& where = e ? e->value.origin : in.origin;
        errors.push_back(fmt::format("{}: {}: required key is not set{}\n{}", where.str(), key,
                                     e ? fmt::format(" (`{}` resets to a default, and it has none)", kResetToDefault)
                                       : "",
                                     doc_line(f, key)));
      }
    } else if (auto v = value(raw, f, key)) {
      out.set(f.name(), std::move(*v), key_origin);
    }
  }

  // `layers:` or `layers: null` (or `model.layers=`) is a mistake, not a request for the default: it
  // would silently undo what an included file set.
  static std::string null_value(const ConfigNode& v, const Field& f, const std::string& key) {
    const bool sec = f.type() == FieldType::Section || f.type() == FieldType::Owned;
    const std::string what = sec ? "write its keys indented below it or remove it"
                                 : "write a value or remove the key";
    return fmt::format("{}: {}: an empty value (null) is not a value; {}, or write `{}` to reset it to {}\n{}",
                       v.origin.str(), key, what, kResetToDefault,
                       sec ? std::string("the defaults of its keys")
                           : f.has_default() ? "its default (" + default_text(f) + ")"
                                             : std::string("unset"),
                       doc_line(f, key));
  }

  static std::string default_text(const Field& f) {
    auto flow = emit_flow_sequence(f.default_value());
    return flow ? *flow : emit_scalar(f.default_value());
  }

  static std::string doc_line(const Field& f, const std::string& key) {
    return fmt::format("  {}: {} [{}]", key, f.doc(), f.summary());
  }

  static std::string unknown_key(const ConfigNode::Entry& e, const Schema& schema, const std::string& path) {
    std::vector<std::string> names = schema.names();
    std::string msg = fmt::format("{}: {}: unknown key", e.key_origin.str(), join_key(path, e.key));
    if (auto close = did_you_mean(e.key, names); !close.empty()) {
      std::vector<std::string> full;
      for (size_t i = 0; i < close.size() && i < 3; ++i) full.push_back(join_key(path, close[i]));
      msg += fmt::format("; did you mean {}?", quoted_list(full, " or "));
    }
    msg += fmt::format("\n  valid keys in {}: {}", path.empty() ? "the config" : "'" + path + "'",
                       names.empty() ? "(none)" : join(names, ", "));
    return msg;
  }

  std::optional<ConfigNode> owned(const ConfigNode& raw, const Field& f, const std::string& key) {
    if (!raw.is_mapping() && !raw.is_null()) {
      errors.push_back(type_error(raw, key, "a section (a mapping of keys)") + "\n" + doc_line(f, key));
      return std::nullopt;
    }
    ConfigNode mapping = raw.is_mapping() ? raw : ConfigNode::mapping(raw.origin);
    if (!f.resolver()) return mapping;
    try {
      Schema chosen = f.resolver()(Config(mapping, key));
      return section(mapping, chosen, key);
    } catch (const Error& err) {
      errors.push_back(err.what());
      return std::nullopt;
    }
  }

  // Checks one value (a user's or a default) against a scalar or list field; canonical on success.
  std::optional<ConfigNode> value(const ConfigNode& v, const Field& f, const std::string& key) {
    switch (f.type()) {
      case FieldType::ListInt:
      case FieldType::ListDouble:
      case FieldType::ListString: {
        const char* what = f.type() == FieldType::ListInt      ? "a list of integers"
                           : f.type() == FieldType::ListDouble ? "a list of numbers"
                                                               : "a list of strings";
        if (!v.is_sequence()) return fail(type_error(v, key, what), f, key);
        ConfigNode out = ConfigNode::sequence(v.origin);
        bool ok = true;
        for (size_t i = 0; i < v.items.size(); ++i) {
          auto item = element(v.items[i], f, fmt::format("{}[{}]", key, i), key);
          if (item) out.items.push_back(std::move(*item));
          ok = ok && item.has_value();
        }
        if (!ok) return std::nullopt;
        return out;
      }
      default:
        return element(v, f, key, key);
    }
  }

  // One scalar: `name` is what the message calls it (key or key[i]); `key` names the field.
  std::optional<ConfigNode> element(const ConfigNode& v, const Field& f, const std::string& name,
                                    const std::string& key) {
    switch (f.type()) {
      case FieldType::Int:
      case FieldType::ListInt: {
        auto x = as_int(v);
        if (!x) return fail(type_error(v, name, "an integer"), f, key);
        if (auto b = FieldAccess::out_of_range(f, static_cast<double>(*x)); !b.empty()) {
          return fail(type_error(v, name, "an integer " + b), f, key);
        }
        return ConfigNode::make_scalar(canonical_int(*x), v.origin);
      }
      case FieldType::Double:
      case FieldType::ListDouble: {
        auto x = as_double(v);
        if (!x) return fail(type_error(v, name, "a number"), f, key);
        if (auto b = FieldAccess::out_of_range(f, *x); !b.empty()) {
          return fail(type_error(v, name, "a number " + b), f, key);
        }
        return ConfigNode::make_scalar(canonical_double(*x), v.origin);
      }
      case FieldType::Bool: {
        auto x = as_bool(v);
        if (!x) return fail(type_error(v, name, "true or false"), f, key);
        return ConfigNode::make_scalar(canonical_bool(*x), v.origin);
      }
      case FieldType::String:
      case FieldType::ListString: {
        auto x = as_string(v);
        if (!x) return fail(type_error(v, name, "a string"), f, key);
        return ConfigNode::make_scalar(*x, v.origin, true);
      }
      case FieldType::Enum: {
        std::vector<std::string> allowed = f.allowed_values();
        auto x = as_string(v);
        if (!x || std::find(allowed.begin(), allowed.end(), *x) == allowed.end()) {
          std::string msg = type_error(v, name, "one of " + quoted_list(allowed, " or "));
          if (x) {
            if (auto close = did_you_mean(*x, allowed); !close.empty()) {
              msg += fmt::format("; did you mean '{}'?", close[0]);
            }
          }
          return fail(msg, f, key);
        }
        return ConfigNode::make_scalar(*x, v.origin, true);
      }
      default:
        return std::nullopt;
    }
  }

  std::optional<ConfigNode> fail(std::string summary, const Field& f, const std::string& key) {
    errors.push_back(summary + "\n" + doc_line(f, key));
    return std::nullopt;
  }
};

}  // namespace

Config validate_section(const Config& section, const Schema& schema) {
  Validator v;
  ConfigNode out = v.section(section.node(), schema, section.path());
  if (!v.errors.empty()) {
    constexpr size_t kShown = 20;
    std::vector<std::string> shown(v.errors.begin(), v.errors.begin() + std::min(kShown, v.errors.size()));
    std::string msg = join(shown, "\n");
    if (v.errors.size() > kShown) msg += fmt::format("\n... and {} more errors", v.errors.size() - kShown);
    throw Error(msg);
  }
  return Config(std::move(out), section.path());
}

SchemaResolver variant_resolver(std::string key, AllowedValues allowed, std::string default_value,
                                std::string key_doc, std::function<Schema(const std::string&)> schema_for) {
  return [=](const Config& section) {
    Schema s;
    s.add_enum(key, allowed, default_value, key_doc);
    std::string chosen = default_value;
    if (const ConfigNode* n = section.find(key); n && !n->is_null()) {
      auto text = as_string(*n);
      if (!text) return s;  // validation reports the key
      chosen = *text;
    }
    std::vector<std::string> names = allowed();
    if (std::find(names.begin(), names.end(), chosen) == names.end()) return s;
    s.extend(schema_for(chosen));
    return s;
  };
}

// --- documented YAML ------------------------------------------------------------------------------

namespace {

void document(std::string& out, const Schema& schema, int indent, const std::string& path) {
  std::string pad(indent, ' ');
  for (const Field& f : schema.fields()) {
    std::string key = join_key(path, f.name());
    std::string info = f.type() == FieldType::Section ? std::string()
                       : f.type() == FieldType::Owned ? "validated by its owner"
                                                      : f.summary();
    std::string comment = info.empty()      ? f.doc()
                          : f.doc().empty() ? info
                                            : fmt::format("{} [{}]", f.doc(), info);
    out += pad + "# " + comment + "\n";
    const Schema* sub = f.section_schema();
    std::optional<Schema> resolved;
    if (f.type() == FieldType::Owned && f.resolver()) {
      resolved = f.resolver()(Config(ConfigNode::mapping(), key));
      sub = &*resolved;
    }
    if (f.type() == FieldType::Section || f.type() == FieldType::Owned) {
      if (!sub || sub->fields().empty()) {
        out += pad + emit_key(f.name()) + ": {}\n";
      } else {
        out += pad + emit_key(f.name()) + ":\n";
        document(out, *sub, indent + 2, key);
      }
    } else if (f.has_default()) {
      auto flow = emit_flow_sequence(f.default_value());
      out += pad + emit_key(f.name()) + ": " + (flow ? *flow : emit_scalar(f.default_value())) + "\n";
    } else {
      out += pad + "# " + emit_key(f.name()) + ":" + (f.is_required() ? "  (required)" : "") + "\n";
    }
  }
}

}  // namespace

std::string schema_to_documented_yaml(const Schema& schema, std::string_view header) {
  std::string out;
  if (!header.empty()) {
    size_t start = 0;
    while (start <= header.size()) {
      size_t nl = header.find('\n', start);
      std::string_view line = header.substr(start, nl == std::string_view::npos ? header.npos : nl - start);
      out += line.empty() ? "#\n" : "# " + std::string(line) + "\n";
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
    out += "\n";
  }
  document(out, schema, 0, "");
  return out;
}

}  // namespace lintra
