#include "train/ranks.h"

#include <unistd.h>

#include <climits>

#include "data/files/digest.h"
#include "train/distributed/bytes.h"

namespace lintra::train {

RankInfo this_rank(int64_t threads, std::string trains) {
  char host[HOST_NAME_MAX + 1] = {};
  gethostname(host, sizeof host - 1);
  return {int64_t(getpid()), host, threads, std::move(trains)};
}

std::vector<RankInfo> meet_ranks(dist::Communicator& comm, const RankInfo& mine) {
  dist::ByteWriter w;
  w.put(mine.pid).put_string(mine.host).put(mine.threads).put_string(mine.trains);
  std::vector<RankInfo> all;
  for (const std::string& bytes : comm.all_gather(w.bytes())) {
    dist::ByteReader r(bytes, "a rank's introduction");
    RankInfo info;
    info.pid = r.get<int64_t>();
    info.host = r.get_string();
    info.threads = r.get<int64_t>();
    info.trains = r.get_string();
    all.push_back(std::move(info));
  }
  std::string differ;
  for (size_t r = 1; r < all.size(); ++r)
    if (all[r].trains != all[0].trains) differ += fmt::format("\n  rank {} on {}: {}", r, all[r].host, all[r].trains);
  LINTRA_CHECK(differ.empty(),
               "train: the ranks would train different things: give every rank the same config files and data\n"
               "  rank 0 on {}: {}{}",
               all[0].host, all[0].trains, differ);
  return all;
}

std::string describe_ranks(const dist::Communicator& comm, const std::vector<RankInfo>& ranks) {
  std::string out = fmt::format("{} ranks over {}:", ranks.size(), comm.name());
  for (size_t r = 0; r < ranks.size(); ++r) {
    out += fmt::format("{} rank {} pid {} on {} ({} thread{})", r ? "," : "", r, ranks[r].pid, ranks[r].host,
                       ranks[r].threads, ranks[r].threads == 1 ? "" : "s");
  }
  return out;
}

void check_replicas(dist::Communicator& comm, const std::vector<NamedParam>& params, int64_t step) {
  if (comm.size() == 1) return;
  data::Xxh3 h;
  for (const NamedParam& p : params) {
    const Tensor t = p.var.data().to(Device::cpu).contiguous();  // the digest of a device replica: a host copy
    h.update(t.raw_data(), t.nbytes());
  }
  const std::vector<std::string> digests = comm.all_gather(data::digest_hex(h.digest()));
  std::string differ;
  for (size_t r = 1; r < digests.size(); ++r)
    if (digests[r] != digests[0]) differ += fmt::format(" rank {} {};", r, digests[r]);
  LINTRA_CHECK(differ.empty(),
               "train: after {} updates the ranks' parameters differ (rank 0 {};{}): the replicas drifted apart, "
               "which the fixed-order gradient sum should make impossible — please report it",
               step, digests[0], differ);
}

}  // namespace lintra::train
