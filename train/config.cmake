# lintra_config: YAML configs, schemas and validation (train/config*.{h,cpp}). Depends only on
# yaml-cpp, fmt (through lintra_flags) and xxHash, so that it builds and tests without the rest of
# lintra. Included by train/CMakeLists.txt (and by tests/train/ while the top level skips train/).
if(NOT TARGET yaml-cpp)
  find_package(yaml-cpp REQUIRED)
endif()
find_path(XXHASH_INCLUDE_DIR xxhash.h)
find_library(XXHASH_LIBRARY NAMES xxhash)
if(NOT XXHASH_INCLUDE_DIR OR NOT XXHASH_LIBRARY)
  message(FATAL_ERROR "xxHash not found: run tools/install-deps.sh (needs libxxhash-dev)")
endif()

add_library(lintra_config STATIC
  ${CMAKE_CURRENT_LIST_DIR}/config.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_yaml.cpp
  ${CMAKE_CURRENT_LIST_DIR}/config_schema.cpp)
target_include_directories(lintra_config PRIVATE ${XXHASH_INCLUDE_DIR})
target_link_libraries(lintra_config PUBLIC lintra_flags PRIVATE yaml-cpp ${XXHASH_LIBRARY})
