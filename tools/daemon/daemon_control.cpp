#include "tools/daemon/daemon_control.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mad/base/json.h"
#include "mad/base/text.h"
#include "mad/wire/sm_info.h"
#include "tools/daemon/sm_dumps.h"

namespace ibsm::tools {
namespace {

constexpr Micros kPublishEvery = 1'000'000;
constexpr Micros kLidEvery = 1'000'000;

// An action's answer: a line for humans, or {"ok": true, "message": ...}.
ControlAnswer done(bool json, const std::string& message) {
  if (!json) return {true, message + "\n"};
  fmt::memory_buffer b;
  fmt::format_to(std::back_inserter(b), "{{\"ok\": true, \"message\": ");
  append_json_string(b, message);
  fmt::format_to(std::back_inserter(b), "}}\n");
  return {true, fmt::to_string(b)};
}

std::optional<LogLevel> parse_level(std::string_view s) {
  for (int i = 0; i <= 4; ++i) {
    const auto l = static_cast<LogLevel>(i);
    if (s == log_level_name(l) || s == std::to_string(i)) return l;
  }
  if (s == "warning") return LogLevel::warn;
  return std::nullopt;
}

// "GUID PORT" (the GUID as the diag tools print it, 0x-prefixed hex).
Result<std::pair<Guid, PortNum>> parse_port_words(const std::string& words) {
  const size_t space = words.find(' ');
  const std::string guid = words.substr(0, space), port = space == std::string::npos ? "" : words.substr(space + 1);
  const std::optional<Guid> g = parse_guid(guid, Notation::hex_optional_0x);
  if (!g || g->is_zero()) return invalid_argument_error(fmt::format("release: '{}' is not a node GUID", guid));
  const std::optional<uint64_t> p = parse_unsigned(port, Notation::decimal, 254);
  if (!p || *p == 0) return invalid_argument_error(fmt::format("release: '{}' is not a port number (1-254)", port));
  return std::pair{*g, PortNum{static_cast<uint8_t>(*p)}};
}

}  // namespace

const std::vector<ControlCommand>& control_commands() {
  static const std::vector<ControlCommand> commands = {
      {"status", "the SM's state, last sweep, subnet, counters and problems", "", false, ""},
      {"sminfo", "this SM's SMInfo and the other SMs it knows, as sminfo prints them", "", false, ""},
      {"resweep", "a light sweep now (--heavy: a heavy sweep)", "", false, "--heavy"},
      {"reroute", "recompute the routes and program what differs (a heavy sweep)", "", false, ""},
      {"loglevel", "set the log level: error, warn, info, debug, trace (or 0-4)", "LEVEL", true, ""},
      {"dump", "write the OpenSM-format dumps now, to DIR or dump_files_dir", "[DIR]", false, ""},
      {"handover", "hand the mastership to the best standby SM (IBA 14.4.1 HANDOVER)", "", false, ""},
      {"disable", "go NOT ACTIVE, as an SMInfo DISABLE does (not while master)", "", false, ""},
      {"enable", "leave NOT ACTIVE: discover the subnet again, as an SMInfo STANDBY does", "", false, ""},
      {"release", "release a quarantined port (flap quarantine): let it train again and sweep", "GUID PORT", true,
       ""},
  };
  return commands;
}

Result<ControlRequest> parse_control_request(const ControlWords& words) {
  if (words.empty()) return invalid_argument_error("no command given");
  ControlRequest r;
  for (const ControlCommand& c : control_commands())
    if (words[0] == c.name) r.command = &c;
  if (!r.command) return invalid_argument_error(fmt::format("unknown command '{}'", words[0]));
  const ControlCommand& c = *r.command;
  // As many words as the argument's name has ("GUID PORT": two), kept as one
  // space-separated argument.
  const size_t argument_words =
      *c.argument ? 1 + static_cast<size_t>(std::count(c.argument, c.argument + std::strlen(c.argument), ' ')) : 0;
  size_t given = 0;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w == "--json") {
      r.json = true;
    } else if (*c.flag && w == c.flag) {
      r.flag = true;
    } else if (!w.empty() && w[0] == '-' && !(c.argument == std::string_view("LEVEL") && parse_level(w))) {
      return invalid_argument_error(fmt::format("{}: unknown option '{}'", c.name, w));
    } else if (given == argument_words) {
      return invalid_argument_error(fmt::format("{}: unexpected argument '{}'", c.name, w));
    } else {
      r.argument += (given++ == 0 ? "" : " ") + w;
    }
  }
  if (c.argument_required && given < argument_words)
    return invalid_argument_error(fmt::format("{} needs {}", c.name, c.argument));
  if (c.argument == std::string_view("LEVEL") && !parse_level(r.argument))
    return invalid_argument_error(fmt::format("loglevel: '{}' is not error, warn, info, debug, trace or 0-4", r.argument));
  return r;
}

DaemonControl::DaemonControl(SubnetManager& sm, const Clock& clock, FilteringLogSink& level_sink, LogSink& log,
                             std::function<Lid()> own_lid, std::string dump_dir)
    : sm_(sm),
      clock_(clock),
      level_sink_(level_sink),
      log_(log),
      own_lid_(std::move(own_lid)),
      dump_dir_(std::move(dump_dir)) {}

void DaemonControl::publish(bool force) {
  const Micros now = clock_.now();
  // Every change of state or sweep at once; otherwise once a second (the
  // ages and MAD counts): copying the status walks the fabric's links.
  const ManagerCounters& c = sm_.counters();
  const auto seen = std::make_tuple(sm_.state(), c.state_changes, c.heavy_sweeps, c.light_sweeps, c.discovery_sweeps,
                                    sm_.last_sweep_record().started, sm_.other_sms().size(), sm_.last_error());
  const bool changed = seen != published_seen_;
  if (!force && !changed && now - published_at_ < kPublishEvery) return;
  published_seen_ = seen;
  published_at_ = now;
  if (now - lid_read_at_ >= kLidEvery || force || changed) {  // a sweep may have given the port its LID
    lid_read_at_ = now;
    lid_ = own_lid_();
  }
  auto status = std::make_shared<const ManagerStatus>(manager_status(sm_, lid_, now));
  std::lock_guard lock(mu_);
  status_ = std::move(status);
}

std::optional<ControlAnswer> DaemonControl::immediate(const ControlWords& words) {
  auto r = parse_control_request(words);
  if (!r.ok()) return control_error(r.status().message());
  const std::string_view name = r->command->name;
  if (name != "status" && name != "sminfo") return std::nullopt;
  std::shared_ptr<const ManagerStatus> s;
  {
    std::lock_guard lock(mu_);
    s = status_;
  }
  if (!s) return control_error("the daemon has published no status yet");
  const Micros now = clock_.now();  // the steady clock: safe from any thread
  if (name == "status") return ControlAnswer{true, r->json ? status_json(*s, now) : status_text(*s, now)};
  return ControlAnswer{true, r->json ? sminfo_json(*s) : sminfo_text(*s)};
}

ControlAnswer DaemonControl::handle(const ControlWords& words) {
  auto r = parse_control_request(words);
  if (!r.ok()) return control_error(r.status().message());
  ControlAnswer a = run(*r);
  log(log_, LogLevel::info, Subsystem::tools, "control: {}: {}", fmt::join(words, " "),
      a.ok ? "done" : a.body);
  publish(true);
  return a;
}

void DaemonControl::serve(ControlServer& server) {
  for (const std::string& e : server.take_events()) log(log_, LogLevel::warn, Subsystem::tools, "{}", e);
  server.run_pending([this](const ControlWords& w) { return handle(w); });
  publish();
}

ControlAnswer DaemonControl::run(const ControlRequest& r) {
  const std::string_view name = r.command->name;
  auto failed = [](const Status& s) { return control_error(s.message()); };
  if (name == "status" || name == "sminfo") {
    publish(true);
    ControlWords again{r.command->name};
    if (r.json) again.push_back("--json");
    return *immediate(again);
  }
  if (name == "resweep") {
    if (r.flag) {
      if (Status s = sm_.request_reroute(); !s.ok()) return failed(s);  // the same check: master only
      return done(r.json, "heavy sweep requested");
    }
    if (Status s = sm_.request_light_sweep(); !s.ok()) return failed(s);
    return done(r.json, "light sweep requested");
  }
  if (name == "reroute") {
    if (Status s = sm_.request_reroute(); !s.ok()) return failed(s);
    return done(r.json, "reroute requested: a heavy sweep routes afresh and programs what differs");
  }
  if (name == "loglevel") {
    const LogLevel level = *parse_level(r.argument);
    level_sink_.set_level(level);
    return done(r.json, fmt::format("log level {}", log_level_name(level)));
  }
  if (name == "dump") {
    const std::string dir = r.argument.empty() ? dump_dir_ : r.argument;
    if (dir.empty()) return control_error("dump: no directory given and dump_files_dir is not set");
    if (Status s = write_sm_dumps(dir, sm_); !s.ok()) return failed(s);
    return done(r.json, fmt::format("dumps written to {}", dir));
  }
  if (name == "handover") {
    auto to = sm_.request_handover();
    if (!to.ok()) return failed(to.status());
    return done(r.json, fmt::format("handing over to the sm at port {}", *to));
  }
  if (name == "disable") {
    if (Status s = sm_.disable(); !s.ok()) return failed(s);
    return done(r.json, "NOT ACTIVE");
  }
  if (name == "enable") {
    if (Status s = sm_.enable(); !s.ok()) return failed(s);
    return done(r.json, "DISCOVERING");
  }
  if (name == "release") {
    auto port = parse_port_words(r.argument);
    if (!port.ok()) return failed(port.status());
    if (Status s = sm_.release_quarantine(port->first, port->second); !s.ok()) return failed(s);
    return done(r.json, fmt::format("port {} of {} released: PortPhysicalState Polling, then a heavy sweep",
                                    port->second, port->first));
  }
  return control_error(fmt::format("{}: not implemented", name));
}

}  // namespace ibsm::tools
