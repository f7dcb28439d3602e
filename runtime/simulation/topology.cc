#include "runtime/simulation/topology.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "nanopu/address.h"

namespace nanopu::sim {
namespace {

// Names fit interface and namespace names (as deploy/netns/topology.py).
bool good_name(const std::string& n) {
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return !n.empty() && n.size() <= 8 && n[0] >= 'a' && n[0] <= 'z' &&
         std::all_of(n.begin(), n.end(), lower_or_digit);
}

// aa:bb:cc:dd:ee:ff, lower-case hex, the group bit of the first octet clear.
bool unicast_mac(const std::string& m) {
  if (m.size() != 17) return false;
  for (size_t i = 0; i < m.size(); ++i) {
    const char c = m[i];
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    if (i % 3 == 2 ? c != ':' : !hex) return false;
  }
  return (std::stoi(m.substr(0, 2), nullptr, 16) & 1) == 0;
}

// Flags the runner sets itself; a topology that sets them is refused.
bool runner_flag(const std::string& flag) {
  const std::string name = flag.substr(0, flag.find('='));
  for (const char* f : {"--vdev", "--pci", "--ip", "--lcores", "--pin", "--file_prefix", "--json"})
    if (name == f) return true;
  return false;
}

class Parser {
 public:
  explicit Parser(std::string path) { t_.path = std::move(path); }

  absl::Status line(int number, const std::vector<std::string>& words);
  absl::Status finish();
  Topology take() { return std::move(t_); }

 private:
  absl::Status err(int line, const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat(t_.path, ":", line, ": ", what));
  }
  // A name, address or MAC seen once only.
  absl::Status claim(const std::string& kind, const std::string& value, int line) {
    auto [it, fresh] = seen_.try_emplace(kind + " " + value, line);
    if (fresh) return absl::OkStatus();
    return err(line, absl::StrCat("duplicate ", kind, " ", value, " (first on line ", it->second, ")"));
  }
  absl::Status host(int number, const std::vector<std::string>& args);
  absl::Status link(int number, const std::vector<std::string>& args);
  [[nodiscard]] absl::Status connected() const;

  Topology t_;
  std::map<std::string, int> seen_;
  struct Link {
    std::string a, b;
    int line;
    TopologyLinkParams params;
  };
  std::vector<Link> links_;
};

absl::Status Parser::host(int number, const std::vector<std::string>& args) {
  if (args.size() < 4) return err(number, "expected: host NAME IP MAC PROGRAM [flags]");
  TopologyHost h;
  h.name = args[0];
  h.ip_text = args[1];
  h.mac = args[2];
  for (char& c : h.mac) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  h.line = number;
  if (!good_name(h.name)) return err(number, "host name '" + h.name + "': a-z then a-z0-9, 8 characters at most");
  const std::optional<uint32_t> ip = parse_ipv4(h.ip_text);
  if (!ip) return err(number, "'" + h.ip_text + "' is not an IPv4 address");
  if (*ip == 0 || (*ip >> 28) == 0xe || (*ip & 0xff) == 0xff) return err(number, h.ip_text + " cannot be a host's address");
  h.ip = *ip;
  if (!unicast_mac(h.mac)) return err(number, "'" + args[2] + "' is not a unicast MAC address (aa:bb:cc:dd:ee:ff)");
  // The program is the binary's to know (nanopu-sim: server or loadgen;
  // an author's: the programs it declares): checked when the hosts are made.
  h.program = args[3];
  if (h.program.empty() || h.program.size() > 32 || !std::islower(static_cast<unsigned char>(h.program[0])) ||
      h.program.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_") != std::string::npos)
    return err(number, "program '" + args[3] + "': a-z, then a-z, 0-9, '-' or '_', 32 at most");
  h.flags.assign(args.begin() + 4, args.end());
  for (const std::string& f : h.flags)
    if (runner_flag(f)) return err(number, f.substr(0, f.find('=')) + " is set by the runner, not the topology");
  for (const auto& [kind, value] : {std::pair{"name", h.name}, {"address", h.ip_text}, {"MAC", h.mac}})
    if (absl::Status s = claim(kind, value, number); !s.ok()) return s;
  t_.hosts.push_back(std::move(h));
  return absl::OkStatus();
}

absl::Status Parser::line(int number, const std::vector<std::string>& words) {
  const std::string& kind = words[0];
  const std::vector<std::string> args(words.begin() + 1, words.end());
  if (kind == "switch") {
    if (args.empty() || !good_name(args[0]))
      return err(number, "expected: switch NAME [flags]; NAME: a-z then a-z0-9, 8 at most");
    if (absl::Status s = claim("name", args[0], number); !s.ok()) return s;
    TopologySwitch sw;
    sw.name = args[0];
    sw.flags.assign(args.begin() + 1, args.end());
    sw.line = number;
    t_.switches.push_back(std::move(sw));
    return absl::OkStatus();
  }
  if (kind == "host") return host(number, args);
  if (kind == "link") return link(number, args);
  return err(number, "unknown statement '" + kind + "': use switch, host or link");
}

absl::Status Parser::link(int number, const std::vector<std::string>& args) {
  if (args.size() < 2) return err(number, "expected: link NAME NAME [gbps=G] [latency_ns=L]");
  if (args[0] == args[1]) return err(number, "a link from " + args[0] + " to itself");
  Link l{args[0], args[1], number, {}};
  for (size_t i = 2; i < args.size(); ++i) {
    const size_t eq = args[i].find('=');
    const std::string key = args[i].substr(0, eq);
    double v = 0;
    const bool number_ok = eq != std::string::npos && absl::SimpleAtod(args[i].substr(eq + 1), &v);
    if (key == "gbps" && number_ok && v > 0 && v <= 1e4) {
      l.params.gbps = v;
    } else if (key == "latency_ns" && number_ok && v >= 0 && v <= 1e9) {
      l.params.latency_ns = v;
    } else {
      return err(number, "'" + args[i] + "': a link's options are gbps=G (0 < G <= 10000) and latency_ns=L (0..1e9)");
    }
  }
  links_.push_back(std::move(l));
  return absl::OkStatus();
}

absl::Status Parser::finish() {
  if (t_.hosts.empty()) return absl::InvalidArgumentError(t_.path + ": no host");
  auto find = [&](const std::string& n) -> TopologyHost* {
    for (TopologyHost& h : t_.hosts)
      if (h.name == n) return &h;
    return nullptr;
  };
  auto find_switch = [&](const std::string& n) -> TopologySwitch* {
    for (TopologySwitch& w : t_.switches)
      if (w.name == n) return &w;
    return nullptr;
  };
  for (const Link& l : links_) {
    for (const std::string* end : {&l.a, &l.b})
      if (find(*end) == nullptr && find_switch(*end) == nullptr)
        return err(l.line, "link to " + *end + ", which no host or switch line names");
    for (const auto& [end, other] : {std::pair{&l.a, &l.b}, {&l.b, &l.a}}) {
      if (TopologyHost* h = find(*end)) {
        if (!h->peer.empty()) return err(l.line, *end + " already has a link; a host has one port");
        h->peer = *other;
        h->link = l.params;
      }
      if (TopologySwitch* w = find_switch(*end)) {
        w->ports.push_back(*other);
        w->port_links.push_back(l.params);
        w->port_lines.push_back(l.line);
      }
    }
  }
  for (const TopologyHost& h : t_.hosts)
    if (h.peer.empty()) return err(h.line, "host " + h.name + " has no link");
  for (const TopologySwitch& w : t_.switches)
    if (w.ports.size() < 2) return err(w.line, "switch " + w.name + " needs links to at least two hosts or switches");
  return connected();
}

// Every switch reaches every other over the switch-to-switch links: else
// some host could not reach another, and ECMP would have no route.
absl::Status Parser::connected() const {
  if (t_.switches.size() < 2) return absl::OkStatus();
  std::vector<const TopologySwitch*> reached{&t_.switches[0]};
  for (size_t i = 0; i < reached.size(); ++i)
    for (const std::string& p : reached[i]->ports)
      if (const TopologySwitch* w = t_.switch_named(p);
          w != nullptr && std::find(reached.begin(), reached.end(), w) == reached.end())
        reached.push_back(w);
  for (const TopologySwitch& w : t_.switches)
    if (std::find(reached.begin(), reached.end(), &w) == reached.end())
      return err(w.line, "switch " + w.name + " has no path to switch " + t_.switches[0].name +
                             ": a fabric's switches must all be linked, directly or through others");
  return absl::OkStatus();
}

}  // namespace

const TopologyHost* Topology::host(const std::string& name) const {
  for (const TopologyHost& h : hosts)
    if (h.name == name) return &h;
  return nullptr;
}

const TopologySwitch* Topology::switch_named(const std::string& name) const {
  for (const TopologySwitch& w : switches)
    if (w.name == name) return &w;
  return nullptr;
}

std::optional<std::vector<std::string>> split_shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '#' && !in_word) break;  // a comment starts a word only
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
    } else if (c == '\'' || c == '"') {
      const size_t close = line.find(c, i + 1);
      if (close == std::string::npos) return std::nullopt;
      word += line.substr(i + 1, close - i - 1);
      i = close;
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

absl::StatusOr<Topology> parse_topology(const std::string& path, const std::string& text) {
  Parser p(path);
  std::istringstream in(text);
  std::string raw;
  for (int number = 1; std::getline(in, raw); ++number) {
    const std::optional<std::vector<std::string>> words = split_shell_words(raw);
    if (!words) return absl::InvalidArgumentError(absl::StrCat(path, ":", number, ": cannot split the line: no closing quotation"));
    if (words->empty()) continue;
    if (absl::Status s = p.line(number, *words); !s.ok()) return s;
  }
  if (absl::Status s = p.finish(); !s.ok()) return s;
  return p.take();
}

absl::StatusOr<Topology> read_topology(const std::string& path) {
  std::ifstream f(path);
  if (!f) return absl::NotFoundError(path + ": cannot read it");
  std::stringstream text;
  text << f.rdbuf();
  return parse_topology(path, text.str());
}

}  // namespace nanopu::sim
