#include "mad/base/histogram.h"

#include <algorithm>
#include <cassert>

namespace ibsm::metrics {

Histogram::Histogram(std::initializer_list<double> upper_bounds) : Histogram(std::vector<double>(upper_bounds)) {}

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), counts_(bounds_.size() + 1, 0) {
  assert(std::is_sorted(bounds_.begin(), bounds_.end()));
}

void Histogram::observe(double value) {
  if (counts_.empty()) counts_.assign(1, 0);  // default-constructed: the +Inf bucket only
  // The first bucket whose bound is not below the value: Prometheus buckets
  // are "less than or equal" (le).
  const auto bucket = static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
  ++counts_[bucket];
  ++count_;
  sum_ += value;
}

uint64_t Histogram::cumulative_count(size_t bucket) const {
  uint64_t n = 0;
  for (size_t i = 0; i <= bucket && i < counts_.size(); ++i) n += counts_[i];
  return n;
}

std::vector<double> sweep_duration_buckets() {
  return {0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

std::vector<double> request_latency_buckets() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5};
}

}  // namespace ibsm::metrics
