// nanopu-sim's `workload` program: the Homa paper's experiment (SIGCOMM'18,
// §5.2) as every host runs it — open-loop Poisson messages whose sizes come
// from one of the paper's workloads W1..W5 (nanopu/message_sizes.h), each to
// a peer drawn uniformly from --peers, offered at --load of the host's
// link; and, on a thread beside, the answer to every other host's messages.
// Each message is a call whose reply is 8 bytes (the length the server
// read), so its round trip is the message's completion time plus one small
// packet's; nanopu-figures homa-slowdown divides it by the same round trip
// on an idle network (docs/running.md, "Fabrics").
#pragma once

#include "nanopu/program.h"

namespace nanopu::sim {

[[nodiscard]] ProgramSpec workload_program();

}  // namespace nanopu::sim
