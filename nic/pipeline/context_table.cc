#include "nic/pipeline/context_table.h"

#include "absl/strings/str_cat.h"

namespace nanopu {

absl::Status ContextTable::bind(uint16_t context, ThreadFifos* fifos) {
  ThreadFifos* expected = nullptr;
  if (!entries_[context].compare_exchange_strong(expected, fifos, std::memory_order_acq_rel)) {
    if (expected == fifos)
      return absl::AlreadyExistsError(absl::StrCat("context ", context, " is already bound to this thread"));
    return absl::AlreadyExistsError(absl::StrCat("context ", context, " is already bound to thread ",
                                                 expected->thread_id));
  }
  fifos->context.store(context, std::memory_order_release);
  return absl::OkStatus();
}

void ContextTable::unbind(uint16_t context, ThreadFifos* fifos) {
  ThreadFifos* expected = fifos;
  entries_[context].compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel);
}

}  // namespace nanopu
