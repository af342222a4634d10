#include "sm/metrics/metrics_registry.h"

#include <cassert>
#include <cmath>

#include <fmt/format.h>

namespace ibsm::metrics {
namespace {

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

const char* type_name(MetricType t) {
  switch (t) {
    case MetricType::counter: return "counter";
    case MetricType::gauge: return "gauge";
    case MetricType::histogram: return "histogram";
  }
  return "untyped";
}

// `{a="x",b="y"}`, with `extra` (a histogram's le) last; nothing for no labels.
void append_labels(std::string& out, const Labels& labels, const std::pair<std::string, std::string>* extra = nullptr) {
  if (labels.empty() && !extra) return;
  out += '{';
  bool first = true;
  auto one = [&](const std::pair<std::string, std::string>& l) {
    if (!first) out += ',';
    first = false;
    out += l.first;
    out += "=\"";
    out += escape_label_value(l.second);
    out += '"';
  };
  for (const auto& l : labels) one(l);
  if (extra) one(*extra);
  out += '}';
}

void append_sample(std::string& out, std::string_view name, const Labels& labels, double value,
                   const std::pair<std::string, std::string>* extra = nullptr) {
  out += name;
  append_labels(out, labels, extra);
  out += ' ';
  out += format_value(value);
  out += '\n';
}

}  // namespace

bool valid_metric_name(std::string_view name) {
  if (name.empty() || !(name_start(name[0]) || name[0] == ':')) return false;
  for (char c : name)
    if (!name_char(c) && c != ':') return false;
  return true;
}

bool valid_label_name(std::string_view name) {
  if (name.empty() || !name_start(name[0]) || name.starts_with("__") || name == "le") return false;
  for (char c : name)
    if (!name_char(c)) return false;
  return true;
}

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_help(std::string_view help) {
  std::string out;
  out.reserve(help.size());
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

MetricsRegistry::Family* MetricsRegistry::family(std::string_view name, std::string_view help, MetricType type,
                                                 const Labels& labels) {
  bool labels_ok = true;
  for (const auto& l : labels) labels_ok = labels_ok && valid_label_name(l.first);
  assert(valid_metric_name(name) && labels_ok);
  if (!valid_metric_name(name) || !labels_ok) return nullptr;
  auto it = families_.find(name);
  if (it == families_.end()) {
    it = families_.emplace(std::string(name), Family{}).first;
    it->second.type = type;
    it->second.help = std::string(help);
  }
  assert(it->second.type == type);
  return it->second.type == type ? &it->second : nullptr;
}

void MetricsRegistry::counter(std::string_view name, std::string_view help, Labels labels, double value) {
  if (Family* f = family(name, help, MetricType::counter, labels)) f->values[std::move(labels)] = value;
}

void MetricsRegistry::gauge(std::string_view name, std::string_view help, Labels labels, double value) {
  if (Family* f = family(name, help, MetricType::gauge, labels)) f->values[std::move(labels)] = value;
}

void MetricsRegistry::histogram(std::string_view name, std::string_view help, Labels labels,
                                const Histogram& histogram) {
  if (Family* f = family(name, help, MetricType::histogram, labels)) f->histograms[std::move(labels)] = histogram;
}

std::string MetricsRegistry::render() const {
  std::string out;
  for (const auto& [name, f] : families_) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escape_help(f.help), name, type_name(f.type));
    for (const auto& [labels, value] : f.values) append_sample(out, name, labels, value);
    for (const auto& [labels, h] : f.histograms) {
      const std::string bucket = name + "_bucket";
      const auto& bounds = h.upper_bounds();
      for (size_t i = 0; i <= bounds.size(); ++i) {
        const std::pair<std::string, std::string> le{
            "le", i < bounds.size() ? format_value(bounds[i]) : std::string("+Inf")};
        append_sample(out, bucket, labels, static_cast<double>(h.cumulative_count(i)), &le);
      }
      append_sample(out, name + "_sum", labels, h.sum());
      append_sample(out, name + "_count", labels, static_cast<double>(h.count()));
    }
  }
  return out;
}

}  // namespace ibsm::metrics
