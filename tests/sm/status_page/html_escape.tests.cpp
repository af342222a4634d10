#include "sm/status_page/html_escape.h"

#include <catch2/catch.hpp>

namespace ibsm::status {
namespace {

TEST_CASE("html_escape: markup characters and control bytes", "[status][escape]") {
  CHECK(html_escape("plain text 123") == "plain text 123");
  CHECK(html_escape("<script>alert('x')</script>") == "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
  CHECK(html_escape("a & b \"c\"") == "a &amp; b &quot;c&quot;");
  CHECK(html_escape(std::string("nul\0bell\a", 9)) == "nul&#xFFFD;bell&#xFFFD;");
  CHECK(html_escape("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 passes
}

}  // namespace
}  // namespace ibsm::status
