// A pipeline program in DPDK's SWX specification language (the language the
// P4 compiler's DPDK back end emits and examples/pipeline's .spec files are
// written in: nanoPU (OSDI'21) §2's "P4-programmable PISA pipeline"), read
// into the rte_swx_pipeline API. Written here because Debian's DPDK 22.11
// builds a pipeline from a spec only through rte_swx_pipeline_codegen,
// whose generated C needs rte_swx_pipeline_internal.h, which the package
// does not ship; the configuration API it would call is public. The subset
// read: struct, header, metadata, regarray, action, table (exact, wildcard and
// lpm keys), apply —
// instructions are DPDK's to parse. Every error names its line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

struct rte_swx_pipeline;

namespace nanopu {

struct SwxSpec {
  struct Field {
    std::string name;
    uint32_t bits = 0;
  };
  struct Struct {
    std::string name;
    std::vector<Field> fields;
    int line = 0;
  };
  struct Instance {  // a header, or the metadata (name empty)
    std::string name, struct_name;
    int line = 0;
  };
  struct Action {
    std::string name, args_struct;  // args_struct empty: "args none"
    std::vector<std::string> instructions;
    int line = 0;
  };
  struct Table {
    std::string name;
    struct Key {
      std::string field;  // h.header.field or m.field
      std::string match;  // exact, wildcard or lpm
    };
    std::vector<Key> keys;
    std::vector<std::string> actions;
    std::string default_action, default_args;  // default_args empty: none
    bool default_const = false;
    uint32_t size = 0;
    int line = 0;
  };
  struct RegArray {  // regarray NAME size N initval V: 64-bit registers the program keeps
    std::string name;
    uint32_t size = 0;
    uint64_t init = 0;
    int line = 0;
  };
  std::string file;  // for errors
  std::vector<Struct> structs;
  std::vector<Instance> headers;
  Instance metadata;
  std::vector<RegArray> regarrays;
  std::vector<Action> actions;
  std::vector<Table> tables;
  std::vector<std::string> apply;
  int apply_line = 0;
};

// The most entries a table may declare (`size N`): DPDK sizes a table's
// memory by it at build, and an exact-match table of 2^32 entries would
// take the host's memory before any frame runs. DPDK's own examples stop
// at this.
inline constexpr uint32_t kSwxMaxTableSize = 1u << 20;

// Reads `text`; an error names file:line and what was expected there.
[[nodiscard]] absl::StatusOr<SwxSpec> read_swx_spec(const std::string& text,
                                                    const std::string& file);

// Registers the spec's structs, headers, metadata, register arrays, actions, tables and
// instructions with p (its ports and table types registered already); an
// error names the block's line and DPDK's refusal.
[[nodiscard]] absl::Status configure_swx(const SwxSpec& spec, rte_swx_pipeline* p);

}  // namespace nanopu
