// cache.h — where lintra keeps downloaded and prepared data (DATA.md): the data cache root.
//
// Resolution order: an explicit override (e.g. a --data-dir flag) if non-empty, else the
// environment variable LINTRA_DATA if set and non-empty, else <repository>/data/cache (ignored by
// git). Each data set lives in a subfolder: <root>/mnist, <root>/photos32, ...
#pragma once

#include <filesystem>
#include <string>

namespace lintra::data {

std::filesystem::path data_root(const std::string& override_dir = {});

// <root>/<name>, e.g. dataset_dir(data_root(), "mnist").
inline std::filesystem::path dataset_dir(const std::filesystem::path& root, const std::string& name) {
  return root / name;
}

}  // namespace lintra::data
