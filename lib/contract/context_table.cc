#include "lib/contract/context_table.h"

#include "absl/strings/str_cat.h"

namespace nanopu {

ContextTable::ContextTable(uint32_t instance, uint32_t global_queue_messages)
    : entries_(std::make_unique<std::atomic<ContextEntry*>[]>(kContexts)),
      instance_(instance),
      global_queue_messages_(global_queue_messages) {}

absl::Status ContextTable::bind(uint16_t context, ThreadFifos* fifos) {
  if (fifos->worker >= kMaxWorkers)
    return absl::InvalidArgumentError(absl::StrCat("worker ", fifos->worker, " >= ", kMaxWorkers));
  ContextEntry* e = lookup(context);
  if (e == nullptr) {
    std::lock_guard<std::mutex> lock(mu_);
    e = lookup(context);
    if (e == nullptr) {
      auto entry = std::make_unique<ContextEntry>();
      entry->context = context;
      absl::StatusOr<MsgFifo> held =
          MsgFifo::create(absl::StrCat("np", instance_, "g", context), global_queue_messages_);
      if (!held.ok()) return held.status();
      entry->held = std::move(*held);
      e = entry.get();
      owned_.push_back(std::move(entry));
      entries_[context].store(e, std::memory_order_release);
    }
  }
  ThreadFifos* expected = nullptr;
  if (!e->threads[fifos->worker].compare_exchange_strong(expected, fifos,
                                                         std::memory_order_acq_rel)) {
    return absl::AlreadyExistsError(absl::StrCat(
        "context ", context, " is already bound to thread ", expected->thread_id,
        " on worker core ", fifos->worker,
        "; threads on one core bind different contexts (threads on other cores may share it)"));
  }
  fifos->context.store(context, std::memory_order_release);
  return absl::OkStatus();
}

void ContextTable::unbind(uint16_t context, ThreadFifos* fifos) {
  ContextEntry* e = lookup(context);
  if (e == nullptr) return;
  ThreadFifos* expected = fifos;
  e->threads[fifos->worker].compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel);
}

}  // namespace nanopu
