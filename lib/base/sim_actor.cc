#include "lib/base/sim_actor.h"

namespace nanopu {
namespace {
thread_local uint64_t t_actor = 0;
}  // namespace

void set_sim_actor(uint64_t actor) { t_actor = actor; }
uint64_t sim_actor() { return t_actor; }

}  // namespace nanopu
