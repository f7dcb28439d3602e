// The precompiled header of every test (tests/CMakeLists.txt): what most
// test sources include from outside the project. Parsing these headers was
// about a third of a test's compile time, and the tests are half of each
// build's compile time. Only headers that rarely change belong here: a
// change to one rebuilds every test.
#pragma once

#include <rte_config.h>  // first: DPDK's headers assume it (pkg-config used to force it)

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <absl/status/status.h>
#include <absl/status/statusor.h>
#include <absl/strings/str_format.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
