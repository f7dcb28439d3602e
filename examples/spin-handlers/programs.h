// spin-handlers' programs (nanopu/program_main.h): the server installs the
// six use cases' execution contexts on its NIC and runs the host side; the
// client sends each use case's workload and checks what the host got
// against its own reference.
#pragma once

#include "nanopu/program.h"

[[nodiscard]] nanopu::ProgramSpec spin_server_program();
[[nodiscard]] nanopu::ProgramSpec spin_client_program();
