#include "tools/os/sa_cache.h"

#include <chrono>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "tools/os/files.h"

namespace ibsm {

int64_t unix_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::optional<sa::RestoredRegistrations> load_sa_cache(const std::string& dir, std::vector<std::string>& warnings) {
  const std::string path = (std::filesystem::path(dir) / sa_cache_file).string();
  std::error_code ec;
  if (dir.empty() || !std::filesystem::exists(path, ec)) return std::nullopt;
  auto text = read_text_file(path);
  if (!text.ok()) {
    warnings.push_back(fmt::format("sa registrations not restored: {}", text.status().message()));
    return std::nullopt;
  }
  auto saved = sa::decode_registrations(*text, path);
  if (!saved.ok()) {
    warnings.push_back(fmt::format("sa registrations not restored: {}", saved.status().message()));
    return std::nullopt;
  }
  return sa::restore_registrations(std::move(*saved), unix_now_ms());
}

SaCacheWriter::SaCacheWriter(std::string dir, const sa::SaAgent& agent, LogSink& log, Micros min_interval)
    : dir_(std::move(dir)), log_(log), min_interval_(min_interval), saved_changes_(agent.registrations_changes()) {}

void SaCacheWriter::poll(const sa::SaAgent& agent, Micros now) {
  if (agent.registrations_changes() == saved_changes_) return;
  if (last_save_ && now - *last_save_ < min_interval_) return;
  save(agent, now);
}

void SaCacheWriter::flush(const sa::SaAgent& agent, Micros now) {
  if (agent.registrations_changes() != saved_changes_) save(agent, now);
}

void SaCacheWriter::save(const sa::SaAgent& agent, Micros now) {
  // A failed save is tried again after the interval, not at every poll.
  last_save_ = now;
  if (dir_.empty()) return;
  const uint64_t changes = agent.registrations_changes();
  const sa::SaRegistrations regs = agent.registrations(now);
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  const std::string path = (std::filesystem::path(dir_) / sa_cache_file).string();
  Status s = ec ? unavailable_error(fmt::format("cannot create {}: {}", dir_, ec.message()))
                : write_file_atomically(path, sa::encode_registrations(regs, unix_now_ms()));
  if (!s.ok()) {
    log(log_, LogLevel::warn, Subsystem::sa, "sa registrations not saved: {}", s.message());
    return;
  }
  saved_changes_ = changes;
  ++saves_;
  log(log_, LogLevel::debug, Subsystem::sa, "saved {} services, {} subscriptions and {} multicast members to {}",
      regs.services.size(), regs.subscriptions.size(), regs.multicast.size(), path);
}

}  // namespace ibsm
