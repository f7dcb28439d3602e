// The base of nanopu-loadgen's clients: the public load engine
// (nanopu/loadgen.h, loadgen::Load) with nanopu-loadgen's options at hand.
// A client says what to send and how to check a reply; the engine does the
// open or closed loop, the drain, and the counts.
#pragma once

#include "nanopu/loadgen.h"
#include "tools/loadgen/loadgen.h"

namespace nanopu::apps {

class LoadSchedule : public loadgen::Load {
 public:
  LoadSchedule(Thread& t, const LoadGenOptions& o, LoadGenResult* r) : loadgen::Load(t, o, r), o_(o) {}

 protected:
  // The measured run (loadgen::Load::run).
  void measure() { run(); }

  const LoadGenOptions& o_;
};

}  // namespace nanopu::apps
