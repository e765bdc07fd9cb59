// test_base_config.cpp — configs/base.yaml documents every key of the training config with its
// default: it must equal what the schema generates (`lintra config base`), and load to the defaults.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "train/experiment_config.h"

TEST(TrainBaseConfig, ConfigsBaseYamlMatchesTheSchema) {
  std::ifstream in(std::string(LINTRA_SOURCE_DIR) + "/configs/base.yaml");
  ASSERT_TRUE(in.good()) << "configs/base.yaml is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), lintra::train::documented_base_config())
      << "configs/base.yaml is out of date: regenerate it with `build/lintra config base > configs/base.yaml`";
}

TEST(TrainBaseConfig, BaseYamlLoadsToTheDefaults) {
  lintra::Config cfg = lintra::train::load_experiment_config({std::string(LINTRA_SOURCE_DIR) + "/configs/base.yaml"}, {});
  EXPECT_EQ(cfg.get_string("optim.name"), "radam");
  EXPECT_EQ(cfg.get_int("model.layers"), 4);
}
