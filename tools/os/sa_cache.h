// The SA's registrations in the SM's cache folder (the edge's half of
// sa/registrations_codec.h): read once at start and imported into the SA
// before the first sweep; saved as they change, at most once a second and
// at stop, atomically (write_file_atomically), so a kill -9 at any moment
// leaves the last complete save.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "sa/agent.h"
#include "sa/registrations_codec.h"

namespace ibsm {

inline constexpr const char* sa_cache_file = "ibsm-sa-registrations";

// What dir/ibsm-sa-registrations holds that still holds now (the wall
// clock): nullopt when there is no such file, or when it does not decode
// (said in `warnings`; the SM then starts without registrations, and its
// first save replaces the file).
std::optional<sa::RestoredRegistrations> load_sa_cache(const std::string& dir, std::vector<std::string>& warnings);

// The wall clock as the codec counts it: unix milliseconds.
int64_t unix_now_ms();

class SaCacheWriter {
 public:
  // `agent` as it is now (after the restored registrations were imported)
  // counts as saved.
  SaCacheWriter(std::string dir, const sa::SaAgent& agent, LogSink& log, Micros min_interval = 1'000'000);

  // After each poll of the manager (`now` its clock): saves when the
  // registrations changed and `min_interval` has passed since the last save.
  void poll(const sa::SaAgent& agent, Micros now);
  // At stop: saves what changed since the last save, interval or not.
  void flush(const sa::SaAgent& agent, Micros now);
  uint64_t saves() const { return saves_; }

 private:
  void save(const sa::SaAgent& agent, Micros now);

  std::string dir_;
  LogSink& log_;
  Micros min_interval_;
  uint64_t saved_changes_;
  std::optional<Micros> last_save_;
  uint64_t saves_ = 0;
};

}  // namespace ibsm
