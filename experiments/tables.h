// tables.h — the paper's training tables that `lintra reproduce` runs (copy, mnist, cifar10, speech):
// each table's rows, what the paper reports for each row, the paper's claims about the table (quoted
// from PAPER.md, each with the rule that checks it), the seeds per row, and the note on how lintra's
// scales compare with the paper's runs. The speed tables are experiments/speed_tables.h.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "experiments/claims.h"

namespace lintra::experiments {

struct TableSpec {
  std::string name;
  std::string kind;  // "copy", "image" or "speech": which columns
  std::string title;
  std::vector<std::string> rows;
  std::map<std::string, std::string> paper;  // row → what the paper reports
  std::string paper_note;
  std::vector<Claim> claims;  // the paper's claims about this table, each checked (claims.h)
  int seeds = 2;              // seeds per row at cpu and paper scale (smoke: 1)
};


const std::vector<TableSpec>& tables();
// The table of that name; throws listing every table for an unknown one.
const TableSpec& table_spec(const std::string& name);

}  // namespace lintra::experiments
