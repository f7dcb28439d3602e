// The programs of kv-service: one binary runs either live, or both on one
// modelled clock (nanopu/program_main.h).
#pragma once

#include "nanopu/program.h"

[[nodiscard]] nanopu::ProgramSpec kv_server_program();
[[nodiscard]] nanopu::ProgramSpec kv_client_program();
