// yaml.cpp — reading YAML into ConfigNode trees (with file:line:column on every node and
// the checks yaml-cpp does not make: duplicate keys, empty documents, non-mapping roots), merging
// files, command-line overrides, and load_config, the whole pipeline.
#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "core/error.h"
#include "train/config/config.h"
#include "train/config/detail.h"

namespace lintra {

using namespace config_detail;

namespace {

Origin mark_origin(const std::string& file, const YAML::Mark& mark) {
  if (mark.line < 0) return Origin::in_file(file, 0, 0);
  return Origin::in_file(file, mark.line + 1, mark.column + 1);
}

const char* yaml_kind(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
      return "an empty value (null)";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "a scalar";
  }
}

// What is wrong with a key, or "" when nothing is. YAML reads an implicit key of at most 1024
// characters, and to_yaml may write a key as up to twice its bytes (escaping `"` and `\\`): a key
// of at most 256 bytes without control characters always reads back.
constexpr size_t kMaxKeyBytes = 256;
std::string key_problem(std::string_view key) {
  if (key.size() > kMaxKeyBytes) return fmt::format("a key holds at most {} bytes, this one {}", kMaxKeyBytes, key.size());
  for (size_t i = 0; i < key.size(); ++i) {
    const auto c = static_cast<unsigned char>(key[i]);
    if (c < 0x20 || c == 0x7f) {
      return fmt::format("a key may not contain control characters (byte 0x{:02x} at offset {})", c, i);
    }
  }
  return "";
}

// Converts a yaml-cpp node. `fallback` is the origin for nodes without a useful mark of their own
// (nulls, and mappings, which we place at their key). Structural problems go to `errors`.
ConfigNode convert(const YAML::Node& n, const std::string& file, const std::string& path,
                   const Origin& fallback, std::vector<std::string>& errors) {
  switch (n.Type()) {
    case YAML::NodeType::Scalar: {
      // yaml-cpp tags plain scalars "?", quoted and block scalars "!"; !!str is explicit.
      bool quoted = n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str";
      return ConfigNode::make_scalar(n.Scalar(), mark_origin(file, n.Mark()), quoted);
    }
    case YAML::NodeType::Sequence: {
      ConfigNode seq = ConfigNode::sequence(mark_origin(file, n.Mark()));
      size_t i = 0;
      for (const YAML::Node& item : n) {
        seq.items.push_back(
            convert(item, file, fmt::format("{}[{}]", path, i++), mark_origin(file, item.Mark()), errors));
      }
      return seq;
    }
    case YAML::NodeType::Map: {
      ConfigNode map =
          ConfigNode::mapping(fallback.kind == Origin::Kind::None ? mark_origin(file, n.Mark()) : fallback);
      std::map<std::string, Origin> seen;
      for (auto it = n.begin(); it != n.end(); ++it) {
        Origin key_origin = mark_origin(file, it->first.Mark());
        if (!it->first.IsScalar()) {
          errors.push_back(fmt::format("{}: {}: keys must be plain names, got {}", key_origin.str(),
                                       path.empty() ? "top level" : path, yaml_kind(it->first)));
          continue;
        }
        std::string key = it->first.Scalar();
        if (std::string problem = key_problem(key); !problem.empty()) {
          errors.push_back(fmt::format("{}: {}: {}", key_origin.str(), path.empty() ? "top level" : path, problem));
          continue;
        }
        std::string full = join_key(path, key);
        if (key.find('.') != std::string::npos) {
          errors.push_back(fmt::format(
              "{}: {}: a key may not contain '.'\n  write nested sections instead (`{}:` then "
              "`{}:` indented below it)",
              key_origin.str(), full, key.substr(0, key.find('.')), key.substr(key.find('.') + 1)));
          continue;
        }
        if (auto [pos, fresh] = seen.emplace(key, key_origin); !fresh) {
          errors.push_back(fmt::format("{}: {}: duplicate key; it is also set at {}", key_origin.str(), full,
                                       pos->second.str()));
          continue;
        }
        map.entries.push_back(
            ConfigNode::Entry{key, key_origin, convert(it->second, file, full, key_origin, errors)});
      }
      return map;
    }
    default:  // Null and Undefined
      return ConfigNode::null(fallback);
  }
}

// The value of an override: YAML text, every node placed at the override.
ConfigNode parse_override_value(std::string_view text, const std::string& arg) {
  if (text.find_first_not_of(" \t") == std::string_view::npos)
    return ConfigNode::null(Origin::override_arg(arg));
  YAML::Node yaml;
  try {
    yaml = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw Error(fmt::format("command line override `{}`: cannot read the value as YAML: {}", arg, e.msg));
  }
  std::vector<std::string> errors;
  ConfigNode value = convert(yaml, "command line", "", Origin::override_arg(arg), errors);
  if (!errors.empty()) throw Error(fmt::format("command line override `{}`: {}", arg, errors[0]));
  std::function<void(ConfigNode&)> relocate = [&](ConfigNode& node) {
    node.origin = Origin::override_arg(arg);
    for (ConfigNode& item : node.items) relocate(item);
    for (ConfigNode::Entry& e : node.entries) {
      e.key_origin = Origin::override_arg(arg);
      relocate(e.value);
    }
  };
  relocate(value);
  return value;
}

// What the schema says about a dotted key (owned sections are looked into through their resolver,
// given the config as it is now).
struct SchemaLookup {
  bool found = false;        // the schema declares the key
  bool has_default = false;  // ... with a default (sections count as having one)
  bool required = false;     // ... as required (so a plain override may set it)
  bool free_form = false;    // the key is inside an owned section without a resolver
  std::vector<std::string> names_at_parent;
};

SchemaLookup lookup_in_schema(const Schema& root, const Config& cfg, const std::vector<std::string>& parts) {
  SchemaLookup out;
  std::list<Schema> resolved;  // keeps resolver results alive while walking
  const Schema* schema = &root;
  std::string prefix;
  for (size_t i = 0; i < parts.size(); ++i) {
    out.names_at_parent = schema->names();
    const Field* f = schema->find(parts[i]);
    if (!f) return out;
    if (i + 1 == parts.size()) {
      out.found = true;
      out.has_default = f->has_default();
      out.required = f->is_required();
      return out;
    }
    prefix = join_key(prefix, parts[i]);
    if (f->type() == FieldType::Section) {
      schema = f->section_schema();
    } else if (f->type() == FieldType::Owned && f->resolver()) {
      const ConfigNode* raw = cfg.find(prefix);
      ConfigNode section = raw && raw->is_mapping() ? *raw : ConfigNode::mapping();
      try {
        resolved.push_back(f->resolver()(Config(section, prefix)));
      } catch (const Error&) {
        return out;
      }
      schema = &resolved.back();
    } else {
      out.free_form = f->type() == FieldType::Owned;
      out.names_at_parent.clear();
      return out;
    }
  }
  return out;
}

std::vector<std::string> split_key(std::string_view key) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = key.find('.', start);
    parts.emplace_back(key.substr(start, dot == std::string_view::npos ? key.npos : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

}  // namespace

// --- reading --------------------------------------------------------------------------------------

namespace {

// Counts the documents of a YAML stream through yaml-cpp's event parser. yaml-cpp 0.7's LoadAll
// loops for ever on a token no node can start with (a `,` at the top level: ",a: 1"), adding an
// empty document each time without moving on (jbeder/yaml-cpp#1040, fixed upstream after 0.7);
// here a document that starts where the previous one did is that loop, and an error naming the
// position. Cost: one extra parse of the text, with no nodes built.
class DocumentCounter : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

std::string yaml_error(const std::string& name, const YAML::Mark& mark, const std::string& msg) {
  if (mark.line < 0) return fmt::format("{}: YAML syntax error: {}", name, msg);
  return fmt::format("{}:{}:{}: YAML syntax error: {}", name, mark.line + 1, mark.column + 1, msg);
}

// The number of documents in `text`; throws for a syntax error (yaml-cpp's message, or the loop above).
size_t count_documents(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentCounter counter;
  while (parser.HandleNextDocument(counter)) {
    const size_t n = counter.starts.size();
    if (n >= 2 && counter.starts[n - 1].pos == counter.starts[n - 2].pos) {
      const YAML::Mark& at = counter.starts[n - 1];
      const size_t pos = size_t(std::max(at.pos, 0));
      throw Error(yaml_error(name, at,
                             pos < text.size() ? fmt::format("unexpected '{}': no value can start here", text[pos])
                                               : std::string("unexpected end of the text")));
    }
  }
  return counter.starts.size();
}

// The one document of a config file (Null for an empty one); throws for syntax errors and for
// several documents.
YAML::Node load_one_document(std::string_view yaml_text, const std::string& name) {
  const std::string text(yaml_text);
  size_t docs = 0;
  YAML::Node root;
  try {
    docs = count_documents(text, name);
    if (docs == 1) root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(yaml_error(name, e.mark, e.msg));
  }
  if (docs > 1) {
    throw Error(fmt::format("{}: holds {} YAML documents (separated by `---`); a config file holds one", name, docs));
  }
  return root;
}

}  // namespace

Config parse_config(std::string_view yaml_text, const std::string& name) {
  const YAML::Node root = load_one_document(yaml_text, name);
  if (!root.IsDefined() || root.IsNull()) {
    throw Error(
        fmt::format("{}: the config file is empty\n  expected a mapping of sections, such as "
                    "`model:` or `train:` with their keys indented below",
                    name));
  }
  if (!root.IsMap()) {
    std::vector<std::string> ignored;
    ConfigNode what = convert(root, name, "", mark_origin(name, root.Mark()), ignored);
    throw Error(fmt::format("{}: the top level must be a mapping of sections (like `model:`), got {}",
                            mark_origin(name, root.Mark()).str(), what.describe()));
  }
  std::vector<std::string> errors;
  ConfigNode tree = convert(root, name, "", Origin::in_file(name, 0, 0), errors);  // "name:" in messages
  if (!errors.empty()) throw Error(join(errors, "\n"));
  return Config(std::move(tree));
}

namespace {

Config read_one_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw Error(fmt::format("{}: cannot open config file: no such file", path));
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(fmt::format("{}: cannot open config file: it is a directory", path));
  }
  // A device or a FIFO (`include: /dev/zero`) would be read for ever.
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw Error(fmt::format("{}: cannot open config file: not a regular file", path));
  }
  constexpr uintmax_t kMaxConfigBytes = 16 << 20;
  if (const uintmax_t size = std::filesystem::file_size(path, ec); !ec && size > kMaxConfigBytes) {
    throw Error(fmt::format("{}: cannot open config file: {} bytes; a config file holds at most 16 MiB", path, size));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open config file: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("{}: cannot read config file: {}", path, std::strerror(errno)));
  return parse_config(text.str(), path);
}

// A top-level `include: [a.yaml, …]` (paths relative to the including file) merges those files
// first, left to right, then the including file over them. The key itself is not kept.
Config read_with_includes(const std::string& path, std::vector<std::string>& chain) {
  std::error_code ec;
  std::string canonical = std::filesystem::weakly_canonical(path, ec).string();
  for (const std::string& c : chain) {
    if (c == canonical) {
      throw Error(fmt::format("{}: include cycle: {} includes itself through {}", path, path, fmt::join(chain, " → ")));
    }
  }
  Config file = read_one_file(path);
  ConfigNode& root = file.mutable_node();
  ConfigNode::Entry* inc = root.is_mapping() ? root.find_entry("include") : nullptr;
  if (inc == nullptr) return file;
  std::vector<const ConfigNode*> items;
  if (inc->value.is_sequence()) {
    for (const ConfigNode& n : inc->value.items) items.push_back(&n);
  } else {
    items.push_back(&inc->value);
  }
  chain.push_back(canonical);
  ConfigNode merged = ConfigNode::mapping(root.origin);
  for (const ConfigNode* n : items) {
    if (!n->is_scalar() || n->scalar.empty()) {
      throw Error(fmt::format("{}: include: expected a file name or a list of file names", n->origin.str()));
    }
    std::filesystem::path target = std::filesystem::path(path).parent_path() / n->scalar;
    if (!std::filesystem::exists(target, ec)) {
      throw Error(fmt::format("{}: include: cannot open {} (resolved to {})", n->origin.str(), n->scalar, target.string()));
    }
    merge_config(merged, read_with_includes(target.string(), chain).node());
  }
  chain.pop_back();
  root.entries.erase(root.entries.begin() + (inc - root.entries.data()));
  merge_config(merged, root);
  return Config(std::move(merged), file.path());
}

}  // namespace

Config read_config_file(const std::string& path) {
  std::vector<std::string> chain;
  return read_with_includes(path, chain);
}

// --- merging and overrides ------------------------------------------------------------------------

void merge_config(ConfigNode& dst, const ConfigNode& src) {
  if (!dst.is_mapping() || !src.is_mapping()) {
    dst = src;
    return;
  }
  for (const ConfigNode::Entry& s : src.entries) {
    if (ConfigNode::Entry* d = dst.find_entry(s.key)) {
      merge_config(d->value, s.value);
      d->key_origin = s.key_origin;
    } else {
      dst.entries.push_back(s);
    }
  }
}

bool is_override(std::string_view arg) {
  size_t eq = arg.find('=');
  if (eq == std::string_view::npos) return false;
  std::string_view key = arg.substr(0, eq);
  if (!key.empty() && key[0] == '+') key.remove_prefix(1);
  if (key.empty() || key.front() == '.' || key.back() == '.') return false;
  for (size_t i = 0; i < key.size(); ++i) {
    char c = key[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              (c == '-' && i > 0) || (c == '.' && key[i - 1] != '.');
    if (!ok) return false;
  }
  return true;
}

namespace {

// The error for `key=value` when key is in neither the files nor (with a default) the schema.
std::string unknown_override_message(const Config& cfg, const std::string& arg, const std::string& key,
                                     const std::vector<std::string>& parts, const SchemaLookup& look,
                                     const Origin& origin) {
  if (look.found) {
    return fmt::format("{}: {}: not set in the config files and has no default\n  write `+{}` to add it",
                       origin.str(), key, arg);
  }
  // Suggest among the keys the files set and the keys the schema knows, at that level.
  std::string parent = key.substr(0, key.size() - parts.back().size());
  if (!parent.empty()) parent.pop_back();
  std::vector<std::string> names = look.names_at_parent;
  const ConfigNode* in_tree = parent.empty() ? &cfg.node() : cfg.find(parent);
  if (in_tree && in_tree->is_mapping()) {
    for (const auto& e : in_tree->entries) {
      if (std::find(names.begin(), names.end(), e.key) == names.end()) names.push_back(e.key);
    }
  }
  std::string msg = fmt::format("{}: {}: no such key in the config", origin.str(), key);
  if (auto close = did_you_mean(parts.back(), names); !close.empty()) {
    msg += fmt::format("; did you mean '{}'?", join_key(parent, close[0]));
  }
  if (!names.empty()) {
    msg += fmt::format("\n  valid keys in {}: {}", parent.empty() ? "the config" : "'" + parent + "'",
                       join(names, ", "));
  }
  return msg + fmt::format("\n  (`+{}` adds a key that the files do not set and the schema allows)", arg);
}

// The mapping that holds the last part of `parts`, made (as empty mappings) where it is missing.
ConfigNode& parent_mapping(Config& cfg, const std::string& key, const std::vector<std::string>& parts,
                           const Origin& origin) {
  ConfigNode* node = &cfg.mutable_node();
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    ConfigNode::Entry* e = node->find_entry(parts[i]);
    if (!e) {
      node = &node->set(parts[i], ConfigNode::mapping(origin), origin);
    } else if (e->value.is_null() || is_reset_to_default(e->value)) {  // `a=~default a.b=1`: defaults but b
      e->value = ConfigNode::mapping(origin);
      node = &e->value;
    } else if (!e->value.is_mapping()) {
      std::string prefix;
      for (size_t j = 0; j <= i; ++j) prefix = join_key(prefix, parts[j]);
      throw Error(fmt::format("{}: {}: cannot set it: {} ({}) is {}, not a section", origin.str(), key,
                              prefix, e->value.origin.str(), e->value.describe()));
    } else {
      node = &e->value;
    }
  }
  return *node;
}

}  // namespace

void apply_override(Config& cfg, std::string_view override_arg, const Schema* schema) {
  const std::string arg(override_arg);
  if (!is_override(arg)) {
    throw Error(
        fmt::format("`{}` is not an override; expected key.subkey=value (or +key.subkey=value "
                    "to add a key)",
                    arg));
  }
  const bool add = arg[0] == '+';
  const size_t eq = arg.find('=');
  const std::string key = arg.substr(add ? 1 : 0, eq - (add ? 1 : 0));
  const std::vector<std::string> parts = split_key(key);
  for (const std::string& part : parts) {
    if (std::string problem = key_problem(part); !problem.empty()) {
      throw Error(fmt::format("command line override `{}`: {}", arg, problem));
    }
  }
  const Origin origin = Origin::override_arg(arg);
  ConfigNode value = parse_override_value(std::string_view(arg).substr(eq + 1), arg);
  if (!add && !cfg.has(key)) {
    SchemaLookup look = schema ? lookup_in_schema(*schema, cfg, parts) : SchemaLookup{};
    if (!(look.found && (look.has_default || look.required)))
      throw Error(unknown_override_message(cfg, arg, key, parts, look, origin));
  }
  ConfigNode& node = parent_mapping(cfg, key, parts, origin);
  if (ConfigNode::Entry* e = node.find_entry(parts.back())) {
    merge_config(e->value, value);
    e->key_origin = origin;
  } else {
    node.set(parts.back(), std::move(value), origin);
  }
}

Config load_config(const Schema& schema, const std::vector<std::string>& files,
                   const std::vector<std::string>& overrides) {
  // Keys missing from every file are reported at the file, or at "config" when there are several.
  ConfigNode root = ConfigNode::mapping(files.size() == 1 ? Origin::in_file(files[0], 0, 0) : Origin());
  for (const std::string& file : files) merge_config(root, read_config_file(file).node());
  Config cfg(std::move(root));
  for (const std::string& o : overrides) apply_override(cfg, o, &schema);
  return validate_section(cfg, schema);
}

}  // namespace lintra
