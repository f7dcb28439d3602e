#include "nanopu/program_flags.h"

#include "absl/flags/flag.h"

ABSL_FLAG(bool, check_flags, false,
          "Check every flag, then exit: 0 if they are all good, 2 with one line naming the bad "
          "one (deployment scripts validate a topology this way; nothing is started).");
ABSL_FLAG(uint32_t, context, 1,
          "Context (L4 port): a server's first context served (default 1); a client's own, where "
          "its replies arrive (clients default to 2).");
ABSL_FLAG(bool, stats, false,
          "Print the host's NIC and thread counters on exit (nanopu-server prints them by default).");
ABSL_FLAG(uint64_t, seed, 0,
          "Seed of the program's randomness: a client's Poisson arrivals (0: 1), a Raft server's "
          "election timeouts (0: from its address and process id, so that a restarted server draws "
          "anew). nanopu-sim gives every host one drawn from its --sim_seed.");
ABSL_FLAG(std::string, app_mode, "register-file",
          "How messages reach the program's threads: 'register-file' (the nanoPU's path: words read "
          "from the RX FIFO and written to the TX FIFO one at a time) or 'traditional' (a "
          "traditional NIC's: each message copied whole into memory, the reply built there and "
          "handed over whole; nanopu/memory_message.h). nanopu-server: 'traditional' serves echo, "
          "increment, service, service-tester, loopback-throughput and the compute services (for "
          "those the same as NAME-traditional). nanopu-loadgen: the client's own path, "
          "--service=echo only. Compare the two with --app_mode on both.");
ABSL_FLAG(std::string, history, "",
          "Write every call this program's clients record (nanopu/history.h: Jepsen's model, one JSON "
          "event a line, times on this host's clock) to this file. A simulation records every host's "
          "into one file instead (its own --history).");
ABSL_FLAG(std::string, state_dir, ".",
          "The directory a program keeps what it persists in (nanopu/program.h, ProgramArgs::state_dir). "
          "A simulation makes one per host and run instead.");
