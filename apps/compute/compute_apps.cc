#include "apps/compute/compute_apps.h"

#include "absl/strings/str_format.h"
#include "apps/classifier/classifier_service.h"
#include "apps/hdsearch/hd_service.h"
#include "apps/inttel/int_collector.h"
#include "apps/nbody/nbody_service.h"
#include "apps/setint/setint_service.h"

namespace nanopu::apps {
namespace {

constexpr std::string_view kTraditional = "-traditional";

std::string_view base_name(std::string_view app) {
  if (app.ends_with(kTraditional)) app.remove_suffix(kTraditional.size());
  return app;
}

}  // namespace

bool is_compute_app(std::string_view app) {
  const std::string_view b = base_name(app);
  return b == "setint" || b == "hdsearch" || b == "nbody" || b == "classifier" || b == "int";
}

absl::StatusOr<ComputeApp> make_compute_app(std::string_view app, uint32_t threads, const ComputeAppOptions& o) {
  const std::string_view b = base_name(app);
  ComputeApp c;
  c.path = b.size() == app.size() ? MessagePath::kRegisters : MessagePath::kMemory;
  if (b == "setint") {
    absl::StatusOr<Corpus> corpus = load_corpus(o.corpus_dir.empty() ? kDefaultCorpusDir : o.corpus_dir,
                                                o.setint_documents, o.setint_words);
    if (!corpus.ok()) return corpus.status();
    auto index = std::make_shared<const InvertedIndex>(*corpus);
    c.what = absl::StrFormat("an index of %u words over %u documents from %zu files", index->words(),
                             index->documents(), corpus->files.size());
    for (uint32_t i = 0; i < threads; ++i) c.threads.push_back(std::make_unique<SetIntersectionService>(index));
  } else if (b == "hdsearch") {
    c.what = absl::StrFormat("%u vectors of %u dimensions", kHdVectors, kHdDims);
    for (uint32_t i = 0; i < threads; ++i) c.threads.push_back(std::make_unique<HdSearchService>());
  } else if (b == "nbody") {
    c.what = "one Barnes-Hut node per thread, waiting for its CONFIG";
    for (uint32_t i = 0; i < threads; ++i) c.threads.push_back(std::make_unique<NbodyService>());
  } else if (b == "classifier") {
    if (o.classifier_rules == 0 || o.classifier_rules > 1'000'000)
      return absl::InvalidArgumentError("--classifier_rules must be 1..1000000");
    auto space = std::make_shared<const TupleSpace>(generate_rules(o.classifier_rules));
    c.what = absl::StrFormat("%zu rules in %zu tuples", space->rules().size(), space->tuples());
    for (uint32_t i = 0; i < threads; ++i) c.threads.push_back(std::make_unique<ClassifierService>(space));
  } else if (b == "int") {
    if (o.int_heavy_threshold == 0) return absl::InvalidArgumentError("--int_heavy_threshold must be >= 1");
    c.what = absl::StrFormat("a flow table per thread, heavy at %u reports", o.int_heavy_threshold);
    for (uint32_t i = 0; i < threads; ++i) c.threads.push_back(std::make_unique<IntCollector>(o.int_heavy_threshold));
  } else {
    return absl::InvalidArgumentError(absl::StrFormat("'%s' is not a compute service", app));
  }
  return c;
}

}  // namespace nanopu::apps
