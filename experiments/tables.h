// tables.h — the paper's training tables that `lintra reproduce` runs (copy, mnist, cifar10, speech):
// each table's rows, what the paper reports for each row, and the note on how lintra's scales
// compare with the paper's runs. The speed tables are experiments/speed_tables.h.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace lintra::experiments {

struct TableSpec {
  std::string name;
  std::string kind;  // "copy", "image" or "speech": which columns and findings
  std::string title;
  std::vector<std::string> rows;
  std::map<std::string, std::string> paper;  // row → what the paper reports
  std::string paper_note;
};


const std::vector<TableSpec>& tables();
// The table of that name; throws listing every table for an unknown one.
const TableSpec& table_spec(const std::string& name);

}  // namespace lintra::experiments
