// The metrics registry: counter, gauge and histogram families with their
// HELP, TYPE and labelled samples, rendered in the Prometheus text exposition
// format 0.0.4 (https://prometheus.io/docs/instrumenting/exposition_formats/).
// It does no I/O: the edge serves the string render() returns.
//
// A collector fills a fresh registry with the values of the moment (the SM's
// own counters stay where they are counted), so a family's samples are
// always together and the order is deterministic: families by name, samples
// by label set. Names are constants of the code: a bad name or a family
// declared twice with different types is a programming error (assert) and
// the sample is dropped.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mad/base/histogram.h"

namespace ibsm::metrics {

enum class MetricType { counter, gauge, histogram };

// Label name and value pairs, in the order they are rendered.
// A count as a sample value (the exposition format's values are floats).
inline double as_double(uint64_t v) { return static_cast<double>(v); }

using Labels = std::vector<std::pair<std::string, std::string>>;

// [a-zA-Z_:][a-zA-Z0-9_:]*
bool valid_metric_name(std::string_view name);
// [a-zA-Z_][a-zA-Z0-9_]*, and not one of the reserved "__" names; "le" is
// the histogram's own.
bool valid_label_name(std::string_view name);
// The escapes of the text format: a label value escapes backslash, double
// quote and newline; HELP text only backslash and newline.
std::string escape_label_value(std::string_view value);
std::string escape_help(std::string_view help);
// A sample value as the format writes it: shortest round-trip decimal,
// "+Inf", "-Inf", "NaN".
std::string format_value(double value);

class MetricsRegistry {
 public:
  // The same labels given twice in one family: the last value counts.
  void counter(std::string_view name, std::string_view help, Labels labels, double value);
  void gauge(std::string_view name, std::string_view help, Labels labels, double value);
  void histogram(std::string_view name, std::string_view help, Labels labels, const Histogram& histogram);

  size_t family_count() const { return families_.size(); }
  // Every family, in name order: "# HELP", "# TYPE", then its samples; each
  // line ends with "\n".
  std::string render() const;

 private:
  struct Family {
    MetricType type = MetricType::gauge;
    std::string help;
    std::map<Labels, double> values;          // counters and gauges
    std::map<Labels, Histogram> histograms;   // histograms
  };
  Family* family(std::string_view name, std::string_view help, MetricType type, const Labels& labels);

  std::map<std::string, Family, std::less<>> families_;
};

}  // namespace ibsm::metrics
