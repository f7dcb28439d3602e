#include "nic/pipeline/swx_spec.h"

#include <rte_errno.h>
#include <rte_swx_pipeline.h>

#include <functional>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace nanopu {
namespace {

// The spec's lines, each with its number and its words: a word that begins
// with "//", ";" or "#" and the rest of its line are a comment, as DPDK's
// own reader takes them; blank lines skipped.
struct Line {
  int number = 0;
  std::string text;
  std::vector<std::string> words;
};

std::vector<Line> lines_of(const std::string& text) {
  std::vector<Line> out;
  std::istringstream in(text);
  std::string raw;
  for (int n = 1; std::getline(in, raw); ++n) {
    std::vector<std::string> words =
        absl::StrSplit(raw, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    for (size_t w = 0; w < words.size(); ++w)
      if (words[w][0] == ';' || words[w][0] == '#' || words[w].rfind("//", 0) == 0) {
        words.resize(w);
        break;
      }
    if (words.empty()) continue;
    out.push_back({n, absl::StrJoin(words, " "), std::move(words)});
  }
  return out;
}

class Reader {
 public:
  Reader(std::vector<Line> lines, std::string file) : lines_(std::move(lines)) {
    spec_.file = std::move(file);
  }

  absl::StatusOr<SwxSpec> read() {
    while (i_ < lines_.size()) {
      const Line& l = lines_[i_++];
      const std::vector<std::string>& w = l.words;
      absl::Status s;
      if (w[0] == "struct" && w.size() == 3 && w[2] == "{")
        s = read_struct(l);
      else if (w[0] == "header" && w.size() == 4 && w[2] == "instanceof")
        spec_.headers.push_back({w[1], w[3], l.number});
      else if (w[0] == "metadata" && w.size() == 3 && w[1] == "instanceof")
        spec_.metadata = {"", w[2], l.number};
      else if (w[0] == "regarray")
        s = read_regarray(l);
      else if (w[0] == "action" && w.size() >= 5 && w[2] == "args" && w.back() == "{")
        s = read_action(l);
      else if (w[0] == "table" && w.size() == 3 && w[2] == "{")
        s = read_table(l);
      else if (w[0] == "apply" && w.size() == 2 && w[1] == "{")
        s = read_block(l, &spec_.apply, &spec_.apply_line);
      else
        return error(l,
                     "expected struct NAME {, header NAME instanceof STRUCT, metadata instanceof "
                     "STRUCT, regarray NAME size N initval V, action "
                     "NAME args none|instanceof STRUCT {, table NAME { or apply {");
      if (!s.ok()) return s;
    }
    if (spec_.apply.empty())
      return absl::InvalidArgumentError(absl::StrCat(spec_.file, ": no apply { } block"));
    return std::move(spec_);
  }

 private:
  absl::Status error(const Line& l, const std::string& what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(spec_.file, ":", l.number, ": ", what, " (found '", l.text, "')"));
  }
  // The lines up to a lone "}" (consumed); an error if the file ends first.
  absl::Status until_close(const Line& open, const std::function<absl::Status(const Line&)>& each) {
    while (i_ < lines_.size()) {
      const Line& l = lines_[i_++];
      if (l.text == "}") return absl::OkStatus();
      if (absl::Status s = each(l); !s.ok()) return s;
    }
    return error(open, "block not closed with }");
  }
  absl::Status read_struct(const Line& open) {
    SwxSpec::Struct st{open.words[1], {}, open.number};
    absl::Status s = until_close(open, [&](const Line& l) {
      uint32_t bits = 0;
      const std::string& t = l.words[0];
      if (l.words.size() != 2 || t.rfind("bit<", 0) != 0 || t.back() != '>' ||
          !absl::SimpleAtoi(t.substr(4, t.size() - 5), &bits) || bits == 0 || bits % 8 != 0 ||
          bits > 64)
        return error(l, "expected bit<N> FIELD, N a multiple of 8 up to 64");
      st.fields.push_back({l.words[1], bits});
      return absl::OkStatus();
    });
    spec_.structs.push_back(std::move(st));
    return s;
  }
  // regarray NAME size N initval V (V decimal or 0x hex): N 64-bit
  // registers; DPDK rounds N up to a power of two.
  absl::Status read_regarray(const Line& l) {
    const std::vector<std::string>& w = l.words;
    SwxSpec::RegArray r{w.size() > 1 ? w[1] : "", 0, 0, l.number};
    const bool hex = w.size() == 6 && w[5].rfind("0x", 0) == 0;
    if (w.size() != 6 || w[2] != "size" || w[4] != "initval" || !absl::SimpleAtoi(w[3], &r.size) ||
        r.size == 0 ||
        !(hex ? absl::SimpleHexAtoi(w[5].substr(2), &r.init) : absl::SimpleAtoi(w[5], &r.init)))
      return error(l, "expected regarray NAME size N initval V, N > 0");
    if (r.size > kSwxMaxTableSize)
      return error(l, absl::StrCat("a register array holds at most ", kSwxMaxTableSize, " registers"));
    spec_.regarrays.push_back(std::move(r));
    return absl::OkStatus();
  }
  absl::Status read_action(const Line& open) {
    const std::vector<std::string>& w = open.words;
    SwxSpec::Action a{w[1], "", {}, open.number};
    if (w.size() == 6 && w[3] == "instanceof")
      a.args_struct = w[4];
    else if (!(w.size() == 5 && w[3] == "none"))
      return error(open, "expected action NAME args none|instanceof STRUCT {");
    int unused = 0;
    absl::Status s = read_block(open, &a.instructions, &unused);
    spec_.actions.push_back(std::move(a));
    return s;
  }
  absl::Status read_block(const Line& open, std::vector<std::string>* instructions, int* line) {
    *line = open.number;
    return until_close(open, [&](const Line& l) {
      instructions->push_back(l.text);  // DPDK parses each instruction
      return absl::OkStatus();
    });
  }
  absl::Status read_table(const Line& open) {
    SwxSpec::Table t{open.words[1], {}, {}, "", "", false, 0, open.number};
    absl::Status s = until_close(open, [&](const Line& l) { return table_line(l, &t); });
    if (s.ok() && t.actions.empty()) s = error(open, "a table needs an actions { } block");
    if (s.ok() && t.default_action.empty()) s = error(open, "a table needs its default_action");
    spec_.tables.push_back(std::move(t));
    return s;
  }
  absl::Status table_line(const Line& l, SwxSpec::Table* t) {
    const std::vector<std::string>& w = l.words;
    if (w.size() == 2 && w[0] == "key" && w[1] == "{")
      return until_close(l, [&](const Line& k) {
        if (k.words.size() != 2 ||
            (k.words[1] != "exact" && k.words[1] != "wildcard" && k.words[1] != "lpm"))
          return error(k, "expected FIELD exact|wildcard|lpm");
        t->keys.push_back({k.words[0], k.words[1]});
        return absl::OkStatus();
      });
    if (w.size() == 2 && w[0] == "actions" && w[1] == "{")
      return until_close(l, [&](const Line& a) {
        if (a.words.size() != 1) return error(a, "expected one action name a line");
        t->actions.push_back(a.words[0]);
        return absl::OkStatus();
      });
    if (w.size() >= 4 && w[0] == "default_action" && w[2] == "args") {
      t->default_action = w[1];
      t->default_const = w.back() == "const";
      const size_t end = w.size() - (t->default_const ? 1 : 0);
      if (!(end == 4 && w[3] == "none"))
        for (size_t k = 3; k < end; ++k) absl::StrAppend(&t->default_args, k == 3 ? "" : " ", w[k]);
      return absl::OkStatus();
    }
    if (w.size() == 2 && w[0] == "size" && absl::SimpleAtoi(w[1], &t->size) && t->size > 0) {
      if (t->size > kSwxMaxTableSize)
        return error(l, absl::StrCat("a table holds at most ", kSwxMaxTableSize, " entries"));
      return absl::OkStatus();
    }
    return error(l,
                 "expected key {, actions {, default_action NAME args none|ARGS [const] or size N");
  }

  std::vector<Line> lines_;
  size_t i_ = 0;
  SwxSpec spec_;
};

std::vector<const char*> c_strings(const std::vector<std::string>& v) {
  std::vector<const char*> out;
  for (const std::string& s : v) out.push_back(s.c_str());
  return out;
}

absl::Status refused(const SwxSpec& spec, int line, const std::string& what, int rc) {
  return absl::InvalidArgumentError(
      absl::StrCat(spec.file, ":", line, ": DPDK refused ", what, " (", rte_strerror(-rc), ")"));
}

absl::Status configure_table(const SwxSpec& spec, const SwxSpec::Table& t, rte_swx_pipeline* p) {
  std::vector<rte_swx_match_field_params> keys;
  for (const SwxSpec::Table::Key& k : t.keys)
    keys.push_back({k.field.c_str(), k.match == "exact"      ? RTE_SWX_TABLE_MATCH_EXACT
                                     : k.match == "wildcard" ? RTE_SWX_TABLE_MATCH_WILDCARD
                                                             : RTE_SWX_TABLE_MATCH_LPM});
  std::vector<const char*> actions = c_strings(t.actions);
  rte_swx_pipeline_table_params params{};
  params.fields = keys.data();
  params.n_fields = static_cast<uint32_t>(keys.size());
  params.action_names = actions.data();
  params.n_actions = static_cast<uint32_t>(actions.size());
  params.default_action_name = t.default_action.c_str();
  params.default_action_args = t.default_args.empty() ? nullptr : t.default_args.c_str();
  params.default_action_is_const = t.default_const ? 1 : 0;
  if (int rc = rte_swx_pipeline_table_config(p, t.name.c_str(), &params, nullptr, nullptr,
                                             t.size == 0 ? 64 : t.size);
      rc != 0)
    return refused(
        spec, t.line,
        "table " + t.name + " (its keys one header's or the metadata's, its actions declared)", rc);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SwxSpec> read_swx_spec(const std::string& text, const std::string& file) {
  return Reader(lines_of(text), file).read();
}

absl::Status configure_swx(const SwxSpec& spec, rte_swx_pipeline* p) {
  for (const SwxSpec::Struct& st : spec.structs) {
    std::vector<rte_swx_field_params> fields;
    for (const SwxSpec::Field& f : st.fields) fields.push_back({f.name.c_str(), f.bits});
    if (int rc = rte_swx_pipeline_struct_type_register(p, st.name.c_str(), fields.data(),
                                                       static_cast<uint32_t>(fields.size()), 0);
        rc != 0)
      return refused(spec, st.line, "struct " + st.name, rc);
  }
  for (const SwxSpec::Instance& h : spec.headers)
    if (int rc = rte_swx_pipeline_packet_header_register(p, h.name.c_str(), h.struct_name.c_str());
        rc != 0)
      return refused(spec, h.line, "header " + h.name + " (of a declared struct, named once)", rc);
  if (spec.metadata.struct_name.empty())
    return absl::InvalidArgumentError(
        absl::StrCat(spec.file, ": no metadata instanceof STRUCT (rx and tx need it)"));
  if (int rc = rte_swx_pipeline_packet_metadata_register(p, spec.metadata.struct_name.c_str());
      rc != 0)
    return refused(spec, spec.metadata.line, "the metadata", rc);
  for (const SwxSpec::RegArray& r : spec.regarrays)  // before the instructions that name them
    if (int rc = rte_swx_pipeline_regarray_config(p, r.name.c_str(), r.size, r.init); rc != 0)
      return refused(spec, r.line, "regarray " + r.name + " (a name used once)", rc);
  for (const SwxSpec::Action& a : spec.actions) {
    std::vector<const char*> ins = c_strings(a.instructions);
    if (int rc = rte_swx_pipeline_action_config(
            p, a.name.c_str(), a.args_struct.empty() ? nullptr : a.args_struct.c_str(), ins.data(),
            static_cast<uint32_t>(ins.size()));
        rc != 0)
      return refused(spec, a.line, "action " + a.name + " (an instruction, or its args struct)",
                     rc);
  }
  for (const SwxSpec::Table& t : spec.tables)
    if (absl::Status s = configure_table(spec, t, p); !s.ok()) return s;
  std::vector<const char*> ins = c_strings(spec.apply);
  if (int rc =
          rte_swx_pipeline_instructions_config(p, ins.data(), static_cast<uint32_t>(ins.size()));
      rc != 0)
    return refused(spec, spec.apply_line,
                   "the apply block (an instruction, a label or a name in it)", rc);
  return absl::OkStatus();
}

}  // namespace nanopu
