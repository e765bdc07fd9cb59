// detail.h — helpers shared by config.cpp, config_yaml.cpp and config_schema.cpp: how a
// scalar's text reads (YAML 1.2 core schema), canonical forms, quoting, and message pieces.
// Not a public header: components include train/config/config.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "train/config/config.h"

namespace lintra::config_detail {

// How a plain (unquoted) scalar reads. YAML 1.2 core schema: null is ~/null/Null/NULL/empty,
// bools are true/false/True/False/TRUE/FALSE, ints [-+]?[0-9]+, floats as in core plus .inf/.nan.
enum class ScalarForm : uint8_t { Null, Bool, Int, Float, String };
ScalarForm classify_plain(std::string_view text);

// Typed readings of a node; nullopt when the node is not of that type. as_int accepts integral
// floats (2.0, 1e6) up to 2^53; as_double accepts ints; as_string accepts any scalar.
std::optional<int64_t> as_int(const ConfigNode& node);
std::optional<double> as_double(const ConfigNode& node);
std::optional<bool> as_bool(const ConfigNode& node);
std::optional<std::string> as_string(const ConfigNode& node);

// Canonical texts: "4", "0.001", "100.0", "1e-05", ".inf", "-.inf", ".nan", "true".
std::string canonical_int(int64_t v);
std::string canonical_double(double v);
inline std::string canonical_bool(bool v) { return v ? "true" : "false"; }

// A scalar as YAML text: plain when that reads back as the same string, else double-quoted.
std::string emit_scalar(const ConfigNode& node);
std::string emit_key(std::string_view key);
// `[a, b]` when every item is a scalar or null; nullopt otherwise.
std::optional<std::string> emit_flow_sequence(const ConfigNode& node);
// Block YAML of a mapping's entries, each line indented by `indent` spaces.
void emit_mapping(std::string& out, const ConfigNode& mapping, int indent);

// "where: key: expected X, got Y" (the summary line of a type error).
std::string type_error(const ConfigNode& node, std::string_view key, std::string_view expected);
// "'a', 'b' or 'c'" style lists and "a, b, c" lists.
std::string quoted_list(const std::vector<std::string>& items, std::string_view last_sep);
std::string join(const std::vector<std::string>& items, std::string_view sep);
// "prefix.key" or "key" when prefix is empty.
std::string join_key(std::string_view prefix, std::string_view key);

}  // namespace lintra::config_detail
