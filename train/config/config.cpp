// config.cpp — the value tree (Origin, ConfigNode, Config and its typed getters), scalar readings
// and canonical forms, the YAML writer (to_yaml), the digest, and did-you-mean.
// Reading YAML, merging and overrides are in config_yaml.cpp; schemas in config_schema.cpp.
#include "train/config/config.h"

#include <fmt/format.h>
#include <xxhash.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/error.h"
#include "train/config/detail.h"

namespace lintra {

using namespace config_detail;

// --- Origin ---------------------------------------------------------------------------------------

Origin Origin::in_file(std::string file, int line, int column) {
  Origin o;
  o.kind = Kind::File;
  o.file = std::move(file);
  o.line = line;
  o.column = column;
  return o;
}

Origin Origin::override_arg(std::string text) {
  Origin o;
  o.kind = Kind::Override;
  o.text = std::move(text);
  return o;
}

Origin Origin::schema_default() {
  Origin o;
  o.kind = Kind::Default;
  return o;
}

std::string Origin::str() const {
  switch (kind) {
    case Kind::File:
      return line > 0 ? fmt::format("{}:{}", file, line) : file;
    case Kind::Override:
      return fmt::format("command line override `{}`", text);
    case Kind::Default:
      return "schema default";
    case Kind::None:
      break;
  }
  return "config";
}

// --- ConfigNode -----------------------------------------------------------------------------------

ConfigNode ConfigNode::null(Origin origin) {
  ConfigNode n;
  n.origin = std::move(origin);
  return n;
}

ConfigNode ConfigNode::make_scalar(std::string text, Origin origin, bool quoted) {
  ConfigNode n;
  n.kind = Kind::Scalar;
  // Keep `quoted` only where it changes the meaning: "4" and "~default" stay strings, "abc" needs no mark.
  ScalarForm form = classify_plain(text);
  n.quoted = form == ScalarForm::Null || (quoted && (form != ScalarForm::String || text == kResetToDefault));
  n.scalar = std::move(text);
  n.origin = std::move(origin);
  return n;
}

ConfigNode ConfigNode::sequence(Origin origin) {
  ConfigNode n;
  n.kind = Kind::Sequence;
  n.origin = std::move(origin);
  return n;
}

ConfigNode ConfigNode::mapping(Origin origin) {
  ConfigNode n;
  n.kind = Kind::Mapping;
  n.origin = std::move(origin);
  return n;
}

bool is_reset_to_default(const ConfigNode& node) {
  return node.is_scalar() && !node.quoted && node.scalar == kResetToDefault;
}

const ConfigNode::Entry* ConfigNode::find_entry(std::string_view key) const {
  for (const Entry& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

ConfigNode::Entry* ConfigNode::find_entry(std::string_view key) {
  for (Entry& e : entries) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

ConfigNode& ConfigNode::set(std::string key, ConfigNode value, Origin key_origin) {
  if (Entry* e = find_entry(key)) {
    e->value = std::move(value);
    if (key_origin.kind != Origin::Kind::None) e->key_origin = std::move(key_origin);
    return e->value;
  }
  entries.push_back(Entry{std::move(key), std::move(key_origin), std::move(value)});
  return entries.back().value;
}

std::string ConfigNode::describe() const {
  switch (kind) {
    case Kind::Null:
      return "an empty value (null)";
    case Kind::Scalar: {
      std::string text = scalar.size() > 60 ? scalar.substr(0, 57) + "..." : scalar;
      if (quoted) return fmt::format("\"{}\" (a quoted string)", text);
      return text;
    }
    case Kind::Sequence:
      if (auto flow = emit_flow_sequence(*this); flow && flow->size() <= 60) {
        return fmt::format("the list {}", *flow);
      }
      return fmt::format("a list of {} items", items.size());
    case Kind::Mapping: {
      std::vector<std::string> keys;
      for (const Entry& e : entries) keys.push_back(e.key);
      return keys.empty() ? "an empty mapping" : fmt::format("a mapping (keys {})", join(keys, ", "));
    }
  }
  return "?";
}

bool ConfigNode::operator==(const ConfigNode& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case Kind::Null:
      return true;
    case Kind::Scalar:
      return scalar == other.scalar && quoted == other.quoted;
    case Kind::Sequence:
      return items == other.items;
    case Kind::Mapping:
      if (entries.size() != other.entries.size()) return false;
      for (size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].key != other.entries[i].key || !(entries[i].value == other.entries[i].value)) {
          return false;
        }
      }
      return true;
  }
  return false;
}

// --- Config ---------------------------------------------------------------------------------------

Config::Config() : root_(ConfigNode::mapping()) {}

Config::Config(ConfigNode root, std::string path) : root_(std::move(root)), path_(std::move(path)) {}

std::string Config::full_key(std::string_view key) const { return join_key(path_, key); }

const ConfigNode* Config::find(std::string_view key) const {
  const ConfigNode* node = &root_;
  size_t start = 0;
  while (true) {
    size_t dot = key.find('.', start);
    std::string_view part = key.substr(start, dot == std::string_view::npos ? key.npos : dot - start);
    const ConfigNode::Entry* e = node->find_entry(part);
    if (!e) return nullptr;
    node = &e->value;
    if (dot == std::string_view::npos) return node;
    start = dot + 1;
  }
}

bool Config::has(std::string_view key) const { return find(key) != nullptr; }

const ConfigNode& Config::at(std::string_view key) const {
  if (const ConfigNode* n = find(key)) return *n;
  // Name the deepest section that exists and its keys.
  const ConfigNode* parent = &root_;
  std::string parent_key;
  size_t start = 0;
  std::string_view last = key;
  while (true) {
    size_t dot = key.find('.', start);
    last = key.substr(start, dot == std::string_view::npos ? key.npos : dot - start);
    const ConfigNode::Entry* e = dot == std::string_view::npos ? nullptr : parent->find_entry(last);
    if (!e || !e->value.is_mapping()) break;
    parent = &e->value;
    parent_key = std::string(key.substr(0, dot));
    start = dot + 1;
  }
  std::vector<std::string> keys;
  for (const auto& e : parent->entries) keys.push_back(e.key);
  std::string section = full_key(parent_key);
  std::string msg = fmt::format("{}: {}: not set in the config", parent->origin.str(), full_key(key));
  if (auto close = did_you_mean(last, keys); !close.empty()) {
    msg += fmt::format("; did you mean '{}'?", join_key(section, close[0]));
  }
  msg += fmt::format("\n  keys in {}: {}", section.empty() ? "the config" : "'" + section + "'",
                     keys.empty() ? "(none)" : join(keys, ", "));
  throw Error(msg);
}

std::vector<std::string> Config::keys() const {
  std::vector<std::string> out;
  for (const auto& e : root_.entries) out.push_back(e.key);
  return out;
}

Config Config::section(std::string_view key) const {
  const ConfigNode& n = at(key);
  if (n.is_null()) return Config(ConfigNode::mapping(n.origin), full_key(key));
  if (!n.is_mapping()) throw Error(type_error(n, full_key(key), "a section (a mapping of keys)"));
  return Config(n, full_key(key));
}

int64_t Config::get_int(std::string_view key) const {
  const ConfigNode& n = at(key);
  if (auto v = as_int(n)) return *v;
  throw Error(type_error(n, full_key(key), "an integer"));
}

double Config::get_double(std::string_view key) const {
  const ConfigNode& n = at(key);
  if (auto v = as_double(n)) return *v;
  throw Error(type_error(n, full_key(key), "a number"));
}

bool Config::get_bool(std::string_view key) const {
  const ConfigNode& n = at(key);
  if (auto v = as_bool(n)) return *v;
  throw Error(type_error(n, full_key(key), "true or false"));
}

std::string Config::get_string(std::string_view key) const {
  const ConfigNode& n = at(key);
  if (auto v = as_string(n)) return *v;
  throw Error(type_error(n, full_key(key), "a string"));
}

namespace {

template <typename T, typename Read>
std::vector<T> get_list(const Config& cfg, std::string_view key, const char* what, Read read) {
  const ConfigNode& n = cfg.at(key);
  if (!n.is_sequence()) throw Error(type_error(n, cfg.full_key(key), fmt::format("a list of {}", what)));
  std::vector<T> out;
  for (size_t i = 0; i < n.items.size(); ++i) {
    auto v = read(n.items[i]);
    if (!v) {
      throw Error(type_error(n.items[i], fmt::format("{}[{}]", cfg.full_key(key), i),
                             fmt::format("a list of {}", what)));
    }
    out.push_back(*v);
  }
  return out;
}

}  // namespace

std::vector<int64_t> Config::get_list_int(std::string_view key) const {
  return get_list<int64_t>(*this, key, "integers", as_int);
}

std::vector<double> Config::get_list_double(std::string_view key) const {
  return get_list<double>(*this, key, "numbers", as_double);
}

std::vector<std::string> Config::get_list_string(std::string_view key) const {
  return get_list<std::string>(*this, key, "strings", as_string);
}

std::string Config::where(std::string_view key) const {
  const ConfigNode* n = find(key);
  return n ? n->origin.str() : std::string();
}

// --- writing --------------------------------------------------------------------------------------

std::string to_yaml(const Config& cfg) {
  const ConfigNode& root = cfg.node();
  std::string out;
  if (root.is_mapping() && !root.entries.empty()) {
    emit_mapping(out, root, 0);
  } else if (root.is_mapping()) {
    out = "{}\n";
  } else if (auto flow = emit_flow_sequence(root)) {
    out = *flow + "\n";
  } else {
    out = emit_scalar(root) + "\n";
  }
  return out;
}

uint64_t config_digest(const Config& cfg) {
  std::string text = to_yaml(cfg);
  return XXH3_64bits(text.data(), text.size());
}

std::string config_digest_hex(const Config& cfg) { return fmt::format("{:016x}", config_digest(cfg)); }

// --- did-you-mean ---------------------------------------------------------------------------------

namespace {

// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), case-insensitive.
size_t edit_distance(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (const std::string& c : candidates) {
    if (c == word) continue;
    size_t d = edit_distance(word, c);
    size_t shorter = std::min(word.size(), c.size());
    bool prefix = shorter >= 2 && (c.starts_with(word) || word.starts_with(c));
    if ((d <= 2 && d < std::max(word.size(), c.size())) || prefix) scored.emplace_back(d, c);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (auto& [d, c] : scored) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

// --- config_detail: scalars -----------------------------------------------------------------------

namespace config_detail {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Scans [0-9]+ from i; returns the count.
size_t digits(std::string_view s, size_t i) {
  size_t n = 0;
  while (i + n < s.size() && is_digit(s[i + n])) ++n;
  return n;
}

bool is_float_text(std::string_view s) {
  size_t i = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
  std::string_view rest = s.substr(i);
  if (rest == ".inf" || rest == ".Inf" || rest == ".INF") return true;
  if (i == 0 && (s == ".nan" || s == ".NaN" || s == ".NAN")) return true;
  size_t int_digits = digits(s, i);
  i += int_digits;
  size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    frac_digits = digits(s, i + 1);
    i += 1 + frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = digits(s, i);
    if (exp_digits == 0) return false;
    i += exp_digits;
  }
  return i == s.size();
}

std::optional<double> parse_double_text(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string_view body = s[0] == '+' ? s.substr(1) : s;
  bool negative = !body.empty() && body[0] == '-';
  std::string_view unsigned_body = negative ? body.substr(1) : body;
  if (unsigned_body == ".inf" || unsigned_body == ".Inf" || unsigned_body == ".INF") {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (body == ".nan" || body == ".NaN" || body == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  double v = 0;
  auto [ptr, ec] = std::from_chars(body.data(), body.data() + body.size(), v);
  if (ec != std::errc() || ptr != body.data() + body.size()) return std::nullopt;
  return v;
}

// Characters that a plain scalar written by us may hold (a conservative subset of YAML's rules,
// safe in block and flow context alike); bytes >= 0x80 are UTF-8 and fine.
bool plain_char(char c) {
  auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' ||
         c == '.' || c == '+' || c == '-' || c == '/' || c == ' ';
}

bool plain_safe(std::string_view s) {
  if (s.empty() || s.front() == ' ' || s.back() == ' ') return false;
  if (s[0] == '-' && (s.size() == 1 || s[1] == ' ')) return false;
  return std::all_of(s.begin(), s.end(), plain_char);
}

std::string double_quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace

ScalarForm classify_plain(std::string_view s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return ScalarForm::Null;
  if (s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE") {
    return ScalarForm::Bool;
  }
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  if (i < s.size() && digits(s, i) == s.size() - i) return ScalarForm::Int;
  if (is_float_text(s)) return ScalarForm::Float;
  return ScalarForm::String;
}

std::optional<int64_t> as_int(const ConfigNode& node) {
  if (!node.is_scalar() || node.quoted) return std::nullopt;
  ScalarForm form = classify_plain(node.scalar);
  if (form == ScalarForm::Int) {
    std::string_view s = node.scalar;
    if (s[0] == '+') s.remove_prefix(1);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;  // out of range
    return v;
  }
  if (form == ScalarForm::Float) {
    auto d = parse_double_text(node.scalar);
    if (d && std::isfinite(*d) && std::floor(*d) == *d && std::fabs(*d) <= 9007199254740992.0) {
      return static_cast<int64_t>(*d);
    }
  }
  return std::nullopt;
}

std::optional<double> as_double(const ConfigNode& node) {
  if (!node.is_scalar() || node.quoted) return std::nullopt;
  ScalarForm form = classify_plain(node.scalar);
  if (form != ScalarForm::Int && form != ScalarForm::Float) return std::nullopt;
  return parse_double_text(node.scalar);
}

std::optional<bool> as_bool(const ConfigNode& node) {
  if (!node.is_scalar() || node.quoted || classify_plain(node.scalar) != ScalarForm::Bool) {
    return std::nullopt;
  }
  return node.scalar[0] == 't' || node.scalar[0] == 'T';
}

std::optional<std::string> as_string(const ConfigNode& node) {
  if (!node.is_scalar()) return std::nullopt;
  return node.scalar;
}

std::string canonical_int(int64_t v) { return fmt::format("{}", v); }

std::string canonical_double(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  std::string s = fmt::format("{}", v);  // shortest text that reads back exactly
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

// --- config_detail: writing -----------------------------------------------------------------------

std::string emit_scalar(const ConfigNode& node) {
  if (node.is_null()) return "null";
  if (is_reset_to_default(node)) return kResetToDefault;  // plain: YAML reads `~default` as a string
  if (!node.quoted && plain_safe(node.scalar)) return node.scalar;
  return double_quoted(node.scalar);
}

std::string emit_key(std::string_view key) {
  if (plain_safe(key) && classify_plain(key) != ScalarForm::Null) return std::string(key);
  return double_quoted(key);
}

std::optional<std::string> emit_flow_sequence(const ConfigNode& node) {
  if (!node.is_sequence()) return std::nullopt;
  std::vector<std::string> parts;
  for (const ConfigNode& item : node.items) {
    if (!item.is_scalar() && !item.is_null()) return std::nullopt;
    parts.push_back(emit_scalar(item));
  }
  return "[" + join(parts, ", ") + "]";
}

namespace {

void emit_block_sequence(std::string& out, const ConfigNode& seq, int indent) {
  std::string pad(indent, ' ');
  for (const ConfigNode& item : seq.items) {
    if (item.is_mapping() && !item.entries.empty()) {
      std::string block;
      emit_mapping(block, item, indent + 2);
      block.replace(0, indent + 2, pad + "- ");  // first key on the dash line
      out += block;
    } else if (item.is_mapping()) {
      out += pad + "- {}\n";
    } else if (auto flow = emit_flow_sequence(item)) {
      out += pad + "- " + *flow + "\n";
    } else if (item.is_sequence()) {
      out += pad + "-\n";
      emit_block_sequence(out, item, indent + 2);
    } else {
      out += pad + "- " + emit_scalar(item) + "\n";
    }
  }
}

}  // namespace

void emit_mapping(std::string& out, const ConfigNode& mapping, int indent) {
  std::string pad(indent, ' ');
  for (const ConfigNode::Entry& e : mapping.entries) {
    out += pad + emit_key(e.key) + ":";
    const ConfigNode& v = e.value;
    if (v.is_mapping() && !v.entries.empty()) {
      out += "\n";
      emit_mapping(out, v, indent + 2);
    } else if (v.is_mapping()) {
      out += " {}\n";
    } else if (auto flow = emit_flow_sequence(v)) {
      out += " " + *flow + "\n";
    } else if (v.is_sequence()) {
      out += "\n";
      emit_block_sequence(out, v, indent + 2);
    } else {
      out += " " + emit_scalar(v) + "\n";
    }
  }
}

// --- config_detail: messages ----------------------------------------------------------------------

std::string type_error(const ConfigNode& node, std::string_view key, std::string_view expected) {
  return fmt::format("{}: {}: expected {}, got {}", node.origin.str(), key, expected, node.describe());
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string quoted_list(const std::vector<std::string>& items, std::string_view last_sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += i + 1 == items.size() ? last_sep : std::string_view(", ");
    out += "'" + items[i] + "'";
  }
  return out;
}

std::string join_key(std::string_view prefix, std::string_view key) {
  if (prefix.empty()) return std::string(key);
  if (key.empty()) return std::string(prefix);
  return fmt::format("{}.{}", prefix, key);
}

}  // namespace config_detail

}  // namespace lintra
