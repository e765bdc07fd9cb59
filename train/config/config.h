// config.h — lintra's configuration: YAML files merged left to right, `key=value` overrides, and
// schemas that every component declares for its own section (DESIGN.md §6, §8).
//
// A Config is a tree of values (mappings, lists, scalars) in which every node remembers where it
// came from: a file, line and column, a command-line override, or a schema default. Errors that
// users can cause name the dotted key and that place on their first line, then a hint:
//
//   configs/x.yaml:12: model.layers: expected an integer, got 2.5
//     model.layers: number of transformer layers [int >= 1, default 4]
//
// The flow:
//   Schema schema;                                       // composed from the components' parts
//   schema.add_section("optim", optim_schema(), "the optimizer");
//   Config cfg = load_config(schema, {"configs/base.yaml", "configs/mnist.yaml"}, {"optim.lr=3e-4"});
//   double lr = cfg.get_double("optim.lr");              // defaults are filled in by validation
//   fmt::print("{}", to_yaml(cfg));                      // --print-config; loads back identically
//
// Scalars keep their YAML text; their type is decided by the schema field (or the getter) that
// reads them, so `name: 2017` is a fine string and `lr: 1e-3` a fine number. A quoted scalar that
// would otherwise read as a number, bool or null (`"4"`, `"null"`) stays a string.
//
// Not here: paths relative to the config file, environment interpolation, YAML anchors across files.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <string>
#include <string_view>
#include <vector>

namespace lintra {

class Config;
class Schema;

// --- where a value came from ----------------------------------------------------------------------

struct Origin {
  enum class Kind : uint8_t { None, File, Override, Default };
  Kind kind = Kind::None;
  std::string file;  // File: the path as given
  int line = 0;      // File: 1-based
  int column = 0;    // File: 1-based
  std::string text;  // Override: the argument as given, e.g. "+optim.clip=1.0"

  static Origin in_file(std::string file, int line, int column);
  static Origin override_arg(std::string text);
  static Origin schema_default();

  // "configs/x.yaml:12", "command line override `optim.lr=0.1`", "schema default" or "config".
  std::string str() const;
};

// --- the value tree -------------------------------------------------------------------------------

struct ConfigNode {
  enum class Kind : uint8_t { Null, Scalar, Sequence, Mapping };
  struct Entry;

  Kind kind = Kind::Null;
  std::string scalar;             // Scalar: the YAML text (after unquoting)
  bool quoted = false;            // Scalar: a quoted string that would otherwise read as non-string
  std::vector<ConfigNode> items;  // Sequence
  std::vector<Entry> entries;     // Mapping, in insertion order
  Origin origin;

  static ConfigNode null(Origin origin = {});
  static ConfigNode make_scalar(std::string text, Origin origin = {}, bool quoted = false);
  static ConfigNode sequence(Origin origin = {});
  static ConfigNode mapping(Origin origin = {});

  bool is_null() const { return kind == Kind::Null; }
  bool is_scalar() const { return kind == Kind::Scalar; }
  bool is_sequence() const { return kind == Kind::Sequence; }
  bool is_mapping() const { return kind == Kind::Mapping; }

  // Mapping lookup of one key (no dots); nullptr when absent or when this is not a mapping.
  const Entry* find_entry(std::string_view key) const;
  Entry* find_entry(std::string_view key);
  // Appends or replaces the value of `key` (this must be a mapping).
  ConfigNode& set(std::string key, ConfigNode value, Origin key_origin = {});

  // "2.5", "\"4\" (a quoted string)", "an empty value (null)", "a list", "a mapping": for messages.
  std::string describe() const;

  // Equal values and structure; origins are ignored.
  bool operator==(const ConfigNode& other) const;
};

struct ConfigNode::Entry {
  std::string key;
  Origin key_origin;  // where the key was (last) written
  ConfigNode value;
};

// The value that resets a key to its schema default (or, for a key without one, leaves it unset),
// e.g. `layers: ~default` in a file or `model.layers=~default` on the command line, undoing what an
// earlier file set. Only the plain scalar: the quoted string "~default" is that string. A null value
// (`layers:`, `layers: null`, `model.layers=`) is an error instead: written by mistake, it would
// silently bring back the default.
inline constexpr const char* kResetToDefault = "~default";
bool is_reset_to_default(const ConfigNode& node);

// --- a (sub)tree with typed, dotted-key access ----------------------------------------------------

class Config {
 public:
  Config();  // an empty mapping at the root
  explicit Config(ConfigNode root, std::string path = {});

  const ConfigNode& node() const { return root_; }
  ConfigNode& mutable_node() { return root_; }
  // The dotted path of this section in the whole config ("" at the root, "model.attention").
  const std::string& path() const { return path_; }
  // `key` prefixed with path(): the name that messages use.
  std::string full_key(std::string_view key) const;

  // `key` is dotted and relative to this section ("optim.lr" at the root, "lr" in "optim").
  bool has(std::string_view key) const;
  const ConfigNode* find(std::string_view key) const;  // nullptr when absent
  const ConfigNode& at(std::string_view key) const;    // throws naming the key when absent
  std::vector<std::string> keys() const;                // of this section, in order
  Config section(std::string_view key) const;           // throws unless a mapping (null: empty)

  // Typed getters. Absent keys (and null values) and values of the wrong type throw lintra::Error
  // naming the dotted key, the file and line, what was expected and what was found. Integers are
  // accepted for doubles; integral numbers such as 1e6 for integers. After validate_section the
  // schema's defaults are in the tree, so these read them.
  int64_t get_int(std::string_view key) const;
  double get_double(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  std::string get_string(std::string_view key) const;
  std::vector<int64_t> get_list_int(std::string_view key) const;
  std::vector<double> get_list_double(std::string_view key) const;
  std::vector<std::string> get_list_string(std::string_view key) const;

  // Where the value of `key` came from, e.g. "configs/x.yaml:12" (see Origin::str).
  std::string where(std::string_view key) const;

  // Same values (origins ignored): what the to_yaml round trip preserves.
  bool operator==(const Config& other) const { return root_ == other.root_; }

 private:
  ConfigNode root_;
  std::string path_;
};

// --- reading, merging, overriding, writing --------------------------------------------------------

// Parses one YAML document whose root must be a non-empty mapping. `name` is used in messages.
// Throws on syntax errors (name:line:col), duplicate keys (both lines), an empty document, a
// non-mapping root, non-scalar keys, and keys containing '.'.
Config parse_config(std::string_view yaml_text, const std::string& name);
// parse_config of a file's text; a missing or unreadable file throws naming the path.
Config read_config_file(const std::string& path);

// Merges `src` into `dst`: mappings merge recursively, anything else replaces.
void merge_config(ConfigNode& dst, const ConfigNode& src);

// True for arguments of the form `[+]a.b.c=value` (as opposed to config file paths).
bool is_override(std::string_view arg);

// Applies one `a.b.c=value` override; the value is read as YAML (`lr=1e-3`, `layers=[1,2]`, `x=`
// is null, which validation refuses; `x=~default` resets x to its default). A plain override must name a key that is in the config, or that `schema` declares
// with a default or as required (did-you-mean otherwise); `+a.b=value` may add a key that is absent
// from both, such as an optional key (validation still checks it). With no schema, only keys
// already in the config can be overridden without '+'. Mappings merge into mappings.
void apply_override(Config& cfg, std::string_view override_arg, const Schema* schema);

// The whole pipeline: read `files` left to right, merge, apply `overrides` in order, validate
// against `schema` (filling in defaults). Reports all validation errors at once.
Config load_config(const Schema& schema, const std::vector<std::string>& files,
                   const std::vector<std::string>& overrides = {});

// The config as YAML: block mappings in the config's order (schema order after validation), flow
// lists for lists of scalars, quotes only where needed. parse_config(to_yaml(c)) == c.
std::string to_yaml(const Config& cfg);

// XXH3-64 of to_yaml(cfg), and the same as 16 lower-case hex digits.
uint64_t config_digest(const Config& cfg);
std::string config_digest_hex(const Config& cfg);

// The candidates that `word` is probably a misspelling of: Damerau-Levenshtein distance <= 2
// (and less than the longer length), or a prefix either way; best first.
std::vector<std::string> did_you_mean(std::string_view word,
                                      const std::vector<std::string>& candidates);

// --- schemas --------------------------------------------------------------------------------------

enum class FieldType : uint8_t {
  Int, Double, Bool, String, Enum, ListInt, ListDouble, ListString,
  Section,  // a nested Schema
  Owned,    // a mapping validated by its owner (optionally through a SchemaResolver)
};

// Chooses the schema of an owned section from its raw (unvalidated) contents, e.g. by `type`.
using SchemaResolver = std::function<Schema(const Config& section)>;
// Supplies an enum's allowed values when validating (so registries can fill them at run time).
using AllowedValues = std::function<std::vector<std::string>()>;

class Field;

class Schema {
 public:
  explicit Schema(std::string doc = {});

  // Declares a key with its default and a one-line doc; the returned Field refines it
  // (.min(1), .range(0, 1), .required(), .optional()). Defaults are checked like user values.
  Field& add_int(std::string name, int64_t default_value, std::string doc);
  Field& add_double(std::string name, double default_value, std::string doc);
  Field& add_bool(std::string name, bool default_value, std::string doc);
  Field& add_string(std::string name, std::string default_value, std::string doc);
  Field& add_enum(std::string name, std::vector<std::string> allowed, std::string default_value,
                  std::string doc);
  Field& add_enum(std::string name, AllowedValues allowed, std::string default_value,
                  std::string doc);
  Field& add_list_int(std::string name, std::vector<int64_t> default_value, std::string doc);
  Field& add_list_double(std::string name, std::vector<double> default_value, std::string doc);
  Field& add_list_string(std::string name, std::vector<std::string> default_value,
                         std::string doc);
  // A nested section with its own keys (absent in the files: all defaults).
  Field& add_section(std::string name, Schema section, std::string doc);
  // A section that its owner validates: with a resolver, load_config validates it against the
  // schema the resolver picks; without one, its contents pass through and the owner calls
  // validate_section(cfg.section(name), its_schema) itself. Absent: an empty mapping.
  Field& add_owned_section(std::string name, std::string doc, SchemaResolver resolver = {});

  // Appends the fields of `other` (a name declared twice throws).
  void extend(const Schema& other);

  const Field* find(std::string_view name) const;
  // A nested Section schema by dotted name, to add fields to it; throws when there is none.
  Schema& section(std::string_view dotted);
  const std::list<Field>& fields() const { return fields_; }
  std::vector<std::string> names() const;
  const std::string& doc() const { return doc_; }

 private:
  Field& add(Field field);
  std::string doc_;
  std::list<Field> fields_;  // a list: Field& stays valid while more fields are added
};

class Field {
 public:
  Field& min(double lo);           // value >= lo (every element, for lists)
  Field& max(double hi);           // value <= hi
  Field& greater_than(double lo);  // value > lo
  Field& range(double lo, double hi) { return min(lo).max(hi); }
  Field& required();  // no default: must be set
  Field& optional();  // no default: may be absent (then absent from the resolved config too)

  const std::string& name() const { return name_; }
  FieldType type() const { return type_; }
  const std::string& doc() const { return doc_; }
  bool is_required() const { return required_; }
  bool has_default() const {  // sections have one: their keys' defaults (or an empty mapping)
    return has_default_ || type_ == FieldType::Section || type_ == FieldType::Owned;
  }
  const ConfigNode& default_value() const { return default_; }
  std::vector<std::string> allowed_values() const;  // Enum
  const Schema* section_schema() const;             // Section
  const SchemaResolver& resolver() const { return resolver_; }  // Owned
  // "int >= 1; default 4", "one of sgd, adam, radam; default adam", "required float > 0".
  std::string summary() const;

 private:
  friend class Schema;
  friend struct FieldAccess;
  std::string name_;
  FieldType type_ = FieldType::Int;
  std::string doc_;
  bool has_default_ = false;
  bool required_ = false;
  ConfigNode default_;
  bool has_min_ = false, has_max_ = false, min_exclusive_ = false;
  double min_ = 0, max_ = 0;
  AllowedValues allowed_;
  std::vector<Schema> section_;  // 0 or 1 element (Section)
  SchemaResolver resolver_;
};

// Validates a section (or the root) against a schema and returns it resolved: keys in schema
// order, defaults filled in, numbers and bools in canonical form. `~default` (kResetToDefault)
// counts as absent: the default, or nothing. Throws lintra::Error listing every problem: null
// values (`lr:`, `lr: null`; naming `~default`), unknown keys (with did-you-mean and the valid
// keys), wrong types, values out of range, enum values not allowed, missing required keys.
Config validate_section(const Config& section, const Schema& schema);

// A resolver for a section whose keys depend on one enum key (e.g. model.attention.type): the
// section has `key` (one of `allowed`, default `default_value`) plus the keys of
// `schema_for(value)`.
SchemaResolver variant_resolver(std::string key, AllowedValues allowed, std::string default_value,
                                std::string key_doc,
                                std::function<Schema(const std::string&)> schema_for);

// Every key of `schema` with its default and its doc as a comment above it; keys without a
// default are commented out. Loading the result gives exactly the defaults (configs/base.yaml).
std::string schema_to_documented_yaml(const Schema& schema, std::string_view header = {});

}  // namespace lintra
