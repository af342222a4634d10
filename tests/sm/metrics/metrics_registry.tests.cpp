#include "sm/metrics/metrics_registry.h"

#include <cmath>

#include <catch2/catch.hpp>

using namespace ibsm::metrics;

TEST_CASE("a counter renders HELP, TYPE and its samples", "[metrics][registry]") {
  MetricsRegistry r;
  r.counter("ibsm_x_total", "Things done.", {{"kind", "b"}}, 2);
  r.counter("ibsm_x_total", "Things done.", {{"kind", "a"}}, 1);
  CHECK(r.render() ==
        "# HELP ibsm_x_total Things done.\n"
        "# TYPE ibsm_x_total counter\n"
        "ibsm_x_total{kind=\"a\"} 1\n"
        "ibsm_x_total{kind=\"b\"} 2\n");
}

TEST_CASE("families render in name order, each family's samples together", "[metrics][registry]") {
  MetricsRegistry r;
  r.gauge("ibsm_b", "B.", {}, 1);
  r.counter("ibsm_a_total", "A.", {{"x", "1"}}, 1);
  r.gauge("ibsm_b", "B.", {{"y", "2"}}, 3);
  r.counter("ibsm_a_total", "A.", {{"x", "2"}}, 4);
  CHECK(r.family_count() == 2);
  CHECK(r.render() ==
        "# HELP ibsm_a_total A.\n# TYPE ibsm_a_total counter\n"
        "ibsm_a_total{x=\"1\"} 1\nibsm_a_total{x=\"2\"} 4\n"
        "# HELP ibsm_b B.\n# TYPE ibsm_b gauge\n"
        "ibsm_b 1\nibsm_b{y=\"2\"} 3\n");
}

TEST_CASE("the same label set twice keeps the last value", "[metrics][registry]") {
  MetricsRegistry r;
  r.gauge("g", "G.", {{"a", "1"}}, 1);
  r.gauge("g", "G.", {{"a", "1"}}, 7);
  CHECK(r.render() == "# HELP g G.\n# TYPE g gauge\ng{a=\"1\"} 7\n");
}

TEST_CASE("label values escape backslash, quote and newline; HELP backslash and newline", "[metrics][registry]") {
  CHECK(escape_label_value("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
  CHECK(escape_help("a\\b\"c\nd") == "a\\\\b\"c\\nd");
  MetricsRegistry r;
  r.gauge("g", "line one\nback\\slash", {{"node", "sw \"1\"\n"}}, 1);
  CHECK(r.render() == "# HELP g line one\\nback\\\\slash\n# TYPE g gauge\ng{node=\"sw \\\"1\\\"\\n\"} 1\n");
}

TEST_CASE("values: integers plainly, fractions shortest, infinities and NaN by name", "[metrics][registry]") {
  CHECK(format_value(0) == "0");
  CHECK(format_value(42) == "42");
  CHECK(format_value(0.25) == "0.25");
  CHECK(format_value(1e300 * 1e300) == "+Inf");
  CHECK(format_value(-1e300 * 1e300) == "-Inf");
  CHECK(format_value(std::nan("")) == "NaN");
}

TEST_CASE("names: metric and label names as the format allows them", "[metrics][registry]") {
  CHECK(valid_metric_name("ibsm_sweeps_total"));
  CHECK(valid_metric_name(":a:b"));
  CHECK_FALSE(valid_metric_name(""));
  CHECK_FALSE(valid_metric_name("1abc"));
  CHECK_FALSE(valid_metric_name("a-b"));
  CHECK(valid_label_name("kind"));
  CHECK_FALSE(valid_label_name("__name__"));
  CHECK_FALSE(valid_label_name("le"));
  CHECK_FALSE(valid_label_name("a:b"));
  CHECK_FALSE(valid_label_name("9"));
}

TEST_CASE("a histogram renders cumulative buckets, +Inf, sum and count", "[metrics][registry]") {
  Histogram h{0.1, 1};
  h.observe(0.05);
  h.observe(0.1);  // le is "less than or equal"
  h.observe(0.5);
  h.observe(3);
  CHECK(h.cumulative_count(0) == 2);
  CHECK(h.cumulative_count(1) == 3);
  CHECK(h.cumulative_count(2) == 4);
  CHECK(h.count() == 4);
  CHECK(h.sum() == Approx(3.65));
  MetricsRegistry r;
  r.histogram("d_seconds", "D.", {{"kind", "heavy"}}, h);
  CHECK(r.render() ==
        "# HELP d_seconds D.\n# TYPE d_seconds histogram\n"
        "d_seconds_bucket{kind=\"heavy\",le=\"0.1\"} 2\n"
        "d_seconds_bucket{kind=\"heavy\",le=\"1\"} 3\n"
        "d_seconds_bucket{kind=\"heavy\",le=\"+Inf\"} 4\n"
        "d_seconds_sum{kind=\"heavy\"} 3.65\n"
        "d_seconds_count{kind=\"heavy\"} 4\n");
}

TEST_CASE("an empty histogram has every bucket at zero", "[metrics][registry]") {
  MetricsRegistry r;
  r.histogram("d", "D.", {}, Histogram(sweep_duration_buckets()));
  const std::string text = r.render();
  CHECK(text.find("d_bucket{le=\"+Inf\"} 0\n") != std::string::npos);
  CHECK(text.find("d_bucket{le=\"60\"} 0\n") != std::string::npos);
  CHECK(text.find("d_count 0\n") != std::string::npos);
  Histogram bare;
  bare.observe(2);
  CHECK(bare.cumulative_count(0) == 1);
}
