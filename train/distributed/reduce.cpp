#include "train/distributed/reduce.h"

#include "train/distributed/bytes.h"

namespace lintra::dist {

std::map<std::string, double> sum_named(Communicator& comm, const std::map<std::string, double>& mine) {
  if (comm.size() == 1) return mine;
  ByteWriter w;
  w.put(int64_t(mine.size()));
  for (const auto& [name, value] : mine) w.put_string(name).put(value);
  std::map<std::string, double> total;
  for (const std::string& bytes : comm.all_gather(w.bytes())) {  // rank order
    ByteReader r(bytes, "sum_named");
    for (int64_t i = 0, n = r.get<int64_t>(); i < n; ++i) {
      const std::string name = r.get_string();
      const double value = r.get<double>();
      auto [it, added] = total.emplace(name, value);
      if (!added) it->second += value;
    }
  }
  return total;
}

}  // namespace lintra::dist
