#include "lib/contract/context_table.h"

#include "absl/strings/str_cat.h"

namespace nanopu {

ContextTable::ContextTable(uint32_t instance, uint32_t global_queue_messages, uint32_t nic_cores)
    : instance_(instance), global_queue_messages_(global_queue_messages), nic_cores_(nic_cores) {
  for (uint32_t k = 0; k < nic_cores_; ++k)
    entries_[k] = std::make_unique<std::atomic<ContextEntry*>[]>(kContexts);
}

absl::Status ContextTable::set_slo(uint16_t context, double ahead_per_thread) {
  absl::StatusOr<ContextEntry*> made = create_entries(context);
  if (!made.ok()) return made.status();
  // Before the host runs (Runtime::create): no NIC core reads it yet.
  for (uint32_t k = 0; k < nic_cores_; ++k) lookup(context, k)->slo_ahead_per_thread = ahead_per_thread;
  return absl::OkStatus();
}

absl::StatusOr<ContextEntry*> ContextTable::create_entries(uint16_t context) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ContextEntry* e = lookup(context); e != nullptr) return e;
  // Kept only if every core's entry (and global queue) could be made: a
  // ring left behind would make every later bind fail on its name.
  std::vector<std::unique_ptr<ContextEntry>> entries;
  ContextEntry* made[kMaxNicCores] = {};
  for (uint32_t k = 0; k < nic_cores_; ++k) {
    auto entry = std::make_unique<ContextEntry>();
    entry->context = context;
    absl::StatusOr<MsgFifo> held =
        MsgFifo::create(k == 0 ? absl::StrCat("np", instance_, "g", context)
                               : absl::StrCat("np", instance_, "g", context, "_", k),
                        global_queue_messages_);
    if (!held.ok()) return held.status();
    entry->held = std::move(*held);
    made[k] = entry.get();
    entries.push_back(std::move(entry));
  }
  for (auto& e : entries) owned_.push_back(std::move(e));
  // Core 0's last: lookup(context) finds every core's once it finds it.
  for (uint32_t k = nic_cores_; k-- > 0;)
    entries_[k][context].store(made[k], std::memory_order_release);
  return made[0];
}

absl::Status ContextTable::bind(uint16_t context, ThreadFifos* fifos) {
  if (fifos->worker >= kMaxWorkers)
    return absl::InvalidArgumentError(absl::StrCat("worker ", fifos->worker, " >= ", kMaxWorkers));
  ContextEntry* e = lookup(context);
  if (e == nullptr) {
    absl::StatusOr<ContextEntry*> made = create_entries(context);
    if (!made.ok()) return made.status();
    e = *made;
  }
  ThreadFifos* expected = nullptr;
  if (!e->threads[fifos->worker].compare_exchange_strong(expected, fifos,
                                                         std::memory_order_acq_rel)) {
    return absl::AlreadyExistsError(absl::StrCat(
        "context ", context, " is already bound to thread ", expected->thread_id,
        " on worker core ", fifos->worker,
        "; threads on one core bind different contexts (threads on other cores may share it)"));
  }
  // Core 0's binding decides (above); the other cores' copies follow it.
  for (uint32_t k = 1; k < nic_cores_; ++k)
    lookup(context, k)->threads[fifos->worker].store(fifos, std::memory_order_release);
  fifos->context.store(context, std::memory_order_release);
  return absl::OkStatus();
}

void ContextTable::unbind(uint16_t context, ThreadFifos* fifos) {
  ContextEntry* e = lookup(context);
  if (e == nullptr) return;
  ThreadFifos* expected = fifos;
  if (!e->threads[fifos->worker].compare_exchange_strong(expected, nullptr,
                                                         std::memory_order_acq_rel))
    return;
  for (uint32_t k = 1; k < nic_cores_; ++k)
    lookup(context, k)->threads[fifos->worker].store(nullptr, std::memory_order_release);
}

}  // namespace nanopu
