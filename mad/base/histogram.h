// A histogram's running state: observations counted into buckets with fixed
// upper bounds, and their sum. A plain value the core keeps (the manager's
// sweep durations, the SA's latencies) and the metrics registry renders as a
// Prometheus histogram; nothing here does I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

namespace ibsm::metrics {

class Histogram {
 public:
  Histogram() = default;
  // `upper_bounds` ascending; the +Inf bucket is implicit.
  explicit Histogram(std::initializer_list<double> upper_bounds);
  explicit Histogram(std::vector<double> upper_bounds);

  void observe(double value);

  const std::vector<double>& upper_bounds() const { return bounds_; }
  // Observations at or below upper_bounds()[i] (cumulative, as Prometheus
  // exposes them); cumulative_count(upper_bounds().size()) is the +Inf bucket,
  // equal to count().
  uint64_t cumulative_count(size_t bucket) const;
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative; one more than bounds_ (+Inf)
  uint64_t count_ = 0;
  double sum_ = 0;
};

// Bucket bounds in seconds for durations from a millisecond to a minute (a
// minute holds a cold heavy sweep of the full LID space under ibsim:
// bench/scale.sh).
std::vector<double> sweep_duration_buckets();
// Bucket bounds in seconds for a request answered by the SA: 50 us up to 5 s
// (an answer queued behind a heavy sweep waits for it).
std::vector<double> request_latency_buckets();

}  // namespace ibsm::metrics
